"""Adjacency preprocessing for GNN layers: symmetrize, self loops, normalisation.

Every function takes a square matrix (any scipy sparse format or a dense 2-D array), never
modifies it, and returns a new float64 CSR matrix in canonical form (sorted indices, no
duplicates). Explicitly stored zeros in the input are dropped first, so "has an edge" always
means "has a non-zero stored entry".
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from fuseflow.data.graph import GraphData
from fuseflow.support.errors import DataError
from fuseflow.support.memory import check_memory

NORMALIZE_MODES = ("none", "row", "sym")
# Peak bytes of the steps (measured: ~170-200 per stored entry for symmetrize + self loops
# + normalize, mostly the mirrored coordinates and their sort; ~75 per vertex).
_BYTES_PER_ENTRY = 224
_BYTES_PER_VERTEX = 96


def preprocess_bytes(n_vertices: int, n_entries: int) -> int:
    """Peak bytes of `preprocess` on an adjacency with `n_entries` stored entries."""
    return n_entries * _BYTES_PER_ENTRY + n_vertices * _BYTES_PER_VERTEX


def _as_csr(adj, where: str = "adjacency") -> sp.csr_matrix:
    if isinstance(adj, GraphData):
        adj = adj.adjacency
    if not (sp.issparse(adj) or isinstance(adj, np.ndarray)):
        raise DataError(f"expected a sparse matrix or 2-D array, got {type(adj).__name__}",
                        where=where, fix="pass a scipy.sparse matrix")
    if adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
        raise DataError(f"adjacency must be square, got shape {adj.shape}", where=where,
                        fix="an adjacency matrix has one row and one column per vertex")
    entries = adj.nnz if sp.issparse(adj) else adj.size
    check_memory(preprocess_bytes(adj.shape[0], entries),
                 f"preprocessing a {adj.shape[0]:,}-vertex adjacency with {entries:,} entries", where,
                 fix="use a smaller graph")
    matrix = sp.csr_matrix(adj, dtype=np.float64, copy=True)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return matrix


def _from_coordinates(rows, cols, values, n: int) -> sp.csr_matrix:
    matrix = sp.csr_matrix((values, (rows, cols)), shape=(n, n), dtype=np.float64)
    matrix.sum_duplicates()
    return matrix


def symmetrize(adj) -> sp.csr_matrix:
    """Union of the graph with its transpose.

    An edge present in one direction only is mirrored with its weight; when both directions
    are stored with different weights, both get the larger one. A 0/1 pattern therefore
    becomes a symmetric 0/1 pattern. Self loops are kept as they are.

    Linear in the entries: the transpose is a counting sort by column, and the union a merge
    of sorted rows (an already symmetric pattern needs only an element-wise max). Only signed
    weights on an asymmetric pattern take the sort of mirrored coordinates, since a merge
    would read an edge missing in one direction as a 0 larger than a negative weight.
    """
    matrix = _as_csr(adj)
    n = matrix.shape[0]
    if matrix.nnz == 0:
        return sp.csr_matrix((n, n), dtype=np.float64)
    mirror = matrix.T.tocsr()
    mirror.sort_indices()
    if np.array_equal(matrix.indptr, mirror.indptr) and np.array_equal(matrix.indices, mirror.indices):
        np.maximum(matrix.data, mirror.data, out=matrix.data)
        return matrix
    if matrix.data.min() > 0:
        union = matrix.maximum(mirror).tocsr()
        union.sort_indices()
        return union
    return _symmetrize_by_sort(matrix)


def _symmetrize_by_sort(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """The union by sorting every coordinate and its mirror (any signs of weights)."""
    matrix = matrix.tocoo()
    n = matrix.shape[0]
    rows = np.concatenate([matrix.row, matrix.col]).astype(np.int64)
    cols = np.concatenate([matrix.col, matrix.row]).astype(np.int64)
    values = np.concatenate([matrix.data, matrix.data])
    keys = rows * n + cols
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    merged = np.maximum.reduceat(values, starts)
    unique_keys = keys[starts]
    return _from_coordinates(unique_keys // n, unique_keys % n, merged, n)


def add_self_loops(adj, value: float = 1.0) -> sp.csr_matrix:
    """Give every vertex without a self loop one of weight `value` (existing ones are kept,
    so applying this twice changes nothing)."""
    if not np.isfinite(value) or value == 0:
        raise DataError(f"self-loop weight must be finite and non-zero, got {value!r}",
                        where="self_loops", fix="use the default weight 1.0")
    matrix = _as_csr(adj)
    missing = np.flatnonzero(matrix.diagonal() == 0)
    n = matrix.shape[0]
    loops = sp.csr_matrix((np.full(missing.size, float(value)), (missing, missing)),
                          shape=(n, n))
    result = (matrix + loops).tocsr()
    result.sort_indices()
    return result


def remove_self_loops(adj) -> sp.csr_matrix:
    """Drop every diagonal entry."""
    matrix = _as_csr(adj).tocoo()
    off = matrix.row != matrix.col
    return _from_coordinates(matrix.row[off], matrix.col[off], matrix.data[off],
                             matrix.shape[0])


def _check_mode(mode) -> str:
    if mode not in NORMALIZE_MODES:
        raise DataError(f"unknown normalisation mode {mode!r}", where="normalize",
                        fix=f"choose one of: {', '.join(NORMALIZE_MODES)}")
    return mode


def normalize(adj, mode: str = "sym") -> sp.csr_matrix:
    """Scale the adjacency by its row sums d (weighted degrees).

    - "none": unchanged (as a float64 CSR copy);
    - "row": D^-1 A, so every row with an edge sums to 1;
    - "sym": D^-1/2 A D^-1/2, symmetric whenever A is.
    Rows and columns of vertices with degree 0 stay zero; nothing is divided by zero.
    Weights must be non-negative.
    """
    _check_mode(mode)
    matrix = _as_csr(adj)
    if mode == "none":
        return matrix
    if matrix.nnz and matrix.data.min() < 0:
        raise DataError("normalisation needs non-negative edge weights", where="normalize",
                        fix="use normalize='none' for signed weights")
    degree = np.asarray(matrix.sum(axis=1)).ravel()
    has_edges = degree > 0
    row_of_entry = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    if mode == "row":
        inverse = np.zeros_like(degree)
        inverse[has_edges] = 1.0 / degree[has_edges]
        matrix.data *= inverse[row_of_entry]
    else:
        inverse_root = np.zeros_like(degree)
        inverse_root[has_edges] = 1.0 / np.sqrt(degree[has_edges])
        matrix.data *= inverse_root[row_of_entry] * inverse_root[matrix.indices]
    return matrix


def preprocess(adj, *, symmetrize: bool = False, self_loops: bool = False,
               normalize: str = "none") -> sp.csr_matrix:
    """Apply, in this order: symmetrize, add self loops, normalise (each only if asked).

    The whole plan is checked against the memory budget first: a step's own check would
    come only after the steps before it had grown the matrix (self loops on a graph of
    100 million mostly isolated vertices add 100 million entries)."""
    mode = _check_mode(normalize)
    if hasattr(adj, "shape") and len(adj.shape) == 2:
        n = int(adj.shape[0])
        entries = int(adj.nnz if sp.issparse(adj) else adj.size) * (2 if symmetrize else 1) + (n if self_loops else 0)
        check_memory(preprocess_bytes(n, entries),
                     f"preprocessing a {n:,}-vertex adjacency into up to {entries:,} entries", "adjacency",
                     fix="use a smaller graph")
    matrix = _as_csr(adj)
    if symmetrize:
        matrix = _symmetrize(matrix)
    if self_loops:
        matrix = add_self_loops(matrix)
    return _normalize(matrix, mode)


def preprocess_graph(graph: GraphData, *, symmetrize: bool = False, self_loops: bool = False,
                     normalize: str = "none") -> GraphData:
    """`preprocess` applied to a graph's adjacency; features and labels are shared."""
    adjacency = preprocess(graph.adjacency, symmetrize=symmetrize, self_loops=self_loops,
                           normalize=normalize)
    return replace(graph, adjacency=adjacency)


# The keyword arguments of `preprocess` shadow the function names inside it.
_symmetrize = symmetrize
_normalize = normalize
