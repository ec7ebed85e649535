"""Apply a strategy's choices to a session, one checked step at a time.

A fill stops after `max_steps` steps (MAX_AUTO_STEPS by default) with a ResourceError: the
default strategy always terminates (docs/engine.md#defaults), but it can still face
programs too large to build one step at a time.
"""

from __future__ import annotations

from fuseflow.memory import ResourceError
from navigator.auto.base import Strategy, StrategyContext, StrategyFailure
from navigator.session import Session, SessionError, StepRecord
from navigator.synth import CostFunction
from navigator.synth.budget import MAX_AUTO_STEPS


def _take(session: Session, strategy: Strategy, hole: int, rationale: str | None,
          cost: CostFunction | None) -> StepRecord:
    context = StrategyContext(session, session.menus(), cost if cost is not None else session.oracle.cost)
    choice = strategy.choose(context, hole)
    if context.menus.option(hole, choice.option) is None:
        raise StrategyFailure(f"strategy {strategy.name!r} chose {choice.option!r}, which is not offered "
                              f"at ?{hole}")
    return session.apply(hole, choice.option, by=strategy.provenance,
                         rationale=rationale if rationale is not None else choice.rationale)


def _too_many_steps(session: Session, strategy: Strategy, where: str, steps: int) -> ResourceError:
    return ResourceError(
        f"{strategy.name!r} took {steps:,} steps {where} and the sketch is still not complete: the "
        "library's programs there are too large to build one step at a time",
        where=", ".join(session.library.sources) or "the library",
        fix="fill the holes near the root by hand with options of small subtree counts (see the menu), "
            "or make the library's recursion end sooner")


def fill_with_strategy(session: Session, hole: int, strategy: Strategy, *, subtree: bool = False,
                       rationale: str | None = None, cost: CostFunction | None = None,
                       max_steps: int = MAX_AUTO_STEPS) -> list[StepRecord]:
    """Fill `hole`; with `subtree`, also every hole created beneath it, until none is left.

    Holes are filled in ascending order, the order the menus list them. `rationale`, when
    given, replaces the strategy's own on every step taken. At most `max_steps` steps. The
    fill is one command of the session (one undo unit); the steps returned include the
    forced steps that follow it when the session takes them.
    """
    if not session.sketch.has_hole(hole):
        raise SessionError(f"?{hole} is not an open hole", fix=session.not_open_hint(hole))
    with session.command() as steps:
        _fill_beneath(session, hole, strategy, subtree, rationale, cost, max_steps)
    return steps


def _fill_beneath(session: Session, hole: int, strategy: Strategy, subtree: bool, rationale: str | None,
                  cost: CostFunction | None, max_steps: int) -> None:
    taken: list[StepRecord] = []
    pending = [hole]
    while pending:
        if len(taken) >= max_steps:
            raise _too_many_steps(session, strategy, f"under ?{hole}", len(taken))
        current = pending.pop(0)
        first_new = session.sketch.next_hole
        taken.append(_take(session, strategy, current, rationale, cost))
        if subtree:
            pending.extend(range(first_new, session.sketch.next_hole))
            pending.sort()


def fill_open_holes(session: Session, strategy: Strategy, *, rationale: str | None = None,
                    cost: CostFunction | None = None, max_steps: int = MAX_AUTO_STEPS) -> list[StepRecord]:
    """Fill every open hole (and the holes they open) until the sketch is complete, in at
    most `max_steps` steps, as one command of the session."""
    with session.command() as steps:
        taken = 0
        while not session.sketch.complete:
            if taken >= max_steps:
                raise _too_many_steps(session, strategy, "filling the open holes", taken)
            _take(session, strategy, session.sketch.lowest_hole().id, rationale, cost)
            taken += 1
    return steps
