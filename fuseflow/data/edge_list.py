"""Read a text edge list: one `src dst [weight]` per line, ids counted from 0.

The file is streamed in chunks into compact arrays (24 bytes per edge), never held whole as
text. Before parsing, its newlines are counted (a fast pass over the bytes) to bound the
number of edges, and that bound is checked against the memory budget; every id is checked
against the vertex limit on its own line, so a typo fails at once with its line number.
"""

from __future__ import annotations

import math
import os
import re
from array import array
from pathlib import Path

import numpy as np

from fuseflow.data.coordinates import check_n_vertices, pattern_csr, vertex_count
from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import (
    BYTES_PER_ENTRY,
    MAX_VERTICES,
    SMALLER_GRAPH,
    describe_value,
)
from fuseflow.support.errors import DataError
from fuseflow.support.files import open_regular_file, os_error
from fuseflow.support.memory import check_memory

PathLike = str | os.PathLike

_SEPARATORS = re.compile(r"[,\s]+")
# A line of two ASCII ids (up to 10 digits) and an optional weight: what _parse_line accepts,
# minus the checks it makes afterwards (id range, finite weight).
_EDGE = re.compile(r"[,\s]*([0-9]{1,10})[,\s]+([0-9]{1,10})(?:[,\s]+([^,\s]+))?[,\s]*")
_LINE_LIMIT = 64 * 1024           # an edge is a few dozen characters; a longer line is not an edge list
_COUNT_CHUNK = 16 << 20
_NEWLINE = b"\n"
_READ_CHUNK = 1 << 20             # decoded at once; its lines cost ~60 bytes each while parsed
_FIX_LINE = "write two vertex ids and an optional weight"


def _count_lines(handle, where: str) -> int:
    """An upper bound on the lines (so the edges) of the file, without keeping its text."""
    lines, last = 0, b"\n"
    try:
        while chunk := handle.read(_COUNT_CHUNK):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
        handle.seek(0)
    except OSError as exc:
        raise os_error(exc, where, DataError, "read", "an edge list") from None
    return lines + (last != b"\n")


def _vertex_id(field: str, line: str, here: str) -> int:
    if not (field.isascii() and field.isdigit()):
        if field.startswith("-") and field[1:].isascii() and field[1:].isdigit():
            raise DataError(f"vertex ids must be non-negative: {describe_value(line)}", where=here,
                            fix="use integer vertex ids counted from 0")
        raise DataError(f"vertex ids must be integers: {describe_value(line)}", where=here,
                        fix="use integer vertex ids counted from 0")
    if len(field) > 12 or int(field) >= MAX_VERTICES:
        raise DataError(f"vertex id {describe_value(int(field) if len(field) < 4000 else field)} is larger than the "
                        f"{MAX_VERTICES:,} vertices Navigator can store", where=here,
                        fix="renumber the vertices 0..n-1")
    return int(field)


def _weight(field: str, here: str) -> float:
    try:
        weight = float(field)
    except ValueError:
        raise DataError(f"weight {describe_value(field)} is not a number", where=here,
                        fix="write the weight as a decimal number") from None
    if not math.isfinite(weight):
        raise DataError(f"weight {describe_value(field)} is not finite", where=here, fix="use a finite weight")
    return weight


def _parse_line(line: str, here: str, limit: int | None) -> tuple[int, int, float] | None:
    """(src, dst, weight) of one line, None for a blank or comment line; every problem raises.
    This is the definition of the format; `_EDGE` is a fast path for the common lines."""
    line = line.strip()
    if not line or line[0] in "#%":
        return None
    fields = _SEPARATORS.split(line.strip(", \t"))
    if len(fields) not in (2, 3):
        raise DataError(f"expected 'src dst [weight]', found {len(fields)} fields: {describe_value(line)}",
                        where=here, fix=_FIX_LINE)
    src, dst = _vertex_id(fields[0], line, here), _vertex_id(fields[1], line, here)
    if limit is not None and max(src, dst) >= limit:
        raise DataError(f"vertex id {max(src, dst)} does not fit n_vertices={limit}",
                        where=here, fix="pass a larger n_vertices or fix the id")
    return src, dst, _weight(fields[2], here) if len(fields) == 3 else 1.0


def _lines(handle, where: str):
    """(line number, text) of each line. The file is read in chunks, each decoded at once;
    a line longer than _LINE_LIMIT or bytes that are not UTF-8 raise, naming the line."""
    number, carry = 0, b""
    while True:
        try:
            chunk = handle.read(_READ_CHUNK)
        except OSError as exc:
            raise os_error(exc, where, DataError, "read", "an edge list") from None
        data = carry + chunk
        cut = len(data) if not chunk else data.rfind(_NEWLINE) + 1
        carry, data = data[cut:], data[:cut]
        if len(carry) > _LINE_LIMIT:
            raise _too_long(where, number + data.count(_NEWLINE) + 1)
        if data:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = number + data.count(_NEWLINE, 0, exc.start) + 1
                raise DataError("is not a UTF-8 text file", where=f"{where}:{line}",
                                fix="an edge list is plain text, one 'src dst [weight]' per line") from None
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
            for line in lines:
                number += 1
                if len(line) > _LINE_LIMIT:
                    raise _too_long(where, number)
                yield number, line
        if not chunk:
            return


def _too_long(where: str, number: int) -> DataError:
    return DataError(f"the line is longer than {_LINE_LIMIT:,} characters", where=f"{where}:{number}",
                     fix="an edge list is plain text, one 'src dst [weight]' per line")


def load_edge_list(path: PathLike, *, n_vertices: int | None = None) -> GraphData:
    """Load a text edge list: one `src dst [weight]` per line, ids counted from 0.

    Fields are separated by whitespace and/or commas; blank lines and lines starting with `#`
    or `%` are skipped. A missing weight means 1.0; a repeated edge keeps its last weight.
    Edges are stored as given (not symmetrized). The vertex count is the largest id + 1
    unless `n_vertices` is given.
    """
    where = str(path)
    limit = check_n_vertices(n_vertices, where)
    top = MAX_VERTICES if limit is None else limit
    rows, cols, weights = array("q"), array("q"), array("d")
    with open_regular_file(path, DataError, "an edge list") as handle:
        most = _count_lines(handle, where)
        check_memory(most * BYTES_PER_ENTRY, f"reading an edge list of up to {most:,} edges", where,
                     fix=SMALLER_GRAPH)
        for number, line in _lines(handle, where):
            match = _EDGE.fullmatch(line)
            if match:  # the common case, without a function call per field
                src, dst, weight = int(match[1]), int(match[2]), match[3]
                try:
                    weight = 1.0 if weight is None else float(weight)
                except ValueError:
                    weight = math.nan
                if src < top and dst < top and math.isfinite(weight):
                    rows.append(src)
                    cols.append(dst)
                    weights.append(weight)
                    continue
            parsed = _parse_line(line, f"{where}:{number}", limit)
            if parsed is not None:
                rows.append(parsed[0])
                cols.append(parsed[1])
                weights.append(parsed[2])
    row_ids = np.frombuffer(rows, dtype=np.int64) if rows else np.empty(0, dtype=np.int64)
    col_ids = np.frombuffer(cols, dtype=np.int64) if cols else np.empty(0, dtype=np.int64)
    largest = int(max(row_ids.max(), col_ids.max())) if rows else -1
    n = vertex_count(largest, limit, where, row_ids.size)
    return GraphData(name=Path(path).stem,
                     adjacency=pattern_csr(row_ids, col_ids, np.frombuffer(weights, dtype=np.float64), n, where))
