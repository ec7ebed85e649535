"""Find the line a TOML key was written on, so errors can point at it.

tomllib reports positions only for syntax errors; for semantic errors we scan the text
for table headers and `key =` lines. It is a best effort: when a key cannot be found the
error names the key path alone.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"']+(?:\s*\.\s*[A-Za-z0-9_\-\"']+)*)\s*=")


class KeyLines:
    """Maps key paths such as ("tensors", "A", "format") or ("ops", 2, "expr") to line numbers."""

    def __init__(self, text: str):
        self.lines: dict[tuple, int] = {}
        table: tuple = ()
        array_counts: dict[tuple, int] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                path = tuple(part.strip().strip("\"'") for part in header.group(2).split("."))
                if header.group(1) == "[[":
                    index = array_counts.get(path, 0)
                    array_counts[path] = index + 1
                    table = path + (index,)
                else:
                    table = path
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                parts = tuple(p.strip().strip("\"'") for p in key.group(1).split("."))
                full = table + parts
                for depth in range(len(table) + 1, len(full) + 1):
                    self.lines.setdefault(full[:depth], number)
                # keys inside an inline table on the same line: `A = { shape = [...], format = [...] }`
                for inner in re.finditer(r"[{,]\s*([A-Za-z0-9_\-]+)\s*=", line):
                    self.lines.setdefault(full + (inner.group(1),), number)

    def line(self, *path) -> int | None:
        """The line of the deepest known prefix of `path`."""
        for depth in range(len(path), 0, -1):
            found = self.lines.get(tuple(path[:depth]))
            if found is not None:
                return found
        return None
