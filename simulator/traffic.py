"""Off-chip traffic and the work counters of one region.

Compulsory bytes count each operand once and each result once, whatever the loop nest does
(the figure published for FuseFlow's GCN traffic is of this kind).

Reads: an operand that fits the on-chip buffer (`onchip_buffer_bytes`) is read from DRAM
once. A larger one is read as often as the loop nest visits it: `value_bytes` per value read
and `index_bytes` per coordinate and per fiber boundary (two positions) of its compressed
levels, counted by the executors as `Visits`. When several ops of a region read the same
operand, it streams once (the largest reader counts). Writes: every tensor leaving the region
is written once, at its stored size. Intermediates between ops of one region never reach DRAM.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuseflow.cost.hardware import Hardware
from fuseflow.lower.plan import RegionPlan
from simulator.counts import RegionRun

REDUCING = ("sum", "max")


@dataclass
class Traffic:
    read_bytes: float = 0.0
    write_bytes: float = 0.0
    compulsory_bytes: float = 0.0      # every operand read once, every result written once
    per_tensor: dict[str, dict] = field(default_factory=dict)

    @property
    def bytes(self) -> float:
        return self.read_bytes + self.write_bytes


def region_traffic(plan: RegionPlan, run: RegionRun, memory: dict, written: dict, hw: Hardware) -> Traffic:
    traffic = Traffic()
    reads: dict[tuple[str, tuple[str, ...]], float] = {}
    for op in plan.ops:
        for key, inp in op.inputs.items():
            if inp.kind == "buffer":
                continue
            tree = memory[inp.tensor]
            size = tree.stored_bytes(hw.value_bytes, hw.index_bytes)
            visits = run.visits[(op.name, key)]
            if size <= hw.onchip_buffer_bytes:
                amount = float(size)
            else:
                amount = float(hw.value_bytes * visits.values)
                for s, coords in visits.coords.items():
                    amount += hw.index_bytes * (coords + 2 * visits.fibers.get(s, 0))
            operand = (inp.tensor, inp.vars)
            if operand not in reads:
                traffic.compulsory_bytes += size
            reads[operand] = max(reads.get(operand, 0.0), amount)
    for (tensor, vars_), amount in reads.items():
        traffic.read_bytes += amount
        entry = traffic.per_tensor.setdefault(tensor, {"read": 0.0, "written": 0.0})
        entry["read"] += amount
    for tensor, tree in written.items():
        size = float(tree.stored_bytes(hw.value_bytes, hw.index_bytes))
        traffic.write_bytes += size
        traffic.compulsory_bytes += size
        traffic.per_tensor.setdefault(tensor, {"read": 0.0, "written": 0.0})["written"] += size
    return traffic


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
