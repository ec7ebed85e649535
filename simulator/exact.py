"""The exact executor: runs a lowered region token by token.

Streams are Python lists. A data token is a tuple `(path, payload)`: the coordinates of the
loop chain so far (hardware aligns streams by their stop tokens; carrying the path lets the
simulator check that alignment and count tiles and lanes) and a reference, a value, or, out of
a joiner, a dict of references. A stop token is an int `n` (SAM's S_n) and the stream ends
with DONE. Each primitive (simulator.streams) consumes whole input lists and produces its
output list, so its token counts are exactly the lengths it produced.
"""

from __future__ import annotations

import math
from collections import Counter
from operator import itemgetter

import numpy as np

from fuseflow.lower.plan import WRITE, Node, OpPlan, RegionPlan
from simulator.counts import Counts, RegionRun, Visits, path_tiles
from fuseflow.lower.plan import block_edges
from fuseflow.cost.walks import projections
from simulator.fibertree import FiberTree
from simulator.firing import Firing, accumulator, expanded, one_to_one, proportional, reducer, sink, source
from simulator.firing import joined as merge_firing
from simulator.reference import apply_function
from simulator.streams import (DONE, alu, array, dense, emit_tree, extract, join, locate, repeat, scalar,
                               scan)


def _paths(stream: list) -> list[tuple]:
    return [t[0] for t in stream if t.__class__ is tuple]


class _Recorder:
    def __init__(self, plan: RegionPlan, steps: bool):
        self.plan = plan
        self.steps = steps          # record each primitive's steps (only bounded queues need them)
        self.counts: dict[int, Counts] = {}
        self.firings: dict[int, Firing] = {}

    def inputs(self, pid: int) -> tuple[int, ...]:
        return self.plan.primitives[pid].inputs

    def iterate(self, pid: int, parent: list, out: list) -> None:
        """A level iterator, locator or repeater: its first input (if two) is the parent."""
        if not self.steps:
            return
        ins = self.inputs(pid)
        kind = self.plan.primitives[pid].kind
        if kind in ("locate", "repeat"):
            parent_pid, signal = (ins[0], ins[1:]) if len(ins) == 2 else (None, ins)
        else:
            parent_pid, signal = (ins[0] if ins else None), ()
        if parent_pid is not None and self.plan.primitives[parent_pid].kind == "write":
            parent_pid = None       # a buffer's root reference: no stream (its writer starts the op)
        self.firings[pid] = expanded(parent_pid, parent, out, signal, look_ahead=kind == "scan") \
            if parent_pid is not None or signal else source(len(out))

    def pass_through(self, pid: int, n: int) -> None:
        if not self.steps:
            return
        ins = self.inputs(pid)
        self.firings[pid] = one_to_one(n, ins) if ins else source(n)

    def stream(self, pid: int, stream: list, vars_: tuple[str, ...], parent_paths, walked=None) -> None:
        data = sum(1 for t in stream if t.__class__ is tuple)
        stops = sum(1 for t in stream if t.__class__ is int)
        measured = _paths(stream) if walked is None else walked
        coarsen = self.plan.op(self.plan.primitives[pid].op).coarsen   # each op tiles its own streams
        tiles, fibers, lanes = path_tiles(measured, parent_paths, vars_, coarsen, self.plan.par)
        self.counts[pid] = Counts(data, stops, len(walked) if walked is not None else 0, tiles, fibers, lanes)


def run_region(plan: RegionPlan, memory: dict[str, FiberTree], steps: bool = False) -> RegionRun:
    """Counts, visits and results of one region; with `steps`, also every primitive's steps for
    the cycle-level pipeline (simulator.pipeline)."""
    record = _Recorder(plan, steps)
    visits: dict[tuple[str, str], Visits] = {}
    written: dict[str, FiberTree] = {}
    buffers: dict[tuple[str, str], FiberTree] = {}
    groups: dict[tuple[str, str], dict[int, int]] = {}
    wanted = projections(plan)
    for op in plan.ops:
        _run_op(plan, op, memory, buffers, written, record, visits, wanted[op.name], groups)
    return RegionRun(record.counts, visits, written, buffers, record.firings, groups)


def _run_op(plan, op: OpPlan, memory, buffers, written, record: _Recorder, visits, wanted, groups) -> None:
    chain = op.chain
    position = {v: i for i, v in enumerate(chain)}
    trees = {}
    for key, inp in op.inputs.items():
        trees[key] = buffers[(inp.producer, op.name)] if inp.kind == "buffer" else memory[inp.tensor]
    root = [((), None), DONE]
    refs = {key: [((), 0), DONE] for key in op.inputs}
    vals: dict[str, list] = {}
    for pid, key in op.root_reads:
        vals[key] = array(refs[key], trees[key])
        record.stream(pid, vals[key], (), [])
        record.pass_through(pid, len(vals[key]))
    parent = root
    merged_paths: list[list[tuple]] = []
    fiber_refs: dict[tuple[str, int], list] = {}
    scanned: dict[tuple[str, int], list] = {}
    read_refs: dict[str, list] = {}
    for level in op.levels:
        depth, var = level.depth, level.var
        vars_ = chain[: depth + 1]
        parent_paths = _paths(parent) if depth else [()]

        def node_stream(node: Node) -> list:
            if node.kind == "scan":
                inp = op.inputs[node.key]
                s = inp.vars.index(var)
                fiber_refs[(node.key, s)] = refs[node.key]
                out = scan(refs[node.key], trees[node.key], s, node.key)
                scanned[(node.key, s)] = out
                record.stream(node.pid, out, vars_, parent_paths)
                record.iterate(node.pid, refs[node.key], out)
                return out
            if node.kind in ("dense", "empty"):
                out = dense(parent, level.extent, node.kind == "empty")
                record.stream(node.pid, out, vars_, parent_paths)
                record.iterate(node.pid, parent, out)
                return out
            left, right = (node_stream(c) for c in node.children)
            out, walked, trace = join(left, right, node.kind, record.steps)
            record.stream(node.pid, out, vars_, parent_paths, walked)
            if record.steps:
                record.firings[node.pid] = merge_firing(node.children[0].pid, node.children[1].pid, trace,
                                                        len(left), len(right))
            return out

        merged = node_stream(level.iterator)
        joined = set(_leaf_keys(level.iterator))
        for spid, jpid, key in level.leftjoins:
            inp = op.inputs[key]
            s = inp.vars.index(var)
            fiber_refs[(key, s)] = refs[key]
            follower = scan(refs[key], trees[key], s, key)
            scanned[(key, s)] = follower
            record.stream(spid, follower, vars_, parent_paths)
            record.iterate(spid, refs[key], follower)
            lead = record.inputs(jpid)[0]
            merged_in = merged
            merged, walked, trace = join(merged, follower, "left", record.steps)
            record.stream(jpid, merged, vars_, parent_paths, walked)
            if record.steps:
                record.firings[jpid] = merge_firing(lead, spid, trace, len(merged_in), len(follower))
            joined.add(key)
        if level.fork is not None:
            record.stream(level.fork, merged, vars_, parent_paths)
            record.pass_through(level.fork, len(merged))
        for key in joined:
            refs[key] = extract(merged, key)
        for pid, key, levels in level.locates:
            inp = op.inputs[key]
            record.iterate(pid, refs[key], merged)
            refs[key] = locate(refs[key], merged, trees[key], levels, [position[inp.vars[s]] for s in levels])
            record.stream(pid, refs[key], vars_, parent_paths)
        for pid, key, what in level.repeats:
            record.iterate(pid, refs[key] if what == "ref" else vals[key], merged)
            if what == "ref":
                refs[key] = repeat(refs[key], merged)
                record.stream(pid, refs[key], vars_, parent_paths)
            else:
                vals[key] = repeat(vals[key], merged)
                record.stream(pid, vals[key], vars_, parent_paths)
        for pid, key in level.reads:
            read_refs[key] = refs[key]
            vals[key] = array(refs[key], trees[key])
            record.stream(pid, vals[key], vars_, parent_paths)
            record.pass_through(pid, len(vals[key]))
        merged_paths.append(_paths(merged))
        parent = merged
    leaf_parent_paths = merged_paths[-2] if len(merged_paths) > 1 else [()]
    value = _evaluate(op, op.expr, vals, parent, record, chain, leaf_parent_paths)
    if op.join is not None:
        record.stream(op.join, value, chain, leaf_parent_paths)
        record.pass_through(op.join, len(value))
    for edge in op.edges:
        levels, target = _reduce(plan, op, edge, value, merged_paths)
        if edge.reduce_pid is not None:
            record.stream(edge.reduce_pid, value, chain, leaf_parent_paths)
            if record.steps:
                record.firings[edge.reduce_pid] = _reduce_firing(plan, op, edge, value, target)
        target_parents = levels[-2] if len(levels) > 1 else [()]
        for pid in (edge.drop_pid, edge.write_pid):
            if pid is not None:
                record.stream(pid, target, edge.chain, target_parents)
        if edge.drop_pid is not None:
            ins = record.inputs(edge.drop_pid)
            arriving = len(target) if edge.reduce_pid is not None else len(value)
            if record.steps:
                record.firings[edge.drop_pid] = one_to_one(arriving, ins) if arriving == len(target) else \
                    proportional(arriving, len(target), ins)
        arriving = len(target) if edge.reduce_pid is not None or edge.drop_pid is not None else len(value)
        if record.steps:
            record.firings[edge.write_pid] = sink(arriving, record.inputs(edge.write_pid))
        tree = _write(edge, target)
        if edge.target == WRITE:
            written[edge.tensor] = tree
        else:
            buffers[(op.name, edge.target)] = tree
    sources = {("leaf",): [(p, 0) for p in merged_paths[-1]] if merged_paths else []}
    sources.update({("values", k): stream for k, stream in read_refs.items()})
    sources.update({("coords", k, s): [(t[0], 0) for t in stream if t.__class__ is tuple]
                    for (k, s), stream in scanned.items()})
    sources.update({("fibers", k, s): stream for (k, s), stream in fiber_refs.items()})
    seen = _Distinct(sources)
    _count_visits(plan, op, position, seen, visits)
    for name, projection in wanted.items():
        points = seen(projection.source, projection.keep, projection.coarsen)
        groups[(op.name, name)] = _group_sizes(points, projection.group, len(projection.keep))


def _leaf_keys(node: Node) -> list[str]:
    if node.kind == "scan":
        return [node.key]
    return [k for c in node.children for k in _leaf_keys(c)]


def _evaluate(op: OpPlan, expr, vals, leaf_stream, record: _Recorder, chain, parent_paths) -> list:
    from fuseflow.program.expr import Access, Call, Const, Neg

    def go(e):
        if isinstance(e, Access):
            return vals[op.access_key[e]]
        if isinstance(e, Const):
            return None
        pid = op.alus[id(e)]
        if isinstance(e, (Call, Neg)):
            fn = (lambda x, f=e.func: float(apply_function(f, np.float64(x)))) if isinstance(e, Call) else \
                (lambda x: -x)
            arg = go(e.arg)
            if arg is None:     # exp(1), -(2): a constant, produced once per point like 2 * 3
                value = fn(e.arg.value)
                out = alu(lambda _: value, leaf_stream)
            else:
                out = alu(fn, arg)
        else:
            lhs, rhs = go(e.lhs), go(e.rhs)
            if lhs is None and rhs is None:
                value = scalar(e.op, e.lhs.value, e.rhs.value)
                out = alu(lambda _: value, leaf_stream)
            elif lhs is None:
                c = e.lhs.value
                out = alu(lambda b, o=e.op: scalar(o, c, b), rhs)
            elif rhs is None:
                c = e.rhs.value
                out = alu(lambda a, o=e.op: scalar(o, a, c), lhs)
            else:
                out = alu(lambda a, b, o=e.op: scalar(o, a, b), lhs, rhs)
        record.stream(pid, out, chain, parent_paths)
        record.pass_through(pid, len(out))
        return out

    out = go(expr)
    if out is None:      # the expression is a constant
        pid = op.alus[id(expr)]
        out = alu(lambda _: float(expr.value), leaf_stream)
        record.stream(pid, out, chain, parent_paths)
        record.pass_through(pid, len(out))
    return out


def _reduce(plan: RegionPlan, op: OpPlan, edge, stream: list, merged_paths) -> tuple[list, list]:
    """Close the eliminated variables (sum / max / keep the last copy) and rebuild the stream
    over the kept ones; every kept prefix the loops visited gets a fiber, so an empty input
    fiber yields a 0 (as a SAM reducer does)."""
    chain = op.chain
    keep = [chain.index(v) for v in edge.chain]
    levels = []
    for e, q in enumerate(keep):
        cut = keep[: e + 1]
        levels.append(sorted({tuple(p[k] for k in cut) for p in merged_paths[q]}))
    reduced = [chain.index(v) for v in chain if edge.modes.get(v) in ("sum", "max")]
    is_max = any(m == "max" for m in edge.modes.values())
    groups: dict[tuple, dict[tuple, float]] = {}
    for tok in stream:
        if tok.__class__ is tuple:
            path, value = tok
            groups.setdefault(tuple(path[k] for k in keep), {})[tuple(path[k] for k in reduced)] = value
    full = math.prod(plan.extents[chain[k]] for k in reduced)
    totals: dict[tuple, float] = {}
    for tkey, group in groups.items():
        if is_max:
            # np.max over the values (and the unstored zeros): a NaN anywhere makes the max NaN,
            # which Python's max would keep or drop depending on where it sits.
            values = list(group.values()) + ([0.0] if len(group) < full else [])
            totals[tkey] = float(np.max(values))
        else:
            totals[tkey] = float(sum(group.values()))
    return levels, emit_tree(levels, lambda p: totals.get(p, 0.0))


def _reduce_firing(plan: RegionPlan, op: OpPlan, edge, value: list, target: list) -> Firing:
    src = plan.primitives[edge.reduce_pid].inputs[0]
    eliminated = [k for k, v in enumerate(op.chain) if v in edge.modes]
    if plan.primitives[edge.reduce_pid].kind == "reduce":
        return reducer(src, value, len(eliminated), target)
    return accumulator(src, value, target, eliminated[0])


def _write(edge, target: list) -> FiberTree:
    order = [edge.chain.index(v) for v in edge.storage]
    leaves = [t for t in target if t.__class__ is tuple]
    coords = [np.array([t[0][k] for t in leaves], dtype=np.int64) for k in order]
    values = np.array([t[1] for t in leaves], dtype=np.float64)
    if not edge.storage:
        return FiberTree((), (), [], [], [], values[:1].copy() if len(values) else np.zeros(1))
    return FiberTree.from_coo(edge.formats, edge.extents, coords, values)


def _count_visits(plan: RegionPlan, op: OpPlan, position, seen: "_Distinct", visits) -> None:
    for key, inp in op.inputs.items():
        if inp.kind == "buffer":
            continue
        own = [position[v] for v in inp.vars]
        first = min(own) if own else 0
        blocks = dict(zip(inp.vars, block_edges(plan, inp) or ()))

        def project(source, upto: int) -> int:
            keep = tuple(k for k in range(upto + 1) if k < first or k in own)
            return len(seen(source, keep, tuple(blocks.get(op.chain[k], 1) for k in keep)))

        found = Visits()
        if ("values", key) in seen.sources:
            found.values = project(("values", key), max(own) if own else -1)
        for s, fmt in enumerate(inp.formats):
            if fmt != "compressed" or ("coords", key, s) not in seen.sources:
                continue
            depth = position[inp.vars[s]]
            found.coords[s] = project(("coords", key, s), depth)
            found.fibers[s] = project(("fibers", key, s), depth - 1)
        visits[(op.name, key)] = found


class _Distinct:
    """The distinct projections of an op's streams (`sources`: present points are tokens whose
    payload is not None) on chain depths, coordinates divided by the block edges; each once."""

    def __init__(self, sources: dict[tuple, list]):
        self.sources = sources
        self.found: dict[tuple, set] = {}

    def __call__(self, source: tuple, keep: tuple[int, ...], coarsen: tuple[int, ...]) -> set:
        key = (source, keep, coarsen)
        if key not in self.found:
            present = [t[0] for t in self.sources.get(source, []) if t.__class__ is tuple and t[1] is not None]
            if any(c > 1 for c in coarsen):
                points = {tuple(path[k] // c for k, c in zip(keep, coarsen)) for path in present}
            elif len(keep) > 1:
                points = set(map(itemgetter(*keep), present))
            else:
                points = {(path[keep[0]],) for path in present} if keep else ({()} if present else set())
            self.found[key] = points
        return self.found[key]


def _group_sizes(points: set, group: int, width: int) -> dict[int, int]:
    """{group size: groups} of the points grouped by their first `group` coordinates."""
    if not points:
        return {}
    if group == 0:
        return {len(points): 1}
    if group == width:
        return {1: len(points)}
    return dict(Counter(Counter(p[:group] for p in points).values()))
