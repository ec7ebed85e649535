"""Size rules every graph loader applies before it allocates anything sized by the file.

A file can declare sizes far beyond the bytes it holds: a 76-byte Matrix Market header
saying 200,000,000 x 200,000,000, one edge-list id of 99,999,999, a compressed .npz whose
row pointer inflates to gigabytes. Each loader learns the declared sizes first (a header,
the .npy headers inside the zip, the largest id) and passes them through these checks, so
the refusal comes before the allocation, with the sizes and the fix in the message.
"""

from __future__ import annotations

import math
import reprlib

import numpy as np

from fuseflow.support.errors import DataError
from fuseflow.support.memory import check_memory

#: more vertices than this cannot be stored: a (row, column) pair is packed into one
#: 64-bit key (row * n + column) when edges are deduplicated and symmetrized
MAX_VERTICES = 1 << 31

#: without an explicit vertex count, ids this far beyond the edge count are refused: the
#: CSR row pointer alone needs 8 bytes per vertex, so a stray huge id would exhaust memory
SPARSE_ID_LIMIT = 10_000_000
IDS_PER_EDGE = 1000

#: bytes per stored entry while a loader builds the CSR matrix: the coordinates, the sort
#: keys used to drop duplicates, and the float64/int64 result (measured peak: ~70)
BYTES_PER_ENTRY = 96
#: bytes per vertex: the row pointer, degree counts and their temporaries
BYTES_PER_VERTEX = 32

SMALLER_GRAPH = "use a smaller graph"

_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40
_short.maxlong = 40


def describe_value(value) -> str:
    """A repr that stays short for huge ints, long strings and deeply nested containers."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, (int, float, str, bytes)):
        return _short.repr(value)
    return f"a {type(value).__name__}"


def library_message(text: str, limit: int = 200) -> str:
    """A library's error message for a one-line report: whitespace collapsed, cut at `limit`."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_vertex_count(n_vertices: int, n_entries: int, where: str, *, declared: str, fix: str) -> int:
    """Refuse a declared vertex count that cannot be stored, or one far beyond what the
    stored entries need (the row pointer alone costs 8 bytes per vertex)."""
    if n_vertices > MAX_VERTICES:
        raise DataError(f"{declared} {n_vertices:,} vertices, more than the {MAX_VERTICES:,} Navigator can store",
                        where=where, fix=fix)
    if n_vertices > max(SPARSE_ID_LIMIT, IDS_PER_EDGE * n_entries):
        entries = "entry" if n_entries == 1 else "entries"
        raise DataError(f"{declared} {n_vertices:,} vertices for only {n_entries:,} stored {entries}; a graph this "
                        f"sparse is almost surely a mistake", where=where, fix=fix)
    return n_vertices


def refuse_empty_graph(n_vertices: int, where: str) -> None:
    """A graph without vertices gives every dimension it binds the extent 0: nothing to run."""
    if n_vertices == 0:
        raise DataError("the graph has no vertices", where=where,
                        fix="a graph needs at least one vertex; check that the file was fully written")


def graph_bytes(n_vertices: int, n_entries: int) -> int:
    """Peak bytes to build an n-vertex CSR adjacency with `n_entries` stored entries."""
    return n_entries * BYTES_PER_ENTRY + (n_vertices + 1) * BYTES_PER_VERTEX


def check_graph_memory(n_vertices: int, n_entries: int, where: str, what: str = "loading the graph") -> None:
    check_memory(graph_bytes(n_vertices, n_entries),
                 f"{what} ({n_vertices:,} vertices, {n_entries:,} stored entries)", where, fix=SMALLER_GRAPH)


def check_finite(values: np.ndarray, where: str, what: str) -> None:
    """NaN or infinite values poison every sum they enter; refuse them with a count."""
    if values.size and not np.isfinite(values).all():
        bad = int(values.size - np.count_nonzero(np.isfinite(values)))
        raise DataError(f"{what} hold {bad:,} NaN or infinite value{'s' if bad != 1 else ''}", where=where,
                        fix="store finite numbers only")


#: estimates are exact Python ints; beyond this they are clamped so that printing them as a
#: float (fuseflow.support.files.format_size) cannot overflow. No machine has 2^100 bytes.
BEYOND_ANY_MACHINE = 1 << 100


def clamp_bytes(n: int) -> int:
    return min(n, BEYOND_ANY_MACHINE)


def product(sizes) -> int:
    """Exact product of sizes (Python ints: no int64 overflow)."""
    return math.prod(int(s) for s in sizes)
