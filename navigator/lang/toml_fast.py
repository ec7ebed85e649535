"""A fast reader for the simple TOML that fact files are made of, or None to defer to tomllib.

Fact programs are long runs of

    [[Prop]]
    name = "OrderLevel"
    args = { region = "r", order = "i j", level = 0, var = "i" }

tomllib (pure Python) spends about 35 µs per fact on them, most of the start-up time of a
large program. This reader accepts a strict subset of TOML line by line: blank and comment
lines, `[table]` and `[[array.of.tables]]` headers with one bare key, and `key = value`
(dotted bare keys allowed) where a value is a basic string without `\\u` escapes, a decimal
integer, `true`/`false`, or a one-line inline table of such `key = scalar` pairs. On these
it returns exactly the dict tomllib returns. On anything else, including every input TOML
rejects (duplicate keys, redefined tables, trailing commas, control characters, ...), it
returns None and the caller parses with tomllib, so errors and their messages do not change.
"""

from __future__ import annotations

import re
from typing import Any

# Repeats are possessive (*+, ++): none of them can give back characters that what follows
# could use, and without backtracking a near-miss line costs linear time, not exponential
# (a string with one stray quote took minutes; tests/navigator/lang/test_regex_backtracking.py).
_WS = r"[ \t]*+"
_BARE = r"[A-Za-z0-9_-]++"
# A basic string: no raw control characters but tab, and only the short escapes.
_STR = r'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]++|\\[btnfr"\\])*+"'
# At most 19 digits: longer integers go to tomllib and the bounded reader (int() refuses
# over 4,300 digits, and no Int value needs more than 19).
_INT = r"-?(?:0|[1-9][0-9]{0,18})"
_SCALAR = rf"(?:{_STR}|{_INT}|true|false)"
_COMMENT = r"(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"

_BLANK = re.compile(rf"{_WS}{_COMMENT}")
_ARRAY_HEADER = re.compile(rf"{_WS}\[\[{_WS}({_BARE}){_WS}\]\]{_WS}{_COMMENT}")
_TABLE_HEADER = re.compile(rf"{_WS}\[{_WS}({_BARE}){_WS}\]{_WS}{_COMMENT}")
#: `key =` and where the value starts
_KEY = re.compile(rf"{_WS}({_BARE}(?:{_WS}\.{_WS}{_BARE})*){_WS}={_WS}")
#: a scalar value and the end of the line
_SCALAR_END = re.compile(rf"({_SCALAR}){_WS}{_COMMENT}")
#: the first pair of an inline table, or its end
_INLINE_FIRST = re.compile(rf"\{{{_WS}(?:({_BARE}){_WS}={_WS}({_SCALAR}){_WS}(,|\}})|\}})")
#: a further pair of an inline table (after a comma)
_INLINE_NEXT = re.compile(rf"{_WS}({_BARE}){_WS}={_WS}({_SCALAR}){_WS}(,|\}})")
_END = re.compile(rf"{_WS}{_COMMENT}")
# The block a fact generator writes, exactly: header, name, one-line args, newline.
_Q = _STR
_BLOCK_PAIR = rf"{_BARE} = (?:{_Q}|{_INT}|true|false)"
_BLOCK = re.compile(
    rf"\[\[({_BARE})\]\]\nname = ({_Q})\nargs = \{{ ((?:{_BLOCK_PAIR}(?:, {_BLOCK_PAIR})*)?) ?\}}"
    r"(?:\n|\Z)")
_BLOCK_PAIRS = re.compile(rf"({_BARE}) = (?:({_Q})|({_INT})|(true|false))")
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


#: dotted keys nest tables; fact files use two parts (args.level), and longer ones go to
#: the bounded reader, which refuses nesting deeper than fuseflow.support.readers.MAX_NESTING
_MAX_DOTTED_PARTS = 8


class _Unsupported(Exception):
    """Not in the subset (or not valid TOML): let tomllib decide."""


def _scalar(text: str) -> Any:
    first = text[0]
    if first == '"':
        inner = text[1:-1]
        if "\\" in inner:
            inner = _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], inner)
        return inner
    if first == "t" and text == "true":
        return True
    if first == "f" and text == "false":
        return False
    return int(text)


def _value(line: str, pos: int) -> Any:
    """The value starting at `pos`, which must run to the end of the line."""
    if line.startswith("{", pos):
        match = _INLINE_FIRST.match(line, pos)
        if match is None:
            raise _Unsupported
        table: dict[str, Any] = {}
        while match.group(1) is not None:
            key = match.group(1)
            if key in table:
                raise _Unsupported  # a duplicate key: TOML rejects it
            table[key] = _scalar(match.group(2))
            if match.group(3) == "}":
                break
            match = _INLINE_NEXT.match(line, match.end())
            if match is None:
                raise _Unsupported
        if _END.fullmatch(line, match.end()) is None:
            raise _Unsupported
        return table
    match = _SCALAR_END.fullmatch(line, pos)
    if match is None:
        raise _Unsupported
    return _scalar(match.group(1))


def _block_args(text: str) -> dict[str, Any]:
    table: dict[str, Any] = {}
    found = _BLOCK_PAIRS.findall(text)
    for key, string, number, boolean in found:
        if string:
            value: Any = string[1:-1]
            if "\\" in value:
                value = _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], value)
        elif number:
            value = int(number)
        else:
            value = boolean == "true"
        table[key] = value
    if len(table) != len(found):
        raise _Unsupported  # a duplicate key: TOML rejects it
    return table


def parse_simple_toml(text: str) -> dict[str, Any] | None:
    try:
        return _parse(text)
    except _Unsupported:
        return None


def _parse(text: str) -> dict[str, Any]:
    root: dict[str, Any] = {}
    #: arrays created by [[...]] headers (only those may be extended by one)
    arrays: set[int] = set()
    #: tables created by dotted keys in the current section (only those may be extended)
    dotted: set[int] = set()
    current = root
    blank_match = _BLANK.fullmatch
    key_match = _KEY.match
    block_match = _BLOCK.match
    pos, size = 0, len(text)
    while pos <= size:
        if text.startswith("[[", pos):
            block = block_match(text, pos)
            if block is not None:
                # Exactly what the line path below gives for these three lines.
                key, name, args = block.groups()
                array = root.get(key)
                if array is None:
                    array = root[key] = []
                    arrays.add(id(array))
                elif id(array) not in arrays:
                    raise _Unsupported
                current = {"name": _scalar(name), "args": _block_args(args)}
                array.append(current)
                dotted = set()
                pos = block.end()
                continue
        end = text.find("\n", pos)
        if end < 0:
            end = size
        line = text[pos:end]
        pos = end + 1
        if line.endswith("\r"):
            line = line[:-1]
        match = key_match(line)
        if match is not None:
            key_text = match.group(1)
            value = _value(line, match.end())
            table = current
            if "." in key_text:
                parts = [part.strip(" \t") for part in key_text.split(".")]
                if len(parts) > _MAX_DOTTED_PARTS:
                    raise _Unsupported  # deep nesting: the bounded reader refuses it
                for part in parts[:-1]:
                    inner = table.get(part)
                    if inner is None:
                        inner = table[part] = {}
                        dotted.add(id(inner))
                    elif type(inner) is not dict or id(inner) not in dotted:
                        raise _Unsupported
                    table = inner
                key = parts[-1]
            else:
                key = key_text
            if key in table:
                raise _Unsupported
            table[key] = value
            continue
        if blank_match(line) is not None:
            continue
        match = _ARRAY_HEADER.fullmatch(line)
        if match is not None:
            key = match.group(1)
            array = root.get(key)
            if array is None:
                array = root[key] = []
                arrays.add(id(array))
            elif id(array) not in arrays:
                raise _Unsupported
            current = {}
            array.append(current)
            dotted = set()
            continue
        match = _TABLE_HEADER.fullmatch(line)
        if match is not None:
            key = match.group(1)
            if key in root:
                raise _Unsupported
            current = root[key] = {}
            dotted = set()
            continue
        raise _Unsupported
    return root
