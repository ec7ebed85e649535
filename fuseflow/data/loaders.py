"""Read graphs from files: NumPy .npz, Matrix Market, Planetoid pickles and edge lists.

Every loader returns a `GraphData` and turns every problem with the file (missing, wrong
keys, bad format, unparseable line) into a `DataError` naming the file and what to fix.
Adjacency matrices come back as float64 CSR in canonical form; stored zeros are dropped.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import re
import zipfile
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from fuseflow.data.graph import GraphData
from fuseflow.errors import DataError

PathLike = str | os.PathLike

# Key styles of the .npz archives we read. Each maps a role to the key prefix of the CSR parts.
_NPZ_STYLES: tuple[tuple[str, str, str], ...] = (
    # (style name, adjacency prefix, attribute prefix)
    ("gnn-benchmark", "adj_", "attr_"),          # cora.npz
    ("ppnp", "adj_matrix.", "attr_matrix."),     # cora_ml.npz
)
_CSR_PARTS = ("data", "indices", "indptr", "shape")


def _existing_file(path: PathLike) -> Path:
    file = Path(path)
    if not file.exists():
        raise DataError("file not found", where=str(file),
                        fix="check the path; relative paths start at the current directory")
    if not file.is_file():
        raise DataError("not a regular file", where=str(file),
                        fix="pass the path of a data file, not a directory")
    return file


# ----------------------------------------------------------------------------------- .npz

def _expected_npz_keys() -> str:
    styles = [", ".join(prefix + part for part in _CSR_PARTS) for _, prefix, _ in _NPZ_STYLES]
    styles.append("data, indices, indptr, shape, format (scipy.sparse.save_npz)")
    return " or ".join(f"[{s}]" for s in styles)


def _npz_array(archive, key: str, where: str) -> np.ndarray:
    try:
        return archive[key]
    except ValueError as exc:  # object arrays refuse to load with allow_pickle=False
        raise DataError(f"key {key!r} holds Python objects, which are never unpickled",
                        where=where, fix=f"store {key!r} as a plain numeric array") from exc
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"key {key!r} cannot be read: {exc}", where=where,
                        fix="the archive is damaged; re-create it with numpy.savez") from exc


def _npz_csr(archive, prefix: str, where: str, role: str) -> sp.csr_matrix:
    parts = {part: _npz_array(archive, prefix + part, where) for part in _CSR_PARTS}
    shape = parts["shape"]
    if shape.shape != (2,) or not np.issubdtype(shape.dtype, np.integer) or (shape < 0).any():
        raise DataError(f"{prefix}shape must be two non-negative integers, got {shape!r}",
                        where=where, fix=f"store the {role} shape as [rows, cols]")
    try:
        matrix = sp.csr_matrix(
            (parts["data"], parts["indices"], parts["indptr"]),
            shape=(int(shape[0]), int(shape[1])))
        matrix.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        raise DataError(f"the {role} arrays under {prefix}* are not a valid CSR matrix: {exc}",
                        where=where,
                        fix="indptr needs rows+1 increasing entries and indices < cols") from exc
    try:
        matrix = sp.csr_matrix(matrix, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise DataError(f"the {role} values under {prefix}data are not numbers", where=where,
                        fix="store real-valued data") from exc
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return matrix


def load_npz(path: PathLike) -> GraphData:
    """Load a graph stored as CSR parts in a NumPy .npz archive.

    Accepted key styles: `adj_data, adj_indices, adj_indptr, adj_shape` (+ optional `attr_*`
    features and `labels`), `adj_matrix.data ...` (+ optional `attr_matrix.*`, `labels`), or a
    matrix written by `scipy.sparse.save_npz` (csr/csc). The archive is opened with
    `allow_pickle=False`, and keys the graph does not need are never read.
    """
    file = _existing_file(path)
    where = str(file)
    try:
        archive = np.load(file, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise DataError(f"not a readable .npz archive ({exc})", where=where,
                        fix="write the file with numpy.savez or scipy.sparse.save_npz") from exc
    if not hasattr(archive, "files"):  # a plain .npy saved under an .npz name
        raise DataError("holds a single array, not an .npz archive of CSR parts", where=where,
                        fix=f"store the adjacency under the keys {_expected_npz_keys()}")
    with archive:
        keys = set(archive.files)
        adjacency = features = labels = None
        for _, adj_prefix, attr_prefix in _NPZ_STYLES:
            if all(adj_prefix + part in keys for part in _CSR_PARTS):
                adjacency = _npz_csr(archive, adj_prefix, where, "adjacency")
                if all(attr_prefix + part in keys for part in _CSR_PARTS):
                    features = _npz_csr(archive, attr_prefix, where, "feature")
                break
        else:
            if all(part in keys for part in _CSR_PARTS) and "format" in keys:
                fmt = _npz_array(archive, "format", where)
                fmt_name = fmt.item().decode("ascii", "replace") if fmt.dtype.kind == "S" \
                    else str(fmt.item())
                if fmt_name not in ("csr", "csc"):
                    raise DataError(f"sparse format {fmt_name!r} is not supported",
                                    where=where, fix="save the matrix as CSR or CSC")
                adjacency = _npz_csr(archive, "", where, "adjacency")
                if fmt_name == "csc":  # the same arrays read as CSR give the transpose
                    adjacency = sp.csr_matrix(adjacency.T)
            else:
                found = ", ".join(sorted(keys)) or "no keys"
                raise DataError(
                    f"no adjacency matrix found (keys present: {found})", where=where,
                    fix=f"store the adjacency under the keys {_expected_npz_keys()}")
        if "labels" in keys:
            labels = _npz_array(archive, "labels", where)
            if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
                raise DataError(
                    f"labels must be a 1-D integer array, got {labels.dtype} {labels.shape}",
                    where=where, fix="store one integer class per vertex under 'labels'")
    if adjacency.shape[0] != adjacency.shape[1]:
        raise DataError(f"adjacency is not square: shape {adjacency.shape}", where=where,
                        fix="an adjacency matrix needs one row and one column per vertex")
    return _graph(file.stem, adjacency, features, labels, where)


def _graph(name, adjacency, features, labels, where) -> GraphData:
    try:
        return GraphData(name=name, adjacency=adjacency, features=features, labels=labels)
    except DataError as exc:  # re-anchor the message at the file the data came from
        raise DataError(exc.bare_message, where=where, fix=exc.fix) from exc


# ----------------------------------------------------------------------- Planetoid pickles

# The only globals a dict-of-lists pickle needs. Python 2 pickles name the builtins module
# `__builtin__`; Python 3 pickles of protocol < 3 use that name too.
_ALLOWED_GLOBALS: dict[tuple[str, str], object] = {
    ("collections", "defaultdict"): collections.defaultdict,
    ("builtins", "dict"): dict,
    ("builtins", "list"): list,
    ("builtins", "int"): int,
    ("__builtin__", "dict"): dict,
    ("__builtin__", "list"): list,
    ("__builtin__", "int"): int,
    ("__builtin__", "long"): int,
}


class _DictOfListsUnpickler(pickle.Unpickler):
    """An unpickler that can rebuild dicts, defaultdicts, lists and ints, and nothing else."""

    def __init__(self, file, where: str):
        super().__init__(file, encoding="latin1")
        self._where = where

    def find_class(self, module: str, name: str):
        try:
            return _ALLOWED_GLOBALS[(module, name)]
        except KeyError:
            raise DataError(
                f"refusing to unpickle {module}.{name}: only dicts, lists and ints are allowed",
                where=self._where,
                fix="Planetoid .graph files hold a dict of neighbour lists; "
                    "this file is not one, or it was tampered with") from None

    def persistent_load(self, pid):
        raise DataError("refusing persistent references in a pickle", where=self._where,
                        fix="Planetoid .graph files hold a dict of neighbour lists only")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_planetoid_graph(path: PathLike, *, n_vertices: int | None = None) -> GraphData:
    """Load a Planetoid `ind.<name>.graph` pickle (dict: vertex -> list of neighbour ids).

    The pickle is read by a restricted unpickler that resolves only `collections.defaultdict`
    and the builtins `dict`, `list` and `int`; anything else is refused before it can run.
    Each listed neighbour becomes a stored entry of weight 1 (repeated neighbours count once);
    the adjacency is not symmetrized. The vertex count is the largest id + 1 unless given.
    """
    file = _existing_file(path)
    where = str(file)
    try:
        payload = file.read_bytes()
        neighbours = _DictOfListsUnpickler(io.BytesIO(payload), where).load()
    except DataError:
        raise
    except Exception as exc:  # any failure of the pickle machinery means a bad file
        raise DataError(f"not a readable pickle ({type(exc).__name__}: {exc})", where=where,
                        fix="pass a Planetoid ind.<name>.graph file") from exc
    if not isinstance(neighbours, dict):
        raise DataError(f"expected a dict of neighbour lists, found {type(neighbours).__name__}",
                        where=where, fix="pass a Planetoid ind.<name>.graph file")
    rows: list[int] = []
    cols: list[int] = []
    for vertex, adjacent in neighbours.items():
        if not _is_int(vertex) or vertex < 0:
            raise DataError(f"vertex key {vertex!r} is not a non-negative integer",
                            where=where, fix="keys must be vertex ids 0..n-1")
        if not isinstance(adjacent, list) or not all(_is_int(v) and v >= 0 for v in adjacent):
            raise DataError(f"neighbours of vertex {vertex} are not a list of non-negative ints",
                            where=where, fix="values must be lists of vertex ids")
        rows.extend([vertex] * len(adjacent))
        cols.extend(adjacent)
    row_ids = np.asarray(rows, dtype=np.int64)
    col_ids = np.asarray(cols, dtype=np.int64)
    largest = max([-1, *neighbours.keys()]) if neighbours else -1
    if col_ids.size:
        largest = max(largest, int(col_ids.max()))
    n = _vertex_count(largest, n_vertices, where, row_ids.size)
    return GraphData(name=file.name.removesuffix(".graph").removeprefix("ind."),
                     adjacency=_pattern_csr(row_ids, col_ids, np.ones(row_ids.size), n))


# Without an explicit n_vertices, refuse ids this far beyond the edge count: the CSR row
# pointer alone would need 8 bytes per id, so a stray huge id would exhaust memory.
_SPARSE_ID_LIMIT = 10_000_000


def _vertex_count(largest_id: int, n_vertices: int | None, where: str, n_edges: int) -> int:
    if n_vertices is None:
        if largest_id < 0:
            raise DataError("the file holds no edges, so the vertex count is unknown",
                            where=where, fix="pass n_vertices explicitly")
        if largest_id >= max(_SPARSE_ID_LIMIT, 1000 * n_edges):
            raise DataError(f"vertex id {largest_id} is far larger than the {n_edges} edges "
                            f"need", where=where,
                            fix="renumber the vertices 0..n-1, or pass n_vertices explicitly")
        return largest_id + 1
    if not _is_int(n_vertices) or n_vertices < 0:
        raise DataError(f"n_vertices must be a non-negative integer, got {n_vertices!r}",
                        where=where, fix="pass the number of vertices")
    if largest_id >= n_vertices:
        raise DataError(f"vertex id {largest_id} does not fit n_vertices={n_vertices}",
                        where=where, fix=f"pass n_vertices >= {largest_id + 1}")
    return n_vertices


def _pattern_csr(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, n: int
                 ) -> sp.csr_matrix:
    """CSR from coordinates; a repeated (row, col) keeps the weight given last."""
    if rows.size:
        keys = rows * n + cols
        # np.unique keeps the first occurrence, so look at the reversed arrays to keep the last.
        _, first_in_reversed = np.unique(keys[::-1], return_index=True)
        keep = rows.size - 1 - first_in_reversed
        rows, cols, weights = rows[keep], cols[keep], weights[keep]
    matrix = sp.csr_matrix((weights.astype(np.float64), (rows, cols)), shape=(n, n))
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


# ---------------------------------------------------------------------------- Matrix Market

def load_mtx(path: PathLike) -> GraphData:
    """Load a square Matrix Market file (coordinate or array; real, integer or pattern)."""
    file = _existing_file(path)
    where = str(file)
    try:
        matrix = scipy.io.mmread(str(file))
    except Exception as exc:  # the reader raises several types for malformed input
        raise DataError(f"not a readable Matrix Market file ({type(exc).__name__}: {exc})",
                        where=where,
                        fix="the file must start with '%%MatrixMarket matrix coordinate ...' "
                            "and a size line; write it with scipy.io.mmwrite") from exc
    if np.iscomplexobj(matrix.data if sp.issparse(matrix) else matrix):
        raise DataError("complex values are not supported", where=where,
                        fix="store a real, integer or pattern matrix")
    adjacency = sp.csr_matrix(matrix, dtype=np.float64)
    if adjacency.shape[0] != adjacency.shape[1]:
        raise DataError(f"matrix is not square: shape {adjacency.shape}", where=where,
                        fix="an adjacency matrix needs one row and one column per vertex")
    adjacency.sum_duplicates()
    adjacency.eliminate_zeros()
    name = file.name
    for suffix in (".gz", ".bz2", ".mtx"):
        name = name.removesuffix(suffix)
    return GraphData(name=name, adjacency=adjacency)


# ------------------------------------------------------------------------------ edge lists

_SEPARATORS = re.compile(r"[,\s]+")


def load_edge_list(path: PathLike, *, n_vertices: int | None = None) -> GraphData:
    """Load a text edge list: one `src dst [weight]` per line, ids counted from 0.

    Fields are separated by whitespace and/or commas; blank lines and lines starting with `#`
    or `%` are skipped. A missing weight means 1.0; a repeated edge keeps its last weight.
    Edges are stored as given (not symmetrized). The vertex count is the largest id + 1
    unless `n_vertices` is given.
    """
    file = _existing_file(path)
    where = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError("is not a UTF-8 text file", where=where,
                        fix="an edge list is plain text, one 'src dst [weight]' per line") from exc
    rows: list[int] = []
    cols: list[int] = []
    weights: list[float] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#%":
            continue
        fields = _SEPARATORS.split(line.strip(", \t"))
        here = f"{where}:{number}"
        if len(fields) not in (2, 3):
            raise DataError(f"expected 'src dst [weight]', found {len(fields)} fields: {raw!r}",
                            where=here, fix="write two vertex ids and an optional weight")
        try:
            src, dst = int(fields[0]), int(fields[1])
        except ValueError:
            raise DataError(f"vertex ids must be integers: {raw!r}", where=here,
                            fix="use integer vertex ids counted from 0") from None
        if src < 0 or dst < 0:
            raise DataError(f"vertex ids must be non-negative: {raw!r}", where=here,
                            fix="use integer vertex ids counted from 0")
        if n_vertices is not None and max(src, dst) >= n_vertices:
            raise DataError(f"vertex id {max(src, dst)} does not fit n_vertices={n_vertices}",
                            where=here, fix="pass a larger n_vertices or fix the id")
        weight = 1.0
        if len(fields) == 3:
            try:
                weight = float(fields[2])
            except ValueError:
                raise DataError(f"weight {fields[2]!r} is not a number", where=here,
                                fix="write the weight as a decimal number") from None
            if not np.isfinite(weight):
                raise DataError(f"weight {fields[2]!r} is not finite", where=here,
                                fix="use a finite weight")
        rows.append(src)
        cols.append(dst)
        weights.append(weight)
    row_ids = np.asarray(rows, dtype=np.int64)
    col_ids = np.asarray(cols, dtype=np.int64)
    largest = int(max(row_ids.max(), col_ids.max())) if rows else -1
    n = _vertex_count(largest, n_vertices, where, row_ids.size)
    return GraphData(name=file.stem,
                     adjacency=_pattern_csr(row_ids, col_ids, np.asarray(weights), n))


# -------------------------------------------------------------------------------- dispatch

def load_graph(path: PathLike) -> GraphData:
    """Load a graph, choosing the reader by suffix.

    `.npz` -> `load_npz`, `.mtx` (also `.mtx.gz`, `.mtx.bz2`) -> `load_mtx`,
    `.graph` -> `load_planetoid_graph`, anything else -> `load_edge_list`.
    """
    name = Path(path).name.lower()
    if name.endswith(".npz"):
        return load_npz(path)
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        return load_mtx(path)
    if name.endswith(".graph"):
        return load_planetoid_graph(path)
    return load_edge_list(path)
