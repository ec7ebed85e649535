"""Symbolic cost estimate: FLOPs, bytes, operational intensity and roofline class.

The model (docs/cost-model.md has the derivation and a worked example):

* A region runs as one loop nest over its dataflow order. Each op sits at the depth of its
  innermost own variable, so it runs once per point of the loop prefix down to that depth.
  Variables of other ops that sit above it multiply its work: that is recomputation. The
  exception is a reduction the consumer waits for (fuseflow.analysis.contexts has the rule).
* A prefix's point count is the product of its extents, thinned by every sparse operand whose
  compressed level lies in the prefix (its stored fraction over the levels in the prefix),
  assuming independent sparsity patterns.
* An operand is read from memory once if it fits the on-chip buffer; otherwise once per time
  the loop nest revisits its stored elements. Region results are written once, and
  intermediates that cross a region boundary are written by one region and read by the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuseflow.program.binding import Binding
from fuseflow.cost.bounds import ScheduleBound, region_class, schedule_bound
from fuseflow.analysis.contexts import DEFAULT_POLICY, region_contexts
from fuseflow.cost.hardware import Hardware, operational_intensity
from fuseflow.program.ir import Operand, Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.schedule import Schedule


@dataclass
class OpCost:
    op: str
    points: float          # executions of the op's body
    flops: float
    recompute: float       # points relative to the op alone in its own region


@dataclass
class RegionCost:
    ops: tuple[str, ...]
    order: tuple[str, ...]
    flops: float
    bytes_read: float
    bytes_written: float
    op_costs: list[OpCost] = field(default_factory=list)

    @property
    def bytes(self) -> float:
        return self.bytes_read + self.bytes_written


@dataclass
class ScheduleCost:
    regions: list[RegionCost]
    hardware: Hardware

    @property
    def flops(self) -> float:
        return sum(r.flops for r in self.regions)

    @property
    def bytes(self) -> float:
        return sum(r.bytes for r in self.regions)

    @property
    def intensity(self) -> float:
        return operational_intensity(self.flops, self.bytes)

    def region_terms(self, region: RegionCost) -> tuple[float, float]:
        """(memory, compute) cycles of one region: its bytes at the memory bandwidth, its FLOPs at peak."""
        hw = self.hardware
        return region.bytes / hw.memory_bytes_per_cycle, region.flops / hw.peak_ops_per_cycle

    def region_cycles(self, region: RegionCost) -> float:
        """Cycles the roofline allows one region: the slower of its memory and compute terms."""
        return max(self.region_terms(region))

    def region_roofline(self, region: RegionCost) -> str:
        return region_class(*self.region_terms(region))

    @property
    def bound(self) -> ScheduleBound:
        return schedule_bound((self.region_roofline(r), self.region_cycles(r)) for r in self.regions)

    @property
    def roofline(self) -> str:
        return self.bound.roofline

    @property
    def roofline_cycles(self) -> float:
        """Cycles the roofline allows: the sum of the regions' (they run one after another)."""
        return sum(self.region_cycles(r) for r in self.regions)

    def to_dict(self) -> dict:
        bound = self.bound
        return {
            "kind": "estimate",
            "flops": self.flops,
            "bytes": self.bytes,
            "intensity": self.intensity,
            "ridge_intensity": self.hardware.ridge_intensity,
            "roofline": bound.roofline,
            "roofline_share": bound.share,
            "roofline_cycles": self.roofline_cycles,
            "regions": [
                {"ops": list(r.ops), "order": " ".join(r.order), "flops": r.flops,
                 "bytes_read": r.bytes_read, "bytes_written": r.bytes_written,
                 "roofline": self.region_roofline(r), "roofline_cycles": self.region_cycles(r),
                 "recompute": {c.op: c.recompute for c in r.op_costs}}
                for r in self.regions
            ],
        }


def stored_bytes(program: Program, binding: Binding, tensor: str, hw: Hardware) -> float:
    decl = program.tensors[tensor]
    counts = binding.stats[tensor].level_counts
    total = float(counts[-1] if counts else 1) * hw.value_bytes
    parent = 1
    for fmt, count in zip(decl.formats, counts):
        if fmt == "compressed":
            total += (parent + 1) * hw.index_bytes + count * hw.index_bytes
        parent = count
    return total


class _PrefixCounter:
    """Point counts of loop prefixes of one region under one binding."""

    def __init__(self, program: Program, binding: Binding, region: Region):
        self.extent = {v: binding.extent(d) for v, d in region.var_dims.items()}
        self.sparse: list[tuple[Operand, tuple[int, ...], tuple[int, ...]]] = []
        for operand in region.operands:
            if "compressed" in operand.formats:
                decl = program.tensors[operand.tensor]
                sizes = tuple(binding.extent(d) for d in decl.dims)
                self.sparse.append((operand, sizes, binding.stats[operand.tensor].level_counts))

    def points(self, prefix: set[str]) -> float:
        total = 1.0
        for var in prefix:
            total *= self.extent[var]
        for operand, sizes, counts in self.sparse:
            depth = 0
            while depth < len(operand.vars) and operand.vars[depth] in prefix:
                depth += 1
            if depth and "compressed" in operand.formats[:depth]:
                dense_points = 1.0
                for size in sizes[:depth]:
                    dense_points *= size
                total *= counts[depth - 1] / dense_points
        return total


def op_contexts(program: Program, region: Region, order: tuple[str, ...],
                policy: str = DEFAULT_POLICY) -> dict[str, set[str]]:
    """For each op, the loop variables its body runs under (one rule, shared with the
    lowering: fuseflow.analysis.contexts)."""
    return {op: set(chain) for op, chain in region_contexts(program, region, order, policy).chain.items()}


class RegionCostModel:
    """The cost of one region under any of its orders: what does not depend on the order
    (operand sizes, each op alone, bytes written) is worked out once, so costing many orders
    of one region (fuseflow.cost.hints) stays cheap."""

    def __init__(self, program: Program, binding: Binding, region: Region, hw: Hardware):
        self.program, self.region = program, region
        self.counter = _PrefixCounter(program, binding, region)
        self._points: dict[frozenset[str], float] = {}
        self.alone_points = {}
        self.flops_per_point = {name: program.op_by_name[name].flops_per_point for name in region.ops}
        for name in region.ops:
            alone_region = unify_region(program, (name,))
            self.alone_points[name] = _PrefixCounter(program, binding, alone_region).points(set(alone_region.vars))
        #: per operand: its stored bytes, stored elements, and its readers when it does not fit
        #: the on-chip buffer (then the order decides how often it is read)
        self.operands: list[tuple[float, int, list[str] | None]] = []
        for operand in region.operands:
            size = stored_bytes(program, binding, operand.tensor, hw)
            readers = None if size <= hw.onchip_buffer_bytes else [
                n for n in region.ops if any(a.tensor == operand.tensor for a in program.op_by_name[n].inputs)]
            self.operands.append((size, binding.stats[operand.tensor].stored, readers))
        self.bytes_written = sum(stored_bytes(program, binding, r.tensor, hw) for r in region.results)

    @property
    def compulsory_bytes(self) -> float:
        """Every operand read once and every result written once: traffic no order avoids."""
        return sum(size for size, _, _ in self.operands) + self.bytes_written

    def points(self, prefix: set[str]) -> float:
        key = frozenset(prefix)
        found = self._points.get(key)
        if found is None:
            found = self._points[key] = self.counter.points(prefix)
        return found

    def streamed_bytes(self, order: tuple[str, ...]) -> float:
        """Bytes moved under `order` as the simulator streams dense reuse (simulator/traffic.py):
        an operand larger than the buffer is re-read by the loops outside its outermost
        variable, while loops between its variables repeat its stream on chip. An estimate:
        it ignores the filtering of an operand's reads by the sparse operands it meets."""
        total = self.bytes_written
        for operand, (size, stored, readers) in zip(self.region.operands, self.operands):
            if readers is None:
                total += size
                continue
            first = min(order.index(var) for var in operand.vars) if operand.vars else len(order)
            visits = self.points(set(order[:first]) | set(operand.vars))
            total += size * max(1.0, visits / stored if stored else 1.0)
        return total

    def cost(self, order: tuple[str, ...]) -> RegionCost:
        contexts = op_contexts(self.program, self.region, order)
        op_costs = []
        for name in self.region.ops:
            points = self.points(contexts[name])
            alone = self.alone_points[name]
            op_costs.append(OpCost(name, points, points * self.flops_per_point[name],
                                   points / alone if alone else 1.0))
        bytes_read = 0.0
        for size, stored, readers in self.operands:
            if readers is None:
                bytes_read += size
                continue
            visits = max(self.points(contexts[n]) for n in readers)
            bytes_read += size * max(1.0, visits / stored if stored else 1.0)
        return RegionCost(self.region.ops, order, sum(c.flops for c in op_costs), bytes_read,
                          self.bytes_written, op_costs)


def region_cost(program: Program, binding: Binding, region: Region, order: tuple[str, ...],
                hw: Hardware) -> RegionCost:
    return RegionCostModel(program, binding, region, hw).cost(order)


def schedule_cost(program: Program, binding: Binding, schedule: Schedule, hw: Hardware) -> ScheduleCost:
    return ScheduleCost([region_cost(program, binding, unify_region(program, rs.ops), rs.order, hw)
                         for rs in schedule.regions], hw)
