"""The fast executor: the same token counts as `exact`, computed from the sparsity structure.

Each op's loop chain is a sequence of point sets, one per depth. A set is a table of
*material* coordinates (levels whose coordinates depend on data: sparse supports, and
variables that deeper fibers depend on) times a product of *free* full ranges, which stay
symbolic. Merges are sorted-key set operations in numpy; no Python loop runs per token.
Every count of the contract (`simulator.counts`) is then a size, a distinct count or a
bincount over these tables. Values come from the op-at-a-time kernels of the reference,
evaluated region by region with results stored (and masked) in their declared formats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fuseflow.lower.inputs import Input
from fuseflow.support.arrays import union_sorted
from fuseflow.lower.plan import WRITE, Node, OpPlan, RegionPlan
from simulator.counts import Counts, RegionRun, Visits
from simulator.fibertree import FiberTree
from fuseflow.cost.walks import buffered_depths
from fuseflow.lower.plan import block_edges
from simulator.points import (NeedRows, PointSet, TooLarge, check_rows, count_points, distinct, expand_fibers,
                              group_histogram, tiles_and_lanes)
from fuseflow.cost.walks import projections

__all__ = ["TooLarge", "Structure", "run_region", "result_coordinates", "VIRTUAL_ROWS"]

VIRTUAL_ROWS = 2_000_000    # a last sparse level larger than this is kept as per-row fiber lengths


class _Storage:
    """An input's stored levels, as the fast executor scans them (a buffer keeps only the levels
    whose coordinates depend on data, up to its last compressed one)."""

    def __init__(self, tree: FiberTree, level_map: dict[int, int | None]):
        self.tree = tree
        self.level_map = level_map


@dataclass
class Structure:
    """What a region's values are computed from (simulator.values): each op's leaf points, and
    each written result's (edge, stored points)."""

    leaves: dict[str, PointSet]
    results: dict[str, tuple]


@dataclass
class _Merge:
    owner: np.ndarray
    crd: np.ndarray
    refs: dict[str, np.ndarray]


class _OpRun:
    def __init__(self, plan: RegionPlan, op: OpPlan, storage: dict[str, _Storage], counts: dict[int, Counts]):
        self.plan, self.op, self.storage, self.counts = plan, op, storage, counts
        self.extents = plan.extents
        self.sets: list[PointSet] = [PointSet((), 1, {}, (), self.extents)]
        self.D = [1]
        self.P = [0]
        self.refs: dict[str, np.ndarray] = {k: np.zeros(1, dtype=np.int64) for k in op.inputs}
        self.present: dict[str, np.ndarray] = {k: np.ones(1, dtype=bool) for k in op.inputs}
        self.scanned: dict[tuple[str, int], PointSet] = {}
        self.fiber_rows: dict[tuple[str, int], np.ndarray] = {}
        self._tiles: dict[int, tuple] = {}     # keyed by id(); the value keeps the set alive
        self._fibers: dict[int, int] = {}

    # ---- bookkeeping ----
    def stops(self, length: int) -> int:
        if length == 0:
            return 0
        bare = sum(self.D[e - 1] - self.P[e] for e in range(1, length))
        return self.D[length - 1] + bare

    def fibers(self, parent: PointSet) -> int:
        key = id(parent)
        if key not in self._fibers:
            self._fibers[key] = count_points(parent, parent.vars, coarsen=self.op.coarsen) if parent.vars else 1
        return self._fibers[key]

    def record(self, pid: int, points: PointSet, length: int, walk: PointSet | None = None) -> None:
        measured = walk if walk is not None else points
        key = id(measured)
        if key not in self._tiles:
            self._tiles[key] = (measured, tiles_and_lanes(measured, self.plan, self.op.coarsen))
        tiles, lanes = self._tiles[key][1]
        parent = self.sets[length - 1] if length else None
        self.counts[pid] = Counts(points.size, self.stops(length), walk.size if walk is not None else 0, tiles,
                                  self.fibers(parent) if parent is not None else 0, lanes)

    # ---- the loop chain ----
    def run(self) -> None:
        op = self.op
        for pid, key in op.root_reads:
            self.counts[pid] = Counts(1, 0, 0, 1, 0, (1,))
        for level in op.levels:
            self.level(level)
        m = len(op.chain)
        leaf = self.sets[m]
        for pid in op.alus.values():
            self.record(pid, leaf, m)
        if op.join is not None:
            self.record(op.join, leaf, m)

    def _tracked(self, key: str, depth: int) -> bool:
        """Whether an input's references are still needed at `depth` (a compressed level ahead)."""
        inp = self.op.inputs[key]
        last = max((d for d, lv in self.op.resolve[key].items()
                    if any(inp.formats[s] == "compressed" for s in lv)), default=-1)
        return depth <= last

    def level(self, level) -> None:
        op, depth, var = self.op, level.depth, level.var
        parent = self.sets[depth]
        length = depth + 1
        vars_ = op.chain[:length]
        ext = level.extent
        if not level.material:
            points = parent.with_free(vars_, var)
            self.sets.append(points)
            self.D.append(points.size)
            self.P.append(parent.size if ext else 0)
            self.record(level.iterator.pid, points, length)
            self._per_input(level, points, length, None)
            return
        if self._virtual(level, parent, vars_, length):
            return
        merge = self.node(level.iterator, parent, var, ext, length)
        for spid, jpid, key in level.leftjoins:
            follower = self.scan(spid, key, parent, var, length)
            merge = self.join(jpid, merge, follower, "left", parent, var, ext, length)
        cols = {v: c[merge.owner] for v, c in parent.cols.items()}
        cols[var] = merge.crd
        points = PointSet(vars_, len(merge.owner), cols, parent.free, self.extents)
        self.sets.append(points)
        self.D.append(points.size)
        owners = int(np.count_nonzero(np.diff(merge.owner))) + 1 if len(merge.owner) else 0   # owner is sorted
        self.P.append(owners * parent.multiplicity)
        for key in list(self.present):
            ok = self.present[key][merge.owner]
            if key in merge.refs:
                ok &= merge.refs[key] >= 0
            self.present[key] = ok
        for key in list(self.refs):
            if key in merge.refs:
                self.refs[key] = merge.refs[key]
            elif self._tracked(key, depth + 1):
                self.refs[key] = self.refs[key][merge.owner]
        self._per_input(level, points, length, merge)

    def _virtual(self, level, parent: PointSet, vars_, length: int) -> bool:
        """Keep a large last sparse level as per-row fiber lengths (nothing deeper depends on its
        coordinates, so counts only need how many there are)."""
        op = self.op
        node = level.iterator
        deeper = op.levels[level.depth + 1:]
        if node.kind != "scan" or level.leftjoins or level.fork is not None or parent.virtual is not None \
                or any(lv.material for lv in deeper) \
                or any(self.op.coarsen.get(v, 1) > 1 for v in list(parent.cols) + [level.var]):
            return False
        inp = op.inputs[node.key]
        s = inp.vars.index(level.var)
        store = self.storage[node.key]
        tree, t = store.tree, store.level_map[s]
        refs = self.refs[node.key]
        lengths = np.zeros(parent.n, dtype=np.int64)
        valid = refs >= 0
        lengths[valid] = tree.pos[t][refs[valid] + 1] - tree.pos[t][refs[valid]]
        if int(lengths.sum()) <= VIRTUAL_ROWS:
            return False
        points = PointSet(vars_, parent.n, parent.cols, parent.free, self.extents, lengths, level.var,
                          (tree, t, refs))
        self.sets.append(points)
        self.D.append(points.size)
        self.P.append(int(np.count_nonzero(lengths)) * parent.multiplicity)
        self.record(node.pid, points, length)
        self.scanned[(node.key, s)] = points
        self.fiber_rows[(node.key, s)] = np.flatnonzero(valid)
        self._per_input(level, points, length, None)
        return True

    def _per_input(self, level, points: PointSet, length: int, merge: _Merge | None) -> None:
        if level.fork is not None:
            self.record(level.fork, points, length)
        for pid, key, levels in level.locates:
            self.record(pid, points, length)
            if merge is not None and self._tracked(key, level.depth + 1):
                self.refs[key] = self._locate(key, levels, points)
        for pid, _key, _what in level.repeats:
            self.record(pid, points, length)
        for pid, _key in level.reads:
            self.record(pid, points, length)

    def _locate(self, key: str, levels, points: PointSet) -> np.ndarray:
        inp = self.op.inputs[key]
        store = self.storage[key]
        ref = self.refs[key]
        for s in levels:
            t = store.level_map.get(s)
            if t is None:
                continue
            ext = store.tree.extents[t]
            crd = points.cols[inp.vars[s]]
            ref = np.where(ref >= 0, ref * ext + crd, -1)
        return ref

    # ---- merge trees ----
    def node(self, node: Node, parent: PointSet, var: str, ext: int, length: int) -> _Merge:
        if node.kind == "scan":
            return self.scan(node.pid, node.key, parent, var, length)
        if node.kind in ("dense", "empty"):
            n = parent.n if node.kind == "dense" else 0
            check_rows(n * ext, f"level {var}")
            owner = np.repeat(np.arange(n, dtype=np.int64), ext)
            crd = np.tile(np.arange(ext, dtype=np.int64), n)
            merge = _Merge(owner, crd, {})
            self.record(node.pid, self._points(parent, var, merge), length)
            return merge
        left, right = (self.node(c, parent, var, ext, length) for c in node.children)
        return self.join(node.pid, left, right, node.kind, parent, var, ext, length)

    def _points(self, parent: PointSet, var: str, merge: _Merge) -> PointSet:
        cols = {v: c[merge.owner] for v, c in parent.cols.items()}
        cols[var] = merge.crd
        return PointSet(parent.vars + (var,), len(merge.owner), cols, parent.free, self.extents)

    def scan(self, pid: int, key: str, parent: PointSet, var: str, length: int) -> _Merge:
        inp = self.op.inputs[key]
        s = inp.vars.index(var)
        store = self.storage[key]
        owner, child = expand_fibers(store.tree, store.level_map[s], self.refs[key])
        crd = store.tree.crd[store.level_map[s]][child]
        merge = _Merge(owner, crd, {key: child})
        points = self._points(parent, var, merge)
        self.record(pid, points, length)
        self.scanned[(key, s)] = points
        self.fiber_rows[(key, s)] = np.flatnonzero(self.refs[key] >= 0)
        return merge

    def join(self, pid, left: _Merge, right: _Merge, kind, parent, var, ext, length) -> _Merge:
        kl = left.owner * ext + left.crd
        kr = right.owner * ext + right.crd
        walk = union_sorted(kl, kr)
        if kind == "and":
            keys, il, ir = np.intersect1d(kl, kr, assume_unique=True, return_indices=True)
            refs = {k: r[il] for k, r in left.refs.items()}
            refs.update({k: r[ir] for k, r in right.refs.items()})
        else:
            keys = walk if kind == "or" else kl
            refs = {}
            for side, k_side in ((left, kl), (right, kr)):
                at = np.minimum(np.searchsorted(k_side, keys), max(len(k_side) - 1, 0))
                hit = (k_side[at] == keys) if len(k_side) else np.zeros(len(keys), dtype=bool)
                for k, r in side.refs.items():
                    refs[k] = np.where(hit, r[at] if len(r) else -1, -1)
        merge = _Merge(keys // ext, keys % ext, refs)
        walked = self._points(parent, var, _Merge(walk // ext, walk % ext, {}))
        self.record(pid, self._points(parent, var, merge), length, walked)
        return merge

    # ---- leaving the op ----
    def target_sets(self, chain: tuple[str, ...]) -> list[PointSet]:
        position = {v: i for i, v in enumerate(self.op.chain)}
        out = []
        for e in range(1, len(chain) + 1):
            keep = chain[:e]
            source = self.sets[position[keep[-1]] + 1]
            if source.virtual is not None and source.virtual in keep:
                if set(source.cols) <= set(keep):
                    out.append(PointSet(keep, source.n, source.cols, tuple(v for v in keep if v in source.free),
                                        self.extents, source.weights, source.virtual, source.recipe))
                    continue
                source = source.expanded()
            count, first, material = distinct(source, keep)
            cols = {v: source.cols[v][first] for v in material}
            free = tuple(v for v in keep if v in source.free)
            out.append(PointSet(keep, len(first) if material else (1 if source.n else 0), cols, free, self.extents))
        return out

    def edge_counts(self, edge, targets: list[PointSet]) -> Counts:
        d = len(edge.chain)
        if d == 0:
            return Counts(1, 0, 0, 1, 1, (1,))
        sizes = [1] + [t.size for t in targets]
        with_children = [0] + [1 if targets[0].size else 0] + [
            count_points(targets[e], targets[e - 1].vars) for e in range(1, d)]
        bare = sum(sizes[e - 1] - with_children[e] for e in range(1, d))
        tiles, lanes = tiles_and_lanes(targets[-1], self.plan, self.op.coarsen)
        fibers = count_points(targets[-2], targets[-2].vars, coarsen=self.op.coarsen) if d > 1 else 1
        return Counts(sizes[d], sizes[d - 1] + bare, 0, tiles, fibers, lanes)

    def visits(self) -> dict[tuple[str, str], Visits]:
        op = self.op
        position = {v: i for i, v in enumerate(op.chain)}
        out = {}
        for key, inp in op.inputs.items():
            if inp.kind == "buffer":
                continue
            own = [position[v] for v in inp.vars]
            blocks = dict(zip(inp.vars, block_edges(self.plan, inp) or ()))

            def keep(upto: int) -> tuple[str, ...]:
                return tuple(op.chain[k] for k in buffered_depths(own, upto))

            found = Visits()
            if inp.kind != "filter":
                depth = max(own) if own else -1
                points = self.sets[depth + 1]
                rows = np.flatnonzero(self._presence(key, depth + 1))
                found.values = _count_or_expand(points, keep(depth), rows, blocks) if depth >= 0 else 1
            for s, fmt in enumerate(inp.formats):
                if fmt != "compressed" or (key, s) not in self.scanned:
                    continue
                depth = position[inp.vars[s]]
                found.coords[s] = _count_or_expand(self.scanned[(key, s)], keep(depth), None, blocks)
                parent = self.sets[depth]
                found.fibers[s] = distinct(parent, keep(depth - 1), blocks, rows=self.fiber_rows[(key, s)])[0] \
                    if depth > 0 else (1 if len(self.fiber_rows[(key, s)]) else 0)
            out[(op.name, key)] = found
        return out

    def groups(self, wanted: dict) -> dict[tuple[str, str], dict[int, int]]:
        """The histograms of the projections fuseflow.cost.walks names for this op."""
        op = self.op
        position = {v: i for i, v in enumerate(op.chain)}
        out = {}
        for name, projection in wanted.items():
            kind, *where = projection.source
            rows = None
            if kind == "leaf":
                points = self.sets[len(op.chain)]
            elif kind == "values":
                depth = op.read_depth[where[0]] + 1
                points = self.sets[depth]
                rows = np.flatnonzero(self._presence(where[0], depth))
            elif kind == "coords":
                points = self.scanned[tuple(where)]
            else:
                key, s = where
                points = self.sets[position[op.inputs[key].vars[s]]]
                rows = self.fiber_rows[(key, s)]
            keep = tuple(op.chain[k] for k in projection.keep)
            coarsen = {v: c for v, c in zip(keep, projection.coarsen) if c > 1}
            out[(op.name, name)] = _histogram_or_expand(points, keep, projection.group, rows, coarsen)
        return out

    def _presence(self, key: str, length: int) -> np.ndarray:
        present = self.present[key]
        return present if len(present) == self.sets[length].n else np.ones(self.sets[length].n, dtype=bool)


def _count_or_expand(points: PointSet, keep, rows, coarsen: dict[str, int] | None = None) -> int:
    try:
        return count_points(points, keep, rows, coarsen)
    except NeedRows:
        expanded, rows = _expanded(points, rows)
        return distinct(expanded, keep, coarsen, rows=rows)[0]


def _histogram_or_expand(points: PointSet, keep, group: int, rows, coarsen: dict[str, int]) -> dict[int, int]:
    try:
        return group_histogram(points, keep, group, rows, coarsen)
    except NeedRows:
        expanded, rows = _expanded(points, rows)
        return group_histogram(expanded, keep, group, rows, coarsen)


def _expanded(points: PointSet, rows):
    """A set with its virtual level materialized, and the rows that came from `rows`."""
    expanded, owner = points.expanded_with_owner() if points.virtual else (points, None)
    if rows is not None and owner is not None:
        rows = np.flatnonzero(np.isin(owner, rows))
    return expanded, rows


def run_region(plan: RegionPlan, memory: dict[str, FiberTree]) -> tuple[RegionRun, Structure]:
    """Counts for every primitive, memory visits, and the patterns of buffers and results.
    Returns the run and the points the values are computed at."""
    counts: dict[int, Counts] = {}
    visits: dict[tuple[str, str], Visits] = {}
    buffers: dict[tuple[str, str], _Storage] = {}
    patterns: dict[str, tuple] = {}
    leaves: dict[str, PointSet] = {}
    groups: dict[tuple[str, str], dict[int, int]] = {}
    wanted = projections(plan)
    for op in plan.ops:
        storage = {}
        for key, inp in op.inputs.items():
            if inp.kind == "buffer":
                storage[key] = buffers[(inp.producer, op.name)]
            else:
                tree = memory[inp.tensor]
                storage[key] = _Storage(tree, {s: s for s in range(len(inp.formats))})
        run = _OpRun(plan, op, storage, counts)
        run.run()
        groups.update(run.groups(wanted[op.name]))
        m = len(op.chain)
        leaves[op.name] = run.sets[m]
        for edge in op.edges:
            targets = run.target_sets(edge.chain)
            if edge.reduce_pid is not None:
                run.record(edge.reduce_pid, run.sets[m], m)
            edge_count = run.edge_counts(edge, targets)
            for pid in (edge.drop_pid, edge.write_pid):
                if pid is not None:
                    counts[pid] = edge_count
            if edge.target == WRITE:
                patterns[edge.tensor] = (edge, targets[-1] if targets else None)
            else:
                buffers[(op.name, edge.target)] = _buffer_storage(edge, targets, plan.op(edge.target))
        visits.update(run.visits())
    return RegionRun(counts, visits, {}, {}, groups=groups), Structure(leaves, patterns)


def _buffer_storage(edge, targets: list[PointSet], consumer: OpPlan) -> _Storage:
    inp: Input = next(i for i in consumer.inputs.values() if i.kind == "buffer" and i.tensor == edge.tensor)
    compressed = [s for s, f in enumerate(inp.formats) if f == "compressed"]
    if not compressed:
        return _Storage(FiberTree((), (), [], [], [], None), {})
    last = compressed[-1]
    levels = [s for s in range(last + 1) if inp.level_depends(s)]
    leaf = targets[-1].expanded()
    count, first, _ = distinct(leaf, tuple(inp.vars[s] for s in levels))
    coords = [leaf.cols[inp.vars[s]][first] for s in levels]
    tree = FiberTree.from_coo([inp.formats[s] for s in levels], [inp.extents[s] for s in levels], coords)
    return _Storage(tree, {s: (levels.index(s) if s in levels else None) for s in range(len(inp.formats))})


def result_coordinates(edge, leaf: PointSet | None) -> list[np.ndarray] | None:
    """Stored coordinates (storage order) of a compressed result: the leaf points, free ranges
    expanded. None for an all-dense result."""
    if all(f == "dense" for f in edge.formats):
        return None
    if leaf is None:
        return [np.zeros(0, dtype=np.int64) for _ in edge.storage]
    leaf = leaf.expanded()
    count, first, material = distinct(leaf, leaf.vars)
    n = len(first) if material else (1 if leaf.n else 0)
    cols = {v: leaf.cols[v][first] for v in material}
    total = n
    for v in leaf.vars:
        if v in cols:
            continue
        ext = leaf.extents[v]
        cols = {k: np.repeat(c, ext) for k, c in cols.items()}
        cols[v] = np.tile(np.arange(ext, dtype=np.int64), total)
        total *= ext
    return [cols[v] if v in cols else np.zeros(total, dtype=np.int64) for v in edge.storage]
