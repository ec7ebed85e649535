"""The fast executor's values, computed through each op's loop nest.

The fast executor (simulator.fast) leaves, for every op, the points its loops visit at the
leaf: a table of material coordinates (one row per point of the data-dependent levels) times
full ranges of the free variables. Here the op's expression is evaluated at exactly those
points, from the values its inputs hold there (an unstored coordinate holds 0), and each edge
closes the variables it eliminates the way the plan says (sum, max, or the last copy) onto
the variables it keeps. Nothing comes from the reference kernels (simulator.reference): a
lowering that visits the wrong points (a wrong support, a dropped coordinate) or closes a
variable the wrong way gives wrong values on data of any size, and the check catches it.

Which kernel runs is read off the plan, level by level:

* rows x free box, a product whose one factor spans the free variables, summed over
  material variables only: the loop nest "for each row, scale the factor's row by the
  other factors and add it to the row's group" is a sparse matrix W (rows' weights at
  (group, factor row)) times the factor's rows. Free variables inside the material ones
  (order i k j) run it row by row, `W @ T`; free variables outside them (order j i k) column
  by column, `(T.T @ W.T).T`;
* a dense box (no material level), a product, summed: np.einsum of the factors, the loop
  nest over full ranges;
* anything else (max reductions, non-products, NaN or infinite factors, which the language
  multiplies as 0 * anything = 0): the rows in chunks, the expression broadcast over the free
  box, reduced per chunk and accumulated per group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from fuseflow.lower.plan import WRITE, OpPlan, RegionPlan
from fuseflow.program.expr import Access, BinOp, Call, Const, Expr, Neg
from fuseflow.support.memory import check_memory
from simulator.fibertree import FiberTree
from simulator.points import PointSet, check_rows
from simulator.reference import apply_function, combine

__all__ = ["Table", "memory_table", "region_values"]

#: elements of one chunk's broadcast value array (a chunk of rows times the free box)
CHUNK_ELEMENTS = 4_000_000


# ------------------------------------------------------------------------------ value tables

@dataclass
class Table:
    """Values over named variables: `n` rows keyed by the coordinates of `keys`, each holding a
    full box over `axes` (values.shape == (n, *extents of axes)). Absent coordinates hold 0."""

    keys: tuple[str, ...]
    cols: dict[str, np.ndarray]
    axes: tuple[str, ...]
    values: np.ndarray
    extents: dict[str, int]
    _index: tuple | None = field(default=None, repr=False)
    _spread: dict = field(default_factory=dict, repr=False)

    @property
    def vars(self) -> tuple[str, ...]:
        return self.keys + self.axes

    @property
    def n(self) -> int:
        return self.values.shape[0]

    def find(self, cols: list[np.ndarray]) -> np.ndarray:
        """The row of each coordinate tuple (one array per key variable), -1 where absent."""
        if len(cols[0]) == self.n and all(c is self.cols[k] or np.array_equal(c, self.cols[k])
                                          for c, k in zip(cols, self.keys)):
            return np.arange(self.n)     # the points are the stored entries, in storage order (a scan)
        if self._index is None:
            key, bounds = _combine([self.cols[k] for k in self.keys], [self.extents[k] for k in self.keys])
            order = None if len(key) < 2 or bool(np.all(key[1:] > key[:-1])) else np.argsort(key, kind="stable")
            self._index = (key if order is None else key[order], order, bounds)
        sorted_key, order, bounds = self._index
        if bounds is None:        # keys too wide for one int64: match on the coordinates themselves
            return _find_wide([self.cols[k] for k in self.keys], cols)
        probe = np.zeros(len(cols[0]), dtype=np.int64)
        for c, b in zip(cols, bounds):
            probe = probe * b + c
        at = np.searchsorted(sorted_key, probe)
        at = np.minimum(at, max(len(sorted_key) - 1, 0))
        hit = sorted_key[at] == probe if len(sorted_key) else np.zeros(len(probe), dtype=bool)
        rows = at if order is None else order[at]
        return np.where(hit, rows, -1)

    def spread(self, var: str) -> "Table":
        """The same values with key variable `var` turned into a full axis (a consumer iterates
        it densely)."""
        rest = tuple(k for k in self.keys if k != var)
        ext = self.extents[var]
        if not rest and self.n == ext and np.array_equal(self.cols[var], np.arange(ext)):
            return Table((), {}, (var,) + self.axes, self.values[None], self.extents)    # already dense
        groups, first, _ = _groups([self.cols[k] for k in rest], [self.extents[k] for k in rest], self.n)
        cells = len(first) * ext * math.prod(self.values.shape[1:])
        check_memory(8 * cells, f"the fast executor's values ({cells:,} cells dense over {var})", "fast executor",
                     fix="shrink the problem with --dim")
        values = np.zeros((len(first), ext) + self.values.shape[1:])
        values[groups, self.cols[var]] = self.values
        return Table(rest, {k: self.cols[k][first] for k in rest}, (var,) + self.axes, values, self.extents)

    def dense_rows(self, keep: set[str]) -> "Table":
        """This table with every key variable outside `keep` spread into an axis (kept for the
        next chunk that asks)."""
        spread = tuple(k for k in self.keys if k not in keep)
        if not spread:
            return self
        if spread not in self._spread:
            table = self
            for k in spread:
                table = table.spread(k)
            self._spread[spread] = table
        return self._spread[spread]

    def lookup(self, cols: dict[str, np.ndarray], free: tuple[str, ...], n: int) -> np.ndarray:
        """Values at points given by material coordinates `cols` (n rows) times full ranges of
        `free`: shape (n or 1, one axis per free variable, of size 1 where this table does not
        depend on it)."""
        table = self.dense_rows(set(cols))
        material = [a for a in table.axes if a in cols]
        boxed = [v for v in free if v in table.axes]
        if not table.n:                  # nothing stored: every point reads 0
            return np.zeros((n,) + tuple(self.extents[v] if v in boxed else 1 for v in free))
        values = table.values.transpose([0] + [1 + table.axes.index(a) for a in material + boxed])
        if table.keys or material:
            rows = table.find([cols[k] for k in table.keys]) if table.keys else np.zeros(n, dtype=np.int64)
            out = values[(np.maximum(rows, 0),) + tuple(cols[a] for a in material)]
            if table.keys:
                absent = rows < 0
                if absent.any():
                    out[absent] = 0.0
        else:
            out = values
        return out.reshape((out.shape[0],) + tuple(self.extents[v] if v in boxed else 1 for v in free))

    def dense(self, order: tuple[str, ...]) -> np.ndarray:
        """The full dense array, axes in `order`."""
        table = self.dense_rows(set())
        values = table.values.reshape(table.values.shape[1:]) if table.n else np.zeros(
            tuple(self.extents[v] for v in table.axes))
        return np.transpose(values, [table.axes.index(v) for v in order])


def _combine(cols: list[np.ndarray], bounds: list[int]) -> tuple[np.ndarray, list[int] | None]:
    """One int64 key per row (lexicographic), or (zeros, None) when the bounds overflow."""
    n = len(cols[0]) if cols else 1
    if math.prod(max(b, 1) for b in bounds) >= (1 << 62):
        return np.zeros(n, dtype=np.int64), None
    key = np.zeros(n, dtype=np.int64)
    for c, b in zip(cols, bounds):
        key = key * max(b, 1) + c
    return key, [max(b, 1) for b in bounds]


def _find_wide(stored: list[np.ndarray], probe: list[np.ndarray]) -> np.ndarray:
    both = [np.concatenate([s, p]) for s, p in zip(stored, probe)]
    codes = [np.unique(c, return_inverse=True)[1] for c in both]
    key, bounds = _combine(codes, [int(c.max()) + 1 if len(c) else 1 for c in codes])
    m = len(stored[0])
    table = Table(("#",), {"#": key[:m]}, (), np.zeros(m), {"#": math.prod(bounds)})
    return table.find([key[m:]])


def _groups(cols: list[np.ndarray], bounds: list[int], n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Group id per row over the columns, the first row of each group, and the group count."""
    if not cols:
        return np.zeros(n, dtype=np.int64), np.zeros(min(n, 1), dtype=np.int64), min(n, 1)
    key, ok = _combine(cols, bounds)
    if ok is None:
        key = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)[1].reshape(-1)
    if n and bool(np.all(key[1:] >= key[:-1])):    # rows in loop order, keys a prefix of it
        starts = np.r_[True, key[1:] != key[:-1]]
        return np.cumsum(starts) - 1, np.flatnonzero(starts), int(starts.sum())
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return inverse.reshape(-1), first, len(first)


def _weights(weight: np.ndarray, groups: np.ndarray, at: np.ndarray, count: int, width: int) -> sp.csr_matrix:
    """The sparse matrix of the rows' weights at (group, operand row), rows absent from the
    operand left out. Rows in loop order (groups ascending) give its CSR form directly, each
    group's entries in the order the loops visit them, which is the order they are summed in."""
    hit = at >= 0
    if not hit.all():
        weight, groups, at = weight[hit], groups[hit], at[hit]
    if len(groups) and not bool(np.all(groups[1:] >= groups[:-1])):
        return sp.csr_matrix((weight, (groups, at)), shape=(count, width))
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(groups, minlength=count), out=indptr[1:])
    return sp.csr_matrix((weight, at, indptr), shape=(count, width))


def memory_table(value, vars_: tuple[str, ...], extents: dict[str, int]) -> Table:
    """A stored tensor's values (a dense array or a sparse matrix) over the variables an access
    names its axes by."""
    if len(set(vars_)) < len(vars_):      # a diagonal access, e.g. A(i,i)
        array = value.toarray() if sp.issparse(value) else np.asarray(value, dtype=np.float64)
        letters = {v: chr(ord("a") + k) for k, v in enumerate(dict.fromkeys(vars_))}
        unique = tuple(letters)
        array = np.einsum("".join(letters[v] for v in vars_) + "->" + "".join(letters[v] for v in unique), array)
        return Table((), {}, unique, array[None], extents)
    if sp.issparse(value):
        coo = sp.csr_matrix(value).tocoo()
        return Table(tuple(vars_), {vars_[0]: coo.row.astype(np.int64), vars_[1]: coo.col.astype(np.int64)}, (),
                     coo.data.astype(np.float64), extents)
    array = np.asarray(value, dtype=np.float64)
    return Table((), {}, tuple(vars_), array.reshape((1,) + array.shape), extents)


# ------------------------------------------------------------------------------ one op's values

class _Leaf:
    """An op's leaf points: `n` material rows (`cols`) times full ranges of `free`."""

    def __init__(self, points: PointSet, chain: tuple[str, ...], extents: dict[str, int]):
        points = points.expanded()
        self.chain, self.extents = chain, extents
        self.n, self.cols, self.free = points.n, dict(points.cols), tuple(v for v in chain if v in points.free)

    def unfolded(self) -> "_Leaf":
        """The same points with the outer free variables turned into rows until one row's box
        fits a chunk (the general kernel broadcasts a chunk of rows over the box)."""
        leaf = self
        while leaf.free and leaf.n and math.prod(self.extents[v] for v in leaf.free) > CHUNK_ELEMENTS:
            var, ext = leaf.free[0], self.extents[leaf.free[0]]
            check_rows(leaf.n * ext, f"level {var}")
            out = _Leaf.__new__(_Leaf)
            out.chain, out.extents, out.n, out.free = self.chain, self.extents, leaf.n * ext, leaf.free[1:]
            out.cols = {v: np.repeat(c, ext) for v, c in leaf.cols.items()}
            out.cols[var] = np.tile(np.arange(ext, dtype=np.int64), leaf.n)
            leaf = out
        return leaf


def _factors(expr: Expr) -> list | None:
    """The factors of a pure product of accesses and constants, or None."""
    stack, out = [expr], []
    while stack:
        node = stack.pop()
        if isinstance(node, (Access, Const)):
            out.append(node)
        elif isinstance(node, BinOp) and node.op == "*":
            stack += [node.rhs, node.lhs]
        else:
            return None
    return out


def _evaluate(expr: Expr, read, shape) -> np.ndarray:
    """The expression at a chunk of points, with the ALUs' rules (0 * anything = 0, x / 0 = 0)."""
    if isinstance(expr, Const):
        return np.full(shape, expr.value)
    if isinstance(expr, Access):
        return read(expr)
    if isinstance(expr, Call):
        return apply_function(expr.func, _evaluate(expr.arg, read, shape))
    if isinstance(expr, Neg):
        return -_evaluate(expr.arg, read, shape)
    return combine(expr.op, _evaluate(expr.lhs, read, shape), _evaluate(expr.rhs, read, shape))


class _OpValues:
    def __init__(self, op: OpPlan, leaf: _Leaf, tables: dict[str, Table]):
        self.op, self.leaf, self.tables = op, leaf, tables
        self.ext = leaf.extents

    def table(self, access: Access) -> Table:
        return self.tables[self.op.access_key[access]]

    def close(self, edge) -> Table:
        """The op's values at the edge's kept points: the eliminated variables closed."""
        is_max = any(m == "max" for m in edge.modes.values())
        shape = self._shape(edge)
        out = None if is_max else self._product(edge, *shape)
        if out is None:
            self.leaf = self.leaf.unfolded()
            shape = self._shape(edge)
            out = self._chunked(edge, *shape, is_max)
        rows, groups, first, count, keep_box = shape
        keep_rows = [v for v in edge.chain if v in self.leaf.cols]
        cols = {v: self.leaf.cols[v][rows[first]] for v in keep_rows}
        if not keep_rows and count == 0:      # nothing visited: the closed value is 0
            cols, out = {}, np.zeros((1,) + out.shape[1:])
        return Table(tuple(keep_rows), cols, keep_box, out, self.ext)

    def _shape(self, edge):
        """Rows kept (one per distinct copy), their group of kept material coordinates, the
        first row of each group, the group count, and the kept free variables."""
        leaf = self.leaf
        keep_rows = [v for v in edge.chain if v in leaf.cols]
        keep_box = tuple(v for v in edge.chain if v in leaf.free)
        rows = self._distinct_copies(edge)
        groups, first, count = _groups([self._cols(rows)[v] for v in keep_rows], [self.ext[v] for v in keep_rows],
                                       len(rows))
        return rows, groups, first, count, keep_box

    def _distinct_copies(self, edge) -> np.ndarray:
        """Rows left once the material variables closed as `last` (recomputation copies, all
        holding the same values) keep one copy: the last, as a writer overwrites."""
        leaf = self.leaf
        copies = [v for v in leaf.cols if edge.modes.get(v) == "last"]
        if not copies or not leaf.n:
            return np.arange(leaf.n)
        others = [v for v in leaf.chain if v in leaf.cols and v not in copies]
        if not others:
            return np.array([leaf.n - 1])
        key, bounds = _combine([leaf.cols[v] for v in others], [self.ext[v] for v in others])
        if bounds is None:
            key = np.unique(np.stack([leaf.cols[v] for v in others], axis=1), axis=0, return_inverse=True)[1]
        _, last = np.unique(key.reshape(-1)[::-1], return_index=True)
        return np.sort(leaf.n - 1 - last)

    # ---- the product kernels ----
    def _product(self, edge, rows, groups, first, count, keep_box) -> np.ndarray | None:
        factors = _factors(self.op.expr)
        leaf = self.leaf
        if factors is None or any(v not in edge.chain and edge.modes.get(v) == "last" for v in leaf.free):
            return None
        scale = math.prod(f.value for f in factors if isinstance(f, Const))
        accesses = [f for f in factors if isinstance(f, Access)]
        boxed = [a for a in accesses if set(self.table(a).vars) & set(leaf.free)]
        if any(v not in edge.chain for v in leaf.free):        # a free variable summed away
            if leaf.cols or len(boxed) != len(accesses):
                return None
            return self._einsum(accesses, scale, keep_box)
        if not leaf.cols and accesses:
            return self._einsum(accesses, scale, keep_box)
        if len(boxed) != 1:
            return None
        spanned = boxed[0]
        weight = np.full(len(rows), float(scale))
        for a in accesses:
            if a is not spanned:
                weight = weight * self.table(a).lookup(self._cols(rows), (), len(rows)).reshape(-1)
        operand = self.table(spanned).dense_rows(set(leaf.cols))
        if operand.keys and any(a in leaf.cols for a in operand.axes):
            return None
        own_box = [v for v in keep_box if v in operand.axes]
        if operand.keys:
            at = operand.find([self._cols(rows)[k] for k in operand.keys])
            matrix = operand.values.transpose([0] + [1 + operand.axes.index(v) for v in own_box])
        else:
            material = [a for a in operand.axes if a in leaf.cols]
            shape = [self.ext[a] for a in material]
            at = np.ravel_multi_index([self._cols(rows)[a] for a in material], shape) if material else \
                np.zeros(len(rows), dtype=np.int64)
            matrix = operand.values[0].transpose([operand.axes.index(a) for a in material + own_box])
        matrix = matrix.reshape(-1, math.prod(self.ext[v] for v in own_box))
        if not (np.isfinite(weight).all() and np.isfinite(matrix).all()):
            return None                      # IEEE products would turn 0 * inf into NaN
        weights = _weights(weight, groups, at, count, matrix.shape[0])
        position = {v: k for k, v in enumerate(leaf.chain)}
        inner = min((position[v] for v in own_box), default=len(leaf.chain)) > \
            max((position[v] for v in leaf.cols), default=-1)
        # free variables inside the rows: per row, scaled rows of the operand; outside: per column
        out = np.asarray(weights @ matrix) if inner else np.asarray((matrix.T @ weights.T).T)
        out = out.reshape((count,) + tuple(self.ext[v] for v in own_box))
        return self._broadcast_box(out, own_box, keep_box)

    def _einsum(self, accesses, scale: float, keep_box) -> np.ndarray | None:
        """A dense box (no rows): the loop nest over full ranges, a contraction of the factors."""
        if self.leaf.cols or self.leaf.n == 0:
            return None
        tables = [self.table(a) for a in accesses]
        arrays = [t.dense(t.vars) for t in tables]
        if not all(np.isfinite(a).all() for a in arrays):
            return None
        names = list(dict.fromkeys(v for t in tables for v in t.vars))
        letter = {v: chr(ord("a") + k) for k, v in enumerate(names)}
        spec = ",".join("".join(letter[v] for v in t.vars) for t in tables) + "->" + \
            "".join(letter[v] for v in keep_box if v in letter)
        out = scale * np.einsum(spec, *arrays, optimize=True) if arrays else np.float64(scale)
        for v in self.leaf.free:             # a variable no factor names still runs its loop
            if v not in letter and v not in keep_box:
                out = out * self.ext[v]
        present = [v for v in keep_box if v in letter]
        return self._broadcast_box(np.asarray(out)[None], present, keep_box)

    def _broadcast_box(self, out: np.ndarray, present: list[str], keep_box) -> np.ndarray:
        shape = (out.shape[0],) + tuple(self.ext[v] if v in present else 1 for v in keep_box)
        full = (out.shape[0],) + tuple(self.ext[v] for v in keep_box)
        order = [present.index(v) for v in keep_box if v in present]
        out = out.transpose([0] + [1 + k for k in order]).reshape(shape)
        return np.ascontiguousarray(np.broadcast_to(out, full))

    def _cols(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        if len(rows) == self.leaf.n:      # every row (rows is sorted and distinct)
            return self.leaf.cols
        return {v: c[rows] for v, c in self.leaf.cols.items()}

    # ---- the general kernel ----
    def _chunked(self, edge, rows, groups, first, count, keep_box, is_max: bool) -> np.ndarray:
        leaf, ext = self.leaf, self.ext
        box = tuple(ext[v] for v in leaf.free)
        kept = tuple(ext[v] for v in keep_box)
        width = math.prod(kept)
        out = np.full((count, width), -np.inf if is_max else 0.0)
        step = max(1, CHUNK_ELEMENTS // max(1, math.prod(box)))
        reduced = [v for v, m in edge.modes.items() if m in ("sum", "max")]
        one_per_row = not any(v in leaf.cols and v not in edge.chain for v in leaf.cols)
        for start in range(0, len(rows), step):
            chunk = rows[start:start + step]
            cols = {v: c[chunk] for v, c in leaf.cols.items()} if step < leaf.n else leaf.cols

            def read(access: Access):
                return self.table(access).lookup(cols, leaf.free, len(chunk))

            value = np.broadcast_to(_evaluate(self.op.expr, read, (1,) * (1 + len(box))), (len(chunk),) + box)
            for k in reversed(range(len(leaf.free))):
                v = leaf.free[k]
                if v in edge.chain:
                    continue
                mode = edge.modes[v]
                axis = 1 + k
                if mode == "last":
                    value = np.take(value, [-1], axis=axis)
                elif mode == "max" or is_max:
                    value = np.max(value, axis=axis, keepdims=True)
                else:
                    value = np.sum(value, axis=axis, keepdims=True)
            kept_order = [leaf.free.index(v) for v in keep_box]
            value = value.reshape((len(chunk),) + tuple(ext[v] if v in keep_box else 1 for v in leaf.free))
            value = np.transpose(value, [0] + [1 + k for k in kept_order] +
                                 [1 + k for k in range(len(leaf.free)) if leaf.free[k] not in keep_box])
            value = value.reshape(len(chunk), width)
            ids = groups[start:start + step]
            if one_per_row:
                out[ids] = value
            elif is_max:
                order = np.argsort(ids, kind="stable")
                ids, value = ids[order], value[order]
                starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
                at = ids[starts]
                out[at] = np.maximum(out[at], np.maximum.reduceat(value, starts, axis=0))
            elif width == 1:
                out[:, 0] += np.bincount(ids, weights=value[:, 0], minlength=count)
            else:
                scatter = sp.csr_matrix((np.ones(len(ids)), (ids, np.arange(len(ids)))), shape=(count, len(ids)))
                out += scatter @ value
        if is_max:
            # a group that misses some points of the closed ranges also takes their unstored zeros
            full = math.prod(ext[v] for v in reduced)
            seen = np.bincount(groups, minlength=count) * math.prod(ext[v] for v in leaf.free if v in reduced)
            short = seen < full
            out[short] = np.maximum(out[short], 0.0)
        return out.reshape((count,) + kept)


# ------------------------------------------------------------------------------ a region

def region_values(plan: RegionPlan, values: dict, leaves: dict[str, PointSet],
                  results: dict[str, tuple]) -> dict[str, FiberTree]:
    """Every result the region writes, with values computed through its loops: `values` holds
    the stored tensors, `leaves` each op's leaf points and `results` each written tensor's
    (edge, stored points) from simulator.fast."""
    from simulator.fast import result_coordinates

    buffers: dict[tuple[str, str], Table] = {}
    out: dict[str, FiberTree] = {}
    for op in plan.ops:
        tables: dict[str, Table] = {}
        for key, inp in op.inputs.items():
            if inp.kind == "buffer":
                tables[key] = buffers[(inp.producer, op.name)]
            elif inp.kind == "memory":
                tables[key] = memory_table(values[inp.tensor], inp.vars, plan.extents)
        run = _OpValues(op, _Leaf(leaves[op.name], op.chain, plan.extents), tables)
        for edge in op.edges:
            table = run.close(edge)
            if edge.target != WRITE:
                buffers[(op.name, edge.target)] = table
                continue
            coords = result_coordinates(edge, results[edge.tensor][1])
            if coords is None:
                out[edge.tensor] = FiberTree.from_dense(table.dense(edge.storage), edge.formats)
            else:
                stored = table.lookup(dict(zip(edge.storage, coords)), (), len(coords[0]) if coords else 1)
                out[edge.tensor] = FiberTree.from_coo(edge.formats, edge.extents, coords, stored.reshape(-1))
    return out
