"""Apply a strategy's choices to a session, one checked step at a time.

`fill` is the entry point for both kinds of strategy (navigator.auto.base): a planning
strategy's plan is applied step by step through the session, which checks each step
against the menus; either way the fill is one command of the session and all or nothing.

A fill stops after `max_steps` steps (MAX_AUTO_STEPS by default) with a ResourceError: the
default strategy always terminates (docs/engine.md#defaults), but it can still face
programs too large to build one step at a time.
"""

from __future__ import annotations

from fuseflow.support.memory import ResourceError
from typing import TYPE_CHECKING

from navigator.auto.base import Plan, PlanningStrategy, Scope, Strategy, StrategyContext, StrategyFailure
from navigator.navigation.session import Session
from navigator.navigation.session_errors import SessionError
from navigator.navigation.step_log import StepRecord
from navigator.synth.lookup_budget import MAX_AUTO_STEPS

if TYPE_CHECKING:
    from navigator.evaluation.tasks import EvalConfig
    from navigator.fuseflow.schedule_space import ScheduleSpace


def fill(session: Session, hole: int, strategy: "Strategy | PlanningStrategy", scope: Scope = Scope.HOLE, *,
         space: "ScheduleSpace | None" = None, evaluation: "EvalConfig | None" = None,
         rationale: str | None = None, max_steps: int = MAX_AUTO_STEPS) -> list[StepRecord]:
    """Fill `hole` (and, by `scope`, the holes beneath it or every open hole) with `strategy`,
    as one command of the session. On any exception, Ctrl-C included, the session is left
    as it was. `evaluation` says how the simulator runs the program, for strategies that
    confirm candidates with it. `rationale`, when given, replaces the strategy's own on every step."""
    if not session.sketch.has_hole(hole):
        raise SessionError(f"?{hole} is not an open hole", fix=session.not_open_hint(hole))
    with session.atomic():
        if not hasattr(strategy, "plan"):
            if scope is Scope.ALL:
                return fill_open_holes(session, strategy, rationale=rationale, max_steps=max_steps)
            return fill_with_strategy(session, hole, strategy, subtree=scope is Scope.SUBTREE,
                                      rationale=rationale, max_steps=max_steps)
        context = StrategyContext.of(session, space, evaluation)
        plan = strategy.plan(context, hole, scope)
        with session.command() as steps:
            apply_plan(session, strategy, plan, rationale)
    return steps


def apply_plan(session: Session, strategy: "PlanningStrategy", plan: Plan, rationale: str | None = None) -> None:
    """Take a plan's steps in order, each recorded with the strategy's provenance and figures."""
    figures = plan.figures
    planned = plan.sketches if len(plan.sketches) == len(plan.steps) else (None,) * len(plan.steps)
    for step, sketch in zip(plan.steps, planned):
        menus = session.menus()
        if not session.sketch.has_hole(step.hole) or menus.option(step.hole, step.option) is None:
            raise StrategyFailure(f"strategy {strategy.name!r} planned ?{step.hole} := {step.option!r}, which "
                                  "is not offered")
        session.apply(step.hole, step.option, by=plan.provenance or strategy.provenance,
                      rationale=rationale if rationale is not None else plan.rationale, figures=figures,
                      expected=sketch)


def _take(session: Session, strategy: Strategy, hole: int, rationale: str | None) -> StepRecord:
    context = StrategyContext.of(session)
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
                       rationale: str | None = None,
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
        _fill_beneath(session, hole, strategy, subtree, rationale, max_steps)
    return steps


def _fill_beneath(session: Session, hole: int, strategy: Strategy, subtree: bool, rationale: str | None,
                  max_steps: int) -> None:
    taken: list[StepRecord] = []
    pending = [hole]
    while pending:
        if len(taken) >= max_steps:
            raise _too_many_steps(session, strategy, f"under ?{hole}", len(taken))
        current = pending.pop(0)
        first_new = session.sketch.next_hole
        taken.append(_take(session, strategy, current, rationale))
        if subtree:
            pending.extend(range(first_new, session.sketch.next_hole))
            pending.sort()


def fill_open_holes(session: Session, strategy: Strategy, *, rationale: str | None = None,
                    max_steps: int = MAX_AUTO_STEPS) -> list[StepRecord]:
    """Fill every open hole (and the holes they open) until the sketch is complete, in at
    most `max_steps` steps, as one command of the session."""
    with session.command() as steps:
        taken = 0
        while not session.sketch.complete:
            if taken >= max_steps:
                raise _too_many_steps(session, strategy, "filling the open holes", taken)
            _take(session, strategy, session.sketch.lowest_hole().id, rationale)
            taken += 1
    return steps
