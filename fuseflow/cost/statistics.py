"""The data's statistics the estimate reads: what each sparse input stores per level, how its
entries spread over the coordinates a fork deals to lanes, and how many blocks they occupy.

They are read once from the data (the arrays a simulation would run on, or the bound graph),
and cached per question; without data, the statistics follow the binding's assumption: a
uniformly random pattern at the tensor's density (fuseflow.program.binding.level_counts).

A tensor's *entries at depth d* are the stored prefixes of its first d + 1 levels: a
compressed level stores the prefixes some stored value lies under, a dense level every
coordinate under each stored parent.
"""

from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

from fuseflow.program.binding import Binding
from fuseflow.support.arrays import unique_sorted
from fuseflow.program.ir import Program

#: above this many entries at a depth, shares are taken as even (a dense expansion is not built)
ENTRIES_MEASURED = 50_000_000


class DataStatistics:
    def __init__(self, program: Program, binding: Binding, arrays: dict | None = None,
                 load: Callable[[], dict | None] | None = None):
        """`arrays`: tensor -> its data (a scipy sparse matrix or a numpy array); or `load`,
        which returns them when a statistic is first needed (None: no data)."""
        self.program, self.binding = program, binding
        self._coords: dict[str, list[np.ndarray] | None] = {}
        self._arrays = arrays
        self._load = load
        self._counts: dict[tuple, tuple[float, ...]] = {}
        self._shares: dict[tuple, np.ndarray] = {}
        self._entries: dict[tuple, list[np.ndarray] | None] = {}
        #: what estimates over this data keep between calls (fuseflow.cost.estimate: region models)
        self.memo: dict = {}

    # ---- the stored coordinates, when there is data

    def _leaf_coordinates(self, tensor: str) -> list[np.ndarray] | None:
        """One array per level: the coordinates of the stored values (None: no data)."""
        if tensor not in self._coords:
            self._coords[tensor] = self._read_coordinates(tensor)
        return self._coords[tensor]

    def _read_coordinates(self, tensor: str) -> list[np.ndarray] | None:
        import scipy.sparse as sp

        decl = self.program.tensors[tensor]
        if "compressed" not in decl.formats or len(decl.dims) != 2:
            return None
        source = pattern_source(self.program, tensor)
        if source is not None:
            return self._leaf_coordinates(source)
        if self._arrays is None and self._load is not None:
            self._arrays, self._load = self._load() or {}, None
        array = (self._arrays or {}).get(tensor)
        if array is None and decl.source == "graph.adjacency" and self.binding.graph is not None \
                and self.binding.graph.n_vertices == self.binding.extent(decl.dims[0]):
            array = self.binding.graph.adjacency
        if array is None:
            return None
        if sp.issparse(array):
            coo = sp.coo_matrix(array)
            rows, cols = coo.row.astype(np.int64), coo.col.astype(np.int64)
        else:
            rows, cols = (c.astype(np.int64) for c in np.nonzero(np.asarray(array)))
        return [rows, cols]

    def _entries_at(self, tensor: str, depth: int, edges: tuple[int, ...]) -> list[np.ndarray] | None:
        """The entries at `depth` (block coordinates under `edges`), one array per level."""
        key = (tensor, depth, edges)
        if key in self._entries:
            return self._entries[key]
        leaf = self._leaf_coordinates(tensor)
        found = None
        if leaf is not None:
            decl = self.program.tensors[tensor]
            sizes = [-(-self.binding.extent(d) // b) for d, b in zip(decl.dims, edges)]
            cols: list[np.ndarray] = []
            for level in range(depth + 1):
                if decl.formats[level] == "dense":
                    n = len(cols[0]) if cols else 1
                    if n * sizes[level] > ENTRIES_MEASURED:
                        found = None
                        break
                    cols = [np.repeat(c, sizes[level]) for c in cols]
                    cols.append(np.tile(np.arange(sizes[level], dtype=np.int64), n))
                else:
                    keys = np.zeros(len(leaf[0]), dtype=np.int64)
                    mine = [c // b for c, b in zip(leaf[:level + 1], edges)]
                    for c, size in zip(mine, sizes):
                        keys = keys * size + c
                    unique = unique_sorted(keys)
                    out = []
                    rest = unique
                    for size in reversed(sizes[:level + 1]):
                        out.append(rest % size)
                        rest = rest // size
                    cols = list(reversed(out))
                found = cols
            else:
                found = cols
        self._entries[key] = found
        return found

    # ---- what the estimate asks

    def level_counts(self, tensor: str, edges: tuple[int, ...] | None = None) -> tuple[float, ...]:
        """Entries at each depth (of the pattern of occupied blocks, under block `edges`)."""
        decl = self.program.tensors[tensor]
        edges = edges or (1,) * len(decl.dims)
        key = (tensor, edges)
        if key not in self._counts:
            counts = None
            if self._leaf_coordinates(tensor) is not None:
                counts = []
                for depth in range(len(decl.dims)):
                    entries = self._entries_at(tensor, depth, edges)
                    if entries is None:
                        counts = None
                        break
                    counts.append(float(len(entries[0])))
            self._counts[key] = tuple(counts) if counts is not None else self._assumed_counts(tensor, edges)
        return self._counts[key]

    def _assumed_counts(self, tensor: str, edges: tuple[int, ...]) -> tuple[float, ...]:
        decl = self.program.tensors[tensor]
        source = pattern_source(self.program, tensor)
        if source is not None and self.program.tensors[source].formats == decl.formats:
            return self.level_counts(source, edges)
        stats = self.binding.stats[tensor]
        if all(b == 1 for b in edges):
            return tuple(float(c) for c in stats.level_counts)
        # blocks of a uniformly random pattern: a block is occupied unless all its cells are empty
        density = stats.value_density
        sizes = [-(-self.binding.extent(d) // b) for d, b in zip(decl.dims, edges)]
        counts, parent = [], 1.0
        for level, fmt in enumerate(decl.formats):
            if fmt == "dense":
                parent *= sizes[level]
            else:
                cells = math.prod(edges[level:]) * math.prod(self.binding.extent(d) for d in decl.dims[level + 1:]) \
                    / max(1, math.prod(edges[level + 1:]))
                occupied = -math.expm1(cells * math.log1p(-density)) if density < 1 else 1.0
                parent = parent * sizes[level] * occupied
            counts.append(parent)
        return tuple(counts)

    def shares(self, tensor: str, depth: int, level: int, edge: int, factor: int) -> np.ndarray | None:
        """How the entries at `depth` fall on `factor` lanes dealt by their level-`level`
        coordinate (divided by `edge`) modulo `factor`: one share per lane, summing to 1.
        None: no data (the caller takes the dense split)."""
        key = (tensor, depth, level, edge, factor)
        if key not in self._shares:
            decl = self.program.tensors[tensor]
            edges = tuple(edge if s == level else 1 for s in range(len(decl.dims)))
            entries = self._entries_at(tensor, depth, edges) if self._leaf_coordinates(tensor) is not None else None
            if entries is None or not len(entries[0]):
                self._shares[key] = None
            else:
                lanes = np.bincount(entries[level] % factor, minlength=factor).astype(np.float64)
                self._shares[key] = lanes / lanes.sum()
        return self._shares[key]


def pattern_source(program: Program, tensor: str) -> str | None:
    """The input whose stored pattern a computed tensor keeps: its op multiplies (or divides)
    everything else by that input, read at the result's own coordinates (`S(i,j) = M(i,j) *
    Q(i,d) * K(j,d)` keeps the mask M's pattern). None for an input, or when no factor decides."""
    from fuseflow.program.binding import product_factors
    from fuseflow.program.expr import Access

    op_name = program.producer.get(tensor)
    if op_name is None:
        return None
    op = program.op_by_name[op_name]
    for factor in product_factors(op.expr, divisions=True):
        if isinstance(factor, Access) and tuple(factor.indices) == tuple(op.output_vars) \
                and "compressed" in program.tensors[factor.tensor].formats \
                and program.tensors[factor.tensor].dims == program.tensors[tensor].dims:
            return pattern_source(program, factor.tensor) or factor.tensor
    return None


@functools.lru_cache(maxsize=4096)
def even_shares(tiles: int, factor: int) -> np.ndarray:
    """Shares of `tiles` coordinates dealt round-robin to `factor` lanes."""
    tiles = max(1, int(tiles))
    lanes = np.array([tiles // factor + (1 if lane < tiles % factor else 0) for lane in range(factor)],
                     dtype=np.float64)
    return lanes / lanes.sum()
