"""power_law_graph, synthetic_features and the dataset presets."""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fuseflow.data import (PRESETS, GraphData, get_preset, make_preset_graph, power_law_graph,
                           synthetic_features)
from fuseflow.data import synthetic
from fuseflow.data.synthetic import stored_entries
from fuseflow.support.errors import DataError

FAST = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])


def assert_simple_graph(adjacency: sp.csr_matrix, n: int, m: int, symmetric: bool) -> None:
    """Exact sizes, ones only, no self loops, no duplicate entries, symmetric if asked."""
    assert isinstance(adjacency, sp.csr_matrix)
    assert adjacency.shape == (n, n)
    assert adjacency.dtype == np.float64
    assert adjacency.nnz == m
    assert np.all(adjacency.data == 1.0)
    coo = adjacency.tocoo()
    assert not np.any(coo.row == coo.col), "self loop"
    keys = coo.row.astype(np.int64) * n + coo.col
    assert np.unique(keys).size == m, "duplicate edge"
    if symmetric:
        assert (adjacency != adjacency.T).nnz == 0


@st.composite
def small_requests(draw):
    n = draw(st.integers(1, 60))
    symmetric = draw(st.booleans())
    possible = n * (n - 1)
    m = draw(st.integers(0, possible))
    if symmetric:
        m -= m % 2
    return n, m, symmetric, draw(st.integers(0, 2**32 - 1))


@FAST
@given(small_requests())
def test_small_graphs_exact_and_simple(request):
    n, m, symmetric, seed = request
    adjacency = power_law_graph(n, m, seed=seed, symmetric=symmetric)
    assert_simple_graph(adjacency, n, m, symmetric)
    again = power_law_graph(n, m, seed=seed, symmetric=symmetric)
    assert (adjacency != again).nnz == 0


@settings(deadline=None, max_examples=12)
@given(n=st.integers(1500, 6000), mean_degree=st.integers(2, 12), symmetric=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_sampled_graphs_exact_simple_and_skewed(n, mean_degree, symmetric, seed):
    m = n * mean_degree
    m -= m % 2
    adjacency = power_law_graph(n, m, seed=seed, symmetric=symmetric)
    assert_simple_graph(adjacency, n, m, symmetric)
    degrees = np.diff(adjacency.indptr)
    assert degrees.max() >= 4 * degrees.mean()
    again = power_law_graph(n, m, seed=seed, symmetric=symmetric)
    assert np.array_equal(adjacency.indptr, again.indptr)
    assert np.array_equal(adjacency.indices, again.indices)


@pytest.mark.parametrize("exact_limit", [0, 10**9], ids=["sampled", "enumerated"])
@pytest.mark.parametrize("symmetric", [True, False])
def test_both_samplers_give_simple_skewed_graphs(monkeypatch, exact_limit, symmetric):
    monkeypatch.setattr(synthetic, "_EXACT_PAIR_LIMIT", exact_limit)
    n, m = 1000, 8000
    adjacency = power_law_graph(n, m, seed=3, symmetric=symmetric)
    assert_simple_graph(adjacency, n, m, symmetric)
    stats = GraphData("g", adjacency).describe()
    assert stats["degree_max"] >= 5 * stats["degree_mean"]
    assert stats["degree_gini"] > 0.3


def test_seeds_change_the_graph():
    first = power_law_graph(500, 2000, seed=1)
    second = power_law_graph(500, 2000, seed=2)
    assert (first != second).nnz > 0


def test_hubs_are_not_all_at_low_ids():
    degrees = np.diff(power_law_graph(5000, 40000, seed=0).indptr)
    top = np.argsort(degrees)[-20:]
    assert top.max() > 1000  # ids are shuffled after sampling


def test_full_ogb_collab_preset_builds_quickly():
    start = time.perf_counter()
    graph = make_preset_graph("ogb_collab")
    elapsed = time.perf_counter() - start
    preset = PRESETS["ogb_collab"]
    assert graph.n_vertices == preset.n_vertices == 235868
    assert graph.n_edges == preset.n_edges == 2570930
    assert graph.adjacency.diagonal().sum() == 0
    assert (graph.adjacency != graph.adjacency.T).nnz == 0
    assert isinstance(graph.features, np.ndarray) and graph.features.shape == (235868, 128)
    assert set(np.unique(graph.labels)) <= {0, 1}
    stats = graph.describe()
    assert stats["degree_max"] > 50 * stats["degree_mean"]
    assert elapsed < 15, f"ogb_collab preset took {elapsed:.1f} s"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_scaled_presets(name):
    preset = PRESETS[name]
    graph = make_preset_graph(name, seed=5, scale=0.02)
    n, m = synthetic.scaled_sizes(preset, 0.02)
    assert m % 2 == 0 and n == round(preset.n_vertices * 0.02)
    assert_simple_graph(graph.adjacency, n, m, symmetric=True)
    assert graph.n_features == preset.n_features
    assert sp.issparse(graph.features) == (preset.feature_density is not None)
    assert graph.labels.min() >= 0 and graph.labels.max() < preset.n_classes
    again = make_preset_graph(name, seed=5, scale=0.02)
    assert (graph.adjacency != again.adjacency).nnz == 0
    assert np.array_equal(graph.labels, again.labels)


def test_preset_table():
    expected = {
        "cora": (2708, 10556, 1433, 16, 7, "cora.npz"),
        "cora_ml": (2995, 16316, 2879, 16, 7, "cora_ml.npz"),
        "dblp": (17716, 105734, 1639, 16, 4, None),
        "ogb_collab": (235868, 2570930, 128, 16, 2, None),
    }
    assert set(PRESETS) == set(expected)
    for name, values in expected.items():
        p = PRESETS[name]
        assert (p.n_vertices, p.n_edges, p.n_features, p.n_hidden, p.n_classes,
                p.real_file) == values
        assert p.name == name and get_preset(name) is p


def test_dense_features():
    features = synthetic_features(7, 5, seed=1)
    assert isinstance(features, np.ndarray) and features.dtype == np.float64
    assert features.shape == (7, 5) and np.all((features >= 0) & (features < 1))
    assert np.array_equal(features, synthetic_features(7, 5, seed=1))


@example(rows=31, cols=15, density=0.9, seed=0)  # 0.9 * 31 * 15 rounds to 419, 0.9 * 465 to 418
@settings(deadline=None, max_examples=40)
@given(rows=st.integers(0, 50), cols=st.integers(0, 50), density=st.floats(0, 1),
       seed=st.integers(0, 1000))
def test_sparse_features_have_exact_density(rows, cols, density, seed):
    features = synthetic_features(rows, cols, density=density, seed=seed)
    assert isinstance(features, sp.csr_matrix) and features.shape == (rows, cols)
    assert features.dtype == np.float64
    assert features.nnz == stored_entries(density, rows * cols) == round(density * (rows * cols))
    assert np.all(features.data > 0)
    features.check_format(full_check=True)
    assert features.has_canonical_format


# ------------------------------------------------------------------------- bad requests

def test_unknown_preset_lists_the_known_names():
    with pytest.raises(DataError) as info:
        make_preset_graph("citeseer")
    message = str(info.value)
    assert "'citeseer'" in message
    for name in PRESETS:
        assert name in message


def test_odd_symmetric_edge_count_is_refused():
    with pytest.raises(DataError, match=r"must be even, got 7 \(ask for 6 or 8 edges\)"):
        power_law_graph(10, 7, symmetric=True)


def test_too_many_edges_are_refused():
    with pytest.raises(DataError, match="at most 12 edges") as info:
        power_law_graph(4, 14, symmetric=True)
    assert info.value.fix == "ask for fewer edges or more vertices"


@pytest.mark.parametrize("kwargs, fragment", [
    ({"n_vertices": 0, "n_edges": 0}, "n_vertices must be an integer >= 1"),
    ({"n_vertices": 5, "n_edges": -2}, "n_edges must be an integer >= 0"),
    ({"n_vertices": 5, "n_edges": 2, "exponent": 0.5}, "exponent must be a number > 1"),
    ({"n_vertices": 5, "n_edges": 2, "seed": -1}, "seed must be an integer >= 0"),
])
def test_bad_generator_arguments(kwargs, fragment):
    with pytest.raises(DataError, match=fragment):
        power_law_graph(**kwargs)


def test_bad_feature_density_and_scale():
    with pytest.raises(DataError, match="density must be between 0 and 1"):
        synthetic_features(3, 3, density=1.5)
    with pytest.raises(DataError, match="scale must be a positive number"):
        make_preset_graph("cora", scale=0)
