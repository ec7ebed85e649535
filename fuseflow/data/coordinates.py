"""From (row, column, weight) coordinates to a CSR adjacency, for the loaders that list edges.

Edge lists and Planetoid pickles name vertices by id, so the vertex count comes from the
largest id unless the caller gives one. Both go through `vertex_count`, which applies the
size rules of `fuseflow.data.graph_limits`, and `pattern_csr`, which checks the memory budget
before it builds anything.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fuseflow.data.graph_limits import (
    IDS_PER_EDGE,
    MAX_VERTICES,
    SPARSE_ID_LIMIT,
    check_graph_memory,
    describe_value,
    refuse_empty_graph,
)
from fuseflow.support.errors import DataError


def check_n_vertices(n_vertices, where: str) -> int | None:
    """The caller's explicit vertex count (None: take it from the largest id), checked."""
    if n_vertices is None:
        return None
    if isinstance(n_vertices, bool) or not isinstance(n_vertices, (int, np.integer)) or n_vertices < 0:
        raise DataError(f"n_vertices must be a non-negative integer, got {describe_value(n_vertices)}",
                        where=where, fix="pass the number of vertices")
    if n_vertices > MAX_VERTICES:
        raise DataError(f"n_vertices={n_vertices:,} is more than the {MAX_VERTICES:,} vertices Navigator can "
                        f"store", where=where, fix="pass a smaller vertex count")
    refuse_empty_graph(int(n_vertices), where)
    return int(n_vertices)


def vertex_count(largest_id: int, n_vertices: int | None, where: str, n_edges: int) -> int:
    """The number of vertices: `n_vertices` if given, else the largest id + 1 (within limits)."""
    n_vertices = check_n_vertices(n_vertices, where)
    if largest_id >= MAX_VERTICES:
        raise DataError(f"vertex id {largest_id:,} is larger than the {MAX_VERTICES:,} vertices Navigator can "
                        f"store", where=where, fix="renumber the vertices 0..n-1")
    if n_vertices is None:
        if largest_id < 0:
            raise DataError("the file holds no edges, so the vertex count is unknown",
                            where=where, fix="add at least one edge (or, from Python, pass n_vertices)")
        if largest_id >= max(SPARSE_ID_LIMIT, IDS_PER_EDGE * n_edges):
            raise DataError(f"vertex id {largest_id} is far larger than the {n_edges} edges need",
                            where=where, fix="renumber the vertices 0..n-1 (or, from Python, pass n_vertices)")
        return largest_id + 1
    if largest_id >= n_vertices:
        raise DataError(f"vertex id {largest_id} does not fit n_vertices={n_vertices}",
                        where=where, fix=f"pass n_vertices >= {largest_id + 1}")
    return n_vertices


def pattern_csr(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, n: int, where: str) -> sp.csr_matrix:
    """CSR from coordinates below n <= MAX_VERTICES; a repeated (row, col) keeps the weight given last."""
    check_graph_memory(n, rows.size, where)
    if rows.size:
        keys = rows * n + cols  # < n^2 <= 2^62: no overflow
        # np.unique keeps the first occurrence, so look at the reversed arrays to keep the last.
        _, first_in_reversed = np.unique(keys[::-1], return_index=True)
        keep = rows.size - 1 - first_in_reversed
        rows, cols, weights = rows[keep], cols[keep], weights[keep]
    matrix = sp.csr_matrix((weights.astype(np.float64), (rows, cols)), shape=(n, n))
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix
