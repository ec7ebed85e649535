"""The estimate of a region's cycles: the simulator's own rules on predicted counts.

The simulator runs a region's dataflow graph on the data and measures, per primitive, the
tokens it passes (`fuseflow.cost.tokens.Counts`), per memory operand what each op visits
(`Visits`), and the projections the memory model needs; the rules of `fuseflow.cost.cycles`
and `fuseflow.cost.traffic` turn them into cycles and DRAM bytes. The estimate predicts the
same quantities from the data's statistics (`fuseflow.cost.statistics`) and applies the same
rules, so every effect the simulator models (lanes and their imbalance, vector and block
tiles, forks and joins, reducers and accumulators, DRAM lines, gathers, spills, the pipeline's
fill) is in the estimate by construction.

The prediction: a stream of an op at loop depth d carries the points of the first d loops of
its chain, counted as the product of their extents thinned by each sparse operand the op's
points lie in (fuseflow.analysis.loop_fibers, `visited`), by that operand's stored entries
over its first levels in the set (exact for one operand; independent patterns for several).
A tiled stream counts the same points over coordinates divided by the tile edges (blocks are
counted on the data's occupied blocks). A forked stream's lanes split its tiles as the data's
entries fall on the forked coordinates modulo the factor. A projection the memory model groups
is taken as groups of equal size. docs/cost-model.md states what this cannot see and the error
it causes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from fuseflow.analysis.level_support import leaves
from fuseflow.analysis.loop_fibers import loop_fibers, memory_key
from fuseflow.cost.cycles import Timing, region_cycles
from fuseflow.cost.hardware import Hardware
from fuseflow.cost.statistics import DataStatistics, even_shares
from fuseflow.cost.tokens import Counts, Visits
from fuseflow.cost.traffic import Traffic, region_traffic
from fuseflow.cost.walks import buffered_depths, region_walks
from fuseflow.lower.plan import WRITE, OpPlan, RegionPlan, block_edges

REDUCING = ("sum", "max")


@dataclass
class PredictedRun:
    """What the simulator would measure of a region, predicted (the fields `simulator.counts.RegionRun` has)."""

    counts: dict[int, Counts]
    visits: dict[tuple[str, str], Visits]
    groups: dict[tuple[str, str], dict[float, float]] = field(default_factory=dict)


@dataclass
class RegionPrediction:
    plan: RegionPlan
    run: PredictedRun
    traffic: Traffic
    timing: Timing
    flops: float


class _OpStreams:
    """Point counts and lane splits of one op's streams."""

    def __init__(self, plan: RegionPlan, op: OpPlan, visited: dict[str, frozenset[str]], stats: DataStatistics):
        self.plan, self.op, self.stats = plan, op, stats
        self.extents = plan.extents
        self.thinning = frozenset().union(*visited.values()) if visited else frozenset()
        self.operands = {memory_key(o.tensor, o.vars): o for o in plan.region.operands}
        self.sparse = [k for k in sorted(self.thinning) if k in self.operands
                       and "compressed" in self.operands[k].formats]
        self._memo: dict[tuple, float] = {}
        self._splits: dict[tuple, np.ndarray] = {}

    def _depth(self, operand, vars_) -> int:
        depth = 0
        while depth < len(operand.vars) and operand.vars[depth] in vars_:
            depth += 1
        return depth

    def count(self, vars_, coarsen: dict[str, int] | None = None, drop: frozenset[str] = frozenset(),
              extra: frozenset[str] = frozenset()) -> float:
        """Distinct points of the op over `vars_` (coordinates divided by `coarsen`), thinned by
        its sparse operands but those in `drop`, and by the memory operands in `extra` (a left
        join's follower, which the op reads where it is stored but does not iterate)."""
        vars_ = frozenset(vars_)
        tiled = tuple(sorted((v, c) for v, c in coarsen.items() if v in vars_ and c > 1)) if coarsen else ()
        key = (vars_, tiled, drop, extra)
        found = self._memo.get(key)
        if found is not None:
            return found
        coarsen = coarsen or {}
        total = 1.0
        for v in vars_:
            total *= -(-self.extents[v] // coarsen.get(v, 1))
        thinning = [k for k in self.sparse if k not in drop or k in extra] + sorted(
            k for k in extra if k in self.operands and k not in self.sparse
            and "compressed" in self.operands[k].formats)
        for k in thinning:
            operand = self.operands[k]
            depth = self._depth(operand, vars_)
            if not depth or "compressed" not in operand.formats[:depth]:
                continue
            edges = tuple(coarsen.get(v, 1) for v in operand.vars)
            counts = self.stats.level_counts(operand.tensor, edges)
            dense = math.prod(-(-self.extents[v] // b) for v, b in zip(operand.vars[:depth], edges))
            total *= counts[depth - 1] / dense if dense else 0.0
        self._memo[key] = total
        return total

    def lanes(self, vars_: tuple[str, ...], tiles: float, coarsen: dict[str, int]) -> tuple[float, ...]:
        """Tiles per logical lane (path order), as the data's entries fall on the forked coordinates."""
        par = self.plan.par
        forked = [v for v in vars_ if par.get(v, 1) > 1]
        if not forked:
            return (tiles,)
        key = (tuple(vars_), tuple(sorted((v, c) for v, c in coarsen.items() if v in vars_)))
        split = self._splits.get(key)
        if split is None:
            split = self._splits[key] = self._split(vars_, forked, coarsen)
        return tuple((tiles * split).tolist())

    def _split(self, vars_, forked: list[str], coarsen: dict[str, int]) -> np.ndarray:
        par = self.plan.par
        split = np.ones(1)
        present = set(vars_)
        for v in forked:
            share = None
            for k in self.sparse:
                operand = self.operands[k]
                depth = self._depth(operand, present)
                if v in operand.vars[:depth] and "compressed" in operand.formats[:depth]:
                    share = self.stats.shares(operand.tensor, depth - 1, operand.vars.index(v), coarsen.get(v, 1),
                                              par[v])
                    if share is not None:
                        break
            if share is None:
                share = even_shares(-(-self.extents[v] // coarsen.get(v, 1)), par[v])
            split = np.multiply.outer(split, share).ravel()
        return split

    def stream(self, vars_: tuple[str, ...], drop: frozenset[str] = frozenset(), walk: float | None = None,
               extra: frozenset[str] = frozenset()) -> Counts:
        """The counts of a stream over the chain prefix `vars_` (a merge visiting `walk` points)."""
        coarsen = self.op.coarsen
        data = self.count(vars_, None, drop, extra)
        tiles = self.count(vars_, coarsen, drop, extra)
        fibers = self.count(vars_[:-1], coarsen, drop) if vars_ else 0.0
        walk_tiles = tiles if walk is None else tiles * (walk / data if data else 1.0)
        return Counts(data, fibers, 0 if walk is None else walk, walk_tiles, fibers,
                      self.lanes(vars_, walk_tiles, coarsen))


def predict_region(plan: RegionPlan, stats: DataStatistics, hw: Hardware) -> RegionPrediction:
    fibers = plan.fibers or loop_fibers(plan.program, plan.region, plan.contexts)
    counts: dict[int, Counts] = {}
    visits: dict[tuple[str, str], Visits] = {}
    streams = {op.name: _OpStreams(plan, op, fibers.visited[op.name], stats) for op in plan.ops}
    written: dict[str, list[float]] = {}
    vb, ib = hw.value_bytes, hw.index_bytes

    def thin_of(op: OpPlan, key: str) -> frozenset[str]:
        inp = op.inputs.get(key)
        return streams[inp.producer].thinning if inp is not None and inp.kind == "buffer" else frozenset({key})

    for op in plan.ops:
        s = streams[op.name]
        chain = op.chain
        for pid, _key in op.root_reads:
            counts[pid] = Counts(1, 0, 0, 1, 0, (1,))
        for level in op.levels:
            prefix = chain[:level.depth + 1]
            merged = s.stream(prefix)
            level_leaves = frozenset(leaves(level.support))
            level_thin = frozenset().union(*(thin_of(op, k) for k in level_leaves))
            _predict_node(level.iterator, s, prefix, level_thin, lambda k, op=op: thin_of(op, k), counts)
            for spid, jpid, key in level.leftjoins:
                # the follower's fibers under the merge's parents (a buffer's: where its producer's
                # points lie); the join walks both
                follows = thin_of(op, key)
                follower = counts[spid] = s.stream(prefix, level_thin, extra=follows)
                both = s.count(prefix, None, frozenset(), follows)
                counts[jpid] = s.stream(prefix, walk=merged.data + follower.data - both)
            for pid in ([level.fork] if level.fork is not None else []) + [p for p, _, _ in level.locates] + \
                    [p for p, _, _ in level.repeats] + [p for p, _ in level.reads]:
                counts[pid] = merged
        leaf = s.stream(chain)
        for pid in op.alus.values():
            counts[pid] = leaf
        if op.join is not None:
            counts[op.join] = leaf
        for edge in op.edges:
            if edge.reduce_pid is not None:
                counts[edge.reduce_pid] = leaf
            kept = _edge_counts(s, edge.chain)
            for pid in (edge.drop_pid, edge.write_pid):
                if pid is not None:
                    counts[pid] = kept
            if edge.target == WRITE:
                written[edge.tensor] = _result_arrays(s, edge, vb, ib)
        visits.update(_visits(plan, op, s))
    walks = region_walks(plan)
    groups = {}
    for (name, projection_name), projection in walks.projections.items():
        s = streams[name]
        chain = s.op.chain
        vars_ = tuple(chain[k] for k in projection.keep)
        coarsen = {v: c for v, c in zip(vars_, projection.coarsen) if c > 1}
        total = s.count(vars_, coarsen)
        n = s.count(vars_[:projection.group], coarsen) if projection.group else 1.0
        groups[(name, projection_name)] = {total / n: n} if total and n else {}
    run = PredictedRun(counts, visits, groups)

    def stored(tensor: str, edges: tuple[int, ...] | None) -> list[float]:
        decl = plan.program.tensors[tensor]
        level_counts = stats.level_counts(tensor, edges) if decl.dims else ()
        return _arrays(decl.formats, level_counts, vb * (math.prod(edges) if edges else 1), ib)

    traffic = region_traffic(plan, run, stored, written, hw, walks)
    # bounded queues' stall is not predicted (the simulator steps the pipeline to find it)
    timing = region_cycles(plan, counts, traffic.memory_cycles, hw,
                           queue_model="not modelled" if hw.queue_depth else "unbounded")
    return RegionPrediction(plan, run, traffic, timing, _flops(plan, counts))


def _predict_node(node, s: _OpStreams, prefix, level_thin: frozenset[str], thin_of,
                  counts: dict[int, Counts]) -> float:
    """Counts of a merge tree's primitives; returns the points the node emits. `thin_of(key)`:
    the memory operands a leaf's points lie in (a buffer's: its producer's)."""
    mine = frozenset().union(*(thin_of(k) for k in leaves_of(node))) if node.kind in ("scan", "and", "or") \
        else frozenset()
    drop = level_thin - mine
    emitted = s.count(prefix, None, drop, mine)
    if node.kind in ("scan", "dense", "empty"):
        counts[node.pid] = s.stream(prefix, drop, extra=mine) if node.kind != "empty" else Counts()
        return emitted if node.kind != "empty" else 0.0
    sides = [_predict_node(child, s, prefix, level_thin, thin_of, counts) for child in node.children]
    walk = max(sum(sides) - emitted, emitted) if node.kind == "and" else emitted
    counts[node.pid] = s.stream(prefix, drop, walk=walk, extra=mine)
    return emitted


def leaves_of(node) -> list[str]:
    if node.kind == "scan":
        return [node.key]
    return [k for child in node.children for k in leaves_of(child)]


def _edge_counts(s: _OpStreams, chain: tuple[str, ...]) -> Counts:
    if not chain:
        return Counts(1, 0, 0, 1, 1, (1,))
    coarsen = s.op.coarsen
    data = s.count(chain)
    tiles = s.count(chain, coarsen)
    fibers = s.count(chain[:-1], coarsen) if len(chain) > 1 else 1.0
    return Counts(data, s.count(chain[:-1]) if len(chain) > 1 else 1.0, 0, tiles, fibers,
                  s.lanes(chain, tiles, coarsen))


def _arrays(formats, level_counts, value_bytes: float, index_bytes: float) -> list[float]:
    """Bytes of each stored array (FiberTree.array_bytes): values, then positions and
    coordinates of each compressed level."""
    arrays = [value_bytes * (level_counts[-1] if level_counts else 1)]
    parent = 1.0
    for fmt, count in zip(formats, level_counts):
        if fmt == "compressed":
            arrays += [index_bytes * (parent + 1), index_bytes * count]
        parent = count
    return arrays


def _result_arrays(s: _OpStreams, edge, vb: int, ib: int) -> list[float]:
    position = {v: i for i, v in enumerate(s.op.chain)}
    level_counts, parent = [], 1.0
    for depth, (var, fmt) in enumerate(zip(edge.storage, edge.formats)):
        if var not in position:
            parent *= s.extents.get(var, 1)
        elif fmt == "dense":
            parent *= s.extents[var]
        else:
            parent = s.count(edge.storage[:depth + 1])
        level_counts.append(parent)
    return _arrays(edge.formats, level_counts, vb, ib)


def _visits(plan: RegionPlan, op: OpPlan, s: _OpStreams) -> dict[tuple[str, str], Visits]:
    position = {v: i for i, v in enumerate(op.chain)}
    out = {}
    for key, inp in op.inputs.items():
        if inp.kind == "buffer":
            continue
        own = [position[v] for v in inp.vars]
        blocks = {v: b for v, b in zip(inp.vars, block_edges(plan, inp) or ()) if b > 1}

        def keep(upto: int) -> tuple[str, ...]:
            return tuple(op.chain[k] for k in buffered_depths(own, upto))

        found = Visits()
        if inp.kind != "filter":
            found.values = s.count(keep(max(own)), blocks) if own else 1
        for lv, fmt in enumerate(inp.formats):
            if fmt != "compressed":
                continue
            level = op.levels[position[inp.vars[lv]]]
            if key not in leaves(level.support) and all(k != key for _, _, k in level.leftjoins):
                continue
            depth = position[inp.vars[lv]]
            found.coords[lv] = s.count(keep(depth), blocks)
            found.fibers[lv] = s.count(keep(depth - 1), blocks) if depth > 0 else 1
        out[(op.name, key)] = found
    return out


def _flops(plan: RegionPlan, counts: dict[int, Counts]) -> float:
    """ALU operations and accumulations, as the simulator's counters count them."""
    alus = {p.pid: p.flops for p in plan.primitives if p.kind == "alu"}
    total = sum(c.data * alus[pid] for pid, c in counts.items() if pid in alus)
    for op in plan.ops:
        total += max((counts[e.reduce_pid].data for e in op.edges if e.reduce_pid is not None
                      and any(m in REDUCING for m in e.modes.values())), default=0)
    return float(total)
