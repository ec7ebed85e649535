"""The Matrix Market body reader (np.loadtxt, not scipy.io.mmread): the same matrices as
scipy on every valid file, and a DataError naming the line on every malformed one, including
the endings that crash scipy 1.17's reader with SIGSEGV."""

from __future__ import annotations

import io

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.data.loaders import load_mtx
from fuseflow.support.errors import DataError

HEADER = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n"


@st.composite
def matrices(draw):
    n = draw(st.integers(1, 6))
    symmetry = draw(st.sampled_from(["general", "symmetric", "skew-symmetric"]))
    field = draw(st.sampled_from(["real", "integer", "pattern"]))
    layout = draw(st.sampled_from(["coordinate", "array"]))
    if layout == "array" and field == "pattern":
        field = "real"
    values = draw(st.lists(st.integers(-9, 9), min_size=n * n, max_size=n * n))
    dense = np.array(values, dtype=np.float64).reshape(n, n)
    if field == "pattern":
        dense = (dense != 0).astype(np.float64)
    if symmetry == "symmetric":
        dense = np.tril(dense) + np.tril(dense, -1).T
    elif symmetry == "skew-symmetric":
        dense = np.tril(dense, -1) - np.tril(dense, -1).T
    return dense, symmetry, field, layout


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=matrices())
def test_valid_files_read_as_scipy_reads_them(tmp_path, case):
    dense, symmetry, field, layout = case
    buffer = io.BytesIO()
    matrix = sp.coo_matrix(dense) if layout == "coordinate" else dense
    scipy.io.mmwrite(buffer, matrix, field=field, symmetry=symmetry)
    path = tmp_path / "m.mtx"
    path.write_bytes(buffer.getvalue())
    expected = sp.csr_matrix(scipy.io.mmread(io.BytesIO(buffer.getvalue())), dtype=np.float64)
    expected.eliminate_zeros()
    got = load_mtx(path).adjacency
    assert got.shape == expected.shape and (got != expected).nnz == 0


@pytest.mark.parametrize("ending", ["0.5 ", "0.5x", "0.5\x06", " 0.5\t", "0.5 \x00\n", "0.5-"])
def test_endings_that_crash_scipy_are_refused_or_read(tmp_path, ending):
    # scipy.io.mmread ends the process with SIGSEGV on each of these last lines.
    path = tmp_path / "m.mtx"
    path.write_bytes((HEADER + "2 3 " + ending).encode("latin-1"))
    try:
        graph = load_mtx(path)
    except DataError as exc:
        assert str(exc).startswith(f"{path}:4: ") and "(" in str(exc)
    else:
        assert graph.adjacency[1, 2] == 0.5


def test_a_value_with_trailing_garbage_is_refused_not_misread(tmp_path):
    # scipy reads '0.5x' as 0.5 when a newline follows.
    path = tmp_path / "m.mtx"
    path.write_text(HEADER + "2 3 0.5x\n")
    with pytest.raises(DataError, match=r"m\.mtx:4: the value '0\.5x' is not a number"):
        load_mtx(path)


@pytest.mark.parametrize("body, line, fragment", [
    ("% note\n\n2 3\n", 6, "has 2 fields"),
    ("2 3 1\n3 3 1\n", 5, "more entry lines than the 2"),
    ("2 4 1\n", 4, "the col index 4 is outside 1..3"),
    ("1.5 3 1\n", 4, "the row index '1.5' is not a whole number"),
])
def test_a_bad_entry_line_is_named(tmp_path, body, line, fragment):
    path = tmp_path / "m.mtx"
    path.write_text(HEADER + body)
    with pytest.raises(DataError) as info:
        load_mtx(path)
    assert str(info.value).startswith(f"{path}:{line}: ") and fragment in str(info.value)
