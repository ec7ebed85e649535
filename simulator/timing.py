"""The cycle model (docs/simulator.md has the derivation).

* Every primitive handles one token per cycle per lane. A token is a scalar, or under a
  stream shape (vector width) or block mode a tile of several elements: the executors count
  tiles as distinct coarsened coordinate paths, so a half-empty block costs a whole cycle.
* A fork at a level deals its coordinates to lanes round-robin; the lanes of a primitive are
  the product of the par factors on its path, folded onto the hardware's `lanes`. A primitive
  takes (tiles of its busiest lane) + (stop tokens shared over its lanes) + 1 (done) cycles.
  The busiest lane is measured on the data, so skewed fibers show up as imbalance.
* A fused region is a pipeline: it takes as long as its slowest stage, but no less than its
  DRAM traffic at `memory_bytes_per_cycle` nor its arithmetic at `peak_ops_per_cycle`, plus
  the fill latency (`pipeline_fill_cycles` + one cycle per primitive on the longest path).
* Regions run one after another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fuseflow.hardware import Hardware
from fuseflow.lower.plan import RegionPlan
from simulator.counts import Counts


@dataclass
class Timing:
    cycles: float
    compute_cycles: float
    memory_cycles: float
    arithmetic_cycles: float
    fill_cycles: int
    bottleneck: str            # the slowest primitive, or "memory" / "arithmetic"
    executed_ops: int          # ALU element operations including the zeros inside tiles

    def to_dict(self) -> dict:
        return {"cycles": self.cycles, "compute_cycles": self.compute_cycles, "memory_cycles": self.memory_cycles,
                "arithmetic_cycles": self.arithmetic_cycles, "fill_cycles": self.fill_cycles,
                "bottleneck": self.bottleneck}


def primitive_cycles(counts: Counts, hw: Hardware) -> float:
    lanes = np.asarray(counts.lanes if counts.lanes else (counts.tiles,), dtype=np.float64)
    if len(lanes) > hw.lanes:
        folded = np.zeros(hw.lanes, dtype=np.float64)
        np.add.at(folded, np.arange(len(lanes)) % hw.lanes, lanes)
        lanes = folded
    width = max(1, len(lanes))
    return float(lanes.max(initial=0)) + math.ceil(counts.fibers / width) + 1


def longest_path(plan: RegionPlan) -> int:
    depth: dict[int, int] = {}
    for prim in plan.primitives:
        depth[prim.pid] = 1 + max((depth[i] for i in prim.inputs), default=0)
    return max(depth.values(), default=0)


def region_timing(plan: RegionPlan, counts: dict[int, Counts], traffic_bytes: float, hw: Hardware) -> Timing:
    compute, slowest = 0, "none"
    executed = 0
    for prim in plan.primitives:
        c = counts[prim.pid]
        cycles = primitive_cycles(c, hw)
        if cycles > compute:
            compute, slowest = cycles, f"p{prim.pid} {prim.kind} ({prim.op})"
        if prim.kind == "alu":
            path = plan.op(prim.op).chain
            executed += c.tiles * math.prod(plan.coarsen.get(v, 1) for v in path)
    memory = traffic_bytes / hw.memory_bytes_per_cycle
    arithmetic = executed / hw.peak_ops_per_cycle
    fill = hw.pipeline_fill_cycles + longest_path(plan)
    bound = max(compute, memory, arithmetic)
    if bound == memory and memory > compute:
        slowest = "memory"
    elif bound == arithmetic and arithmetic > compute:
        slowest = "arithmetic"
    return Timing(bound + fill, compute, memory, arithmetic, fill, slowest, executed)
