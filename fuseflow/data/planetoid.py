"""Read a Planetoid `ind.<name>.graph` pickle: a dict mapping each vertex to its neighbours.

Unpickling runs a small stack machine, and a hostile file can make it do harm without any
forbidden global: a memo index of 2^31 makes the C unpickler allocate gigabytes, a key
that is a tuple nested a million deep crashes the interpreter when it is hashed, and one
shared list referenced from every vertex multiplies into billions of edges. So the file is
read by pure-Python unpickling (its memo is a dict) restricted to the opcodes a dict of int
lists needs; tuples may only hold scalars, dict keys must be ints, the only call allowed is
`defaultdict(list)`; and the neighbour count is checked against the file size and the
memory budget before any array is built.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import pickletools
from pathlib import Path

import numpy as np

from fuseflow.data.coordinates import pattern_csr, vertex_count
from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import MAX_VERTICES, describe_value, library_message
from fuseflow.support.errors import DataError
from fuseflow.support.files import TEXT_LIMIT, read_user_bytes
from fuseflow.support.memory import check_memory

PathLike = str | os.PathLike

#: the real files are a few MB; a dict of lists for millions of edges stays well below this
PICKLE_LIMIT = TEXT_LIMIT
#: the most bytes of Python objects one pickle byte can become (an empty list and its memo
#: entry from two opcode bytes), used to refuse a file before it is unpickled
PICKLE_EXPANSION = 64

_WHAT = "a Planetoid ind.<name>.graph file"
_FIX = "Planetoid .graph files hold a dict of neighbour lists; this file is not one, or it was tampered with"

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
_FACTORIES = (list, dict, int)

# Opcodes that build dicts, lists, ints, shallow tuples and the globals above: every
# protocol from 0 to 5 writes a dict of int lists (or a defaultdict) with these only.
_ALLOWED_OPCODES = {
    "PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP", "NONE",
    "EMPTY_DICT", "DICT", "EMPTY_LIST", "LIST", "APPEND", "APPENDS", "SETITEM", "SETITEMS",
    "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4",
    "GLOBAL", "STACK_GLOBAL", "REDUCE", "SHORT_BINUNICODE", "BINUNICODE", "UNICODE",
    "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE", "GET", "BINGET", "LONG_BINGET",
}
_OPCODE_NAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}
_BININT1, _BININT2, _BININT, _FRAME = pickle.BININT1[0], pickle.BININT2[0], pickle.BININT[0], pickle.FRAME[0]


class _Refused(dict):
    """The dispatch table: opcodes outside the allow-list raise a DataError naming them."""

    def __missing__(self, code: int):
        name = _OPCODE_NAMES.get(code, f"byte {code:#04x}")

        def refuse(unpickler):
            raise DataError(f"refusing the pickle opcode {name}: only dicts, lists and ints are allowed",
                            where=unpickler.where, fix=_FIX)
        return refuse


def _printable(name: str) -> str:
    """A module or global name as written, unless it is long or holds control characters."""
    return name if name.isprintable() and len(name) <= 80 else describe_value(name)


_INT_TYPE = {int}


def _is_int(value) -> bool:
    return type(value) is int  # bool and int subclasses are not vertex ids


# pickle._Unpickler is the pure-Python unpickler: its memo is a dict, where the C one keeps an
# array as long as the largest memo index a file names.
class _DictOfListsUnpickler(pickle._Unpickler):
    """Rebuilds dicts, defaultdicts, lists, ints and flat tuples, and nothing else."""

    def __init__(self, payload: bytes, where: str):
        super().__init__(io.BytesIO(payload), encoding="latin1")
        self.payload = payload
        self.where = where

    def load(self):
        """pickle._Unpickler.load over the bytes in memory: the integers that make up almost
        all of a graph file are read in this loop, ten times faster than one dispatched call
        and two framed reads each (a 4 MB file took 4 s); every other opcode goes through the
        restricted dispatch table. FRAME only announces how many bytes follow, so it is skipped."""
        data, end = self.payload, len(self.payload)
        at = 0

        def read(size: int = 1) -> bytes:
            nonlocal at
            chunk = data[at:at + size]
            at += len(chunk)
            return chunk

        def readline() -> bytes:
            nonlocal at
            stop = data.find(b"\n", at)
            stop = end if stop < 0 else stop + 1
            chunk, at = data[at:stop], stop
            return chunk

        def readinto(buffer) -> int:
            chunk = read(len(buffer))
            buffer[:len(chunk)] = chunk
            return len(chunk)

        self.read, self.readline, self.readinto = read, readline, readinto
        self.metastack, self.stack, self.proto = [], [], 0
        self.append = self.stack.append
        dispatch, from_bytes = self.dispatch, int.from_bytes
        try:
            while at < end:
                code = data[at]
                at += 1
                if code == _BININT1:
                    self.append(data[at])
                    at += 1
                elif code == _BININT2:
                    self.append(data[at] | data[at + 1] << 8)
                    at += 2
                elif code == _BININT:
                    self.append(from_bytes(data[at:at + 4], "little", signed=True))
                    at += 4
                elif code == _FRAME:
                    at += 8
                else:
                    dispatch[code](self)
        except pickle._Stop as stop:
            return stop.value
        raise EOFError

    def find_class(self, module: str, name: str):
        try:
            return _ALLOWED_GLOBALS[(module, name)]
        except KeyError:
            raise DataError(f"refusing to unpickle {_printable(module)}.{_printable(name)}: "
                            f"only dicts, lists and ints are allowed",
                            where=self.where, fix=_FIX) from None

    def _key(self, key):
        if not _is_int(key):  # hashing a deeply nested tuple would overflow the C stack
            raise DataError(f"vertex key {describe_value(key)} is not a non-negative integer", where=self.where,
                            fix="keys must be vertex ids 0..n-1")
        return key

    def load_setitem(self):
        value = self.stack.pop()
        key = self._key(self.stack.pop())
        self.stack[-1][key] = value

    def load_setitems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        for i in range(0, len(items) - 1, 2):
            target[self._key(items[i])] = items[i + 1]

    def load_dict(self):
        items = self.pop_mark()
        self.append({self._key(items[i]): items[i + 1] for i in range(0, len(items) - 1, 2)})

    def _flat(self, items) -> tuple:
        if any(isinstance(item, (tuple, list, dict)) for item in items):
            raise DataError("refusing a tuple that holds containers: only dicts, lists and ints are allowed",
                            where=self.where, fix=_FIX)
        return tuple(items)

    def load_tuple(self):
        items = self.pop_mark()  # first: it switches self.append to the outer stack
        self.append(self._flat(items))

    def load_tuple1(self):
        self.stack[-1] = self._flat(self.stack[-1:])

    def load_tuple2(self):
        self.stack[-2:] = [self._flat(self.stack[-2:])]

    def load_tuple3(self):
        self.stack[-3:] = [self._flat(self.stack[-3:])]

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if func is collections.defaultdict and (args == () or (len(args) == 1 and args[0] in _FACTORIES)):
            self.stack[-1] = collections.defaultdict(*args)
            return
        name = getattr(func, "__name__", type(func).__name__)
        raise DataError(f"refusing to call {_printable(str(name))} while unpickling: only defaultdict(list) is allowed",
                        where=self.where, fix=_FIX)

    dispatch = _Refused({code: function for code, function in pickle._Unpickler.dispatch.items()
                         if _OPCODE_NAMES.get(code) in _ALLOWED_OPCODES})
    dispatch.update({pickle.SETITEM[0]: load_setitem, pickle.SETITEMS[0]: load_setitems,
                     pickle.DICT[0]: load_dict, pickle.TUPLE[0]: load_tuple, pickle.TUPLE1[0]: load_tuple1,
                     pickle.TUPLE2[0]: load_tuple2, pickle.TUPLE3[0]: load_tuple3, pickle.REDUCE[0]: load_reduce})

    def persistent_load(self, pid):
        raise DataError("refusing persistent references in a pickle", where=self.where,
                        fix="Planetoid .graph files hold a dict of neighbour lists only")


def _unpickle(payload: bytes, where: str):
    check_memory(len(payload) * PICKLE_EXPANSION, f"unpickling a {len(payload):,}-byte file", where,
                 fix="pass a smaller graph")
    try:
        return _DictOfListsUnpickler(payload, where).load()
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the pickle machinery means a bad file
        reason = f"{type(exc).__name__}: {library_message(str(exc))}" if str(exc) else type(exc).__name__
        raise DataError(f"not a readable pickle ({reason})", where=where,
                        fix="pass a Planetoid ind.<name>.graph file") from None


def _neighbour_arrays(neighbours: dict, payload_size: int, where: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(rows, cols, largest id) of every listed neighbour, each id checked before conversion."""
    total = 0
    for vertex, adjacent in neighbours.items():
        if not _is_int(vertex) or vertex < 0:
            raise DataError(f"vertex key {describe_value(vertex)} is not a non-negative integer", where=where,
                            fix="keys must be vertex ids 0..n-1")
        if vertex >= MAX_VERTICES:
            raise DataError(f"vertex key {describe_value(vertex)} is larger than the {MAX_VERTICES:,} vertices "
                            f"Navigator can store", where=where, fix="keys must be vertex ids 0..n-1")
        if not isinstance(adjacent, list):
            raise DataError(f"neighbours of vertex {vertex} are not a list of non-negative ints", where=where,
                            fix="values must be lists of vertex ids")
        total += len(adjacent)
    if total > payload_size:  # every listed id takes at least one byte unless lists are shared
        raise DataError(f"lists {total:,} neighbours in {payload_size:,} bytes: the same list is shared by "
                        f"several vertices", where=where, fix=_FIX)
    rows = np.empty(total, dtype=np.int64)
    cols = np.empty(total, dtype=np.int64)
    largest = max(neighbours, default=-1)
    at = 0
    for vertex, adjacent in neighbours.items():
        if not adjacent:
            continue
        if not set(map(type, adjacent)) <= _INT_TYPE or min(adjacent) < 0:  # map(type): C speed
            raise DataError(f"neighbours of vertex {vertex} are not a list of non-negative ints", where=where,
                            fix="values must be lists of vertex ids")
        top = max(adjacent)
        if top >= MAX_VERTICES:
            raise DataError(f"neighbour {describe_value(top)} of vertex {vertex} is larger than the "
                            f"{MAX_VERTICES:,} vertices Navigator can store", where=where,
                            fix="neighbours must be vertex ids 0..n-1")
        largest = max(largest, top)
        rows[at:at + len(adjacent)] = vertex
        cols[at:at + len(adjacent)] = adjacent
        at += len(adjacent)
    return rows, cols, largest


def load_planetoid_graph(path: PathLike, *, n_vertices: int | None = None) -> GraphData:
    """Load a Planetoid `ind.<name>.graph` pickle (dict: vertex -> list of neighbour ids).

    The pickle is read by a restricted unpickler that resolves only `collections.defaultdict`
    and the builtins `dict`, `list` and `int`; anything else is refused before it can run.
    Each listed neighbour becomes a stored entry of weight 1 (repeated neighbours count once);
    the adjacency is not symmetrized. The vertex count is the largest id + 1 unless given.
    """
    where = str(path)
    payload = read_user_bytes(path, DataError, _WHAT, PICKLE_LIMIT)
    neighbours = _unpickle(payload, where)
    if not isinstance(neighbours, dict):
        raise DataError(f"expected a dict of neighbour lists, found {type(neighbours).__name__}",
                        where=where, fix="pass a Planetoid ind.<name>.graph file")
    rows, cols, largest = _neighbour_arrays(neighbours, len(payload), where)
    n = vertex_count(largest, n_vertices, where, rows.size)
    name = Path(path).name.removesuffix(".graph").removeprefix("ind.")
    return GraphData(name=name, adjacency=pattern_csr(rows, cols, np.ones(rows.size), n, where))
