"""JSON and TOML from users, parsed with bounds: the one place either format is decoded.

Python's parsers accept documents that crash or mislead the code after them: `NaN` and
`1e999` in JSON, integers of thousands of digits (`int()` refuses over 4,300 and raises
ValueError, not a decode error), nesting deep enough to exhaust the recursion limit in
the parser or in any code that walks the result, and a key named twice in one object (the
parser keeps the last without a word, so a schedule's first value would be ignored). Here each of those is a UserError
naming the file, the line where known, and the fix; and the result is known to nest at
most MAX_NESTING levels, so recursive code downstream is safe.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tomllib
from contextlib import contextmanager
from typing import Any

from fuseflow.support.errors import UserError, show_value
from fuseflow.support.files import TEXT_LIMIT, PathLike, read_user_text

#: arrays/objects/tables inside each other; no file Navigator reads needs more than a dozen
MAX_NESTING = 64


class _Constant(ValueError):
    """NaN, Infinity or -Infinity in JSON text."""


def _refuse_constant(name: str):
    raise _Constant(name)


class _DuplicateKey(ValueError):
    """One JSON object names a key twice; Python's parser would keep the last silently."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _DuplicateKey(key)
        data[key] = value
    return data


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Constant(text)
    return value


def _line_of(text: str, needle: str) -> str:
    index = text.find(needle)
    return f" at line {text.count(chr(10), 0, index) + 1}" if index >= 0 else ""


def nesting_depth(data: Any, limit: int = MAX_NESTING) -> int:
    """How deeply lists/dicts nest in `data` (a scalar is 0); stops counting past `limit`.
    Level by level: only containers are carried to the next level, so the scalars of a large
    file (a session's thousands of steps) cost one type test each."""
    depth = 0
    level = [data] if isinstance(data, (dict, list, tuple)) else []
    while level and depth <= limit:
        depth += 1
        level = [child for value in level for child in (value.values() if isinstance(value, dict) else value)
                 if isinstance(child, (dict, list, tuple))]
    return depth


def json_equal(a: Any, b: Any) -> bool:
    """`a == b` for JSON values (dicts, lists, scalars), compared with an explicit stack:
    Python's own == recurses once per level and fails on a sketch thousands of levels deep."""
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if x is y:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            pairs.extend((value, y[key]) for key, value in x.items())
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            pairs.extend(zip(x, y))
        elif isinstance(x, (dict, list)) or isinstance(y, (dict, list)):
            return False
        elif x != y:
            return False
    return True


#: a JSON escape of a UTF-16 surrogate (`\\udc80`): the only way decoded JSON text holds one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def may_hold_surrogates(text: str) -> bool:
    """Whether JSON decoded from `text` can hold a lone surrogate: only through an escape, or
    when the text itself holds one (it was not decoded from UTF-8). False lets a reader skip
    invalid_text's walk over every string of a large file."""
    if _SURROGATE_ESCAPE.search(text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def invalid_text(data: Any) -> str | None:
    """Where `data` holds a string (key or value) that is not valid Unicode, or None.

    JSON's `\\udc80` escapes decode to lone surrogates, which cannot be written back to a
    UTF-8 file or terminal; refusing them on the way in keeps every later write safe.
    """
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            texts = [value]
        elif isinstance(value, dict):
            texts = list(value)
            stack.extend((child, f"{path}.{key}" if path else str(key)) for key, child in value.items())
        elif isinstance(value, list):
            texts = []
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(value))
        else:
            continue
        for text in texts:
            if not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    return path or "the top level"
    return None


def _too_deep(where: str, what: str, error: type[UserError], nesting: int = MAX_NESTING) -> UserError:
    return error(f"nests arrays or tables more than {nesting} levels deep", where=where,
                 fix=f"{what} never nests that deeply; check that the file is {what}")


def _long_integer(text: str, where: str, error: type[UserError], what: str) -> UserError:
    match = re.search(r"\d{100,}", text)
    line = f" at line {text.count(chr(10), 0, match.start()) + 1}" if match else ""
    return error(f"holds an integer of thousands of digits{line}, too long to read", where=where,
                 fix=f"no number in {what} needs that many digits; check the file")


@contextmanager
def recursion_room(nesting: int):
    """Python's JSON reader and writer recurse once or twice per level; files that hold
    expression trees (a sketch of a program with hundreds of regions nests thousands of levels)
    need a higher recursion limit than the default 1,000 while they are read or written."""
    previous = sys.getrecursionlimit()
    needed = 4 * nesting + 500
    if needed > previous:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def dumps_deep(value: Any, nesting: int, **options) -> str:
    """json.dumps for values nesting up to `nesting` levels (see recursion_room)."""
    with recursion_room(nesting):
        return json.dumps(value, **options)


def parse_json_text(text: str, where: str, error: type[UserError] = UserError,
                    what: str = "a JSON file", *, surrogates: bool = False, nesting: int = MAX_NESTING) -> Any:
    """Decode JSON; NaN, infinities, huge integers and deep nesting are refused, and so is
    text that is not valid Unicode unless `surrogates` (for files that record file names,
    which on POSIX are bytes and come back from Python as surrogate escapes). `nesting` may
    be raised for files that hold expression trees (sessions, replay targets), up to what
    Python's JSON decoder handles within its recursion limit."""
    try:
        with recursion_room(nesting):
            data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                              object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise error(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", where=where,
                    fix="fix the JSON there (a missing comma, quote or bracket?)") from None
    except _Constant as exc:
        raise error(f"holds {exc.args[0]}{_line_of(text, exc.args[0])}, which is not a finite number",
                    where=where, fix="JSON numbers must be finite; write a number or null") from None
    except _DuplicateKey as exc:
        raise error(f"holds the key {show_value(exc.args[0])} twice in one object", where=where,
                    fix="keep one: a JSON reader would silently ignore all but one of them") from None
    except RecursionError:
        raise _too_deep(where, what, error, nesting) from None
    except ValueError:  # int() refusing a number of over 4,300 digits
        raise _long_integer(text, where, error, what) from None
    if nesting_depth(data, nesting) > nesting:
        raise _too_deep(where, what, error, nesting)
    bad = None if surrogates or not may_hold_surrogates(text) else invalid_text(data)
    if bad is not None:
        raise error(f"{bad} holds text that is not valid Unicode (an unpaired surrogate escape such as \\udc80)",
                    where=where, fix="remove or correct that escape")
    return data


def load_json_file(path: PathLike, error: type[UserError], what: str, limit: int = TEXT_LIMIT, *,
                   nesting: int = MAX_NESTING) -> Any:
    """Read a regular file of at most `limit` bytes and decode it as bounded JSON."""
    return parse_json_text(read_user_text(path, error, what, limit), str(path), error, what, nesting=nesting)


_DECLARED_TWICE = re.compile(r"Cannot declare \((.*)\) twice (.*)$")


def parse_toml_text(text: str, where: str, error: type[UserError] = UserError,
                    what: str = "a TOML file") -> dict[str, Any]:
    """Decode TOML with tomllib; huge integers and deep nesting are refused."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        declared = _DECLARED_TWICE.match(message)
        if declared:
            key = ".".join(part.strip().strip("'\"") for part in declared.group(1).split(","))
            message = f"[{key}] is declared twice {declared.group(2)}"
        if "declared twice" in message or "Cannot overwrite" in message:
            raise error(f"duplicate name: {message}", where=where,
                        fix="each table and key may be declared once; rename or merge the two declarations") from None
        raise error(f"TOML syntax error: {message}", where=where,
                    fix="fix the TOML at that line and column (quoting, brackets, '=')") from None
    except RecursionError:
        raise _too_deep(where, what, error) from None
    except ValueError:  # int() refusing a number of over 4,300 digits
        raise _long_integer(text, where, error, what) from None
    if nesting_depth(data) > MAX_NESTING:
        raise _too_deep(where, what, error)
    return data
