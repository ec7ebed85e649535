"""Read a graph from a NumPy .npz archive of CSR parts, checking sizes before reading data.

An .npz is a zip of .npy members. Each member starts with a small header giving the array's
shape and dtype; the data after it may be compressed. So every array is first judged by its
header alone: its kind (numbers only, never Python objects), its length against the other
parts (indptr = rows + 1, indices = data), its byte count against what the zip member holds
(a member cannot inflate past its declared size), and the total against the memory budget.
Only then is it read, in chunks, into an array of exactly the size already checked.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.lib.format as npy
import scipy.sparse as sp

from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import (
    MAX_VERTICES,
    check_finite,
    check_graph_memory,
    check_vertex_count,
    describe_value,
    library_message,
    product,
    refuse_empty_graph,
)
from fuseflow.support.errors import DataError
from fuseflow.support.files import format_size, open_regular_file

PathLike = str | os.PathLike

# Key styles of the archives we read: (style name, adjacency prefix, attribute prefix).
_NPZ_STYLES: tuple[tuple[str, str, str], ...] = (
    ("gnn-benchmark", "adj_", "attr_"),          # cora.npz
    ("ppnp", "adj_matrix.", "attr_matrix."),     # cora_ml.npz
)
_CSR_PARTS = ("data", "indices", "indptr", "shape")
_READ_CHUNK = 16 << 20
# Errors of the zip and deflate machinery on a damaged or hostile archive.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError,
               ValueError)


def _expected_keys() -> str:
    styles = [", ".join(prefix + part for part in _CSR_PARTS) for _, prefix, _ in _NPZ_STYLES]
    styles.append("data, indices, indptr, shape, format (scipy.sparse.save_npz)")
    return " or ".join(f"[{s}]" for s in styles)


@dataclass(frozen=True)
class _Header:
    key: str
    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype
    offset: int                    # bytes of the .npy header before the data

    @property
    def count(self) -> int:
        return product(self.shape)

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.itemsize


class _Archive:
    """The .npy members of an open zip, each read only after its header was checked."""

    def __init__(self, zf: zipfile.ZipFile, where: str):
        self.zf, self.where = zf, where
        self.members = {(info.filename.removesuffix(".npy")): info
                        for info in zf.infolist()}

    def keys(self) -> set[str]:
        return set(self.members)

    def _fail(self, key: str, problem: str, fix: str | None = None) -> DataError:
        return DataError(f"key {key!r} {problem}", where=self.where,
                         fix=fix or "the archive is damaged or was not written by numpy.savez; re-create it")

    def header(self, key: str, kinds: str, what: str) -> _Header:
        """Shape and dtype of `key`, checked to be numbers of one of `kinds` (numpy kind codes)."""
        info = self.members[key]
        try:
            with self.zf.open(info) as member:
                version = npy.read_magic(member)
                if version == (1, 0):
                    shape, _fortran, dtype = npy.read_array_header_1_0(member)
                elif version == (2, 0):
                    shape, _fortran, dtype = npy.read_array_header_2_0(member)
                else:
                    raise self._fail(key, f"uses .npy format version {version[0]}.{version[1]}, which is not read",
                                     "save plain numeric arrays with numpy.savez")
                offset = member.tell()
        except DataError:
            raise
        except _ZIP_ERRORS as exc:
            raise self._fail(key, f"is not a readable .npy array ({_reason(exc)})") from None
        if dtype.hasobject:
            raise self._fail(key, "holds Python objects, which are never unpickled",
                             f"store {key!r} as a plain numeric array")
        if dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None:
            raise self._fail(key, f"has dtype {dtype}, but {what} must be {_kind_names(kinds)}",
                             f"store {key!r} as {_kind_names(kinds)}")
        if any(size < 0 for size in shape):
            raise self._fail(key, f"declares a negative size in its shape {shape}")
        header = _Header(key, info, tuple(int(s) for s in shape), dtype, offset)
        if header.nbytes > info.file_size - offset:
            # zipfile never inflates a member past its declared size, so this is a truncated
            # or forged member (a zip bomb declares a small size and inflates to a huge one)
            raise self._fail(key, f"declares {header.count:,} values ({_size(header.nbytes)}) but its zip member "
                                  f"holds only {_size(max(info.file_size - offset, 0))}")
        return header

    def read(self, header: _Header) -> np.ndarray:
        """The array of a checked header, read in chunks into a buffer of exactly its size."""
        buffer = bytearray(header.nbytes)
        view = memoryview(buffer)
        try:
            with self.zf.open(header.info) as member:
                member.read(header.offset)
                filled = 0
                while filled < header.nbytes:
                    got = member.readinto(view[filled:filled + _READ_CHUNK])
                    if not got:
                        raise self._fail(header.key, f"ends after {_size(filled)} of {_size(header.nbytes)}")
                    filled += got
        except DataError:
            raise
        except _ZIP_ERRORS as exc:
            raise self._fail(header.key, f"cannot be read ({_reason(exc)})") from None
        finally:
            view.release()
        array = np.frombuffer(buffer, dtype=header.dtype, count=header.count)
        return array.reshape(header.shape)


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {library_message(str(exc))}" if str(exc) else type(exc).__name__


def _size(n: int) -> str:
    return format_size(n)


_KIND_NAMES = {"b": "booleans", "i": "integers", "u": "integers", "f": "real numbers", "S": "strings",
               "U": "strings"}


def _kind_names(kinds: str) -> str:
    names = []
    for kind in kinds:
        if _KIND_NAMES[kind] not in names:
            names.append(_KIND_NAMES[kind])
    return " or ".join(names)


# ---------------------------------------------------------------------------------- CSR parts

def _shape(archive: _Archive, key: str, role: str) -> tuple[int, int]:
    header = archive.header(key, "iu", f"the {role} shape")
    if header.shape != (2,):
        raise DataError(f"{key} must hold two integers [rows, cols], found an array of shape {header.shape}",
                        where=archive.where, fix=f"store the {role} shape as [rows, cols]")
    values = archive.read(header)
    rows, cols = (int(v) for v in values)
    if rows < 0 or cols < 0:
        raise DataError(f"{key} must be two non-negative integers, got [{rows}, {cols}]", where=archive.where,
                        fix=f"store the {role} shape as [rows, cols]")
    return rows, cols


def _csr(archive: _Archive, prefix: str, role: str, *, csc: bool = False,
         rows_expected: int | None = None) -> sp.csr_matrix:
    """The CSR matrix stored under `prefix`, every size checked before any data is read."""
    where = archive.where
    rows, cols = _shape(archive, prefix + "shape", role)
    if csc:  # the same arrays read as CSR describe the transpose
        rows, cols = cols, rows
    if role == "adjacency" and rows != cols:
        shape = (cols, rows) if csc else (rows, cols)
        raise DataError(f"adjacency is not square: shape {shape}", where=where,
                        fix="an adjacency matrix needs one row and one column per vertex")
    if rows_expected is not None and rows != rows_expected:
        raise DataError(f"features have {rows:,} rows but the graph has {rows_expected:,} vertices",
                        where=where, fix="store exactly one feature row per vertex")
    data = archive.header(prefix + "data", "biuf", f"the {role} values")
    indices = archive.header(prefix + "indices", "iu", f"the {role} column indices")
    indptr = archive.header(prefix + "indptr", "iu", f"the {role} row pointer")
    for header in (data, indices, indptr):
        if len(header.shape) != 1:
            raise DataError(f"{header.key} must be one-dimensional, found shape {header.shape}", where=where,
                            fix=f"store the {role} as the 1-D arrays of a CSR matrix")
    nnz = data.count
    pointer = "column pointer" if csc else "row pointer"
    if indptr.count != rows + 1:
        raise DataError(f"{indptr.key} has {indptr.count:,} entries but the shape needs {rows + 1:,} "
                        f"({'cols' if csc else 'rows'} + 1)", where=where,
                        fix=f"store a {pointer} of one entry per {'column' if csc else 'row'} plus one")
    if indices.count != nnz:
        raise DataError(f"{indices.key} has {indices.count:,} entries but {data.key} has {nnz:,}", where=where,
                        fix="store one index per stored value")
    if nnz > rows * cols:
        raise DataError(f"{nnz:,} stored values do not fit a {rows:,} x {cols:,} matrix", where=where,
                        fix="store each (row, column) at most once")
    if role == "adjacency":
        check_vertex_count(rows, nnz, where, declared=f"{prefix}shape declares",
                           fix=f"fix {prefix}shape, or renumber the vertices 0..n-1")
    check_graph_memory(rows, nnz, where, f"reading the {role} matrix")
    arrays = [archive.read(h) for h in (data, indices, indptr)]
    try:
        ends = (int(arrays[2][0]), int(arrays[2][-1]))
        if ends != (0, nnz):  # scipy would silently ignore values past the last pointer
            raise ValueError(f"{indptr.key} runs from {ends[0]} to {ends[1]}, not from 0 to the {nnz} values")
        matrix = sp.csr_matrix(tuple(arrays), shape=(rows, cols), copy=False)
        matrix.check_format(full_check=True)
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise DataError(f"the {role} arrays under {prefix}* are not a valid CSR matrix: {exc}", where=where,
                        fix=f"the {pointer} must start at 0, never decrease and end at the number of values; "
                            "every index must be >= 0 and < the other dimension") from None
    check_finite(matrix.data.astype(np.float64, copy=False), where, f"the {role} values under {data.key}")
    matrix = sp.csr_matrix(matrix, dtype=np.float64)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return sp.csr_matrix(matrix.T) if csc else matrix


def _sparse_format(archive: _Archive) -> str:
    header = archive.header("format", "SU", "the sparse format name")
    if header.shape not in ((), (1,)) or header.dtype.itemsize > 64:
        raise DataError(f"format must be one short string such as 'csr', found an array of shape {header.shape} "
                        f"and dtype {header.dtype}", where=archive.where, fix="save the matrix with scipy.sparse.save_npz")
    value = archive.read(header).reshape(()).item()
    name = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
    if name not in ("csr", "csc"):
        raise DataError(f"sparse format {describe_value(name)} is not supported", where=archive.where,
                        fix="save the matrix as CSR or CSC")
    return name


def _key_list(keys: set[str], shown: int = 20) -> str:
    """Member names for a one-line message: printable, shortened, at most `shown` of them."""
    names = sorted(k if k.isprintable() and len(k) <= 40 else describe_value(k) for k in keys)
    more = f" and {len(names) - shown:,} more" if len(names) > shown else ""
    return (", ".join(names[:shown]) + more) or "no keys"


def _labels(archive: _Archive, n: int) -> np.ndarray:
    header = archive.header("labels", "iu", "labels")
    if header.shape != (n,):
        raise DataError(f"labels have shape {header.shape} but the graph has {n:,} vertices", where=archive.where,
                        fix="store one integer label per vertex")
    labels = archive.read(header)
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= MAX_VERTICES):
        raise DataError(f"labels must be class numbers 0..k-1, found {int(labels.min())}..{int(labels.max())}",
                        where=archive.where, fix="encode the classes as integers from 0")
    return labels


# ---------------------------------------------------------------------------------- the loader

def load_npz(path: PathLike) -> GraphData:
    """Load a graph stored as CSR parts in a NumPy .npz archive.

    Accepted key styles: `adj_data, adj_indices, adj_indptr, adj_shape` (+ optional `attr_*`
    features and `labels`), `adj_matrix.data ...` (+ optional `attr_matrix.*`, `labels`), or a
    matrix written by `scipy.sparse.save_npz` (csr/csc). Nothing is ever unpickled, keys the
    graph does not need are never read, and every array's size is checked from its header
    before its data is read.
    """
    where = str(path)
    with open_regular_file(path, DataError, "a .npz graph archive") as handle:
        if handle.read(6) == b"\x93NUMPY":  # a plain .npy saved under an .npz name
            raise DataError("holds a single array, not an .npz archive of CSR parts", where=where,
                            fix=f"store the adjacency under the keys {_expected_keys()}")
        handle.seek(0)
        try:
            zf = zipfile.ZipFile(handle)
        except _ZIP_ERRORS as exc:
            raise DataError(f"not a readable .npz archive ({_reason(exc)})", where=where,
                            fix="write the file with numpy.savez or scipy.sparse.save_npz") from None
        with zf:
            archive = _Archive(zf, where)
            adjacency, features, labels = _read_graph(archive)
    return _graph(Path(path).stem, adjacency, features, labels, where)


def _read_graph(archive: _Archive):
    keys = archive.keys()
    features = labels = None
    for _, adj_prefix, attr_prefix in _NPZ_STYLES:
        if all(adj_prefix + part in keys for part in _CSR_PARTS):
            adjacency = _csr(archive, adj_prefix, "adjacency")
            if all(attr_prefix + part in keys for part in _CSR_PARTS):
                features = _csr(archive, attr_prefix, "feature", rows_expected=adjacency.shape[0])
            break
    else:
        if all(part in keys for part in _CSR_PARTS) and "format" in keys:
            csc = _sparse_format(archive) == "csc"
            adjacency = _csr(archive, "", "adjacency", csc=csc)
        else:
            found = _key_list(keys)
            raise DataError(f"no adjacency matrix found (keys present: {found})", where=archive.where,
                            fix=f"store the adjacency under the keys {_expected_keys()}")
    if "labels" in keys:
        labels = _labels(archive, adjacency.shape[0])
    return adjacency, features, labels


def _graph(name, adjacency, features, labels, where) -> GraphData:
    refuse_empty_graph(adjacency.shape[0], where)
    try:
        return GraphData(name=name, adjacency=adjacency, features=features, labels=labels)
    except DataError as exc:  # re-anchor the message at the file the data came from
        raise DataError(exc.bare_message, where=where, fix=exc.fix) from exc
