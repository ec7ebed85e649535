"""The estimate of a schedule: per region, the simulator's figures predicted (cycles with
their terms and bottleneck, FLOPs, DRAM bytes, roofline class; fuseflow.cost.predict), summed
over the regions (`schedule_cost`, `region_cost`). Everything that estimates calls these.

Beside it, the logical figures of a region under an order (`RegionCostModel`: FLOPs,
recomputation, logical bytes), cheap enough to rank thousands of orders. Their model
(docs/cost-model.md has the derivation and a worked example):

* A region runs as one loop nest over its dataflow order. Each op runs over its chain
  (fuseflow.analysis.contexts): the loop prefix down to its innermost own variable, without
  the reductions it waits for and the loops of other ops it is hoisted out of. A loop of
  another op it stays under multiplies its work: that is recomputation.
* An op's point count is the product of its chain's extents, thinned by the sparse operands
  its levels visit (fuseflow.analysis.loop_fibers, the rule the lowering builds its graph
  from), each by its stored fraction over its levels in the chain, assuming independent
  sparsity patterns.
* An operand is read from memory once if it fits the on-chip buffer; otherwise as the
  simulator reads it (values, coordinates and fiber bounds of the visited points, repeats by
  loops between its own levels served on chip). Region results are written once, and
  intermediates that cross a region boundary are written by one region and read by the next.

On data that meets those assumptions, the logical figures equal the simulator's counters
(docs/cost-model.md, "The logical figures and the simulator's counters agree").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuseflow.program.binding import Binding
from fuseflow.cost.bounds import ScheduleBound, schedule_bound
from fuseflow.analysis.contexts import DEFAULT_POLICY, region_contexts
from fuseflow.analysis.loop_fibers import loop_fibers, memory_key
from fuseflow.cost.cycles import Timing
from fuseflow.cost.hardware import Hardware, operational_intensity
from fuseflow.cost.predict import predict_region
from fuseflow.cost.statistics import DataStatistics
from fuseflow.cost.walks import buffered_depths
from fuseflow.program.ir import Operand, Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.schedule import RegionSchedule, Schedule


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
    #: the reads are the simulator's exactly on data that meets the estimate's assumptions
    #: (OperandReads.exact); otherwise bytes_read is an upper bound
    reads_exact: bool = True
    #: the predicted cycles (fuseflow.cost.predict: the simulator's rules on predicted counts);
    #: None for a cost of the logical figures alone (RegionCostModel.cost)
    timing: Timing | None = None

    @property
    def bytes(self) -> float:
        return self.bytes_read + self.bytes_written


@dataclass
class ScheduleCost:
    """The estimate of a schedule: per region the predicted cycles (with their terms and
    bottleneck), FLOPs, and DRAM bytes, as the simulator would report them."""

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

    @staticmethod
    def region_cycles(region: RegionCost) -> float:
        return region.timing.cycles

    @staticmethod
    def region_roofline(region: RegionCost) -> str:
        return region.timing.roofline

    @property
    def bound(self) -> ScheduleBound:
        return schedule_bound((self.region_roofline(r), self.region_cycles(r)) for r in self.regions)

    @property
    def roofline(self) -> str:
        return self.bound.roofline

    @property
    def cycles(self) -> float:
        """The predicted cycles: the sum of the regions' (they run one after another)."""
        return sum(self.region_cycles(r) for r in self.regions)

    def to_dict(self) -> dict:
        bound = self.bound
        return {
            "kind": "estimated",
            "flops": self.flops,
            "bytes": self.bytes,
            "intensity": self.intensity,
            "ridge_intensity": self.hardware.ridge_intensity,
            "roofline": bound.roofline,
            "roofline_share": bound.share,
            "cycles": self.cycles,
            "regions": [
                {"ops": list(r.ops), "order": " ".join(r.order), "flops": r.flops,
                 "bytes_read": r.bytes_read, "bytes_written": r.bytes_written,
                 "roofline": self.region_roofline(r), **r.timing.to_dict(),
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
    """Point counts of sets of loop variables of one region under one binding: the product of
    their extents, thinned by given sparse operands (each by its stored fraction over its
    leading levels in the set; patterns are taken as independent)."""

    def __init__(self, program: Program, binding: Binding, region: Region):
        self.extent = {v: binding.extent(d) for v, d in region.var_dims.items()}
        self.sparse: dict[str, tuple[Operand, tuple[int, ...], tuple[int, ...]]] = {}
        for operand in region.operands:
            decl = program.tensors[operand.tensor]
            sizes = tuple(binding.extent(d) for d in decl.dims)
            self.sparse[memory_key(operand.tensor, operand.vars)] = (operand, sizes,
                                                                    binding.stats[operand.tensor].level_counts)

    def points(self, prefix: set[str] | frozenset[str], thinning=None) -> float:
        """Points of `prefix`, thinned by the operands named in `thinning` (memory keys; all the
        region's sparse operands when None)."""
        total = 1.0
        for var in prefix:
            total *= self.extent[var]
        keys = self.sparse if thinning is None else thinning
        for key in keys:
            operand, sizes, counts = self.sparse[key]
            if "compressed" not in operand.formats:
                continue
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


@dataclass(frozen=True)
class OperandReads:
    """What one reader visits of a memory operand, as the simulator counts it
    (simulator/traffic.py): distinct value reads, and per compressed level the coordinates
    read and the fibers opened, without the repeats of loops between the operand's levels."""

    values: float
    coords: dict[int, float]
    fibers: dict[int, float]
    #: False when a count projects the op's points across a loop that two sparse operands tie
    #: to kept loops (GCN fused, `X(k,f)` under `i2 f i k`: the distinct `k` two hops from `i2`);
    #: the estimate is then an upper bound, since it cannot see which coordinates the hops reach.
    exact: bool = True

    def bytes(self, hw: Hardware) -> float:
        return hw.value_bytes * self.values + hw.index_bytes * sum(
            c + 2 * self.fibers.get(s, 0.0) for s, c in self.coords.items())


class RegionCostModel:
    """The cost of one region under any of its orders: what does not depend on the order
    (operand sizes, each op alone, bytes written) is worked out once, so costing many orders
    of one region (fuseflow.cost.hints) stays cheap."""

    def __init__(self, program: Program, binding: Binding, region: Region, hw: Hardware):
        self.program, self.region, self.hw = program, region, hw
        self.counter = _PrefixCounter(program, binding, region)
        self._points: dict[tuple, float] = {}
        self._by_chains: dict[tuple, tuple[list[OpCost], float, bool]] = {}
        self.alone_points = {}
        self.flops_per_point = {name: program.op_by_name[name].flops_per_point for name in region.ops}
        for name in region.ops:
            alone_region = unify_region(program, (name,))
            alone = loop_fibers(program, alone_region, region_contexts(program, alone_region, alone_region.vars))
            self.alone_points[name] = _PrefixCounter(program, binding, alone_region).points(
                set(alone_region.vars), alone.thinning(name))
        #: per operand: its key, stored bytes, and whether it fits the on-chip buffer (then it is read once)
        self.operands: list[tuple[str, float, bool]] = []
        for operand in region.operands:
            size = stored_bytes(program, binding, operand.tensor, hw)
            self.operands.append((memory_key(operand.tensor, operand.vars), size, size <= hw.onchip_buffer_bytes))
        self.bytes_written = sum(stored_bytes(program, binding, r.tensor, hw) for r in region.results)
        #: op -> the memory operands it reads
        self.readers = {name: {memory_key(a.tensor, tuple(region.op_vars[name][v] for v in a.indices))
                               for a in program.op_by_name[name].inputs} for name in region.ops}

    @property
    def compulsory_bytes(self) -> float:
        """Every operand read once and every result written once: traffic no order avoids."""
        return sum(size for _, size, _ in self.operands) + self.bytes_written

    def points(self, prefix: set[str] | frozenset[str], thinning=None) -> float:
        key = (frozenset(prefix), None if thinning is None else frozenset(thinning))
        found = self._points.get(key)
        if found is None:
            found = self._points[key] = self.counter.points(prefix, thinning)
        return found

    def streamed_bytes(self, order: tuple[str, ...]) -> float:
        """Bytes moved under `order` as the simulator streams dense reuse (simulator/traffic.py)."""
        return self.cost(order).bytes

    def reads(self, chain: tuple[str, ...], thinning: frozenset[str], key: str, levels: int | None = None) -> OperandReads:
        """What an op with this chain and these thinning operands reads of the memory operand
        `key` (the simulator's rule, simulator.counts: loops of other ops between the operand's
        own levels repeat its stream on chip; loops above its first level re-read it). A demand
        filter (`levels`: the levels it scans) reads coordinates only."""
        operand = self.counter.sparse[key][0]
        vars_ = operand.vars if levels is None else operand.vars[:levels]
        position = {v: i for i, v in enumerate(chain)}
        own = [position[v] for v in vars_]
        first = min(own) if own else 0
        # An operand the op reads but does not iterate (a left join: `S` in `M * exp(S - m)`) is
        # taken as stored wherever the op visits it: such operands are computed under the same mask.
        thin = thinning

        def keep(upto: int) -> set[str]:
            return {chain[k] for k in buffered_depths(own, upto)}

        # A skipped loop that two sparse operands tie to kept loops (i in A(i2,i)·A(i,k)) makes the
        # kept coordinates those two hops reach, which stored fractions cannot tell.
        kept = keep(max(own, default=-1))
        skipped = {chain[k] for k in range(first, max(own, default=-1) + 1) if k not in own}
        exact = all(sum(1 for t in thin if s in self.counter.sparse[t][0].vars
                        and kept & set(self.counter.sparse[t][0].vars)) < 2 for s in skipped)

        values = 0.0 if levels is not None else self.points(keep(max(own)), thin) if own else 1.0
        coords, fibers = {}, {}
        for s, fmt in enumerate(operand.formats[:len(vars_)]):
            if fmt != "compressed":
                continue
            depth = position[operand.vars[s]]
            coords[s] = self.points(keep(depth), thin)
            fibers[s] = self.points(keep(depth - 1), thin) if depth > 0 else 1.0
        return OperandReads(values, coords, fibers, exact)

    def _reads(self, ctx, fibers, name: str, key: str) -> OperandReads | None:
        """What op `name` reads of operand `key`: as an input, as a demand filter, or nothing."""
        if key in self.readers[name]:
            return self.reads(ctx.chain[name], fibers.thinning(name), key)
        filtered = [v for v, keys in fibers.filters[name].items() if key in keys]
        if not filtered:
            return None
        operand = self.counter.sparse[key][0]
        return self.reads(ctx.chain[name], fibers.thinning(name), key,
                          1 + max(operand.vars.index(v) for v in filtered))

    def cost(self, order: tuple[str, ...], policy: str = DEFAULT_POLICY) -> RegionCost:
        ctx = region_contexts(self.program, self.region, order, policy)
        # Everything below depends on the chains only, which many orders share.
        key = tuple(ctx.chain[n] for n in self.region.ops)
        found = self._by_chains.get(key)
        if found is None:
            found = self._by_chains[key] = self._chains_cost(ctx)
        op_costs, bytes_read, exact = found
        return RegionCost(self.region.ops, order, sum(c.flops for c in op_costs), bytes_read,
                          self.bytes_written, op_costs, exact)

    def _chains_cost(self, ctx) -> tuple[list[OpCost], float, bool]:
        fibers = loop_fibers(self.program, self.region, ctx)
        op_costs = []
        for name in self.region.ops:
            points = self.points(ctx.chain[name], fibers.thinning(name))
            alone = self.alone_points[name]
            op_costs.append(OpCost(name, points, points * self.flops_per_point[name],
                                   points / alone if alone else 1.0))
        bytes_read, exact = 0.0, True
        for key, size, fits in self.operands:
            if fits:
                bytes_read += size
                continue
            # Several readers of one operand share its stream: the largest one counts.
            reads = [r for r in (self._reads(ctx, fibers, n, key) for n in self.region.ops) if r is not None]
            bytes_read += max(r.bytes(self.hw) for r in reads)
            exact &= all(r.exact for r in reads)
        return op_costs, bytes_read, exact


def region_cost(program: Program, binding: Binding, rs: RegionSchedule, hw: Hardware,
                policy: str = DEFAULT_POLICY, stats: DataStatistics | None = None,
                model: RegionCostModel | None = None) -> RegionCost:
    """The estimate of one scheduled region: its graph as the compiler lowers it, its counts
    predicted from the data's statistics, and the simulator's rules on them (fuseflow.cost.predict)."""
    from fuseflow.lower import lower_region

    stats = stats or DataStatistics(program, binding)
    plan = lower_region(program, binding, rs, policy, hw.block_size)
    predicted = predict_region(plan, stats, hw)
    if model is None:
        key = ("region model", rs.ops, hw, policy)
        model = stats.memo.get(key)
        if model is None:
            model = stats.memo[key] = RegionCostModel(program, binding, plan.region, hw)
    op_costs = model.cost(rs.order, policy).op_costs
    return RegionCost(rs.ops, rs.order, predicted.flops, predicted.traffic.read_bytes,
                      predicted.traffic.write_bytes, op_costs, True, predicted.timing)


def schedule_cost(program: Program, binding: Binding, schedule: Schedule, hw: Hardware,
                  policy: str = DEFAULT_POLICY, stats: DataStatistics | None = None) -> ScheduleCost:
    """`stats`: the data's statistics (read once; without them, the binding's assumptions)."""
    stats = stats or DataStatistics(program, binding)
    return ScheduleCost([region_cost(program, binding, rs, hw, policy, stats) for rs in schedule.regions], hw)
