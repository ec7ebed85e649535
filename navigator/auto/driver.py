"""Apply a strategy's choices to a session, one checked step at a time."""

from __future__ import annotations

from navigator.auto.base import Strategy, StrategyContext, StrategyFailure
from navigator.session import Session, SessionError, StepRecord
from navigator.synth import CostFunction


def _take(session: Session, strategy: Strategy, hole: int, rationale: str | None,
          cost: CostFunction | None) -> StepRecord:
    context = StrategyContext(session, session.menus(), cost if cost is not None else session.oracle.cost)
    choice = strategy.choose(context, hole)
    if context.menus.option(hole, choice.option) is None:
        raise StrategyFailure(f"strategy {strategy.name!r} chose {choice.option!r}, which is not offered "
                              f"at ?{hole}")
    return session.apply(hole, choice.option, by=strategy.provenance,
                         rationale=rationale if rationale is not None else choice.rationale)


def fill_with_strategy(session: Session, hole: int, strategy: Strategy, *, subtree: bool = False,
                       rationale: str | None = None, cost: CostFunction | None = None) -> list[StepRecord]:
    """Fill `hole`; with `subtree`, also every hole created beneath it, until none is left.

    Holes are filled in ascending order, the order the menus list them. `rationale`, when
    given, replaces the strategy's own on every step taken.
    """
    if not session.sketch.has_hole(hole):
        open_holes = " ".join(f"?{h.id}" for h in session.sketch.holes()) or "none (the sketch is complete)"
        raise SessionError(f"?{hole} is not an open hole", fix=f"open holes: {open_holes}")
    taken: list[StepRecord] = []
    pending = [hole]
    while pending:
        current = pending.pop(0)
        first_new = session.sketch.next_hole
        taken.append(_take(session, strategy, current, rationale, cost))
        if subtree:
            pending.extend(range(first_new, session.sketch.next_hole))
            pending.sort()
    return taken


def fill_open_holes(session: Session, strategy: Strategy, *, rationale: str | None = None,
                    cost: CostFunction | None = None) -> list[StepRecord]:
    """Fill every open hole (and the holes they open) until the sketch is complete."""
    taken: list[StepRecord] = []
    while not session.sketch.complete:
        taken.append(_take(session, strategy, session.sketch.holes()[0].id, rationale, cost))
    return taken
