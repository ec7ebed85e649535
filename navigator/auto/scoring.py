"""Scoring complete sketches with the cost model (fuseflow.cost.estimate), counting each evaluation.

The key is (roofline cycles, bytes): fewer cycles first, then less memory traffic. The cost
model sees the fusion and the loop orders; parallel factors, stream shapes and block mode
do not change its figures (the simulator measures those), so candidates that differ only
there tie, and a search keeps the first it met.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from navigator.auto.base import StrategyError

if TYPE_CHECKING:
    from fuseflow.cost.hardware import Hardware
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.synth import Sketch

#: (roofline cycles, bytes)
Score = tuple[float, float]


def require_space(space: "ScheduleSpace | None", strategy: str) -> "ScheduleSpace":
    if space is None:
        raise StrategyError(f"the {strategy} strategy scores schedules with the cost model, and a Honeybee "
                            "problem has none", where="--auto",
                            fix="use --auto default, or start a session for a tensor program")
    return space


class CostModelScorer:
    """Scores complete sketches of one schedule space; `evaluations` counts the calls."""

    def __init__(self, space: "ScheduleSpace", hardware: "Hardware | None" = None):
        from fuseflow.cost.hardware import load_hardware

        self.space = space
        self.hardware = hardware if hardware is not None else load_hardware()
        self.evaluations = 0

    def score(self, sketch: "Sketch") -> Score:
        from fuseflow.cost.estimate import schedule_cost

        cost = schedule_cost(self.space.program, self.space.binding, self.space.schedule_of(sketch), self.hardware,
                             stats=self.space.statistics)
        self.evaluations += 1
        return cost.cycles, cost.bytes
