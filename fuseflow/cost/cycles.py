"""The cycle model: one rule for the simulator (which measures a region's token counts on its
data) and the estimate (which predicts them from the data's statistics).

* Every primitive handles one token per cycle per lane. A token is a scalar, or under a
  stream shape (vector width) or block mode a tile of several elements: the executors count
  tiles as distinct coarsened coordinate paths, so a half-empty block costs a whole cycle.
* A fork at a level deals its coordinates to lanes round-robin; the lanes of a primitive are
  the product of the par factors on its path, folded onto the hardware's `lanes`. A primitive
  takes (tiles of its busiest lane) + (stop tokens shared over its lanes) + 1 (done) cycles.
  The busiest lane is measured on the data, so skewed fibers show up as imbalance. The fork
  and the lane join pass one token per cycle for all lanes together, as SAM's parallelizer
  does; the join merges the op's output (each lane closes its own reductions first).
  As in the reference, a reducer spends one more cycle on each higher-order stop it emits,
  and a sparse accumulator, which emits a row while it takes the next one, adds to its input's
  cycles only its last row (a mean row of its output), that row's closing stop and its done.
* A fused region is a pipeline: it takes as long as its slowest stage (times the queue stall
  of bounded queues, `simulator.pipeline`), but no less than its memory term (DRAM lines at
  `memory_bytes_per_cycle` plus the latency its gathers expose, fuseflow.cost.dram) nor its
  arithmetic at `peak_ops_per_cycle`, plus the fill latency (one cycle per primitive on the
  longest path, plus `pipeline_fill_cycles`).
* Regions run one after another. A region's class (memory- or compute-bound) follows
  `fuseflow.cost.bounds`, the rule the estimate uses too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fuseflow.cost.bounds import MEMORY_BOUND, region_class
from fuseflow.cost.hardware import Hardware
from fuseflow.cost.tokens import Counts
from fuseflow.lower.plan import RegionPlan


#: what a region's cycles are set by (its largest term; the others overlap with it)
BOUNDS = ("primitive", "memory", "arithmetic")


@dataclass
class Timing:
    cycles: float              # bound_cycles + fill_cycles
    compute_cycles: float      # the slowest primitive's cycles
    memory_cycles: float
    arithmetic_cycles: float
    fill_cycles: int
    bottleneck: str            # the slowest primitive (Primitive.describe), or "memory" / "arithmetic"
    executed_ops: int          # ALU operations and accumulations, including the zeros inside tiles
    bound: str = "primitive"   # one of BOUNDS
    queue_stall: float = 1.0   # slowest primitive's slowdown under back-pressure (included in compute_cycles)
    queue_model: str = "unbounded"   # how the stall was found (queue_model)

    @property
    def bound_cycles(self) -> float:
        """The largest term: the slowest primitive, memory or arithmetic (the others hide under it)."""
        return max(self.compute_cycles, self.memory_cycles, self.arithmetic_cycles)

    @property
    def roofline(self) -> str:
        return region_class(self.memory_cycles, max(self.compute_cycles, self.arithmetic_cycles))

    def to_dict(self) -> dict:
        return {"cycles": self.cycles, "bound": self.bound, "bound_cycles": self.bound_cycles,
                "compute_cycles": self.compute_cycles, "memory_cycles": self.memory_cycles,
                "arithmetic_cycles": self.arithmetic_cycles, "fill_cycles": self.fill_cycles,
                "bottleneck": self.bottleneck, "roofline": self.roofline,
                "queue_stall": self.queue_stall, "queue_model": self.queue_model}


def _folded_lanes(counts: Counts, hw: Hardware) -> np.ndarray:
    lanes = np.asarray(counts.lanes if counts.lanes else (counts.tiles,), dtype=np.float64)
    if len(lanes) > hw.lanes:
        folded = np.zeros(hw.lanes, dtype=np.float64)
        np.add.at(folded, np.arange(len(lanes)) % hw.lanes, lanes)
        lanes = folded
    return lanes


def primitive_cycles(counts: Counts, hw: Hardware, emitted: Counts | None = None, kind: str = "") -> float:
    """Cycles of one primitive. A reducer also spends a cycle on each stop of a higher order it
    emits, and a sparse accumulator emits its last row after its input ends (`emitted`: the
    counts of the stream it emits)."""
    if kind == "fork":
        # the serial side of a lane boundary passes one token per cycle for all lanes together
        return float(counts.tiles) + counts.fibers + 1
    if kind == "join" and emitted is not None:
        # the lanes' streams merge once each lane has closed its own reductions: the merge passes
        # the op's output, one token per cycle for all lanes together
        return float(emitted.tiles) + emitted.fibers + 1
    lanes = counts.lanes if counts.lanes else (counts.tiles,)
    if isinstance(lanes, tuple) and len(lanes) <= hw.lanes:   # a predicted split: no folding, no arrays
        width, busiest = len(lanes), float(max(lanes))
    else:
        lanes = _folded_lanes(counts, hw)
        width, busiest = max(1, len(lanes)), float(lanes.max(initial=0))
    cycles = busiest + math.ceil(counts.fibers / width) + 1
    if emitted is not None and kind == "reduce":
        # one cycle per closed fiber that emits a stop after its sums (a bare stop passes on)
        cycles += math.ceil(min(emitted.stops, emitted.fibers) / width)
    elif emitted is not None and kind == "spacc":
        # it emits while it takes its input; after its input's done token, it still emits the last
        # row (the mean row of its output: the counts do not say which row is last), the row's
        # closing stop and the done token
        cycles += math.ceil(emitted.tiles / max(1, emitted.fibers)) + 2
    return cycles


def emitted_counts(plan: RegionPlan, counts: dict[int, Counts]) -> dict[int, Counts]:
    """Reducer / accumulator -> the counts of the stream it emits (its writer's input); lane join
    -> the largest stream its op emits (what the lanes' merge passes)."""
    out = {}
    for op in plan.ops:
        for edge in op.edges:
            target = counts[edge.drop_pid if edge.drop_pid is not None else edge.write_pid]
            if edge.reduce_pid is not None:
                out[edge.reduce_pid] = target
            if op.join is not None and (op.join not in out or target.tiles + target.fibers >
                                        out[op.join].tiles + out[op.join].fibers):
                out[op.join] = target
    return out


def longest_path(plan: RegionPlan) -> int:
    depth: dict[int, int] = {}
    for prim in plan.primitives:
        depth[prim.pid] = 1 + max((depth[i] for i in prim.inputs), default=0)
    return max(depth.values(), default=0)


def accumulations(plan: RegionPlan, counts: dict[int, Counts]) -> int:
    """Additions (or maxima) the reducers and accumulators execute, zeros inside tiles included:
    one per point of each reducing op, however many of its edges close the reduction."""
    total = 0
    for op in plan.ops:
        width = math.prod(op.coarsen.get(v, 1) for v in op.chain)
        total += max((counts[e.reduce_pid].tiles * width for e in op.edges if e.reduce_pid is not None
                      and any(m in ("sum", "max") for m in e.modes.values())), default=0)
    return total


def region_cycles(plan: RegionPlan, counts: dict[int, Counts], memory: float, hw: Hardware, stall: float = 1.0,
                  queue_model: str = "unbounded") -> Timing:
    """`memory`: the memory term, DRAM lines at the bandwidth plus the latency gathers expose
    (fuseflow.cost.traffic, `Traffic.memory_cycles`); `stall`: the slowest primitive's slowdown
    under back-pressure, as `queue_model` found it."""
    compute, slowest = 0, "none"
    executed = 0
    emitted = emitted_counts(plan, counts)
    for prim in plan.primitives:
        c = counts[prim.pid]
        cycles = primitive_cycles(c, hw, emitted.get(prim.pid), prim.kind)
        if cycles > compute:
            compute, slowest = cycles, prim.describe()
        if prim.kind == "alu":
            op = plan.op(prim.op)
            executed += prim.flops * c.tiles * math.prod(op.coarsen.get(v, 1) for v in op.chain)
    executed += accumulations(plan, counts)
    compute *= stall
    arithmetic = executed / hw.peak_ops_per_cycle
    fill = hw.pipeline_fill_cycles + longest_path(plan)
    if region_class(memory, max(compute, arithmetic)) == MEMORY_BOUND:
        bound, slowest = "memory", "memory"
    elif arithmetic > compute:
        bound, slowest = "arithmetic", "arithmetic"
    else:
        bound = "primitive"
    return Timing(max(compute, memory, arithmetic) + fill, compute, memory, arithmetic, fill, slowest, executed, bound,
                  stall, queue_model)
