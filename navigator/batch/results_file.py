"""Reading an existing results file: every line a result record, or the file is refused untouched.

`--out` may name any file, so nothing about it is assumed: it must be a regular file
(not a folder, FIFO or device) of UTF-8 JSON lines, each an object with a string "key".
A notes file, a .npz or anything else is refused before a byte of it changes. The one
defect repaired is a last line cut short by an interrupted run, and only when the rest
is a results file and that line reads as the start of a record (canonical JSON: an
object, no spaces between tokens, keys sorted); the caller truncates it.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass, field
from typing import Any

from fuseflow.support.errors import UserError
from fuseflow.support.files import open_regular_file
from fuseflow.support.memory import check_memory
from fuseflow.support.readers import parse_json_text

WHAT = "a batch results file (JSON lines written by navigator batch)"
NOT_RESULTS_FIX = "give --out a new file name, or a results file written by navigator batch"
#: the parsed records take about this many times the file's size in memory
MEMORY_PER_BYTE = 8
#: read first, to refuse a file of another kind without reading all of it
HEAD_BYTES = 64 * 1024
#: characters canonical JSON may have between tokens: structure, numbers, true/false/null
_TOKEN_CHARS = frozenset('{}[]:,-+.0123456789eEtrufalsn')


@dataclass
class ResultsContent:
    """What an existing results file holds."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> latest record
    lines: int = 0
    #: length of the whole lines; a cut last line lies beyond it
    whole_bytes: int = 0
    #: bytes of a cut last line to remove before appending (0 normally)
    partial_bytes: int = 0
    #: (device, inode, size, mtime) when read, to notice a later change
    stamp: tuple[int, int, int, int] | None = None


def file_stamp(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def read_results_file(path: os.PathLike | str, where: str) -> ResultsContent | None:
    """The records of an existing results file; None when there is no file yet. Writes nothing."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pass  # open_regular_file below says what is wrong
    with open_regular_file(path, UserError, WHAT) as handle:
        info = os.fstat(handle.fileno())
        try:
            head = handle.read(HEAD_BYTES)
            _check_head(head, where)  # a large file of another kind is refused before it is read whole
            check_memory(info.st_size * MEMORY_PER_BYTE, "reading the results file", where=where,
                         fix="write to a new --out")
            data = head + handle.read()
        except OSError as exc:
            raise UserError(f"cannot read the file: {exc.strerror}", where=where, fix=NOT_RESULTS_FIX) from None
    content = parse_results(data, where)
    content.stamp = file_stamp(info)
    return content


def _not_results(where: str, reason: str) -> UserError:
    return UserError(reason, where=where, fix=NOT_RESULTS_FIX)


def _check_head(head: bytes, where: str) -> None:
    if b"\0" in head:
        raise _not_results(where, "holds binary data, not batch result records")
    first = head.split(b"\n", 1)[0]
    if first.strip() and parse_record(first) is None and not looks_like_record_start(first):
        raise _not_results(where, "line 1 is not a batch result record")


def parse_record(line: bytes) -> dict[str, Any] | None:
    """The record on one line, or None when the line is not one."""
    try:
        record = parse_json_text(line.decode("utf-8"), "results line", surrogates=True)
    except (UnicodeDecodeError, UserError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return None
    return record


def parse_results(data: bytes, where: str) -> ResultsContent:
    """Check every line before anything is changed; see the module docstring."""
    if b"\0" in data:
        raise _not_results(where, "holds binary data, not batch result records")
    content = ResultsContent()
    *whole, partial = data.split(b"\n")
    for number, line in enumerate(whole, 1):
        if not line.strip():
            continue
        record = parse_record(line)
        if record is None:
            raise _not_results(where, f"line {number} is not a batch result record")
        content.records[record["key"]] = record
        content.lines += 1
    content.whole_bytes = len(data) - len(partial)
    content.partial_bytes = len(partial)
    if partial and not (looks_like_record_start(partial) or _whole_canonical_record(partial)):
        raise _not_results(where, f"line {len(whole) + 1} (the last) is not a batch result record, nor the "
                                  "start of one cut short by an interrupted run")
    return content


def _whole_canonical_record(line: bytes) -> bool:
    """A record cut just before its newline (written canonically, unlike a user's JSON file)."""
    return line.endswith(b"}") and looks_like_record_start(line[:-1]) and parse_record(line) is not None


def looks_like_record_start(partial: bytes) -> bool:
    """Whether `partial` can be the beginning of a record's canonical JSON (an object with
    sorted keys, no spaces outside strings), cut anywhere, even inside a UTF-8 character."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(partial, final=False)
    except UnicodeDecodeError:
        return False
    if not (text.startswith('{"') or text == "{"):
        return False
    depth, in_string, escaped, previous = 0, False, False, ""
    key: list[str] | None = None  # the top-level key being read
    keys: list[str] = []
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string, previous = False, char
                if key is not None:
                    keys.append("".join(key))
                    key = None
                continue
            elif char < " ":
                return False  # JSON escapes control characters
            if key is not None:
                key.append(char)
            continue
        if char == '"':
            in_string = True
            if depth == 1 and previous in ("{", ","):
                key = []
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth < 1:
                return False  # a whole object is a complete line, not a cut one
        elif char not in _TOKEN_CHARS:
            return False
        previous = char
    return keys == sorted(set(keys))
