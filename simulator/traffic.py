"""The traffic and work counters of one simulated region, measured on its data.

The rule that turns reads and writes into DRAM lines, gathers and on-chip state is the cost
model's (`fuseflow.cost.traffic`); here it is applied to what an executor measured: the
operands' stored arrays and the results as written (simulator.blocks for block storage).
"""

from __future__ import annotations

from fuseflow.cost.hardware import Hardware
from fuseflow.cost.traffic import Traffic, region_traffic
from fuseflow.lower.plan import RegionPlan
from simulator.blocks import stored_arrays
from simulator.counts import RegionRun

REDUCING = ("sum", "max")


def measured_traffic(plan: RegionPlan, run: RegionRun, memory: dict, written: dict, hw: Hardware) -> Traffic:
    """`memory`: tensor -> FiberTree of every input; `written`: tensor -> FiberTree of each result."""
    vb, ib = hw.value_bytes, hw.index_bytes
    return region_traffic(plan, run, lambda tensor, edges: stored_arrays(memory[tensor], vb, ib, edges),
                          {tensor: tree.array_bytes(vb, ib) for tensor, tree in written.items()}, hw)


def region_counters(plan: RegionPlan, run: RegionRun, written: dict) -> dict[str, int]:
    """ops: ALU operations (a gelu counts as its 9); reductions: accumulations in reducers; reads and writes of values
    and coordinates at the memory boundary."""
    alus = {p.pid: p.flops for p in plan.primitives if p.kind == "alu"}
    ops = sum(c.data * alus[pid] for pid, c in run.counts.items() if pid in alus)
    reductions = 0
    for op in plan.ops:
        # One accumulation per point, however many edges close it (each edge has its own reducer).
        reductions += max((run.counts[edge.reduce_pid].data for edge in op.edges
                           if edge.reduce_pid is not None and any(m in REDUCING for m in edge.modes.values())),
                          default=0)
    value_reads = sum(v.values for v in run.visits.values())
    coord_reads = sum(sum(v.coords.values()) for v in run.visits.values())
    value_writes = sum(int(t.stored()) for t in written.values())
    coord_writes = sum(sum(len(c) for c in t.crd if c is not None) for t in written.values())
    return {"ops": int(ops), "reductions": int(reductions), "value_reads": int(value_reads),
            "coord_reads": int(coord_reads), "value_writes": value_writes, "coord_writes": int(coord_writes)}
