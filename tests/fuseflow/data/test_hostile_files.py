"""Hostile graph files: every one is refused with a one-line DataError naming the file (and
line, for text) and the fix, before anything sized by the file is allocated.

The size cases run in a subprocess whose address space is capped at 1.5 GiB, so a loader
that allocated what a header declares would fail there with MemoryError instead of the
expected refusal (and a file that crashes the interpreter cannot take the test run with it);
the FIFO cases run there too, so a loader that blocked would time out.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import pickle
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import numpy.lib.format as npy
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.data import (
    load_edge_list,
    load_graph,
    load_mtx,
    load_npz,
    load_planetoid_graph,
)
from fuseflow.support.errors import UserError
from fuseflow.support.memory import ResourceError, set_max_memory
from tests.cli import InProcess, assert_user_error
from tests.fuseflow.data.capped import run_capped

MTX = "%%MatrixMarket matrix coordinate real general\n"


def _refused(call, *fragments) -> UserError:
    with pytest.raises(UserError) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert info.value.fix, "every DataError says how to fix it"
    assert "\n" not in message and len(message) < 600, message
    return info.value


def _parts(prefix: str, matrix) -> dict[str, np.ndarray]:
    matrix = sp.csr_matrix(matrix)
    return {f"{prefix}data": matrix.data, f"{prefix}indices": matrix.indices,
            f"{prefix}indptr": matrix.indptr, f"{prefix}shape": np.array(matrix.shape)}


def _npz(path: Path, **overrides) -> Path:
    arrays = _parts("adj_", np.eye(3))
    arrays.update(overrides)
    np.savez(path, **{k: v for k, v in arrays.items() if v is not None})
    return path


def _npy_bytes(shape: tuple[int, ...], dtype: str, payload: bytes) -> bytes:
    """A .npy member whose header declares `shape` whatever `payload` holds."""
    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + payload


def _declare_size(path: Path, member: str, size: int, crc: int | None = None) -> None:
    """Rewrite the uncompressed size (and CRC) the zip's central directory declares for `member`."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + name_length] == member.encode():
            struct.pack_into("<I", data, at + 24, size)
            if crc is not None:
                struct.pack_into("<I", data, at + 16, crc)
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def _sparse_members(indptr_length: int, nnz: int, n: int) -> dict[str, bytes]:
    """adj_* members of an n x n matrix with `nnz` zeros-indexed values and a row pointer
    declared `indptr_length` long but holding only its first KiB (the rest is forged)."""
    return {"adj_data.npy": _npy_bytes((nnz,), "<f8", np.ones(nnz).tobytes()),
            "adj_indices.npy": _npy_bytes((nnz,), "<i8", np.zeros(nnz, dtype=np.int64).tobytes()),
            "adj_indptr.npy": _npy_bytes((indptr_length,), "<i8", bytes(1024)),
            "adj_shape.npy": _npy_bytes((2,), "<i8", np.array([n, n], dtype=np.int64).tobytes())}


def _forged_indptr(path: Path, n: int, nnz: int) -> Path:
    """The issue's '3.5 MB .npz holding a 300 M-entry indptr': the zip declares all of it."""
    _zip(path, _sparse_members(n + 1, nnz, n))
    header = len(_npy_bytes((n + 1,), "<i8", b""))
    _declare_size(path, "adj_indptr.npy", header + 8 * (n + 1))
    return path


# ------------------------------------------------------------- sizes, under a memory cap

def _load_capped(cases: list[tuple[str, Path | str]], max_memory: str) -> list[list[str]]:
    return run_capped([("fuseflow.data.loaders", loader, [str(path)], {}) for loader, path in cases], max_memory)


def test_declared_sizes_are_refused_before_allocating(tmp_path):
    mtx_header = tmp_path / "header.mtx"   # the 76-byte file
    mtx_header.write_text(MTX + "200000000 200000000 1\n1 1 1.0\n")
    mtx_entries = tmp_path / "entries.mtx"
    mtx_entries.write_text(MTX + "1000000 1000000 500000000\n1 1 1.0\n")
    mtx_dense = tmp_path / "dense.mtx"
    mtx_dense.write_text("%%MatrixMarket matrix array real general\n100000 100000\n1.0\n")
    mtx_gz = tmp_path / "entries.mtx.gz"
    mtx_gz.write_bytes(gzip.compress((MTX + "5000000 5000000 100000000\n1 1 1.0\n").encode()))
    bomb_gz = tmp_path / "bomb.mtx.gz"
    bomb_gz.write_bytes(gzip.compress((MTX + "2 2 1\n1 1 1.0\n" + "1 1 1.0\n" * 2_000_000).encode()))
    bomb_bz2 = tmp_path / "bomb.mtx.bz2"
    bomb_bz2.write_bytes(bz2.compress((MTX + "2 2 1\n1 1 1.0\n" + "1 1 1.0\n" * 2_000_000).encode()))
    # Entry lines stop the reader one past the declared count; blank lines and comments do not.
    blank_bomb = tmp_path / "blank-bomb.mtx.gz"
    blank_bomb.write_bytes(gzip.compress((MTX + "2 2 1\n1 1 1.0\n" + "%\n" * 8_000_000).encode()))
    sparse_id = tmp_path / "typo.txt"       # the edge list with one id of 99,999,999
    sparse_id.write_text("0 1\n1 99999999\n")
    indptr = _forged_indptr(tmp_path / "indptr.npz", n=300_000_000, nnz=3)
    indptr_fits_rule = _forged_indptr(tmp_path / "indptr_dense.npz", n=300_000_000, nnz=300_000)
    memo = tmp_path / "ind.memo.graph"      # memo index 2^31-1: the C unpickler sizes an array by it
    memo.write_bytes(b"\x80\x02}r\xff\xff\xff\x7f.")
    deep_key = tmp_path / "ind.deep.graph"  # hashing a key nested a million deep crashes the interpreter
    deep_key.write_bytes(b"\x80\x02}K\x00" + b"\x85" * 1_000_000 + b"K\x01s.")
    cases = {
        mtx_header: ("load_mtx", "200,000,000 vertices for only 1 stored entry", "fix the size line"),
        mtx_entries: ("load_mtx", "declares 500,000,000 entries, which need at least", "fix the size line"),
        mtx_dense: ("load_mtx", "declares 10,000,000,000 entries", "file holds only"),
        mtx_gz: ("load_mtx", "would need about", "--max-memory"),
        bomb_gz: ("load_mtx", "more entry lines than the 1 the size line declares"),
        bomb_bz2: ("load_mtx", "more entry lines than the 1 the size line declares"),
        blank_bomb: ("load_mtx", "holds more than", "decompression bomb"),
        sparse_id: ("load_edge_list", "vertex id 99999999 is far larger than the 2 edges need", "renumber"),
        indptr: ("load_npz", "adj_shape declares 300,000,000 vertices for only 3 stored entries"),
        indptr_fits_rule: ("load_npz", ("reading the adjacency matrix (300,000,000 vertices, 300,000 stored "
                                        "entries) would need about"), "--max-memory"),
        memo: ("load_planetoid_graph", "holds no edges"),
        deep_key: ("load_planetoid_graph", "refusing a tuple that holds containers"),
    }
    results = _load_capped([(loader, path) for path, (loader, *_) in cases.items()], max_memory="512M")
    for (path, (_, *fragments)), (outcome, message) in zip(cases.items(), results):
        assert outcome == "refused", (path.name, outcome, message)
        assert message.startswith(f"{path}"), message
        for fragment in fragments:
            assert fragment in message, (path.name, fragment, message)


def test_special_files_are_refused_at_once(tmp_path):
    cases = []
    for loader, name in [("load_npz", "pipe.npz"), ("load_mtx", "pipe.mtx"), ("load_mtx", "pipe.mtx.gz"),
                         ("load_planetoid_graph", "ind.pipe.graph"), ("load_edge_list", "pipe.txt")]:
        os.mkfifo(tmp_path / name)
        cases += [(loader, tmp_path / name), (loader, "/dev/zero")]
    cases.append(("load_graph", tmp_path))
    for (_, path), (outcome, message) in zip(cases, _load_capped(cases, max_memory="512M")):
        assert outcome == "refused", (path, outcome, message)
        kind = "a named pipe (FIFO)" if "pipe" in str(path) else "a device" if path == "/dev/zero" else "a directory"
        assert f"{path}: is {kind}, not a regular file" in message, message


def test_a_huge_text_edge_list_is_refused_by_its_memory_estimate(tmp_path):
    path = tmp_path / "many.txt"
    path.write_text("1 2\n" * 100_000)
    set_max_memory(1 << 20)
    try:
        error = _refused(lambda: load_edge_list(path), str(path), "reading an edge list of up to 100,000 edges",
                         "would need about", "--max-memory")
    finally:
        set_max_memory(None)
    assert isinstance(error, ResourceError)


# ------------------------------------------------------------------------- defect 1: ids, empty

def test_an_id_of_2_to_the_70_names_the_file_and_line(tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text(f"0 1\n1 {2**70}\n")
    _refused(lambda: load_graph(edges), f"{edges}:2: vertex id {2**70} is larger than", "renumber the vertices")
    for payload, fragment in [({0: [1, 2**70]}, f"neighbour {2**70} of vertex 0 is larger"),
                              ({2**70: [1]}, f"vertex key {2**70} is larger")]:
        graph = tmp_path / "ind.big.graph"
        graph.write_bytes(pickle.dumps(payload, protocol=2))
        _refused(lambda path=graph: load_graph(path), str(graph), fragment)


def test_an_empty_graph_is_refused_in_every_format(tmp_path):
    empty = _npz(tmp_path / "empty.npz", adj_data=np.zeros(0), adj_indices=np.zeros(0, dtype=np.int32),
                 adj_indptr=np.zeros(1, dtype=np.int32), adj_shape=np.array([0, 0]))
    _refused(lambda: load_npz(empty), str(empty), "the graph has no vertices", "at least one vertex")
    mtx = tmp_path / "empty.mtx"
    mtx.write_text(MTX + "0 0 0\n")
    _refused(lambda: load_mtx(mtx), str(mtx), "the graph has no vertices")
    edges = tmp_path / "none.txt"
    edges.write_text("# no edges\n")
    _refused(lambda: load_edge_list(edges, n_vertices=0), str(edges), "the graph has no vertices")


def test_a_scipy_npz_whose_format_is_not_one_string(tmp_path):
    path = tmp_path / "fmt.npz"
    np.savez(path, data=np.ones(1), indices=np.zeros(1, dtype=np.int32), indptr=np.array([0, 1]),
             shape=np.array([1, 1]), format=np.array([b"csr", b"csr"]))
    _refused(lambda: load_npz(path), str(path), "format must be one short string such as 'csr'")
    np.savez(path, data=np.ones(1), indices=np.zeros(1, dtype=np.int32), indptr=np.array([0, 1]),
             shape=np.array([1, 1]), format=np.array("coo"))
    _refused(lambda: load_npz(path), "sparse format 'coo' is not supported")


# ----------------------------------------------------------------- defect 5: hostile contents

@pytest.mark.parametrize("overrides, fragments", [
    ({"adj_data": np.array([1.0, np.nan, np.inf])}, ["hold 2 NaN or infinite values"]),
    ({"adj_indices": np.array([0, -1, 2])}, ["not a valid CSR matrix", "indices must be >= 0"]),
    ({"adj_indices": np.array([0, 7, 2])}, ["not a valid CSR matrix", "indices must be < 3"]),
    ({"adj_indices": np.array([0, 2**64 - 1, 2], dtype=np.uint64)}, ["not a valid CSR matrix"]),
    ({"adj_indptr": np.array([0, 2, 1, 3])}, ["non-decreasing"]),
    ({"adj_indptr": np.array([1, 1, 2, 3])}, ["adj_indptr runs from 1 to 3, not from 0 to the 3 values"]),
    ({"adj_indptr": np.array([0, 1, 2, 2])}, ["adj_indptr runs from 0 to 2, not from 0 to the 3 values"]),
    ({"adj_indptr": np.array([0, 1, 3])}, ["adj_indptr has 3 entries but the shape needs 4"]),
    ({"adj_indices": np.array([0, 1])}, ["adj_indices has 2 entries but adj_data has 3"]),
    ({"adj_data": np.array([1, "x", None], dtype=object)}, ["key 'adj_data' holds Python objects"]),
    ({"adj_data": np.array([1j, 1, 1])}, ["has dtype complex128", "must be booleans or integers or real numbers"]),
    ({"adj_data": np.array(["a", "b", "c"])}, ["has dtype <U1"]),
    ({"adj_indices": np.array([True, False, True])}, ["has dtype bool", "column indices must be integers"]),
    ({"adj_data": np.ones((3, 1))}, ["adj_data must be one-dimensional"]),
    ({"adj_shape": np.array([3, 3, 3])}, ["adj_shape must hold two integers [rows, cols]"]),
    ({"adj_shape": np.array([3.0, 3.0])}, ["key 'adj_shape' has dtype float64"]),
    ({"adj_shape": np.array([-3, -3])}, ["adj_shape must be two non-negative integers"]),
    ({"adj_shape": np.array([2**62, 2**62])}, ["adj_indptr has 4 entries but the shape needs"]),
    ({"adj_shape": np.array([2, 3])}, ["adjacency is not square: shape (2, 3)"]),
    ({"labels": np.arange(5)}, ["labels have shape (5,) but the graph has 3 vertices"]),
    ({"labels": np.ones(3)}, ["key 'labels' has dtype float64"]),
    ({"labels": np.array([-1, 0, 1])}, ["labels must be class numbers 0..k-1"]),
    (_parts("attr_", np.ones((5, 2))), ["features have 5 rows but the graph has 3 vertices"]),
])
def test_hostile_npz_contents(tmp_path, overrides, fragments):
    path = _npz(tmp_path / "hostile.npz", **overrides)
    _refused(lambda: load_npz(path), f"{path}: ", *fragments)


def test_boolean_values_are_a_pattern(tmp_path):
    path = _npz(tmp_path / "pattern.npz", adj_data=np.ones(3, dtype=bool))
    assert load_npz(path).adjacency.toarray().tolist() == np.eye(3).tolist()


def test_an_npz_member_that_inflates_past_its_declared_size(tmp_path):
    path = _npz(tmp_path / "bomb.npz", **_parts("attr_", np.ones((3, 1))))
    labels = _npy_bytes((1_000_000,), "<i8", bytes(8_000_000))
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("labels.npy", labels)
    _declare_size(path, "labels.npy", 1000, crc=zlib.crc32(labels[:1000]))  # consistent, and small
    _refused(lambda: load_npz(path), str(path), "key 'labels' declares 1,000,000 values (7.6 MiB) but its zip "
                                                "member holds only")


def test_an_npz_member_that_is_not_an_npy_array(tmp_path):
    path = _zip(tmp_path / "raw.npz", {**_sparse_members(4, 3, 3), "adj_data.npy": b"not an array"})
    _refused(lambda: load_npz(path), "key 'adj_data' is not a readable .npy array")


@pytest.mark.parametrize("text, where, fragment", [
    (MTX + "2 2 2\n1 1 nan\n2 2 inf\n", "", "the matrix values hold 2 NaN or infinite values"),
    ("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 1\n", ":1", "complex values are not supported"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1180591620717411303424\n", ":3",
     "is not a 64-bit integer"),
    (MTX + "1180591620717411303424 1180591620717411303424 1\n1 1 1\n", ":2", "rows '1180591620717411303424' is too large"),
    (MTX + "-2 -2 1\n1 1 1\n", ":2", "is not a whole number"),
    (MTX + "2 2 1e3\n1 1 1\n", ":2", "is not a whole number"),
    (MTX + "2 3 1\n1 1 1\n", ":2", "matrix is not square: shape (2, 3)"),
    (MTX + "2 2 5\n1 1 1\n", ":2", "declares 5 entries, more than a general 2 x 2 matrix holds"),
    (MTX + "2 2 1\n0 1 1\n", ":3", "the row index 0 is outside 1..2"),
    (MTX + "2 2 1\n1 1 1\n2 2 2\n", ":4", "more entry lines than the 1"),
    (MTX + "2 2 3\n1 1 1\n1 2 1\n", "", "the file holds only 12 B after its header"),
    ("%%MatrixMarket matrix array pattern general\n2 2\n", ":1", "unsupported header"),
    ("", "", "the file ends before its size line"),
    (MTX + "% a comment\n" + "%" * 2_000_000 + "\n2 2 1\n1 1 1\n", ":3", "the header is longer than"),
])
def test_hostile_matrix_market(tmp_path, text, where, fragment):
    path = tmp_path / "hostile.mtx"
    path.write_text(text)
    _refused(lambda: load_mtx(path), f"{path}{where}: ", fragment)


def test_a_damaged_gzip_matrix_market(tmp_path):
    whole = gzip.compress((MTX + "2 2 1\n1 1 1\n").encode())
    path = tmp_path / "cut.mtx.gz"
    path.write_bytes(whole[:-12])
    _refused(lambda: load_mtx(path), str(path), "Compressed file ended")
    path.write_bytes(b"not gzip at all")
    _refused(lambda: load_mtx(path), str(path), "cannot be decompressed")


_DEEP_LIST_VALUE = b"\x80\x02}K\x00" + b"]" * 100_000 + b"a" * 99_999 + b"s."


@pytest.mark.parametrize("payload, fragment", [
    (pickle.dumps({0: list(range(10_000))}, protocol=2), None),  # a long honest list loads
    (pickle.dumps({i: shared for shared in [list(range(10_000))] for i in range(1000)}, protocol=2),
     "lists 10,000,000 neighbours in"),
    (_DEEP_LIST_VALUE, "neighbours of vertex 0 are not a list of non-negative ints"),
    (pickle.dumps(list(range(100_000)), protocol=2), "expected a dict of neighbour lists, found list"),
    (pickle.dumps({(1, 2): [0]}, protocol=2), "vertex key a tuple is not a non-negative integer"),
    (pickle.dumps({"x" * 10_000: [0]}, protocol=2), "vertex key 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' is not"),
    (pickle.dumps({0: [True]}, protocol=2), "refusing the pickle opcode NEWTRUE"),
    (pickle.dumps({0: [b"1"]}, protocol=3), "refusing the pickle opcode SHORT_BINBYTES"),
    (b"\x80\x02c__builtin__\ndict\nK\x01\x85R.", "refusing to call dict while unpickling"),
    (b"\x80\x02ccollections\ndefaultdict\nccollections\ndefaultdict\n\x85R.", "refusing to call defaultdict"),
    (b"", "not a readable pickle (EOFError)"),
])
def test_hostile_planetoid_pickles(tmp_path, payload, fragment):
    path = tmp_path / "ind.hostile.graph"
    path.write_bytes(payload)
    if fragment is None:
        assert load_planetoid_graph(path).n_edges == 10_000
        return
    _refused(lambda: load_planetoid_graph(path), f"{path}: ", fragment)


def test_a_garbage_edge_list_fails_on_its_first_bad_line(tmp_path):
    path = tmp_path / "garbage.txt"
    path.write_text("0 1\n" + "x y z w\n" * 1_000_000)
    error = _refused(lambda: load_edge_list(path), f"{path}:2: ", "expected 'src dst [weight]', found 4 fields")
    assert error.where == f"{path}:2"


@pytest.mark.parametrize("content, line, fragment", [
    (b"0 1\n" + b"9" * 5000 + b" 1\n", 2, "is larger than the 2,147,483,648 vertices"),
    ("0 1\n\u0663 1\n".encode(), 2, "vertex ids must be integers"),
    (b"0 1\n1 2 " + b"9" * 400 + b"\n", 2, "is not finite"),
    (b"0 1\n" + b"1 " * 40_000 + b"\n", 2, "the line is longer than 65,536 characters"),
    (b"0 1\n1 2 1e999\n", 2, "is not finite"),
    (b"0 1\n\xff\n", 2, "is not a UTF-8 text file"),
])
def test_hostile_edge_lists(tmp_path, content, line, fragment):
    path = tmp_path / "hostile.txt"
    path.write_bytes(content)
    _refused(lambda: load_edge_list(path), f"{path}:{line}: ", fragment)


# ------------------------------------------------------------- the class: any bytes, any loader

def _valid_files() -> dict[str, bytes]:
    buffer = io.BytesIO()
    np.savez(buffer, **_parts("adj_", np.eye(3, k=1) + np.eye(3, k=-1)), labels=np.arange(3))
    return {"g.npz": buffer.getvalue(),
            "g.mtx": (MTX + "3 3 2\n1 2 1.0\n2 3 0.5\n").encode(),
            "ind.g.graph": pickle.dumps({0: [1], 1: [0, 2], 2: [1]}, protocol=2),
            "g.txt": b"0 1\n1 2 0.5\n2,0\n"}


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(_valid_files())), data=st.data())
def test_damaged_files_load_or_raise_data_error(tmp_path, name, data):
    original = bytearray(_valid_files()[name])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(original) - 1))
        original[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        original = original[:data.draw(st.integers(0, len(original)))]
    path = tmp_path / name
    path.write_bytes(bytes(original))
    try:
        graph = load_graph(path)
    except UserError as exc:
        assert exc.fix and "\n" not in str(exc)
    else:
        assert graph.n_vertices >= 1 and np.isfinite(graph.adjacency.data).all()


# ------------------------------------------------------------------------------ through the CLI

@pytest.fixture
def cli(tmp_path, capsys, monkeypatch) -> InProcess:
    return InProcess(tmp_path, capsys, monkeypatch)


@pytest.mark.parametrize("name, make, fragments", [
    ("ids.txt", lambda p: p.write_text(f"0 1\n1 {2**70}\n"), [":2: vertex id 1180591620717411303424 is larger"]),
    ("empty.npz", lambda p: _npz(p, adj_data=np.zeros(0), adj_indices=np.zeros(0, dtype=np.int32),
                                 adj_indptr=np.zeros(1, dtype=np.int32), adj_shape=np.array([0, 0])),
     ["the graph has no vertices"]),
    ("fmt.npz", lambda p: np.savez(p, data=np.ones(1), indices=np.zeros(1, dtype=np.int32), indptr=np.array([0, 1]),
                                   shape=np.array([1, 1]), format=np.array([b"csr", b"csr"])),
     ["format must be one short string"]),
    ("huge.mtx", lambda p: p.write_text(MTX + "200000000 200000000 1\n1 1 1.0\n"),
     ["200,000,000 vertices for only 1 stored entry"]),
    ("pipe.txt", os.mkfifo, ["is a named pipe (FIFO), not a regular file"]),
])
@pytest.mark.parametrize("command", ["check", "compare"])
def test_hostile_data_is_one_line_and_exit_2(cli, command, name, make, fragments):
    make(cli.cwd / name)
    assert_user_error(cli(command, "spmm", "--data", name), name, *fragments)


def test_preprocessing_is_checked_as_a_whole_before_its_first_step(tmp_path):
    """An edge list with one id of 99,999,999 (issue 9): loading it is cheap, but self loops
    then add 100 million entries; the plan must be refused before that step, not after."""
    path = tmp_path / "id99m.txt"
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(200_000)) + "0 99999999\n")
    [[outcome, message]] = run_capped([("tests.fuseflow.data.capped", "load_and_preprocess", [str(path)], {})],
                                      max_memory="4G")
    assert outcome == "refused", (outcome, message)
    assert "preprocessing a 100,000,000-vertex adjacency into up to 100,400,002 entries" in message
