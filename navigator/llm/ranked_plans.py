"""`--top K`: the model's best plans side by side, and the user's pick among them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from fuseflow.support.errors import UserError
from fuseflow.support.numbers import figure

if TYPE_CHECKING:
    from navigator.llm.strategy import Ranked


def format_ranked(ranked: list["Ranked"], top: int) -> str:
    """The `top` best plans: figures, the options the model chose, and its rationale."""
    lines = [f"The model's {min(top, len(ranked))} best plans (of {len(ranked)} ranked):"]
    for number, entry in enumerate(ranked[:top], start=1):
        simulated = f"simulated {figure(entry.simulated)} cycles, " if entry.simulated is not None else ""
        # the options by name (the ids the model used are only the prompt's numbering)
        ids = ", ".join(f"?{hole} := {option}" for p in entry.branch.proposals for hole, option in p.choices) \
            or "none (the rules' plan)"
        intensity = next((p.estimated_intensity for p in entry.branch.proposals
                          if p.estimated_intensity is not None), None)
        guess = f"; the model expects intensity {intensity:.3g}" if intensity is not None else ""
        lines.append(f"  {number}. {simulated}estimated {figure(entry.cost[0])} cycles, {figure(entry.cost[1])} bytes"
                     f"{guess}")
        lines.append(f"     chose {ids} ({entry.branch.by_model} of {len(entry.steps)} steps)")
        lines.append(f"     {entry.rationale}")
    return "\n".join(lines)


def chooser(top: int, pick: int | None, show: Callable[[str], None], ask: Callable[[str], str] | None):
    """A strategy chooser for `--top K [--pick N]`: shows the plans, then takes plan N, or asks
    (`ask`: a terminal's input), or takes the best when it can do neither."""

    def choose(ranked: list["Ranked"]) -> int:
        show(format_ranked(ranked, top))
        shown = min(top, len(ranked))
        if pick is not None:
            if pick > shown:
                raise UserError(f"--pick {pick}, but only {shown} plans were shown", where="--pick",
                                fix=f"--pick 1 to {shown}")
            return pick - 1
        if ask is None:
            show("taking plan 1 (no terminal to ask: --pick N chooses another)")
            return 0
        while True:
            try:
                answer = ask(f"take which plan? 1-{shown} (enter: 1, q: none) ").strip().lower()
            except EOFError:  # end of input: no answer is no plan
                answer = "q"
            if answer in ("", "1"):
                return 0
            if answer in ("q", "quit"):
                raise UserError("no plan taken: nothing was filled", where="--top",
                                fix="run the fill again and pick a plan, or leave out --top")
            if answer.isdigit() and 1 <= int(answer) <= shown:
                return int(answer) - 1
            show(f"answer a number from 1 to {shown}, or q")

    return choose
