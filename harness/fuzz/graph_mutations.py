"""Mutations of graph files: .npz archives of CSR parts, Matrix Market, edge lists, Planetoid pickles.

Like harness/fuzz/mutations.py, each function takes a `random.Random` and returns the new
bytes and a note. The structural ones rebuild a valid-looking file around one lie (a
shape of 2**62, an index past the end, a pickle naming os.system), so the loader's checks
after the format's own are exercised; the generic text and byte mutations cover the rest.
"""

from __future__ import annotations

import io
import pickle
import random
import zipfile

import numpy as np

from harness.fuzz.mutations import HUGE_INTEGERS, mutate_bytes, mutate_text


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def npz_arrays(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def mutate_npz(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """One lie in an archive of CSR parts (or, now and then, damage to the zip itself)."""
    if rng.random() < 0.25:
        return mutate_bytes(rng, data)
    arrays = npz_arrays(data)
    key = rng.choice(sorted(arrays))
    kind = rng.choice(("delete", "huge-shape", "zero-shape", "negative", "out-of-range", "dtype", "objects",
                       "non-finite", "reshape", "empty", "extra-key", "zip-entry"))
    if kind == "delete":
        del arrays[key]
        note = f"deleted {key}"
    elif kind == "huge-shape":
        shape_keys = [k for k in arrays if k.endswith("shape")] or [key]
        key = rng.choice(shape_keys)
        big = rng.choice((2**31, 2**40, 2**62, 200_000_000))
        arrays[key] = np.array([big, big], dtype=np.int64)
        note = f"{key} = [{big}, {big}]"
    elif kind == "zero-shape":
        prefix = key[: -len("shape")] if key.endswith("shape") else key.rsplit("_", 1)[0] + "_"
        arrays = {prefix + "data": np.zeros(0), prefix + "indices": np.zeros(0, np.int32),
                  prefix + "indptr": np.zeros(1, np.int32), prefix + "shape": np.array([0, 0])}
        if "format" in npz_arrays(data):
            arrays["format"] = np.array(b"csr")
        note = f"an empty 0x0 matrix under {prefix}*"
    elif kind == "negative" and arrays[key].dtype.kind in "iuf":
        arrays[key] = -np.abs(arrays[key].astype(np.int64 if arrays[key].dtype.kind != "f" else float)) - 1
        note = f"{key} made negative"
    elif kind == "out-of-range":
        values = np.array(arrays[key], copy=True)
        if values.dtype.kind in "iu":
            values = values.astype(np.int64)
        if values.size and values.dtype.kind in "if":
            values.flat[rng.randrange(values.size)] = rng.choice((2**31, 2**40, 2**62, -5))
        arrays[key] = values
        note = f"one entry of {key} set out of range"
    elif kind == "dtype":
        dtype = rng.choice((np.float16, np.complex128, np.bool_, "U3", "S2", np.uint8))
        try:
            arrays[key] = arrays[key].astype(dtype)
        except (ValueError, TypeError):  # b"csr" has no number form: store a number instead
            arrays[key] = np.zeros(2, dtype=dtype)
        note = f"{key} stored as {np.dtype(dtype).name}"
    elif kind == "objects":  # np.savez pickles object arrays; the loader must refuse to unpickle them
        arrays[key] = np.array([{"a": 1}, None], dtype=object)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue(), f"{key} holds Python objects (a pickle)"
    elif kind == "non-finite":
        arrays[key] = np.array([np.nan, np.inf, -np.inf])
        note = f"{key} = [nan, inf, -inf]"
    elif kind == "reshape":
        arrays[key] = np.asarray(arrays[key]).reshape(1, -1) if arrays[key].size else np.zeros((0, 3))
        note = f"{key} made 2-D"
    elif kind == "empty":
        arrays[key] = np.zeros(0, dtype=arrays[key].dtype)
        note = f"{key} emptied"
    elif kind == "extra-key":
        arrays["labels"] = np.arange(rng.choice((0, 1, 10_000)))
        note = f"labels of length {len(arrays['labels'])}"
    else:  # a zip entry that claims to be huge
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(key + ".npy", b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, "
                             b"'shape': (100000000000,), }" + b" " * 44 + b"\n")
        return buffer.getvalue(), f"{key}.npy declares 10^11 elements"
    return npz_bytes(arrays), note


def mutate_mtx(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A lie in a Matrix Market header or entry, else generic text damage."""
    lines = data.decode("utf-8").split("\n")
    size_line = next(i for i, line in enumerate(lines) if line and not line.startswith("%"))
    kind = rng.choice(("huge-size", "field", "symmetry", "entry", "count", "text", "text"))
    if kind == "huge-size":
        n = rng.choice((200_000_000, 2**31, 2**62, 10**30))
        lines[size_line] = f"{n} {n} {rng.choice((1, 3, n))}"
        return "\n".join(lines).encode(), f"size line {lines[size_line]!r}"
    if kind == "field":
        field = rng.choice(("complex", "pattern", "integer", "hermitian", "banana"))
        lines[0] = lines[0].replace("real", field)
        return "\n".join(lines).encode(), f"field {field!r}"
    if kind == "symmetry":
        symmetry = rng.choice(("symmetric", "skew-symmetric", "hermitian", "weird"))
        lines[0] = lines[0].replace("general", symmetry)
        return "\n".join(lines).encode(), f"symmetry {symmetry!r}"
    if kind == "entry":
        value = rng.choice(("0 0 1", "-1 2 1", f"{2**70} 1 1", "1 1 nan", "1 1 inf", "1 1 1e999", "1", "a b c"))
        lines.insert(size_line + 1 + rng.randrange(max(1, len(lines) - size_line - 1)), value)
        return "\n".join(lines).encode(), f"entry {value!r}"
    if kind == "count":
        parts = lines[size_line].split()
        parts[-1] = str(rng.choice((0, 10**9, -5)))
        lines[size_line] = " ".join(parts)
        return "\n".join(lines).encode(), f"entry count {parts[-1]}"
    return mutate_text(rng, data)


def mutate_edge_list(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    lines = data.decode("utf-8").rstrip("\n").split("\n")
    kind = rng.choice(("huge-id", "negative", "weight", "fields", "text", "text"))
    index = rng.randrange(len(lines))
    if kind == "huge-id":
        big = rng.choice((2**70, 2**63, 10**7, 10**30, "9" * 5000))
        lines[index] = f"0 {big}"
        return ("\n".join(lines) + "\n").encode(), f"edge to vertex {str(big)[:24]}"
    if kind == "negative":
        lines[index] = "-1 2"
        return ("\n".join(lines) + "\n").encode(), "a negative id"
    if kind == "weight":
        weight = rng.choice(("nan", "inf", "-inf", "1e999", "1e-400", "0x10", "1_000", "abc", "9" * 5000))
        lines[index] = f"0 1 {weight[:5000]}"
        return ("\n".join(lines) + "\n").encode(), f"weight {weight[:12]!r}"
    if kind == "fields":
        lines[index] = rng.choice(("0", "0 1 2 3", "0,,1", "0\t1\t", "\u00a00 1", "0 1 # comment"))
        return ("\n".join(lines) + "\n").encode(), f"line {lines[index]!r}"
    return mutate_text(rng, data)


def _pickle_with_global(module: str, name: str) -> bytes:
    # protocol 0 by hand: GLOBAL module name, MARK, an argument, TUPLE, REDUCE, STOP
    return f"c{module}\n{name}\n(S'echo pwned'\ntR.".encode()


def mutate_graph_pickle(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A Planetoid dict of neighbour lists with one lie, a forbidden global, or damaged bytes."""
    kind = rng.choice(("huge-id", "negative", "type", "global", "deep", "big-list", "not-dict", "bytes"))
    if kind == "bytes":
        return mutate_bytes(rng, data)
    if kind == "global":
        module, name = rng.choice((("os", "system"), ("builtins", "eval"), ("subprocess", "call"),
                                   ("collections", "OrderedDict"), ("numpy", "array")))
        return _pickle_with_global(module, name), f"a pickle calling {module}.{name}"
    graph = pickle.loads(data)  # our own valid seed: a plain dict of lists
    if kind == "huge-id":
        big = rng.choice(HUGE_INTEGERS)
        graph[0] = list(graph.get(0, [])) + [big]
        note = f"neighbour {big}"
    elif kind == "negative":
        graph[-3] = [0]
        note = "vertex -3"
    elif kind == "type":
        graph[1] = rng.choice(("abc", 1.5, None, {"x": 1}, (1, 2), [1.5], [True]))
        note = f"neighbours of 1 are {graph[1]!r}"
    elif kind == "deep":  # written as opcodes: pickle.dumps itself would hit the recursion limit
        depth = rng.choice((100, 10_000, 100_000))
        return b"(dI2\n" + b"(" * depth + b"I0\n" + b"l" * depth + b"s.", f"neighbour lists nested {depth} deep"
    elif kind == "big-list":
        graph[3] = [1] * 2_000_000
        note = "two million repeated neighbours"
    else:
        graph = rng.choice(([1, 2, 3], "graph", 7, None))
        note = f"the pickle holds {graph!r}"
    return pickle.dumps(graph, protocol=2), note
