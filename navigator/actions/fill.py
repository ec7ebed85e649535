"""Fill a hole of a session, by hand or by a strategy: what `navigator fill` and the TUI's keys do.

A fill is one command of the session (one undo unit, with the forced steps it causes), all or
nothing, and the workspace is saved once it is taken. `strategy_context` is the one place a
strategy's view of a workspace is made: the space, when it has a tensor program to cost and
simulate, and how the simulator runs that program.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from navigator.auto import Scope, StrategyContext
from navigator.navigation.session_errors import SessionError

if TYPE_CHECKING:
    from navigator.auto.base import Plan, PlanningStrategy, Strategy
    from navigator.navigation.step_log import StepRecord
    from navigator.synth import Sketch
    from navigator.workspace.session_workspace import Workspace


def strategy_context(workspace: "Workspace", sketch: "Sketch | None" = None) -> StrategyContext:
    """What a strategy may look at in `workspace` (at `sketch`, when it plans ahead of the session)."""
    return StrategyContext.of(workspace.session, *_cost_and_simulation(workspace), viewed=sketch)


def _cost_and_simulation(workspace: "Workspace") -> tuple[Any, Any]:
    """The space for the cost model and how the simulator runs its program; (None, None) for a
    space with no tensor program, whose strategies can only follow the menus."""
    from navigator.evaluation.tasks import EvalConfig

    if workspace.space.tensor_program is None:
        return None, None
    return workspace.space, EvalConfig(workspace.spec)


def fill_hole(workspace: "Workspace", hole: int, *, option: str | None = None,
              strategy: "Strategy | PlanningStrategy | None" = None, scope: Scope = Scope.HOLE,
              rationale: str | None = None) -> list["StepRecord"]:
    """Fill `hole` with the offered `option`, or with `strategy` over `scope`, and save.

    On any exception (a StrategyFailure, Ctrl-C) the session is left as it was and nothing is saved."""
    from navigator.auto import fill

    session = workspace.session
    if not session.sketch.has_hole(hole):
        raise SessionError(f"?{hole} is not an open hole", where=str(workspace.path),
                           fix=session.not_open_hint(hole))
    with session.atomic(), session.command() as records:
        if strategy is None:
            session.apply(hole, option, by="user", rationale=rationale)
        else:
            space, evaluation = _cost_and_simulation(workspace)
            fill(session, hole, strategy, scope, space=space, evaluation=evaluation, rationale=rationale)
    workspace.save()
    return records


def take_plan(workspace: "Workspace", strategy: "PlanningStrategy", plan: "Plan", planned_on: "Sketch"
              ) -> list["StepRecord"]:
    """Take a plan made earlier (a worker's), if the sketch is still the one it was made on; save."""
    from fuseflow.support.errors import UserError
    from navigator.auto.driver import apply_plan

    session = workspace.session
    if session.sketch != planned_on:
        raise UserError("the sketch changed while the strategy was planning; its plan was dropped",
                        where="auto", fix="ask again")
    with session.atomic(), session.command() as records:
        apply_plan(session, strategy, plan)
    workspace.save()
    return records


def plan_ahead(workspace: "Workspace", strategy: "PlanningStrategy", hole: int, scope: Scope) -> tuple["Plan", Any]:
    """A planning strategy's plan for the scope, made on the current sketch without taking it;
    returns the plan and the sketch it was made on (for `take_plan`)."""
    sketch = workspace.session.sketch
    return strategy.plan(strategy_context(workspace, sketch), hole, scope), sketch
