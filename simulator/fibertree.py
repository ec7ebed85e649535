"""Tensors stored level by level, as the scanners of the dataflow graph read them.

A level is `dense` (a reference `r` has children `r * extent + c` for every coordinate `c`)
or `compressed` (children `pos[r] .. pos[r+1]-1`, with coordinates `crd[...]`). References of
the first level start from the root reference 0; `values` is indexed by the last level's
references. A compressed level stores only coordinates that lead to at least one stored
value (what a coordinate dropper leaves behind).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class FiberTree:
    formats: tuple[str, ...]
    extents: tuple[int, ...]
    pos: list[np.ndarray | None]
    crd: list[np.ndarray | None]
    sizes: list[int]                 # references at each level
    values: np.ndarray | None        # None for a pattern without values

    @property
    def nlevels(self) -> int:
        return len(self.formats)

    @classmethod
    def from_coo(cls, formats, extents, coords, values=None) -> "FiberTree":
        """Build from coordinates (one int array per storage level) of the stored entries."""
        formats, extents = tuple(formats), tuple(int(e) for e in extents)
        coords = [np.asarray(c, dtype=np.int64) for c in coords]
        count = len(coords[0]) if coords else (1 if values is not None and np.size(values) else 0)
        if coords and count and not _lexicographic(coords):
            order = np.lexsort(coords[::-1])
            coords = [c[order] for c in coords]
            if values is not None:
                values = np.asarray(values, dtype=np.float64)[order]
        ref = np.zeros(count, dtype=np.int64)
        parent_size = 1
        pos: list[np.ndarray | None] = []
        crd: list[np.ndarray | None] = []
        sizes: list[int] = []
        for level, (fmt, ext) in enumerate(zip(formats, extents)):
            if fmt == "dense":
                ref = ref * ext + coords[level]
                parent_size *= ext
                pos.append(None)
                crd.append(None)
            else:
                # the entries are in lexicographic order, so the keys ascend: the distinct
                # ones are where a key changes (linear, where np.unique would sort again)
                keys = ref * ext + coords[level]
                new = np.empty(len(keys), dtype=bool)
                new[:1] = True
                np.not_equal(keys[1:], keys[:-1], out=new[1:])
                unique, inverse = keys[new], np.cumsum(new) - 1
                parents = unique // ext
                pos.append(np.concatenate([[0], np.cumsum(np.bincount(parents, minlength=parent_size))]).astype(np.int64))
                crd.append((unique % ext).astype(np.int64))
                ref = inverse.astype(np.int64)
                parent_size = len(unique)
            sizes.append(parent_size)
        stored = None
        if values is not None:
            stored = np.zeros(parent_size if formats else 1, dtype=np.float64)
            if count and formats:
                stored[ref] = values
            elif count:
                stored[0] = float(np.asarray(values).reshape(-1)[0])
        return cls(formats, extents, pos, crd, sizes, stored)

    @classmethod
    def dense_pattern(cls, extents) -> "FiberTree":
        """An all-dense tensor's structure without its values (what counting needs)."""
        extents = tuple(int(e) for e in extents)
        sizes = [int(np.prod(extents[: k + 1], dtype=np.int64)) for k in range(len(extents))]
        return cls(("dense",) * len(extents), extents, [None] * len(extents), [None] * len(extents), sizes, None)

    @classmethod
    def from_dense(cls, array: np.ndarray, formats) -> "FiberTree":
        array = np.asarray(array, dtype=np.float64)
        formats = tuple(formats)
        if not formats:
            return cls((), (), [], [], [], array.reshape(1).copy())
        if all(f == "dense" for f in formats):
            sizes = list(np.cumprod(array.shape).astype(int)) if array.size else [0] * array.ndim
            return cls(formats, tuple(array.shape), [None] * len(formats), [None] * len(formats),
                       [int(s) for s in sizes], array.ravel().copy())
        nz = np.nonzero(array)
        return cls.from_coo(formats, array.shape, list(nz), array[nz])

    @classmethod
    def from_sparse(cls, matrix, formats) -> "FiberTree":
        formats = tuple(formats)
        if formats == ("dense", "compressed"):
            csr = sp.csr_matrix(matrix)
            csr.sum_duplicates()
            csr.sort_indices()
            rows, cols = csr.shape
            return cls(formats, (rows, cols), [None, csr.indptr.astype(np.int64)],
                       [None, csr.indices.astype(np.int64)], [rows, int(csr.nnz)], csr.data.astype(np.float64))
        coo = matrix.tocoo()
        return cls.from_coo(formats, coo.shape, [coo.row, coo.col], coo.data)

    # ---- access, as the primitives use it ----

    def fiber(self, level: int, parent: int) -> tuple[np.ndarray, np.ndarray]:
        """Coordinates and child references under `parent` at a compressed level."""
        lo, hi = self.pos[level][parent], self.pos[level][parent + 1]
        return self.crd[level][lo:hi], np.arange(lo, hi)

    def locate(self, level: int, parent: int, coordinate: int) -> int | None:
        if self.formats[level] == "dense":
            return parent * self.extents[level] + coordinate
        crd, refs = self.fiber(level, parent)
        at = np.searchsorted(crd, coordinate)
        return int(refs[at]) if at < len(crd) and crd[at] == coordinate else None

    # ---- whole-tensor views ----

    def coordinates(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Coordinates of every leaf reference (dense levels included) and the references."""
        ref = np.zeros(1, dtype=np.int64)
        coords: list[np.ndarray] = []
        for level, (fmt, ext) in enumerate(zip(self.formats, self.extents)):
            if fmt == "dense":
                n = len(ref)
                coords = [np.repeat(c, ext) for c in coords] + [np.tile(np.arange(ext), n)]
                ref = (np.repeat(ref, ext) * ext + np.tile(np.arange(ext), n))
            else:
                starts, ends = self.pos[level][ref], self.pos[level][ref + 1]
                lengths = ends - starts
                total = int(lengths.sum())
                owner = np.repeat(np.arange(len(ref)), lengths)
                child = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths) + starts[owner]
                coords = [c[owner] for c in coords] + [self.crd[level][child]]
                ref = child
        return coords, ref

    def to_dense(self) -> np.ndarray:
        if not self.formats:
            return np.asarray(self.values[0] if self.values is not None else 0.0)
        if all(f == "dense" for f in self.formats) and self.values is not None:
            return self.values.reshape(self.extents)
        out = np.zeros(self.extents, dtype=np.float64)
        coords, ref = self.coordinates()
        if len(ref) and self.values is not None:
            out[tuple(coords)] = self.values[ref]
        return out

    def array_bytes(self, value_bytes: int, index_bytes: int, volume: int = 1) -> list[int]:
        """Bytes of each array the tensor is stored in: its values (`volume` per stored entry:
        the elements of a block, simulator.blocks), then the positions and the coordinates of
        each compressed level."""
        arrays = [value_bytes * volume * (self.sizes[-1] if self.formats else 1)]
        for p, c in zip(self.pos, self.crd):
            if p is not None:
                arrays += [index_bytes * len(p), index_bytes * len(c)]
        return [int(a) for a in arrays]

    def stored_bytes(self, value_bytes: int, index_bytes: int) -> int:
        return sum(self.array_bytes(value_bytes, index_bytes))

    def stored(self) -> int:
        return self.sizes[-1] if self.formats else 1


def _lexicographic(coords: list[np.ndarray]) -> bool:
    """Whether the entries (one array per level) are already in lexicographic order."""
    tied = np.ones(len(coords[0]) - 1, dtype=bool)   # pairs equal on every level so far
    for c in coords:
        step = np.diff(c)
        if np.any(step[tied] < 0):
            return False
        tied &= step == 0
    return True
