"""Mutations of valid inputs: of the parsed document, of its text or bytes, of the file system.

Every function takes `rng`, a `random.Random`. The pytest run passes Hypothesis's
`st.randoms()` (so Hypothesis drives and reproduces every choice); the benchmark passes a
seeded `random.Random`. Both therefore run exactly this code. Only choice, randrange,
randint and random are used, which both provide.

A mutation returns the new value and a short note saying what it did, for reports.
"""

from __future__ import annotations

import json
import random
import tomllib
from dataclasses import dataclass
from typing import Any, Callable

from harness.fuzz.cases import DIRECTORY, FIFO, FileSpec, symlink
from harness.fuzz.formats import Duplicates, Raw, dump_json, dump_toml

# ---------------------------------------------------------------- hostile values

HUGE_INTEGERS = (2**31, 2**63, -(2**63) - 1, 2**64, 10**18, 10**30, 2**70, -1, -(10**20), 10**300)
#: more digits than int() converts (4,300): a serializer cannot write it, so it goes in as text
LONG_DIGITS = Raw("9" * 5000)
NESTING_DEPTHS = (63, 64, 65, 200, 1000, 100_000)
STRANGE_STRINGS = (
    "", " ", "x" * 100_000, "i " * 20_000, "\n" * 1000, "héllo", "日本語のテキスト", "\u202eevil", "a\u0000b",
    "e\u0301", "\U0001f600", "\ufeffbom", "\x1b[31mred", "../../etc/passwd", "?0", "{", "a=1", "'", '"',
    "C(i,j) = A(i,k) * B(k,j)", "i j k", "nan", "-1", "1e999", "\\", "%s%n", "\r\n",
)
ODD_SCALARS = (0, -1, 1, 2, 1.5, -0.0, 1e308, 5e-324, True, False, "", "x", "1", [], {}, [1, 2], {"a": 1})


def _json_only(fmt: str) -> bool:
    return fmt == "json"


# ---------------------------------------------------------------- paths into a document

@dataclass
class Slot:
    """A place in a parsed document: `container[key]` (the root has container None)."""

    container: Any
    key: Any

    def get(self, root):
        return root if self.container is None else self.container[self.key]

    def set(self, root, value):
        if self.container is None:
            return value
        self.container[self.key] = value
        return root


def slots(document: Any, limit: int = 4000) -> list[Slot]:
    """Every place in the document (breadth first, at most `limit`)."""
    found = [Slot(None, None)]
    queue = [document]
    while queue and len(found) < limit:
        node = queue.pop(0)
        if isinstance(node, dict):
            children = [(node, key) for key in node]
        elif isinstance(node, list) and not isinstance(node, Duplicates):
            children = [(node, index) for index in range(len(node))]
        else:
            continue
        for container, key in children:
            found.append(Slot(container, key))
            queue.append(container[key])
    return found


def _pick_slot(rng: random.Random, document: Any, want: Callable[[Any], bool] = lambda v: True) -> Slot | None:
    candidates = [s for s in slots(document) if want(s.get(document))]
    return rng.choice(candidates) if candidates else None


# ---------------------------------------------------------------- structural mutations

def _nest(rng: random.Random, value: Any, fmt: str) -> tuple[Any, str]:
    depth = rng.choice(NESTING_DEPTHS)
    if rng.random() < 0.5:
        inner = dump_json(value, None) if fmt == "json" else "1"
        return Raw("[" * depth + inner + "]" * depth), f"nested {depth} arrays deep"
    if fmt == "json":
        return Raw('{"a": ' * depth + "1" + "}" * depth), f"nested {depth} objects deep"
    return Raw("{ a = " * depth + "1" + " }" * depth), f"nested {depth} inline tables deep"


def mutate_tree(rng: random.Random, document: Any, fmt: str) -> tuple[Any, str]:
    """One structural change to a parsed JSON/TOML document (which it may change in place)."""
    kind = rng.choice(("delete", "retype", "huge-int", "non-finite", "nest", "string", "swap", "empty",
                       "rename", "add-key", "list-edit", "duplicate-key", "surrogate"))
    slot = _pick_slot(rng, document)
    if kind == "delete":
        if slot is None or slot.container is None:
            return {}, "replaced the whole document by an empty one"
        path = slot.key
        del slot.container[slot.key]
        return document, f"deleted {path!r}"
    if kind == "retype":
        value = rng.choice(ODD_SCALARS + ((None,) if fmt == "json" else ()))
        old = type(slot.get(document)).__name__
        return slot.set(document, value), f"changed a {old} at {slot.key!r} to {value!r}"[:200]
    if kind == "huge-int":
        value = rng.choice(HUGE_INTEGERS + (LONG_DIGITS,))
        slot = _pick_slot(rng, document, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)) or slot
        return slot.set(document, value), f"set {slot.key!r} to a huge integer ({str(value)[:30]}...)"
    if kind == "non-finite":
        value = rng.choice((Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e999"))) if fmt == "json" \
            else rng.choice((float("nan"), float("inf"), float("-inf"), Raw("1e999")))
        slot = _pick_slot(rng, document, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)) or slot
        return slot.set(document, value), f"set {slot.key!r} to {value!r}"
    if kind == "nest":
        value, note = _nest(rng, slot.get(document), fmt)
        return slot.set(document, value), f"{note} at {slot.key!r}"
    if kind == "string":
        value = rng.choice(STRANGE_STRINGS)
        slot = _pick_slot(rng, document, lambda v: isinstance(v, str)) or slot
        return slot.set(document, value), f"set {slot.key!r} to the string {value[:40]!r}"
    if kind == "swap":
        first, second = _pick_slot(rng, document), _pick_slot(rng, document)
        if first is None or second is None or first.container is None or second.container is None:
            return document, "swapped nothing"
        a, b = first.get(document), second.get(document)
        first.set(document, b)
        second.set(document, a)
        return document, f"swapped the values of {first.key!r} and {second.key!r}"
    if kind == "empty":
        slot = _pick_slot(rng, document, lambda v: isinstance(v, (dict, list))) or slot
        value = {} if isinstance(slot.get(document), dict) else []
        return slot.set(document, value), f"emptied {slot.key!r}"
    if kind in ("rename", "add-key", "duplicate-key"):
        slot = _pick_slot(rng, document, lambda v: isinstance(v, dict) and bool(v))
        if slot is None:
            return document, "no table to change"
        table = slot.get(document)
        key = rng.choice(list(table))
        if kind == "rename":
            new = rng.choice((key + "_", key.upper(), key + "\u0301", "", " " + key, key + ".x"))
            table[new] = table.pop(key)
            return document, f"renamed {key!r} to {new!r}"
        if kind == "add-key":
            new, value = rng.choice(("unknown", "__proto__", "format", "version", "x" * 300)), rng.choice(ODD_SCALARS)
            table[new] = value
            return document, f"added {new!r} = {value!r}"
        pairs = Duplicates(list(table.items()) + [(key, rng.choice(ODD_SCALARS))])
        return slot.set(document, pairs), f"wrote {key!r} twice"
    if kind == "list-edit":
        slot = _pick_slot(rng, document, lambda v: isinstance(v, list) and bool(v))
        if slot is None:
            return document, "no list to change"
        items = slot.get(document)
        edit = rng.choice(("duplicate", "remove", "reverse", "append", "repeat"))
        if edit == "duplicate":
            items.append(items[rng.randrange(len(items))])
        elif edit == "remove":
            del items[rng.randrange(len(items))]
        elif edit == "reverse":
            items.reverse()
        elif edit == "append":
            items.append(rng.choice(ODD_SCALARS))
        else:
            items.extend(items * rng.choice((10, 1000)))
        return document, f"{edit} in the list at {slot.key!r}"
    # surrogate: a lone UTF-16 surrogate, storable only as a JSON escape
    escape = rng.choice(("\\ud800", "\\udfff", "a\\udc80b"))
    slot = _pick_slot(rng, document, lambda v: isinstance(v, str)) or slot
    value = Raw(f'"{escape}"') if fmt == "json" else "\ud800"
    return slot.set(document, value), f"set {slot.key!r} to a lone surrogate"


def parse_document(data: bytes, fmt: str) -> Any:
    text = data.decode("utf-8")
    return json.loads(text) if fmt == "json" else tomllib.loads(text)


def dump_document(document: Any, fmt: str) -> bytes:
    text = dump_json(document) if fmt == "json" else dump_toml(document)
    return text.encode("utf-8", "surrogatepass")


def mutate_structure(rng: random.Random, data: bytes, fmt: str, rounds: int = 1) -> tuple[bytes, str]:
    document = parse_document(data, fmt)
    notes = []
    for _ in range(rounds):
        document, note = mutate_tree(rng, document, fmt)
        notes.append(note)
    return dump_document(document, fmt), "; ".join(notes)


# ---------------------------------------------------------------- textual and byte mutations

TOKENS = ('"', "'", "[", "]", "{", "}", "\n", "=", ",", ":", "\\", "#", "\x00", "[[", "]]", "\r\n", "\t", "}}}",
          '"""', "'''", "\ufeff", "-", ".", "e", "nan", "inf", "999999999999999999999999", "\u2028")


def mutate_text(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """One change to the text: an inserted token, a cut, a line repeated or dropped, a byte flipped."""
    if not data:
        return rng.choice((b"\n", b"\x00", b"{", b"[")), "filled an empty file with one token"
    kind = rng.choice(("insert", "truncate", "delete-span", "duplicate-line", "drop-line", "swap-lines",
                       "flip", "bom", "invalid-utf8", "number", "crlf"))
    position = rng.randrange(len(data) + 1)
    if kind == "insert":
        token = rng.choice(TOKENS).encode("utf-8")
        return data[:position] + token + data[position:], f"inserted {token!r} at byte {position}"
    if kind == "truncate":
        return data[:position], f"cut after byte {position}"
    if kind == "delete-span":
        end = min(len(data), position + rng.randint(1, 40))
        return data[:position] + data[end:], f"deleted bytes {position}..{end}"
    lines = data.split(b"\n")
    if kind in ("duplicate-line", "drop-line", "swap-lines"):
        index = rng.randrange(len(lines))
        if kind == "duplicate-line":
            lines.insert(index, lines[index])
        elif kind == "drop-line":
            del lines[index]
        else:
            other = rng.randrange(len(lines))
            lines[index], lines[other] = lines[other], lines[index]
        return b"\n".join(lines), f"{kind} at line {index + 1}"
    if kind == "flip":
        return mutate_bytes(rng, data)
    if kind == "bom":
        return b"\xef\xbb\xbf" + data, "added a UTF-8 byte-order mark"
    if kind == "invalid-utf8":
        return data[:position] + b"\xff\xfe\xc3" + data[position:], f"inserted invalid UTF-8 at byte {position}"
    if kind == "number":
        digits = [i for i in range(len(data)) if data[i:i + 1].isdigit()]
        if not digits:
            return data + b"9" * 5000, "appended 5,000 digits"
        start = rng.choice(digits)
        end = start
        while end < len(data) and data[end:end + 1].isdigit():
            end += 1
        value = str(rng.choice(HUGE_INTEGERS)).encode() if rng.random() < 0.7 else b"9" * 5000
        return data[:start] + value + data[end:], f"replaced the number at byte {start} by {value[:24]!r}"
    return data.replace(b"\n", b"\r\n"), "converted line ends to CRLF"


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """Binary damage: flipped bits, a cut, inserted or zeroed bytes."""
    if not data:
        return b"\x00", "one NUL byte"
    buffer = bytearray(data)
    kind = rng.choice(("flip", "flip", "truncate", "zero", "insert"))
    position = rng.randrange(len(buffer))
    if kind == "flip":
        flips = rng.randint(1, 8)
        for _ in range(flips):
            index = rng.randrange(len(buffer))
            buffer[index] ^= 1 << rng.randrange(8)
        return bytes(buffer), f"flipped {flips} bits"
    if kind == "truncate":
        return bytes(buffer[:position]), f"cut after byte {position}"
    if kind == "zero":
        end = min(len(buffer), position + rng.randint(1, 64))
        buffer[position:end] = bytes(end - position)
        return bytes(buffer), f"zeroed bytes {position}..{end}"
    chunk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(buffer[:position]) + chunk + bytes(buffer[position:]), f"inserted {len(chunk)} bytes at {position}"


# ---------------------------------------------------------------- the file system

#: what an input path may turn into, instead of the file the command expects
INPUT_SHAPES = ("missing", "directory", "fifo", "dev-zero", "dev-null", "dangling-link", "link-loop",
                "link-to-copy", "under-a-file", "empty", "sparse-100MiB", "read-only-folder")
#: what an output path may turn into
OUTPUT_SHAPES = ("directory", "fifo", "under-a-file", "link-to-file", "dangling-link", "dev-full",
                 "read-only-folder", "existing-file", "missing-folder")


@dataclass
class Layout:
    """A case under construction: the files, the command line, and what was done (for reports)."""

    files: dict[str, FileSpec]
    argv: list[str]
    notes: list[str]
    read_only: tuple[str, ...] = ()

    def rename(self, old: str, new: str) -> None:
        """Move `old` to `new`, in the files and wherever the command line names it."""
        if old in self.files:
            self.files = {(new if path == old else path): spec for path, spec in self.files.items()}
        self.argv = [new if arg == old else arg for arg in self.argv]


def _put_file_in_the_way(layout: Layout, path: str) -> None:
    """A regular file where a folder on the way to `path` should be."""
    layout.files.pop(path, None)
    if "/" in path:  # e.g. .navigator/session.json with .navigator a file
        folder = path.split("/", 1)[0]
        layout.files = {p: spec for p, spec in layout.files.items() if not p.startswith(folder + "/")}
        layout.files[folder] = FileSpec.text("a regular file where a folder should be\n")
    else:
        layout.files["blocker"] = FileSpec.text("a regular file where a folder should be\n")
        layout.rename(path, "blocker/" + path)


def _read_only_folder(layout: Layout, path: str) -> None:
    """`path` inside a folder without write permission (as root, permissions change nothing)."""
    if "/" in path:
        folder = path.rsplit("/", 1)[0]
    else:
        folder = "ro"
        layout.rename(path, "ro/" + path)
    layout.files.setdefault(folder, DIRECTORY)
    layout.read_only = layout.read_only + (folder,)


def reshape_input(rng: random.Random, layout: Layout, path: str) -> None:
    """Turn the input at `path` into something other than the regular file expected."""
    shape = rng.choice(INPUT_SHAPES)
    original = layout.files.get(path, FileSpec())
    layout.notes.append(f"input {path} -> {shape}")
    if shape == "missing":
        layout.files.pop(path, None)
    elif shape == "directory":
        layout.files[path] = DIRECTORY
    elif shape == "fifo":
        layout.files[path] = FIFO
    elif shape == "dev-zero":
        layout.files[path] = symlink("/dev/zero")
    elif shape == "dev-null":
        layout.files[path] = symlink("/dev/null")
    elif shape == "dangling-link":
        layout.files[path] = symlink("nowhere/at-all")
    elif shape == "link-loop":
        layout.files[path] = symlink(path.rsplit("/", 1)[-1])
    elif shape == "link-to-copy":  # a valid input through a link: should work as the file does
        copy = "copies/" + path.replace("/", "_")
        layout.files[copy] = original
        layout.files[path] = symlink("../" * path.count("/") + copy)
    elif shape == "under-a-file":
        _put_file_in_the_way(layout, path)
    elif shape == "empty":
        layout.files[path] = FileSpec()
    elif shape == "sparse-100MiB":
        layout.files[path] = FileSpec("file", original.data, sparse_size=100 << 20)
    else:  # read-only-folder: as root this changes nothing, which is fine: the input stays readable
        _read_only_folder(layout, path)


def reshape_output(rng: random.Random, layout: Layout, path: str) -> None:
    """Make writing the output at `path` hard: something in the way, or a place that takes no file."""
    shape = rng.choice(OUTPUT_SHAPES)
    layout.notes.append(f"output {path} -> {shape}")
    if shape == "directory":
        layout.files[path] = DIRECTORY
    elif shape == "fifo":
        layout.files[path] = FIFO
    elif shape == "under-a-file":
        _put_file_in_the_way(layout, path)
    elif shape == "link-to-file":  # allowed: the link's target is written, the link stays
        layout.files["elsewhere/target.out"] = FileSpec.text("old content\n")
        layout.files[path] = symlink("../" * path.count("/") + "elsewhere/target.out")
    elif shape == "dangling-link":
        layout.files[path] = symlink("../" * path.count("/") + "made-by-link/new.out")
    elif shape == "dev-full":  # only the command line changes: nothing is laid out at /dev/full
        layout.files.pop(path, None)
        layout.rename(path, "/dev/full")
    elif shape == "read-only-folder":
        _read_only_folder(layout, path)
    elif shape == "existing-file":
        layout.files[path] = FileSpec.text("an older output\n")
    else:  # missing-folder: the output's folder does not exist yet (the write creates it)
        layout.rename(path, "new/folder/" + path.rsplit("/", 1)[-1])
