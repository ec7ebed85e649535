"""Text the process did not write (a model's answer, a server's error) made safe to store and show.

Such text may carry what no message should: control characters (escape sequences that drive
the terminal), Unicode format characters (the bidirectional overrides U+202A..U+202E and
U+2066..U+2069 that make a line read differently from what it holds, zero-width characters),
line separators, lone surrogates (which no UTF-8 file can hold), and the process's secrets
echoed back. `clean_text` is the one function every such text goes through before it is
stored in a session or a recording's parsed fields, or printed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from navigator.process.secrets import scrub

#: the Unicode categories removed: controls, format characters, surrogates, line and paragraph separators
UNSAFE_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")
#: the planes that hold them (0 and 1, and 14's tags); the others hold letters, private use or
#: nothing yet (a test checks this against every code point)
UNSAFE_PLANES = (0, 1, 14)


@functools.cache
def unsafe_characters(planes: tuple[int, ...] = UNSAFE_PLANES) -> re.Pattern[str]:
    """One character of an UNSAFE_CATEGORIES category (built once, from Python's Unicode tables)."""
    ranges: list[str] = []
    for plane in planes:
        start = None
        for code in range(plane << 16, (plane + 1) << 16 | 1):
            unsafe = code < (plane + 1) << 16 and unicodedata.category(chr(code)) in UNSAFE_CATEGORIES
            if unsafe and start is None:
                start = code
            elif not unsafe and start is not None:
                ranges.append(_escape(start) if start == code - 1 else f"{_escape(start)}-{_escape(code - 1)}")
                start = None
    return re.compile("[" + "".join(ranges) + "]")


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


def clean_text(value: Any, limit: int) -> str:
    """`value` (a string, else "") safe to store and print on one line: the process's secrets
    hidden, every control, format, surrogate or separator character made a space, runs of
    spaces made one, at most `limit` characters ("..." marks a cut)."""
    if not isinstance(value, str):
        return ""
    flat = " ".join(unsafe_characters().sub(" ", scrub(value)).split())
    flat = scrub(flat)  # a secret's pieces, now between spaces
    return flat if len(flat) <= limit else flat[:max(0, limit - 3)] + "..."


def escape_unsafe(json_text: str) -> str:
    """JSON text with every unsafe character inside its strings written as a \\u escape, so a
    file viewer shows the escape rather than obeying it (the decoded value is unchanged)."""
    return unsafe_characters().sub(_json_escape, json_text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
