"""The evaluation pane: the simulated figures of the sketch, its regions as bars."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from fuseflow.support.numbers import figure
from navigator.tui.safe_text import block, plain

if TYPE_CHECKING:
    from navigator.actions.evaluate_sketch import Evaluation

BAR_WIDTH = 24
#: regions drawn as bars (the rest are counted)
REGIONS_SHOWN = 6


class EvaluationPane(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def on_mount(self) -> None:
        self.border_title = "Evaluation"

    def show_running(self) -> None:
        self.update("evaluating… (the simulator runs in the background)")

    def show_cancelled(self) -> None:
        self.update(plain("evaluation cancelled (v: evaluate again)"))

    def show_no_simulator(self, what: str) -> None:
        self.update(f"a {what}: no simulator")

    def show_result(self, result: "Evaluation") -> None:
        lines = [f"{figure(result.cycles)} sim. cycles"
                 + (f" · {result.speedup:.2f}x over {result.baseline} ({figure(result.unfused_cycles)})"
                    if result.speedup else "")
                 + (f" · {result.completed_with_defaults} open hole(s) at their defaults"
                    if result.completed_with_defaults else ""),
                 f"{figure(result.flops)} FLOPs · {figure(result.bytes)} bytes · intensity {figure(result.intensity)} · "
                 f"{result.roofline} · check {result.check}"]
        largest = max((cycles for _, cycles in result.regions), default=0.0) or 1.0
        for ops, cycles in result.regions[:REGIONS_SHOWN]:
            bar = "█" * max(1, round(BAR_WIDTH * cycles / largest))
            lines.append(f"{bar:<{BAR_WIDTH}} {figure(cycles):>12}  {ops}")
        if len(result.regions) > REGIONS_SHOWN:
            lines.append(f"… and {len(result.regions) - REGIONS_SHOWN} more regions")
        self.update(block("\n".join(lines)))
