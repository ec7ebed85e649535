"""Write mutated documents back as JSON or TOML text, including what no serializer writes.

A mutation works on parsed data, then the document is written out again. Some hostile
inputs cannot be held as Python values or written by `json.dumps`: NaN as a bare token,
an integer of 5,000 digits (beyond int->str's limit), 100,000 nested brackets (beyond the
serializer's recursion), a lone surrogate escape, a key written twice. `Raw` carries such
text verbatim, and `Duplicates` is an object whose keys may repeat.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from typing import Any


class Raw(str):
    """Text written into the document as it is."""


class Duplicates(list):
    """An object given as (key, value) pairs, so a key may appear twice."""


def dump_json(value: Any, indent: int | None = 2) -> str:
    return _json(value, indent, 0)


def _json(value: Any, indent: int | None, level: int) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, (dict, Duplicates)):
        pairs = list(value.items()) if isinstance(value, dict) else list(value)
        items = [f"{json.dumps(str(k))}: {_json(v, indent, level + 1)}" for k, v in pairs]
        return _wrap("{", "}", items, indent, level)
    if isinstance(value, (list, tuple)):
        return _wrap("[", "]", [_json(v, indent, level + 1) for v in value], indent, level)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return json.dumps(value)


def _wrap(open_: str, close: str, items: list[str], indent: int | None, level: int) -> str:
    if not items:
        return open_ + close
    if indent is None:
        return open_ + ", ".join(items) + close
    pad, inner = " " * (indent * level), " " * (indent * (level + 1))
    return open_ + "\n" + ",\n".join(inner + item for item in items) + "\n" + pad + close


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: Any) -> str:
    key = str(key)
    return key if _BARE_KEY.match(key) else toml_string(key)


def toml_string(text: str) -> str:
    out = []
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04X}")  # a surrogate escape is invalid TOML: a hostile input on purpose
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    """An inline TOML value (tables become inline tables)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (dict, Duplicates)):
        pairs = list(value.items()) if isinstance(value, dict) else list(value)
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in pairs) + " }" if pairs else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if value is None:  # TOML has no null: the closest hostile thing is an empty string
        return '""'
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, (dict, Duplicates)) for v in value)


def dump_toml(document: Any) -> str:
    """Top-level scalars, then `[table]` sections (one level; deeper tables inline), then `[[arrays]]`."""
    if not isinstance(document, (dict, Duplicates)):
        return f"value = {toml_value(document)}\n"
    pairs = list(document.items()) if isinstance(document, dict) else list(document)
    lines: list[str] = []
    sections: list[str] = []
    for key, value in pairs:
        if isinstance(value, (dict, Duplicates)) and not isinstance(value, Raw):
            inner = list(value.items()) if isinstance(value, dict) else list(value)
            body = [f"{toml_key(k)} = {toml_value(v)}" for k, v in inner]
            sections.append("\n".join([f"[{toml_key(key)}]", *body]))
        elif _is_table_array(value):
            for item in value:
                inner = list(item.items()) if isinstance(item, dict) else list(item)
                body = [f"{toml_key(k)} = {toml_value(v)}" for k, v in inner]
                sections.append("\n".join([f"[[{toml_key(key)}]]", *body]))
        else:
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    return "\n\n".join(["\n".join(lines), *sections]).lstrip("\n") + "\n"
