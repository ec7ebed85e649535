"""The in-memory graph every loader and generator returns.

A `GraphData` is an immutable bundle of a square CSR adjacency matrix (float64), optional
vertex features (CSR or dense, one row per vertex) and optional integer labels. Building one
checks that the pieces fit together, so code that receives a `GraphData` can rely on the
shapes without checking again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from fuseflow.support.arrays import unique_sorted
from fuseflow.support.errors import DataError


@dataclass(frozen=True, eq=False)
class GraphData:
    """A graph: adjacency (n x n CSR, float64), features (n x f) or None, labels (n,) or None.

    The constructor normalises the containers (any scipy sparse adjacency becomes a float64
    `csr_matrix`, sparse features become `csr_matrix`, labels become a 1-D int64 array) and
    raises `DataError` when the shapes disagree. Instances compare and hash by identity
    (matrices have no useful `==`).
    """

    name: str
    adjacency: sp.csr_matrix
    features: sp.csr_matrix | np.ndarray | None = None
    labels: np.ndarray | None = None

    def __post_init__(self) -> None:
        where = self.name or "graph"
        adjacency = self.adjacency
        if not sp.issparse(adjacency):
            if isinstance(adjacency, np.ndarray):
                adjacency = sp.csr_matrix(adjacency)
            else:
                raise DataError(
                    f"adjacency must be a scipy sparse matrix, got {type(adjacency).__name__}",
                    where=where, fix="pass a scipy.sparse matrix (it is converted to CSR)")
        if adjacency.ndim != 2 or adjacency.shape[0] != adjacency.shape[1]:
            raise DataError(
                f"adjacency must be square, got shape {adjacency.shape}",
                where=where, fix="an adjacency matrix has one row and one column per vertex")
        adjacency = sp.csr_matrix(adjacency, dtype=np.float64)
        object.__setattr__(self, "adjacency", adjacency)
        n = adjacency.shape[0]

        features = self.features
        if features is not None:
            if sp.issparse(features):
                features = sp.csr_matrix(features)
            elif isinstance(features, np.ndarray):
                if features.ndim != 2:
                    raise DataError(
                        f"features must be 2-D, got {features.ndim}-D",
                        where=where, fix="store one feature row per vertex")
            else:
                raise DataError(
                    f"features must be a CSR matrix or a numpy array, "
                    f"got {type(features).__name__}",
                    where=where, fix="convert the features with scipy.sparse.csr_matrix")
            if features.shape[0] != n:
                raise DataError(
                    f"features have {features.shape[0]} rows but the graph has {n} vertices",
                    where=where, fix="store exactly one feature row per vertex")
            object.__setattr__(self, "features", features)

        labels = self.labels
        if labels is not None:
            labels = np.asarray(labels)
            if labels.ndim != 1 or labels.shape[0] != n:
                raise DataError(
                    f"labels have shape {labels.shape} but the graph has {n} vertices",
                    where=where, fix="store one integer label per vertex")
            if not np.issubdtype(labels.dtype, np.integer):
                raise DataError(
                    f"labels must be integers, got dtype {labels.dtype}",
                    where=where, fix="encode classes as integers 0..k-1")
            object.__setattr__(self, "labels", labels.astype(np.int64, copy=False))

    @property
    def n_vertices(self) -> int:
        return int(self.adjacency.shape[0])

    @property
    def n_edges(self) -> int:
        """Stored entries of the adjacency (a symmetric graph counts each edge twice)."""
        return int(self.adjacency.nnz)

    @property
    def n_features(self) -> int:
        """Feature length per vertex, 0 when the graph has no features."""
        return 0 if self.features is None else int(self.features.shape[1])

    @property
    def n_classes(self) -> int:
        """Number of distinct labels, 0 when the graph has no labels."""
        return 0 if self.labels is None else int(unique_sorted(self.labels).size)

    def degrees(self) -> np.ndarray:
        """Out-degree (stored entries per row) of every vertex."""
        return np.diff(self.adjacency.indptr).astype(np.int64)

    def describe(self) -> dict[str, Any]:
        """Sizes plus degree statistics: max, mean and Gini coefficient (0 even, ->1 skewed)."""
        degrees = self.degrees()
        return {
            "name": self.name,
            "n_vertices": self.n_vertices,
            "n_edges": self.n_edges,
            "n_features": self.n_features,
            "n_classes": self.n_classes,
            "degree_max": int(degrees.max()) if degrees.size else 0,
            "degree_mean": float(degrees.mean()) if degrees.size else 0.0,
            "degree_gini": gini(degrees),
        }


def gini(values: np.ndarray) -> float:
    """Gini coefficient of non-negative values: 0 when all are equal, near 1 when one dominates."""
    x = np.sort(np.asarray(values, dtype=np.float64).ravel())
    n = x.size
    total = x.sum()
    if n == 0 or total <= 0:
        return 0.0
    ranks = np.arange(1, n + 1, dtype=np.float64)
    return float((2.0 * np.dot(ranks, x)) / (n * total) - (n + 1.0) / n)
