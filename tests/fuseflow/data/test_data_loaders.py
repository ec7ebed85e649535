"""File loaders: round trips through tmp files, the restricted unpickler, and bad input."""

from __future__ import annotations

import collections
import os
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseflow.data import (GraphData, load_edge_list, load_graph, load_mtx, load_npz,
                           load_planetoid_graph)
from fuseflow.support.errors import DataError


@st.composite
def weighted_graphs(draw):
    n = draw(st.integers(1, 25))
    density = draw(st.floats(0.0, 0.6))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, n)) < density, rng.integers(1, 9, (n, n)) / 4.0, 0.0)
    return sp.csr_matrix(dense)


def same_matrix(left: sp.spmatrix, right: sp.spmatrix) -> bool:
    return left.shape == right.shape and (left != right).nnz == 0


# ------------------------------------------------------------------------------ round trips

@settings(deadline=None, max_examples=40)
@given(weighted_graphs())
def test_mtx_round_trip(matrix):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.mtx"
        scipy.io.mmwrite(str(path), matrix)
        graph = load_mtx(path)
        assert graph.name == "g"
        assert graph.adjacency.dtype == np.float64
        assert same_matrix(graph.adjacency, matrix)
        assert same_matrix(load_graph(path).adjacency, matrix)


def test_mtx_pattern_and_symmetric_headers(tmp_path):
    path = tmp_path / "pattern.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n"
                    "% a triangle\n3 3 3\n2 1\n3 1\n3 2\n")
    adjacency = load_mtx(path).adjacency
    assert adjacency.nnz == 6 and np.all(adjacency.data == 1.0)
    assert (adjacency != adjacency.T).nnz == 0


@settings(deadline=None, max_examples=40)
@given(weighted_graphs(), st.sampled_from([" ", "\t", ",", ", "]), st.booleans())
def test_edge_list_round_trip(matrix, separator, with_weights):
    coo = matrix.tocoo()
    lines = ["# source target weight", "% another comment style", ""]
    for r, c, w in zip(coo.row, coo.col, coo.data):
        fields = [str(r), str(c)] + ([str(float(w))] if with_weights else [])
        lines.append(separator.join(fields))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "edges.txt"
        path.write_text("\n".join(lines) + "\n")
        if coo.nnz == 0:
            with pytest.raises(DataError, match="pass n_vertices"):
                load_edge_list(path)
            return
        graph = load_edge_list(path, n_vertices=matrix.shape[0])
        expected = matrix if with_weights else (matrix != 0).astype(np.float64)
        assert same_matrix(graph.adjacency, expected)
        assert graph.name == "edges"
        # without n_vertices the size is the largest id + 1
        largest = int(max(coo.row.max(), coo.col.max()))
        assert load_graph(path).n_vertices == largest + 1


def test_edge_list_repeated_edge_keeps_last_weight(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("0,1,2.5\n1,2\n0,1,4\n")
    adjacency = load_edge_list(path, n_vertices=5).adjacency
    assert adjacency.shape == (5, 5) and adjacency.nnz == 2
    assert adjacency[0, 1] == 4.0 and adjacency[1, 2] == 1.0


# -------------------------------------------------------------------------- planetoid pickles

def _write_pickle(path: Path, obj, protocol: int) -> Path:
    path.write_bytes(pickle.dumps(obj, protocol=protocol))
    return path


def test_planetoid_defaultdict_protocol_2(tmp_path):
    neighbours = collections.defaultdict(list)
    for src, dst in [(0, 1), (1, 0), (1, 2), (2, 1), (2, 2), (0, 1)]:
        neighbours[src].append(dst)
    neighbours[4]  # a vertex without neighbours, as in the real files
    path = _write_pickle(tmp_path / "ind.toy.graph", neighbours, protocol=2)
    assert b"collections\ndefaultdict" in path.read_bytes()  # the real files' layout
    assert b"__builtin__\nlist" in path.read_bytes()         # Python 2 module name
    graph = load_planetoid_graph(path)
    assert graph.name == "toy"
    assert graph.n_vertices == 5
    expected = np.zeros((5, 5))
    expected[[0, 1, 1, 2, 2], [1, 0, 2, 1, 2]] = 1.0
    assert np.array_equal(graph.adjacency.toarray(), expected)  # repeated 0->1 stored once
    assert load_graph(path).n_edges == 5
    assert load_planetoid_graph(path, n_vertices=8).n_vertices == 8


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_planetoid_plain_dict_any_protocol(tmp_path, protocol):
    path = _write_pickle(tmp_path / "ind.x.graph", {0: [1, 2], 2: [0]}, protocol)
    assert load_planetoid_graph(path).adjacency.nnz == 3


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.integers(0, 2**40), st.lists(st.integers(0, 2**40), max_size=30), max_size=20),
       st.integers(0, pickle.HIGHEST_PROTOCOL), st.booleans())
def test_the_restricted_unpickler_reads_what_pickle_reads(neighbours, protocol, as_defaultdict):
    """Every protocol, either dict type, every integer width (BININT1, BININT2, BININT, LONG1):
    what the restricted loader rebuilds is what pickle.loads does. (Protocols 0 and 1 of a
    defaultdict were refused: TUPLE appended to the stack its MARK had closed.)"""
    from fuseflow.data.planetoid import _unpickle

    if as_defaultdict:
        neighbours = collections.defaultdict(list, neighbours)
    payload = pickle.dumps(neighbours, protocol=protocol)
    rebuilt = _unpickle(payload, "x")
    assert rebuilt == pickle.loads(payload) and type(rebuilt) is type(neighbours)


class _RunsShell:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _RunsEval:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w').close()",))


def _defaultdict_with_shell_factory(marker: Path):
    evil = collections.defaultdict(list)
    evil[0].append(1)
    evil.default_factory = os.system  # unpickling would rebuild it as defaultdict(os.system)
    return evil


@pytest.mark.parametrize("make", [
    lambda marker: _RunsShell(marker),
    lambda marker: {0: [1], 1: [_RunsShell(marker)]},
    lambda marker: _RunsEval(marker),
    _defaultdict_with_shell_factory,
], ids=["os.system", "nested-os.system", "builtins.eval", "defaultdict-factory"])
@pytest.mark.parametrize("protocol", [2, 5])
def test_malicious_pickles_are_refused_without_running(tmp_path, make, protocol):
    marker = tmp_path / "pwned"
    path = _write_pickle(tmp_path / "ind.evil.graph", make(marker), protocol)
    with pytest.raises(DataError) as info:
        load_planetoid_graph(path)
    message = str(info.value)
    assert "refusing to unpickle" in message
    assert "only dicts, lists and ints are allowed" in message
    assert str(path) in message
    # protocol 2 names the builtins module `__builtin__`, as Python 2 did
    refused = ("posix.system", "os.system", "builtins.eval", "__builtin__.eval")
    assert any(f"refusing to unpickle {name}:" in message for name in refused)
    assert not marker.exists(), "the pickle's payload ran"
    # the same refusal through the dispatcher
    with pytest.raises(DataError, match="refusing to unpickle"):
        load_graph(path)
    assert not marker.exists()


@pytest.mark.parametrize("payload, fragment", [
    ([1, 2, 3], "expected a dict of neighbour lists, found list"),
    ({"a": [1]}, "vertex key 'a' is not a non-negative integer"),
    ({0: [1, -2]}, "neighbours of vertex 0 are not a list of non-negative ints"),
    ({0: (1, 2)}, "neighbours of vertex 0"),  # tuples need no global, but are not lists
    ({0: {1, 2}}, "refusing to unpickle __builtin__.set"),  # sets need a global: refused
    ({0: [1.5]}, "refusing the pickle opcode BINFLOAT"),  # floats are not vertex ids
])
def test_planetoid_wrong_shapes(tmp_path, payload, fragment):
    path = _write_pickle(tmp_path / "ind.bad.graph", payload, protocol=2)
    with pytest.raises(DataError, match=fragment):
        load_planetoid_graph(path)


# ------------------------------------------------------------------------------ .npz styles

def _csr_parts(prefix: str, matrix: sp.csr_matrix) -> dict[str, np.ndarray]:
    return {f"{prefix}data": matrix.data, f"{prefix}indices": matrix.indices,
            f"{prefix}indptr": matrix.indptr, f"{prefix}shape": np.array(matrix.shape)}


@pytest.mark.parametrize("adj_prefix, attr_prefix", [("adj_", "attr_"),
                                                     ("adj_matrix.", "attr_matrix.")])
def test_npz_both_key_styles(tmp_path, adj_prefix, attr_prefix):
    adjacency = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 2], [0, 0, 0]], dtype=np.float32))
    features = sp.csr_matrix(np.eye(3, 4))
    path = tmp_path / "toy.npz"
    np.savez(path, **_csr_parts(adj_prefix, adjacency), **_csr_parts(attr_prefix, features),
             labels=np.array([0, 1, 1], dtype=np.int8),
             node_names=np.array(["a", {"not": "loaded"}, "c"], dtype=object))
    graph = load_npz(path)
    assert same_matrix(graph.adjacency, adjacency) and graph.adjacency.dtype == np.float64
    assert same_matrix(graph.features, features)
    assert graph.labels.tolist() == [0, 1, 1] and graph.labels.dtype == np.int64


def test_npz_scipy_save_npz(tmp_path):
    matrix = sp.random(6, 6, density=0.3, random_state=1, format="csr")
    for fmt in ("csr", "csc"):
        path = tmp_path / f"{fmt}.npz"
        sp.save_npz(path, matrix.asformat(fmt))
        graph = load_npz(path)
        assert same_matrix(graph.adjacency, matrix)
        assert graph.features is None and graph.labels is None


# --------------------------------------------------------------------------- bad input

def _raises(call, *fragments) -> DataError:
    with pytest.raises(DataError) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert info.value.fix, "every DataError says how to fix it"
    return info.value


@pytest.mark.parametrize("loader", [load_npz, load_mtx, load_edge_list, load_planetoid_graph,
                                    load_graph])
def test_missing_file(tmp_path, loader):
    path = tmp_path / "absent.data"
    error = _raises(lambda: loader(path), str(path), "file not found", "give the path of")
    assert error.where == str(path)


def test_directory_instead_of_file(tmp_path):
    _raises(lambda: load_graph(tmp_path), str(tmp_path), "not a regular file")


@pytest.mark.parametrize("content, line, fragment", [
    ("0 1\n1 two\n", 2, "vertex ids must be integers"),
    ("# header\n0 1\n\n0 1 2 3\n", 4, "expected 'src dst [weight]', found 4 fields"),
    ("0 1\n2\n", 2, "found 1 fields"),
    ("0,1,heavy\n", 1, "weight 'heavy' is not a number"),
    ("0 1 nan\n", 1, "weight 'nan' is not finite"),
    ("0 1\n% c\n-1 2\n", 3, "vertex ids must be non-negative"),
])
def test_edge_list_bad_line_names_file_and_line(tmp_path, content, line, fragment):
    path = tmp_path / "broken.edges"
    path.write_text(content)
    error = _raises(lambda: load_edge_list(path), f"{path}:{line}: ", fragment)
    assert error.where == f"{path}:{line}"


def test_edge_list_id_out_of_range(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 7\n")
    _raises(lambda: load_edge_list(path, n_vertices=5), f"{path}:2",
            "vertex id 7 does not fit n_vertices=5", "pass a larger n_vertices")


def test_edge_list_huge_id_is_refused(tmp_path):
    path = tmp_path / "typo.txt"
    path.write_text("0 1\n1 99999999999\n")
    _raises(lambda: load_edge_list(path), f"{path}:2", "vertex id 99999999999 is larger than the 2,147,483,648",
            "renumber the vertices")
    path.write_text("0 1\n1 99999999\n")  # storable, but far beyond what 2 edges need
    _raises(lambda: load_edge_list(path), str(path), "vertex id 99999999 is far larger", "renumber the vertices")


def test_edge_list_empty_or_binary(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n")
    _raises(lambda: load_edge_list(empty), str(empty), "holds no edges", "pass n_vertices")
    assert load_edge_list(empty, n_vertices=3).n_edges == 0
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 10)
    _raises(lambda: load_graph(binary), str(binary), "not a UTF-8 text file")


def test_npz_wrong_keys_lists_expected(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, weights=np.ones(3), adj_data=np.ones(2))
    _raises(lambda: load_npz(path), str(path), "no adjacency matrix found",
            "keys present: adj_data, weights", "adj_indices", "adj_matrix.data",
            "adj_matrix.indptr", "scipy.sparse.save_npz")


def test_npz_not_an_archive(tmp_path):
    path = tmp_path / "fake.npz"
    path.write_text("this is not a zip file")
    _raises(lambda: load_npz(path), str(path), "not a readable .npz archive", "numpy.savez")


def test_npz_object_labels_are_not_unpickled(tmp_path):
    path = tmp_path / "objects.npz"
    adjacency = sp.csr_matrix(np.eye(2))
    np.savez(path, **_csr_parts("adj_", adjacency), labels=np.array([0, "x"], dtype=object))
    _raises(lambda: load_npz(path), str(path), "key 'labels' holds Python objects",
            "plain numeric array")


def test_npz_broken_csr_and_non_square(tmp_path):
    broken = tmp_path / "broken.npz"
    parts = _csr_parts("adj_", sp.csr_matrix(np.eye(3)))
    parts["adj_indices"] = np.array([0, 5, 2], dtype=np.int32)  # column 5 of a 3x3 matrix
    np.savez(broken, **parts)
    _raises(lambda: load_npz(broken), str(broken), "not a valid CSR matrix", "indices must be < 3")
    wide = tmp_path / "wide.npz"
    np.savez(wide, **_csr_parts("adj_", sp.csr_matrix(np.ones((2, 3)))))
    _raises(lambda: load_npz(wide), str(wide), "not square: shape (2, 3)")


def test_npz_labels_length_mismatch(tmp_path):
    path = tmp_path / "labels.npz"
    np.savez(path, **_csr_parts("adj_", sp.csr_matrix(np.eye(3))), labels=np.arange(5))
    _raises(lambda: load_npz(path), str(path), "labels have shape (5,)",
            "one integer label per vertex")


def test_mtx_garbage_and_non_square(tmp_path):
    garbage = tmp_path / "garbage.mtx"
    garbage.write_text("hello\nworld\n")
    _raises(lambda: load_mtx(garbage), f"{garbage}:1", "not a Matrix Market file", "%%MatrixMarket")
    wide = tmp_path / "wide.mtx"
    scipy.io.mmwrite(str(wide), sp.csr_matrix(np.ones((2, 3))))
    _raises(lambda: load_graph(wide), str(wide), "not square")


def test_planetoid_not_a_pickle(tmp_path):
    path = tmp_path / "ind.trunc.graph"
    path.write_bytes(pickle.dumps({0: [1, 2]}, protocol=2)[:-4])
    _raises(lambda: load_planetoid_graph(path), str(path), "not a readable pickle",
            "ind.<name>.graph")


def test_graphdata_shape_mismatches():
    adjacency = sp.csr_matrix(np.eye(3))
    _raises(lambda: GraphData("g", adjacency, features=np.ones((2, 4))),
            "g: features have 2 rows but the graph has 3 vertices")
    _raises(lambda: GraphData("g", sp.csr_matrix(np.ones((2, 3)))), "must be square")
    _raises(lambda: GraphData("g", adjacency, labels=np.array([0.5, 1, 2])),
            "labels must be integers")
