"""Evaluate a session's sketch with the simulator: what the TUI's evaluation panel shows.

The sketch is completed the way the strategies score a partial one (open holes at their
defaults), simulated through navigator.evaluation, and compared with the program's unfused
default schedule (`compare`'s `unfused_default_orders`, navigator.evaluation.baselines).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from fuseflow.support.errors import UserError

if TYPE_CHECKING:
    from navigator.workspace.session_workspace import Workspace


@dataclass
class Evaluation:
    """The simulated figures of a sketch (its open holes at their defaults)."""

    completed_with_defaults: int      # how many open holes took their default to evaluate it
    cycles: float
    flops: float
    bytes: float
    intensity: float
    roofline: str
    check: str
    regions: list[tuple[str, float]] = field(default_factory=list)   # (ops, cycles)
    unfused_cycles: float | None = None
    #: what unfused_cycles simulated: compare's baseline of that name (the compiler's default schedule)
    baseline: str = "unfused_default_orders"

    @property
    def speedup(self) -> float | None:
        return self.unfused_cycles / self.cycles if self.unfused_cycles and self.cycles else None


def evaluate_sketch(workspace: "Workspace", sketch=None, *, cancelled: Callable[[], bool] = lambda: False
                    ) -> Evaluation:
    """Simulate `sketch` (default: the session's), its open holes at their defaults, and then,
    unless `cancelled()` says to stop, the unfused default schedule it is compared with."""
    from fuseflow.schedule import default_schedule
    from navigator.auto.scope import complete_for_scoring
    from navigator.evaluation.tasks import EvalConfig, load_inputs, simulate

    space, spec = workspace.space, workspace.spec
    if space.tensor_program is None:
        raise UserError(f"a {spec.space_kind.label or space.noun} has no simulator", where="evaluate",
                        fix=f"export its {space.product} instead (e)")
    sketch = workspace.session.sketch if sketch is None else sketch
    schedule = space.schedule_of(complete_for_scoring(space.oracle, sketch))
    inputs = load_inputs(spec, None, None)
    result = simulate(inputs, schedule, EvalConfig(spec))
    unfused = None
    if not cancelled():
        unfused = simulate(inputs, default_schedule(space.program), EvalConfig(spec, check=False))["cycles"]
    return Evaluation(len(sketch.holes()), result["cycles"], result["flops"], result["bytes"],
                      result.get("intensity") or (result["flops"] / result["bytes"] if result["bytes"] else 0.0),
                      str(result.get("roofline", "")), _check_text(result),
                      [("+".join(r["ops"]), r["cycles"]) for r in result["regions"]], unfused)


def _check_text(result: dict) -> str:
    check = result.get("check")
    if isinstance(check, dict):
        return "passed" if check.get("passed") else f"FAILED: {check.get('message', '')}"
    return str(check) if check is not None else "not checked"
