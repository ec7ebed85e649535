"""The real citation graphs in the shared dataset folder load with the documented sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from fuseflow.data import (PRESETS, load_graph, load_npz, preprocess, remove_self_loops,
                           symmetrize)
from tests.paths import DATASETS


# file, vertices, stored edges, symmetrized edges without self loops, feature length, classes
REAL_GRAPHS = [
    ("cora.npz", 2708, 5429, 10556, 1433, 7),
    ("cora_ml.npz", 2995, 8416, 16316, 2879, 7),
]


def _dataset(file_name: str) -> Path:
    path = DATASETS / file_name
    if not path.is_file():
        pytest.skip(f"shared dataset {path} is not available")
    return path


@pytest.mark.parametrize("file_name, n, stored, symmetric, n_features, n_classes", REAL_GRAPHS)
def test_real_graph_sizes(file_name, n, stored, symmetric, n_features, n_classes):
    graph = load_npz(_dataset(file_name))
    assert graph.name == file_name.removesuffix(".npz")
    assert graph.n_vertices == n
    assert graph.n_edges == stored
    assert graph.adjacency.dtype == np.float64
    assert sp.issparse(graph.features) and graph.features.shape == (n, n_features)
    assert graph.labels.shape == (n,) and graph.n_classes == n_classes

    undirected = remove_self_loops(symmetrize(graph.adjacency))
    assert undirected.nnz == symmetric
    assert (undirected != undirected.T).nnz == 0
    # the same count through the one-call pipeline (the real files have no self loops)
    assert preprocess(graph.adjacency, symmetrize=True).nnz == symmetric


@pytest.mark.parametrize("file_name, n, stored, symmetric, n_features, n_classes", REAL_GRAPHS)
def test_presets_match_real_graphs(file_name, n, stored, symmetric, n_features, n_classes):
    preset = PRESETS[file_name.removesuffix(".npz")]
    assert preset.real_file == file_name
    assert (preset.n_vertices, preset.n_edges, preset.n_features, preset.n_classes) == (
        n, symmetric, n_features, n_classes)
    real = load_npz(_dataset(file_name))
    measured_density = real.features.nnz / (n * n_features)
    assert preset.feature_density == pytest.approx(measured_density, abs=5e-4)


def test_load_graph_dispatches_npz():
    path = _dataset("cora.npz")
    assert load_graph(path).n_edges == load_npz(path).n_edges


def test_real_degrees_are_skewed():
    graph = load_npz(_dataset("cora.npz"))
    stats = graph.describe()
    assert stats["degree_max"] > 10 * stats["degree_mean"]
    assert 0.0 < stats["degree_gini"] < 1.0
