"""Read a square Matrix Market file (.mtx, .mtx.gz, .mtx.bz2), checking its header first.

scipy's reader allocates the arrays its header declares before reading a single entry, so
a 76-byte file saying 200,000,000 x 200,000,000 would cost gigabytes. Here the header is
parsed first and its sizes are checked against the vertex-count rule, against the bytes
the file holds (every entry line needs a few bytes), and against the memory budget. A
compressed file cannot be measured before it is decompressed, so its decompressed stream is
cut off at the most text the declared entries could need: a gzip bomb ends there.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import (
    SMALLER_GRAPH,
    check_finite,
    check_graph_memory,
    check_vertex_count,
    describe_value,
    library_message,
    refuse_empty_graph,
)
from fuseflow.support.errors import DataError
from fuseflow.support.files import format_size, open_regular_file
from fuseflow.support.memory import check_memory

PathLike = str | os.PathLike

_HEADER_LIMIT = 16 << 20          # banner, comments and size line; real headers are a few KiB
_LINE_LIMIT = 1 << 20
_MAX_LINE_BYTES = 256             # the longest entry line a compressed file may use per entry
_FIX_HEADER = ("the file must start with '%%MatrixMarket matrix coordinate real general' (or array, "
               "integer, pattern, symmetric...) and a size line; write it with scipy.io.mmwrite")


@dataclass(frozen=True)
class MatrixMarketHeader:
    layout: str                   # coordinate | array
    field: str                    # real | integer | pattern
    symmetry: str                 # general | symmetric | skew-symmetric
    rows: int
    cols: int
    entries: int                  # entry lines declared (array: derived from the shape)
    header_bytes: int
    #: lines up to and including the size line
    header_lines: int = 0

    @property
    def stored(self) -> int:
        """Entries after symmetric ones are mirrored (an upper bound)."""
        return self.entries * (1 if self.symmetry == "general" else 2)

    @property
    def min_entry_bytes(self) -> int:
        """The shortest line an entry can take: '1 1\\n', '1 1 1\\n', '1\\n'."""
        if self.layout == "array":
            return 2
        return 4 if self.field == "pattern" else 6


def _compression(path: PathLike) -> str | None:
    name = Path(path).name.lower()
    return "gz" if name.endswith(".gz") else "bz2" if name.endswith(".bz2") else None


def _opened(raw, compression: str | None):
    if compression == "gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "bz2":
        return bz2.BZ2File(raw, mode="rb")
    return raw


def _size_field(token: str, name: str, where: str) -> int:
    if not re.fullmatch(r"[0-9]{1,19}", token):
        problem = "is not a whole number" if not token.isdigit() else "is too large"
        raise DataError(f"the size line's {name} {describe_value(token)} {problem}", where=where, fix=_FIX_HEADER)
    return int(token)


def read_header(stream, where: str) -> MatrixMarketHeader:
    """Parse the banner, comments and size line from the start of `stream` (binary)."""
    consumed = 0
    line_number = 0

    def next_line() -> str:
        nonlocal consumed, line_number
        raw = stream.readline(_LINE_LIMIT + 1)
        consumed += len(raw)
        line_number += 1
        if len(raw) > _LINE_LIMIT or consumed > _HEADER_LIMIT:
            raise DataError(f"the header is longer than {format_size(_HEADER_LIMIT)}",
                            where=f"{where}:{line_number}", fix=_FIX_HEADER)
        if not raw:
            raise DataError("the file ends before its size line", where=where, fix=_FIX_HEADER)
        return raw.decode("latin-1").strip()

    banner = next_line().split()
    if len(banner) != 5 or banner[0].lower() != "%%matrixmarket" or banner[1].lower() != "matrix":
        raise DataError("not a Matrix Market file: the first line is not '%%MatrixMarket matrix ...'",
                        where=f"{where}:1", fix=_FIX_HEADER)
    layout, field, symmetry = (word.lower() for word in banner[2:])
    if field == "complex" or symmetry == "hermitian":
        raise DataError("complex values are not supported", where=f"{where}:1",
                        fix="store a real, integer or pattern matrix")
    if layout not in ("coordinate", "array") or field not in ("real", "integer", "pattern") \
            or symmetry not in ("general", "symmetric", "skew-symmetric") \
            or (layout == "array" and field == "pattern"):
        raise DataError(f"unsupported header '{describe_value(' '.join(banner[2:]))}'", where=f"{where}:1",
                        fix=_FIX_HEADER)
    line = next_line()
    while not line or line.startswith("%"):
        line = next_line()
    here = f"{where}:{line_number}"
    fields = line.split()
    wanted = ("rows", "cols", "entries") if layout == "coordinate" else ("rows", "cols")
    if len(fields) != len(wanted):
        raise DataError(f"the size line should hold {len(wanted)} numbers ({', '.join(wanted)}), "
                        f"found {len(fields)}", where=here, fix=_FIX_HEADER)
    sizes = [_size_field(token, name, here) for token, name in zip(fields, wanted)]
    rows, cols = sizes[0], sizes[1]
    if rows != cols:
        raise DataError(f"matrix is not square: shape ({rows}, {cols})", where=here,
                        fix="an adjacency matrix needs one row and one column per vertex")
    n = rows
    most = {"general": n * n, "symmetric": n * (n + 1) // 2, "skew-symmetric": n * (n - 1) // 2}[symmetry]
    if layout == "array":
        entries = most
    else:
        entries = sizes[2]
        if entries > most:
            raise DataError(f"declares {entries:,} entries, more than a {symmetry} {n:,} x {n:,} matrix holds",
                            where=here, fix="fix the entry count on the size line")
    return MatrixMarketHeader(layout, field, symmetry, rows, cols, entries, consumed, line_number)


class _BoundedReader(io.RawIOBase):
    """A read-only stream that reports end of file after `limit` bytes and remembers it did."""

    def __init__(self, stream, limit: int):
        self._stream, self._left, self.exceeded = stream, limit, False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._left <= 0:
            self.exceeded = bool(self._stream.read(1))
            return 0
        with memoryview(buffer) as view:
            got = self._stream.readinto(view[:self._left])
        self._left -= got
        return got


def _check_sizes(header: MatrixMarketHeader, file_size: int, compressed: bool, where: str) -> None:
    n = header.rows
    refuse_empty_graph(n, where)
    if header.layout == "coordinate":
        check_vertex_count(n, header.stored, where, declared="the size line declares",
                           fix="fix the size line, or renumber the vertices 1..n")
    needed = (header.entries * header.min_entry_bytes - 1) if header.entries else 0
    present = file_size - header.header_bytes
    if not compressed and needed > present:
        raise DataError(f"the size line declares {header.entries:,} entries, which need at least "
                        f"{format_size(needed)}, but the file holds only {format_size(max(present, 0))} after its "
                        f"header", where=where, fix="fix the size line, or check that the file was fully written")
    if header.layout == "array":
        check_memory(n * n * 8 * 3, f"reading a dense {n:,} x {n:,} Matrix Market array", where,
                     fix="store the graph as a coordinate (sparse) Matrix Market file, or " + SMALLER_GRAPH)
    else:
        check_graph_memory(n, header.stored, where, "reading the Matrix Market file")


_FIX_ENTRY = ("each entry line is 'row col value' ('row col' for pattern), with indices from 1 up to the size "
              "line's and values that fit 64 bits; the size line's entry count must match the lines")


def _read_matrix(open_body, header: MatrixMarketHeader, where: str):
    """The entries after the header, read with numpy's strict text reader.

    Not scipy.io.mmread: scipy 1.17's reader crashes the process (SIGSEGV) on a last line
    without its newline that ends in anything but a digit ('0.5 ', '0.5x', '0.5' + chr(6)),
    and reads '0.5x' followed by a newline as 0.5. np.loadtxt refuses every malformed token
    and every line with the wrong number of fields; the line is then found by reading the
    file again (`open_body()` gives a fresh stream), only on that error path."""
    stream = open_body()
    read_header(stream, where)  # skip the banner, comments and size line (already checked)
    text = io.TextIOWrapper(stream, encoding="latin-1", newline=None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data": counted below
            table = np.loadtxt(text, dtype=_columns(header), comments="%", ndmin=1, max_rows=header.entries + 1)
    except ValueError as exc:
        raise _entry_error(open_body, header, where, lambda _, fields: _entry_problem(fields, header),
                           f"not a readable Matrix Market file ({library_message(str(exc))})") from None
    if len(table) > header.entries:
        raise _entry_error(open_body, header, where, lambda k, _: f"more entry lines than the {header.entries:,} "
                           "the size line declares" if k == header.entries else None, "too many entry lines")
    if len(table) < header.entries:
        raise DataError(f"the size line declares {header.entries:,} entries, but the file holds {len(table):,}",
                        where=where, fix=_FIX_ENTRY)
    values = table["value"].astype(np.float64) if header.field != "pattern" else np.ones(len(table))
    if header.layout == "array":
        return _array_matrix(values, header)
    n = header.rows
    rows, cols = table["row"] - 1, table["col"] - 1
    outside = (rows < 0) | (rows >= n) | (cols < 0) | (cols >= n)
    if outside.any():
        bad = int(np.argmax(outside))
        raise _entry_error(open_body, header, where, lambda k, fields: _entry_problem(fields, header)
                           if k == bad else None, f"entry {bad + 1} lies outside the {n:,} x {n:,} matrix")
    if header.symmetry != "general":
        mirrored = rows != cols
        sign = -1.0 if header.symmetry == "skew-symmetric" else 1.0
        rows, cols = np.concatenate([rows, cols[mirrored]]), np.concatenate([cols, rows[mirrored]])
        values = np.concatenate([values, sign * values[mirrored]])
    return sp.coo_matrix((values, (rows, cols)), shape=(n, n))


def _columns(header: MatrixMarketHeader) -> list[tuple[str, type]]:
    value = [] if header.field == "pattern" else [("value", np.int64 if header.field == "integer" else np.float64)]
    return ([("row", np.int64), ("col", np.int64)] if header.layout == "coordinate" else []) + value


def _entry_problem(fields: list[str], header: MatrixMarketHeader) -> str | None:
    """What is wrong with one entry line's fields, or None."""
    names = [name for name, _ in _columns(header)]
    if len(fields) != len(names):
        return f"the entry line has {len(fields)} fields, but a {header.field} entry has {len(names)} " \
               f"({' '.join(names)})"
    for name, token in zip(names, fields):
        if name in ("row", "col"):
            if not re.fullmatch(r"[0-9]{1,19}", token):
                return f"the {name} index {describe_value(token)} is not a whole number"
            if not 1 <= int(token) <= header.rows:
                return f"the {name} index {token} is outside 1..{header.rows:,}"
        elif header.field == "integer":
            if not re.fullmatch(r"[-+]?[0-9]{1,19}", token) or not -2**63 <= int(token) < 2**63:
                return f"the value {describe_value(token)} is not a 64-bit integer"
        else:
            try:
                float(token)
            except ValueError:
                return f"the value {describe_value(token)} is not a number"
    return None


def _entry_error(open_body, header: MatrixMarketHeader, where: str, problem_of, fallback: str) -> DataError:
    """A DataError at the first entry line for which `problem_of(index, fields)` names a problem."""
    stream = open_body()
    read_header(stream, where)
    line_number, index = header.header_lines, 0
    for raw in io.TextIOWrapper(stream, encoding="latin-1", newline=None):
        line_number += 1
        content = raw.split("%", 1)[0].split()
        if not content:
            continue
        problem = problem_of(index, content)
        if problem:
            return DataError(problem, where=f"{where}:{line_number}", fix=_FIX_ENTRY)
        index += 1
        if index > header.entries:
            break
    return DataError(fallback, where=where, fix=_FIX_ENTRY)


def _array_matrix(values: np.ndarray, header: MatrixMarketHeader) -> np.ndarray:
    """A dense array body: column-major; symmetric ones store the lower triangle (skew: below it)."""
    n = header.rows
    if header.symmetry == "general":
        return values.reshape((n, n), order="F")
    lower_cols, lower_rows = np.triu_indices(n, k=0 if header.symmetry == "symmetric" else 1)
    dense = np.zeros((n, n))
    dense[lower_rows, lower_cols] = values  # column by column, each from its diagonal down
    sign = -1.0 if header.symmetry == "skew-symmetric" else 1.0
    return dense + sign * np.tril(dense, -1).T


def _too_long(header: MatrixMarketHeader, limit: int, where: str) -> DataError:
    return DataError(f"holds more than {format_size(limit)} of text, far more than the {header.entries:,} "
                     f"entries its size line declares need", where=where,
                     fix="fix the size line, or re-create the file (a compressed file that inflates this far "
                         "may be a decompression bomb)")


def load_mtx(path: PathLike) -> GraphData:
    """Load a square Matrix Market file (coordinate or array; real, integer or pattern)."""
    where = str(path)
    compression = _compression(path)
    with open_regular_file(path, DataError, "a Matrix Market file") as raw:
        file_size = os.fstat(raw.fileno()).st_size
        try:
            header = read_header(_opened(raw, compression), where)
        except (OSError, EOFError) as exc:  # a damaged gzip/bz2 stream
            raise DataError(f"cannot be decompressed ({library_message(str(exc) or type(exc).__name__)})", where=where,
                            fix=f"check that the file is a complete .{compression} archive") from None
        _check_sizes(header, file_size, compression is not None, where)
        limit = header.header_bytes + header.entries * _MAX_LINE_BYTES + (1 << 20)
        bounded = None

        def open_body():
            nonlocal bounded
            raw.seek(0)
            bounded = _BoundedReader(_opened(raw, compression), limit)
            return io.BufferedReader(bounded)

        try:
            matrix = _read_matrix(open_body, header, where)
        except (OSError, EOFError) as exc:  # a damaged gzip/bz2 stream
            raise DataError(f"cannot be decompressed ({library_message(str(exc) or type(exc).__name__)})", where=where,
                            fix=f"check that the file is a complete .{compression} archive") from None
        except DataError:
            if bounded.exceeded:
                raise _too_long(header, limit, where) from None
            raise
        if bounded.exceeded:
            raise _too_long(header, limit, where)
    values = matrix.data if sp.issparse(matrix) else np.asarray(matrix)
    check_finite(values, where, "the matrix values")
    adjacency = sp.csr_matrix(matrix, dtype=np.float64)
    adjacency.sum_duplicates()
    adjacency.eliminate_zeros()
    name = Path(path).name
    for suffix in (".gz", ".bz2", ".mtx"):
        name = name.removesuffix(suffix)
    return GraphData(name=name, adjacency=adjacency)
