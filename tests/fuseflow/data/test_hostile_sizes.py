"""Hostile sizes: `--dim` values and program extents, and the memory estimates that refuse a
plan (graph generation, features, inputs, the numpy reference) before anything is allocated.

The sizes here are chosen so that a regression fails fast instead of allocating: a missing
check would ask numpy for petabytes, which fails at once with MemoryError.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fuseflow.program.binding import MAX_EXTENT, bind
from fuseflow.program.bundled import resolve_program
from fuseflow.data import preprocess, scaled_sizes
from fuseflow.data.synthetic import get_preset
from fuseflow.support.errors import DataError, UserError
from fuseflow.program.frontend import parse_program
from fuseflow.support.memory import ResourceError, set_max_memory
from fuseflow.schedule import default_schedule, save_schedule
from simulator.program_data import input_allocations, materialize
from simulator.reference import evaluate_program
from tests.cli import InProcess, assert_user_error
from tests.fuseflow.data.capped import run_capped


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch) -> InProcess:
    return InProcess(tmp_path, capsys, monkeypatch)


@pytest.fixture
def memory_limit():
    """set(limit) for this test only."""
    yield set_max_memory
    set_max_memory(None)


def _arguments(command: str, cwd) -> list[str]:
    if command == "eval":
        schedule = cwd / "spmm.json"
        save_schedule(schedule, resolve_program("spmm"), default_schedule(resolve_program("spmm")))
        return ["eval", str(schedule), "--program", "spmm"]
    return [command, "spmm"]


# ----------------------------------------------------------------------------------- --dim

@pytest.mark.parametrize("command", ["check", "count", "eval", "compare", "start"])
@pytest.mark.parametrize("value, fragments", [
    ("N=10**30", ["cannot read 'N=10**30'", "as a whole number in digits"]),
    ("J=1e3", ["cannot read 'J=1e3'"]),
    ("J=\u00b2", ["cannot read"]),            # str.isdigit() accepts it, int() does not
    ("J=1_000", ["cannot read"]),
    ("J=0", ["dimension J must be positive, got 0", "--dim J=<extent>"]),
    ("J=-3", ["dimension J must be positive, got -3"]),
    ("J=99999999999999999999999", ["dimension J = 999999999999... (23 digits) is larger than the",
                                   "1,099,511,627,776 Navigator allows"]),
    ("J=1099511627777", ["dimension J = 1,099,511,627,777 is larger than the 1,099,511,627,776"]),
    ("J=" + "9" * 5000, ["(5000 digits) is larger than the 1,099,511,627,776"]),  # int() refuses 4,300+
    ("Q=4", ["unknown dimension 'Q'"]),
])
def test_bad_dims_are_clean_errors_in_every_command(cli, command, value, fragments):
    result = cli(*_arguments(command, cli.cwd), "--dim", value)
    assert_user_error(result, "--dim", *fragments)


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_a_dense_tensor_of_petabytes_is_refused_with_the_estimate(cli, command):
    result = cli(*_arguments(command, cli.cwd), "--dim", "J=1000000000000")
    assert_user_error(result, "spmm", "the inputs (the largest: B, 2,708 x 1,000,000,000,000 random values) would "
                                      "need about", "PiB", "--dim J=<less than 1,000,000,000,000>", "--max-memory")


def test_a_rescaled_preset_graph_is_refused_with_the_estimate(cli):
    result = cli("compare", "spmm", "--dim", "N=1000000000000")
    assert_user_error(result, "the cora graph at 1,000,000,000,000 vertices", "--dim N=<less than")


def test_max_memory_raises_and_lowers_the_limit(cli):
    result = cli("compare", "spmm", "--dim", "J=10000", "--max-memory", "64M")
    assert_user_error(result, "B, 2,708 x 10,000 random values", "more than the 64.0 MiB allowed (--max-memory)")
    assert cli("compare", "spmm", "--dim", "J=4", "--max-memory", "64M").returncode == 0


def test_program_extents_are_bounded_like_dims():
    program = parse_program(f"""
name = "wide"
[dims]
N = 4
J = {MAX_EXTENT}
[tensors]
B = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
[[ops]]
name = "copy"
expr = "C(i,j) = B(i,j)"
""", "wide.toml")
    assert bind(program).extents == {"N": 4, "J": MAX_EXTENT}  # the largest extent binds (nothing is allocated)
    with pytest.raises(DataError, match=r"--dim: dimension J = 1,099,511,627,777 is larger"):
        bind(program, dims={"J": MAX_EXTENT + 1})
    assert bind(program, dims={"J": 8}).extents == {"N": 4, "J": 8}


def test_a_graph_dimension_of_zero_names_the_data_file(tmp_path):
    path = tmp_path / "featureless.npz"
    adjacency = sp.csr_matrix(np.eye(3, k=1) + np.eye(3, k=-1))
    features = sp.csr_matrix((3, 0))
    np.savez(path, adj_data=adjacency.data, adj_indices=adjacency.indices, adj_indptr=adjacency.indptr,
             adj_shape=np.array(adjacency.shape), attr_data=features.data, attr_indices=features.indices,
             attr_indptr=features.indptr, attr_shape=np.array(features.shape))
    with pytest.raises(DataError, match=f"{path}: dimension F = graph.features must be positive, got 0"):
        bind(resolve_program("gcn"), str(path))


# ------------------------------------------------------------------------- memory estimates

def test_generators_check_memory_before_allocating():
    synthetic = "fuseflow.data.synthetic"
    calls = {  # expected message: (module, function, args, kwargs)
        "generating a 1,000,000,000-vertex graph with 10 edges would need": (synthetic, "power_law_graph",
                                                                            [10**9, 10], {}),
        "generating 1,000,000 x 1,000,000 features would need about 7.3 TiB": (synthetic, "synthetic_features",
                                                                             [10**6, 10**6], {}),
        # a sparse sample of more than 1/50 of the cells shuffles all of them
        "generating 30,000 x 30,000 features": (synthetic, "synthetic_features", [30_000, 30_000], {"density": 0.5}),
        "generating the graph ogb_collab@1000 (235,868,000 vertices": (synthetic, "make_preset_graph",
                                                                      ["ogb_collab"], {"scale": 1000}),
    }
    results = run_capped(list(calls.values()), max_memory="64M")
    for fragment, (outcome, message) in zip(calls, results):
        assert outcome == "refused" and fragment in message and "--max-memory" in message, (fragment, message)


def test_preprocessing_checks_memory_first(memory_limit):
    memory_limit(64 << 20)
    with pytest.raises(ResourceError, match=r"preprocessing a 2,000-vertex adjacency into up to 8,000,000 entries"):
        preprocess(np.ones((2000, 2000)), symmetrize=True)


def test_scale_beyond_the_vertex_limit_is_refused():
    with pytest.raises(DataError, match="scale 1e\\+300 gives 2.71e\\+303 vertices"):
        scaled_sizes(get_preset("cora"), 1e300)


def test_the_estimate_counts_every_input():
    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 1000})
    parts = {a.what.split(",")[0]: a.bytes for a in input_allocations(program, binding)}
    assert set(parts) == {"the cora graph at 1", "A", "X", "W1", "b1", "W2", "b2"}
    assert parts["X"] >= 1000 * 1433 * 8        # dense features
    data = materialize(program, binding)        # and the estimate does not refuse what fits
    assert data.arrays["X"].shape == (1000, 1433)


def test_the_reference_checks_its_dense_results(memory_limit):
    program = parse_program("""
name = "outer"
[dims]
I = 10000000
J = 10000000
[tensors]
a = { shape = ["I"], format = ["dense"], source = "ones" }
b = { shape = ["J"], format = ["dense"], source = "ones" }
[[ops]]
name = "outer"
expr = "O(i,j) = a(i) * b(j)"
""", "outer.toml")
    binding = bind(program)
    data = materialize(program, binding)        # 10^7-long inputs fit
    with pytest.raises(UserError, match=r"reference: the dense results of the numpy reference for outer would need "
                                        r"about 1.4 PiB"):
        evaluate_program(program, data.arrays, binding.extents)


def test_an_estimate_of_astronomically_many_bytes_is_still_a_clean_refusal():
    dims = [f"D{i}" for i in range(16)]     # 2^(40 * 16) elements: the most a program may declare
    variables = ",".join(f"v{i}" for i in range(16))
    program = parse_program("name = \"wide\"\n[dims]\n" + "\n".join(f"{d} = {MAX_EXTENT}" for d in dims) +
                            "\n[tensors]\nA = { shape = [" + ", ".join(f'"{d}"' for d in dims) + "], format = [" +
                            ", ".join('"dense"' for _ in dims) + "], source = \"ones\" }\n[[ops]]\nname = \"copy\"\n"
                            f"expr = \"B({variables}) = A({variables})\"\n", "wide.toml")
    with pytest.raises(ResourceError, match="the inputs .* would need about"):
        materialize(program, bind(program))
