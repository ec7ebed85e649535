"""Materialized inputs, the reference's dense semantics, and data that does not fit the program."""

import numpy as np
import pytest
import scipy.sparse as sp

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.data.synthetic import get_preset
from fuseflow.support.errors import DataError
from fuseflow.program.frontend import parse_program
from fuseflow.schedule import default_schedule
from simulator.program_data import materialize
from simulator.evaluate import evaluate
from simulator.reference import evaluate_program


def test_seeds_are_reproducible_and_independent():
    program = resolve_program("nested_matmul")
    binding = bind(program, dims={"I": 8, "J": 8, "K": 4, "L": 3})
    a, b, c = (materialize(program, binding, s) for s in (1, 1, 2))
    assert (a.arrays["A"] != b.arrays["A"]).nnz == 0
    assert not np.array_equal(a.arrays["B"], c.arrays["B"])
    values = a.arrays["B"]
    assert values.min() >= -1 and values.max() < 1 and (values < 0).any()


def test_a_dimension_override_rescales_the_preset_graph():
    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 300, "F": 8})
    data = materialize(program, binding)
    adjacency = data.arrays["A"]
    assert adjacency.shape == (300, 300) and data.arrays["X"].shape == (300, 8)
    preset = get_preset("cora")
    mean_degree = (adjacency.nnz - 300) / 300          # without the self loops the program adds
    assert abs(mean_degree - preset.n_edges / preset.n_vertices) < 0.5
    # Symmetric normalization with self loops: D^-1/2 (A+I) D^-1/2 has row sums around 1.
    assert np.allclose(adjacency.diagonal() > 0, True)


def test_the_real_cora_file_is_used_as_is(shared_datasets):
    program = resolve_program("gcn")
    binding = bind(program, str(shared_datasets / "cora.npz"))
    data = materialize(program, binding)
    assert data.arrays["A"].nnz == 10556 + 2708
    assert data.arrays["X"].shape == (2708, 1433)
    assert np.count_nonzero(data.arrays["X"]) == 49216


def test_block_sources_fill_whole_blocks():
    program = resolve_program("block_attention")
    binding = bind(program, dims={"L": 64, "Dk": 4})
    mask = materialize(program, binding).arrays["M"].toarray() != 0
    blocks = mask.reshape(4, 16, 4, 16).transpose(0, 2, 1, 3).reshape(16, 256)
    assert set(blocks.sum(axis=1).tolist()) <= {0, 256}
    assert 0 < mask.sum() < mask.size


def test_ones_and_dense_semantics_of_the_reference():
    program = parse_program("""
name = "semantics"
[dims]
N = 4
[tensors]
S = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.5 }
U = { shape = ["N"], format = ["dense"], source = "ones" }
[[ops]]
name = "rowmax"
expr = "m(i) = S(i,j)"
reduce = "max"
[[ops]]
name = "ratio"
expr = "q(i) = U(i) / m(i)"
""", "semantics.toml")
    binding = bind(program)
    data = materialize(program, binding, seed=4)
    dense = data.arrays["S"].toarray()
    reference = evaluate_program(program, data.arrays, binding.extents)
    # max over the whole row: an unstored entry is a zero.
    assert np.allclose(reference["m"], dense.max(axis=1))
    expected = np.divide(1.0, reference["m"], out=np.zeros(4), where=reference["m"] != 0)
    assert np.allclose(reference["q"], expected)
    report = evaluate(program, binding, default_schedule(program), data=data, executor="exact")
    assert report.check.passed


def test_a_graph_file_that_disagrees_with_a_dimension_is_refused(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n")
    program = resolve_program("spmm")
    with pytest.raises(DataError, match="4 vertices but A is 6 x 6"):
        materialize(program, bind(program, str(path), {"N": 6}))


def test_features_of_the_wrong_width_are_refused(tmp_path):
    path = tmp_path / "graph.npz"
    adjacency = sp.csr_matrix(np.eye(3, k=1) + np.eye(3, k=-1))
    features = sp.csr_matrix(np.ones((3, 5)))
    np.savez(path, adj_data=adjacency.data, adj_indices=adjacency.indices, adj_indptr=adjacency.indptr,
             adj_shape=np.array(adjacency.shape), attr_data=features.data, attr_indices=features.indices,
             attr_indptr=features.indptr, attr_shape=np.array(features.shape))
    program = resolve_program("gcn")
    assert materialize(program, bind(program, str(path))).arrays["X"].shape == (3, 5)
    with pytest.raises(DataError, match="features are 3 x 5 but X is 3 x 4"):
        materialize(program, bind(program, str(path), {"F": 4}))
