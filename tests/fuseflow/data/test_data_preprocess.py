"""symmetrize / add_self_loops / normalize / preprocess, and GraphData statistics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseflow.data import (GraphData, add_self_loops, gini, normalize, preprocess,
                           preprocess_graph, remove_self_loops, symmetrize)
from fuseflow.support.errors import DataError

PROPERTY = settings(deadline=None, max_examples=60)


@st.composite
def adjacencies(draw, *, pattern=None):
    """Square non-negative sparse matrices in assorted formats, possibly with self loops."""
    n = draw(st.integers(1, 30))
    density = draw(st.floats(0.0, 0.5))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    mask = rng.random((n, n)) < density
    use_pattern = draw(st.booleans()) if pattern is None else pattern
    values = np.ones((n, n)) if use_pattern else rng.integers(1, 5, (n, n)) / 2.0
    fmt = draw(st.sampled_from(["csr", "csc", "coo"]))
    return sp.csr_matrix(np.where(mask, values, 0.0)).asformat(fmt)


def pattern_of(matrix) -> np.ndarray:
    return sp.csr_matrix(matrix).toarray() != 0


@PROPERTY
@given(adjacencies())
def test_symmetrize_is_the_union_with_the_transpose(adj):
    before = sp.csr_matrix(adj, copy=True)
    result = symmetrize(adj)
    dense = before.toarray()
    assert isinstance(result, sp.csr_matrix) and result.dtype == np.float64
    assert (result != result.T).nnz == 0
    assert np.array_equal(pattern_of(result), pattern_of(before) | pattern_of(before).T)
    assert np.array_equal(result.toarray(), np.maximum(dense, dense.T))  # weights: larger one
    assert (sp.csr_matrix(adj) != before).nnz == 0  # input untouched


@PROPERTY
@given(adjacencies(pattern=True))
def test_symmetrized_pattern_stays_ones(adj):
    assert np.all(symmetrize(adj).data == 1.0)


def test_symmetrize_weights_example():
    adj = sp.csr_matrix(np.array([[0, 2.0, 5.0], [3.0, 0, 0], [0, 0, 7.0]]))
    expected = np.array([[0, 3.0, 5.0], [3.0, 0, 0], [5.0, 0, 7.0]])
    assert np.array_equal(symmetrize(adj).toarray(), expected)


@PROPERTY
@given(adjacencies())
def test_self_loops_fill_the_diagonal_once(adj):
    without = remove_self_loops(adj)
    assert without.diagonal().sum() == 0
    n = without.shape[0]
    with_loops = add_self_loops(without)
    assert with_loops.nnz == without.nnz + n
    assert np.all(with_loops.diagonal() == 1.0)
    assert (add_self_loops(with_loops) != with_loops).nnz == 0  # idempotent
    # existing self loops keep their weights; only missing ones are added
    kept = add_self_loops(adj)
    original = sp.csr_matrix(adj).diagonal()
    assert np.array_equal(kept.diagonal(), np.where(original != 0, original, 1.0))


@PROPERTY
@given(adjacencies())
def test_row_normalisation_sums_to_one(adj):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings for empty rows
        result = normalize(adj, "row")
    sums = np.asarray(result.sum(axis=1)).ravel()
    has_edges = np.diff(sp.csr_matrix(adj).indptr) > 0
    assert np.allclose(sums[has_edges], 1.0)
    assert np.all(sums[~has_edges] == 0.0)
    assert np.array_equal(pattern_of(result), pattern_of(adj))


@PROPERTY
@given(adjacencies())
def test_sym_normalisation_is_symmetric(adj):
    symmetric = symmetrize(adj)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings for empty rows
        result = normalize(symmetric, "sym")
    assert result.nnz == 0 or abs(result - result.T).max() <= 1e-12
    degree = np.asarray(symmetric.sum(axis=1)).ravel()
    scale = np.divide(1.0, np.sqrt(degree), out=np.zeros_like(degree), where=degree > 0)
    expected = scale[:, None] * symmetric.toarray() * scale[None, :]
    assert np.allclose(result.toarray(), expected)


def test_zero_degree_rows_stay_zero_without_warnings():
    adj = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mode in ("row", "sym"):
            result = normalize(adj, mode)
            assert result[2].nnz == 0 and np.isfinite(result.data).all()


@PROPERTY
@given(adjacencies(), st.booleans(), st.booleans(), st.sampled_from(["none", "row", "sym"]))
def test_preprocess_applies_steps_in_order(adj, do_symmetrize, do_loops, mode):
    expected = sp.csr_matrix(adj, dtype=np.float64)
    if do_symmetrize:
        expected = symmetrize(expected)
    if do_loops:
        expected = add_self_loops(expected)
    expected = normalize(expected, mode)
    result = preprocess(adj, symmetrize=do_symmetrize, self_loops=do_loops, normalize=mode)
    assert result.shape == expected.shape
    assert np.allclose(result.toarray(), expected.toarray())


def test_gcn_pipeline_on_a_path_graph():
    adj = sp.csr_matrix(np.array([[0, 1.0, 0], [0, 0, 1.0], [0, 0, 0]]))  # one direction only
    result = preprocess(adj, symmetrize=True, self_loops=True, normalize="sym").toarray()
    degree = np.array([2.0, 3.0, 2.0])
    a_hat = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1.0]])
    assert np.allclose(result, a_hat / np.sqrt(np.outer(degree, degree)))


def test_preprocess_accepts_dense_arrays_and_graphs():
    dense = np.array([[0, 1.0], [0, 0]])
    assert preprocess(dense, symmetrize=True).nnz == 2
    graph = GraphData("g", sp.csr_matrix(dense), labels=np.array([0, 1]))
    processed = preprocess_graph(graph, self_loops=True, normalize="row")
    assert processed.n_edges == 3 and processed.labels is graph.labels
    assert graph.n_edges == 1  # the original graph is unchanged


def test_bad_preprocessing_options():
    adj = sp.csr_matrix(np.eye(2))
    with pytest.raises(DataError) as info:
        preprocess(adj, normalize="l2")
    assert "unknown normalisation mode 'l2'" in str(info.value)
    assert info.value.fix == "choose one of: none, row, sym"
    with pytest.raises(DataError, match="needs non-negative edge weights"):
        normalize(sp.csr_matrix(np.array([[0, -1.0], [1.0, 0]])), "sym")
    with pytest.raises(DataError, match=r"adjacency must be square, got shape \(2, 3\)"):
        symmetrize(sp.csr_matrix(np.ones((2, 3))))
    with pytest.raises(DataError, match="self-loop weight must be finite and non-zero"):
        add_self_loops(adj, value=0.0)


def test_describe_statistics():
    star = np.zeros((5, 5))
    star[0, 1:] = star[1:, 0] = 1.0
    graph = GraphData("star", sp.csr_matrix(star), features=np.ones((5, 3)),
                      labels=np.array([0, 1, 1, 2, 2]))
    stats = graph.describe()
    assert stats == {"name": "star", "n_vertices": 5, "n_edges": 8, "n_features": 3,
                     "n_classes": 3, "degree_max": 4, "degree_mean": 1.6,
                     "degree_gini": pytest.approx(gini(np.array([4, 1, 1, 1, 1])))}
    assert gini(np.array([3, 3, 3])) == 0.0
    assert gini(np.array([0, 0, 0, 10])) == pytest.approx(0.75)
    assert gini(np.array([])) == 0.0
    assert GraphData("empty", sp.csr_matrix((0, 0))).describe()["degree_max"] == 0


@PROPERTY
@given(n=st.integers(1, 12), entries=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11),
                                                        st.sampled_from([-1.5, 0.5, 1.0, 2.0])), max_size=40),
       mirrored=st.booleans())
def test_linear_symmetrize_equals_the_sort_of_mirrored_coordinates(n, entries, mirrored):
    """The merge (and the element-wise max of an already symmetric pattern) store exactly what
    sorting every coordinate with its mirror stores: the same indices, values and dtype."""
    from fuseflow.data.preprocessing import _as_csr, _symmetrize_by_sort

    kept = [(r, c, v) for r, c, v in entries if r < n and c < n]
    adj = sp.coo_matrix(([v for *_, v in kept], ([r for r, *_ in kept], [c for _, c, _ in kept])), shape=(n, n))
    if mirrored:
        adj = adj + adj.T
    got = symmetrize(adj)
    if _as_csr(adj).nnz == 0:
        assert got.nnz == 0
        return
    want = _symmetrize_by_sort(_as_csr(adj))
    assert got.has_sorted_indices and got.dtype == want.dtype == np.float64
    assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
    assert np.array_equal(got.data, want.data)
