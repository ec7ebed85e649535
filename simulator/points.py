"""Point sets of the fast executor and the counts taken from them.

A point set is a table of material coordinates times a product of free full ranges (see
simulator.fast). Everything here is vectorized: sizes, distinct (coarsened) projections,
per-lane tile counts, and fiber expansions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from fuseflow.support.errors import UserError
from fuseflow.lower.plan import RegionPlan
from simulator.fibertree import FiberTree

MAX_ROWS = 60_000_000       # material rows the fast executor holds before it gives up


class TooLarge(UserError):
    """The schedule's point sets do not fit the fast executor's memory budget."""


class NeedRows(Exception):
    """A count needs the coordinates of a level kept as fiber lengths."""


@dataclass
class PointSet:
    """Points over `vars`: `n` material rows (columns `cols`) times full ranges of `free`.

    A last sparse level that nothing deeper depends on may stay *virtual*: each row then
    stands for `weights[row]` points (its fiber length), and `recipe` can expand it."""

    vars: tuple[str, ...]
    n: int
    cols: dict[str, np.ndarray]
    free: tuple[str, ...]
    extents: dict[str, int] = field(repr=False, default_factory=dict)
    weights: np.ndarray | None = None
    virtual: str | None = None
    recipe: tuple | None = field(repr=False, default=None)   # (tree, level, parent refs)

    @property
    def multiplicity(self) -> int:
        return math.prod(self.extents[v] for v in self.free)

    @property
    def size(self) -> int:
        rows = int(self.weights.sum()) if self.weights is not None else self.n
        return rows * self.multiplicity

    def with_free(self, vars_: tuple[str, ...], var: str) -> "PointSet":
        return PointSet(vars_, self.n, self.cols, self.free + (var,), self.extents, self.weights, self.virtual,
                        self.recipe)

    def expanded(self) -> "PointSet":
        """The same points with the virtual level's coordinates materialized."""
        if self.virtual is None:
            return self
        check_rows(int(self.weights.sum()), f"level {self.virtual}")
        return self.expanded_with_owner()[0]

    def expanded_with_owner(self) -> tuple["PointSet", np.ndarray]:
        tree, level, parent = self.recipe
        owner, child = expand_fibers(tree, level, parent)
        cols = {v: c[owner] for v, c in self.cols.items()}
        cols[self.virtual] = tree.crd[level][child]
        return PointSet(self.vars, len(owner), cols, self.free, self.extents), owner


def check_rows(total: int, what: str) -> None:
    if total > MAX_ROWS:
        raise TooLarge(f"{total:.3g} loop points ({what}), more than the fast executor holds "
                       f"({MAX_ROWS:.3g})", where="fast executor",
                       fix="choose an order without this recomputation, or shrink the problem with --dim")


def _group(arrays: list[np.ndarray], bounds: list[int], n: int,
           inverse: bool = False) -> tuple[int, np.ndarray] | tuple[int, np.ndarray, np.ndarray]:
    """Number of distinct rows over the columns, and one representative row index per group
    (with `inverse`, also each row's group, numbered in the order of the representatives)."""
    if n == 0 or not arrays:
        count = 0 if n == 0 else 1
        first = np.zeros(count, dtype=np.int64)
        return (count, first, np.zeros(n, dtype=np.int64)) if inverse else (count, first)
    if math.prod(max(b, 1) for b in bounds) < (1 << 62):
        key = np.zeros(n, dtype=np.int64)
        for a, b in zip(arrays, bounds):
            key = key * max(b, 1) + a
        if inverse:
            _, first, where = np.unique(key, return_index=True, return_inverse=True)
            return len(first), first, where.ravel()
        _, first = np.unique(key, return_index=True)
        return len(first), first
    order = np.lexsort(arrays[::-1])
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for a in arrays:
        s = a[order]
        change[1:] |= s[1:] != s[:-1]
    first = order[change]
    if not inverse:
        return len(first), first
    where = np.empty(n, dtype=np.int64)
    where[order] = np.cumsum(change) - 1
    return len(first), first, where


def distinct(points: PointSet, keep: tuple[str, ...], coarsen: dict[str, int] | None = None,
             rows: np.ndarray | None = None) -> tuple[int, np.ndarray, list[str]]:
    """Distinct (optionally coarsened) projections onto `keep`: count, representative rows of
    the material part, and the material variables kept."""
    coarsen = coarsen or {}
    if points.virtual is not None:
        if points.virtual in keep:
            raise NeedRows()
        live = np.flatnonzero(points.weights > 0)
        rows = live if rows is None else np.intersect1d(rows, live)
    material = [v for v in keep if v in points.cols]
    n = points.n if rows is None else int(len(rows))
    free = math.prod(-(-points.extents[v] // coarsen.get(v, 1)) for v in keep if v in points.free)
    if rows is None and len(material) == len(points.cols) and not any(coarsen.get(v, 1) > 1 for v in material):
        # Material rows are distinct by construction (expansions of distinct parents).
        return (n if material else min(n, 1)) * free, np.arange(n if material else min(n, 1)), material
    cols, bounds = [], []
    for v in material:
        col = points.cols[v] if rows is None else points.cols[v][rows]
        c = coarsen.get(v, 1)
        cols.append(col // c if c > 1 else col)
        bounds.append(-(-points.extents[v] // c))
    count, first = _group(cols, bounds, n)
    if rows is not None:
        first = rows[first]
    return count * free, first, material


def count_points(points: PointSet, keep: tuple[str, ...], rows: np.ndarray | None = None,
                 coarsen: dict[str, int] | None = None) -> int:
    """Distinct projections onto `keep`, virtual levels included when every material variable
    is kept (rows are then distinct, and each counts its fiber length)."""
    if points.virtual is not None and points.virtual in keep:
        material = [v for v in keep if v in points.cols]
        coarsen = coarsen or {}
        if len(material) != len(points.cols) or any(coarsen.get(v, 1) > 1 for v in material + [points.virtual]):
            raise NeedRows()
        weights = points.weights if rows is None else points.weights[rows]
        free = math.prod(-(-points.extents[v] // coarsen.get(v, 1)) for v in keep if v in points.free)
        return int(weights.sum()) * free
    return distinct(points, keep, coarsen, rows)[0]


def group_histogram(points: PointSet, keep: tuple[str, ...], group: int, rows: np.ndarray | None = None,
                    coarsen: dict[str, int] | None = None) -> dict[int, int]:
    """Distinct (coarsened) projections onto `keep`, counted per group of their first `group`
    variables: {group size: number of groups}."""
    coarsen = coarsen or {}
    lead, rest = keep[:group], keep[group:]

    def tiles(names) -> int:
        return math.prod(-(-points.extents[v] // coarsen.get(v, 1)) for v in names if v in points.free)

    outer, inner = tiles(lead), tiles(rest)
    lead_material = [v for v in lead if v in points.cols]
    if points.virtual is not None and points.virtual in keep:
        material = [v for v in keep if v in points.cols]
        if len(material) != len(points.cols) or any(coarsen.get(v, 1) > 1 for v in material + [points.virtual]):
            raise NeedRows()
        weights = points.weights if rows is None else points.weights[rows]
        if points.virtual in lead:
            total = int(weights.sum())
            return {inner: total * outer} if total and inner else {}
        # Rows are distinct (every material variable kept); each stands for its fiber length.
        cols = [points.cols[v] if rows is None else points.cols[v][rows] for v in lead_material]
        sizes = _sums_by_group(cols, [points.extents[v] for v in lead_material], weights)
        return _size_counts(sizes * inner, outer)
    count, first, material = distinct(points, keep, coarsen, rows)
    if not count:
        return {}
    if len(lead_material) == len(material):
        return {inner: len(first) * outer}
    cols = []
    for v in lead_material:
        c = coarsen.get(v, 1)
        cols.append(points.cols[v][first] // c if c > 1 else points.cols[v][first])
    bounds = [-(-points.extents[v] // coarsen.get(v, 1)) for v in lead_material]
    sizes = _sums_by_group(cols, bounds, np.ones(len(first), dtype=np.int64))
    return _size_counts(sizes * inner, outer)


def _sums_by_group(cols: list[np.ndarray], bounds: list[int], weights: np.ndarray) -> np.ndarray:
    """The sum of `weights` per distinct row of `cols` (groups with a zero sum left out)."""
    count, _, where = _group(cols, bounds, len(weights), inverse=True)
    sums = np.bincount(where, weights=weights, minlength=count).astype(np.int64)
    return sums[sums > 0]


def _size_counts(sizes: np.ndarray, multiplicity: int) -> dict[int, int]:
    values, counts = np.unique(sizes, return_counts=True)
    return {int(v): int(c) * multiplicity for v, c in zip(values, counts) if v and multiplicity}


def tiles_and_lanes(points: PointSet, plan: RegionPlan, coarsen: dict[str, int]) -> tuple[int, tuple[int, ...]]:
    """Tiles of a stream (distinct paths coarsened by its op's `coarsen`) and tiles per lane."""
    vars_ = points.vars
    if points.virtual is not None:
        return _virtual_tiles(points, plan, coarsen)
    count, first, _ = distinct(points, vars_, coarsen)
    par = [v for v in vars_ if plan.par.get(v, 1) > 1]
    if not par:
        return count, (count,)
    material_par = [v for v in par if v in points.cols]
    shape = [plan.par[v] for v in par]
    lanes = np.zeros(shape, dtype=np.float64)   # float: recomputation can exceed int64
    if count:
        # Material part: one entry per distinct material tile, at its lane.
        index = np.zeros(len(first), dtype=np.int64)
        for v in material_par:
            index = index * plan.par[v] + (points.cols[v][first] // coarsen.get(v, 1)) % plan.par[v]
        mshape = [plan.par[v] for v in material_par]
        material = np.bincount(index, minlength=max(1, math.prod(mshape))).reshape(mshape or [1])
        if not material_par:
            material = material.reshape(())
        free_non_par = math.prod(-(-points.extents[v] // coarsen.get(v, 1)) for v in points.free if v not in par)
        # Bring material lanes into path order, then multiply in the free forked variables.
        total = material.astype(np.float64) * float(free_non_par)
        axes = list(material_par)
        for v in par:
            if v in material_par:
                continue
            tiles = -(-points.extents[v] // coarsen.get(v, 1))
            per_lane = _lane_split(tiles, plan.par[v])
            total = np.multiply.outer(total, per_lane)
            axes.append(v)
        total = np.transpose(total, [axes.index(v) for v in par]) if axes else total
        lanes = total.reshape(shape)
    return count, tuple(int(x) for x in lanes.ravel())


def _virtual_tiles(points: PointSet, plan: RegionPlan, coarsen: dict[str, int]) -> tuple[int, tuple[int, ...]]:
    """Tiles and lanes of a set with a virtual level (no material variable is coarsened)."""
    free_tiles = {v: -(-points.extents[v] // coarsen.get(v, 1)) for v in points.free}
    count = int(points.weights.sum()) * math.prod(free_tiles.values())
    par = [v for v in points.vars if plan.par.get(v, 1) > 1]
    if not par:
        return count, (count,)
    material_par = [v for v in par if v in points.cols]
    index = np.zeros(points.n, dtype=np.int64)
    for v in material_par:
        index = index * plan.par[v] + points.cols[v] % plan.par[v]
    mshape = [plan.par[v] for v in material_par]
    total = np.bincount(index, weights=points.weights.astype(np.float64),
                        minlength=max(1, math.prod(mshape))).reshape(mshape or [1])
    if not material_par:
        total = total.reshape(())
    total = total * float(math.prod(t for v, t in free_tiles.items() if v not in par))
    axes = list(material_par)
    for v in par:
        if v not in material_par:
            total = np.multiply.outer(total, _lane_split(free_tiles[v], plan.par[v]))
            axes.append(v)
    total = np.transpose(total, [axes.index(v) for v in par])
    return count, tuple(int(x) for x in total.ravel())


def _lane_split(tiles: int, factor: int) -> np.ndarray:
    """How many of `tiles` coordinates each of `factor` lanes gets when dealt round-robin."""
    return np.array([tiles // factor + (1 if lane < tiles % factor else 0) for lane in range(factor)],
                    dtype=np.float64)


def expand_fibers(tree: FiberTree, level: int, parent: np.ndarray):
    """Every (parent row, child reference) of the fibers under `parent` references (-1: none)."""
    valid = np.flatnonzero(parent >= 0)
    starts = tree.pos[level][parent[valid]]
    lengths = tree.pos[level][parent[valid] + 1] - starts
    check_rows(int(lengths.sum()), "a sparse level")
    owner = np.repeat(valid, lengths)
    offsets = np.cumsum(lengths) - lengths
    child = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(offsets - starts, lengths)
    return owner.astype(np.int64), child


