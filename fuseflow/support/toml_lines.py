"""Find the line a TOML key was written on, so errors can point at it.

tomllib reports positions only for syntax errors; for semantic errors we scan the text
for table headers and `key =` lines. It is a best effort: when a key cannot be found the
error names the key path alone.

The scan runs on any text the TOML parser accepted, so its patterns use possessive
quantifiers: they never backtrack, and a line costs time linear in its length however it
is built (a lazy pattern once took minutes on a line of ten thousand spaces).
"""

from __future__ import annotations

import re

_BARE = r"[A-Za-z0-9_\-]++"
_QUOTED = r"\"[^\"\n]*+\"|'[^'\n]*+'"
_KEY_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY_PART}(?:[ \t]*+\.[ \t]*+{_KEY_PART})*+"

_HEADER = re.compile(rf"[ \t]*+(\[\[?+)[ \t]*+({_DOTTED})[ \t]*+\]\]?+[ \t]*+(?:#.*+)?+")
_KEY = re.compile(rf"[ \t]*+({_DOTTED})[ \t]*+=")
_INLINE_KEY = re.compile(rf"[{{,][ \t]*+({_BARE})[ \t]*+=")
_PARTS = re.compile(_KEY_PART)


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(part.strip("\"'") for part in _PARTS.findall(dotted))


class KeyLines:
    """Maps key paths such as ("tensors", "A", "format"), ("ops", 2, "expr") or, inside an
    array of tables, ("repeat", 0, "ops", 1, "expr") to line numbers."""

    def __init__(self, text: str):
        self.lines: dict[tuple, int] = {}
        table: tuple = ()
        array_counts: dict[tuple, int] = {}

        def resolve(parts: tuple) -> tuple:
            # `[repeat.tensors]` after `[[repeat]]` is a table of the array's latest entry
            resolved: tuple = ()
            for part in parts:
                resolved += (part,)
                if resolved in array_counts:
                    resolved += (array_counts[resolved] - 1,)
            return resolved

        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.fullmatch(line)
            if header:
                path = _parts(header.group(2))
                if header.group(1) == "[[":
                    array = resolve(path[:-1]) + path[-1:]
                    index = array_counts.get(array, 0)
                    array_counts[array] = index + 1
                    table = array + (index,)
                else:
                    table = resolve(path)
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                full = table + _parts(key.group(1))
                for depth in range(len(table) + 1, len(full) + 1):
                    self.lines.setdefault(full[:depth], number)
                # keys inside an inline table on the same line: `A = { shape = [...], format = [...] }`
                for inner in _INLINE_KEY.finditer(line):
                    self.lines.setdefault(full + (inner.group(1),), number)

    def line(self, *path) -> int | None:
        """The line of the deepest known prefix of `path`."""
        for depth in range(len(path), 0, -1):
            found = self.lines.get(tuple(path[:depth]))
            if found is not None:
                return found
        return None
