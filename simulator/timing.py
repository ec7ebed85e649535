"""Cycles of a simulated region: the cost model's cycle rule (`fuseflow.cost.cycles`, where
docs/simulator.md's derivation is summed up) on the counts an executor measured, with the
stall of bounded queues found by stepping the region's pipeline (`simulator.pipeline`).
"""

from __future__ import annotations

from fuseflow.cost.cycles import Timing, region_cycles
from fuseflow.cost.hardware import Hardware
from fuseflow.lower.plan import RegionPlan
from simulator.counts import Counts
from simulator.pipeline import simulate


#: with bounded queues, the fast executor steps a region through the exact executor when it
#: emits at most this many tokens (about 0.1 s); beyond it its stall is 1, a lower bound whose
#: error docs/simulator.md measures
STEPPED_TOKENS = 20_000


def steps_fit(hw: Hardware, counts: dict[int, Counts]) -> bool:
    """Whether the fast executor steps this region's pipeline (bounded queues, few tokens)."""
    return hw.queue_depth > 0 and sum(c.data + c.stops for c in counts.values()) <= STEPPED_TOKENS


def queue_model(hw: Hardware, firings: dict | None) -> str:
    """How the region's queue stall was found: `unbounded` (no stall), `stepped` (the
    cycle-level pipeline) or `bound` (a large region of the fast executor: stall 1)."""
    return "unbounded" if not hw.queue_depth else "stepped" if firings else "bound"


def queue_stall(plan: RegionPlan, firings: dict | None, hw: Hardware) -> float:
    """How much longer the region's pipeline runs with queues of `queue_depth` tokens than with
    unbounded ones: the ratio of the two cycle-level simulations (`simulator.pipeline`) of the
    exact executor's steps. 1 without queue bounds, and for regions the fast executor does not
    step (too many tokens; docs/simulator.md states the error of that bound)."""
    if not hw.queue_depth or not firings:
        return 1.0
    unbounded = simulate(plan, firings, 0)
    return simulate(plan, firings, hw.queue_depth) / unbounded if unbounded else 1.0


def region_timing(plan: RegionPlan, counts: dict[int, Counts], memory: float, hw: Hardware,
                  firings: dict | None = None) -> Timing:
    """`memory`: the memory term (fuseflow.cost.traffic, `Traffic.memory_cycles`)."""
    return region_cycles(plan, counts, memory, hw, queue_stall(plan, firings, hw), queue_model(hw, firings))
