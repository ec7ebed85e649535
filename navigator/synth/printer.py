"""Readable text for sketches.

Notation: `function{field=value, ...}(param=child, ...)`; braces hold the return metadata
(left out when the type has none), parentheses the arguments (left out for arity 0), and
`?n` is hole n (`?n:Type` with `hole_types=True`). The braces part is exactly the option
id a menu shows. A node that does not fit in `width` columns is broken over lines, one
argument per line, indented by two spaces:

    gcn_schedule{fused=true}(
      grouping=grouping{groups="0,1|2"},
      r0=?1,
      r1=?2,
    )
"""

from __future__ import annotations

from typing import Iterator

from navigator.synth.menu import option_id
from navigator.synth.sketch import Hole, Node, Sketch

INDENT = "  "


def format_sketch(sketch: Sketch | Node, *, width: int = 80, hole_types: bool = False) -> str:
    node = sketch.root if isinstance(sketch, Sketch) else sketch
    return "\n".join(_lines(node, width, hole_types))


def format_node_inline(node: Node, *, hole_types: bool = False) -> str:
    """The whole node on one line."""
    return "".join(_inline_pieces(node, hole_types))


def _inline_pieces(node: Node, hole_types: bool) -> Iterator[str]:
    """The inline form in pieces, left to right (an explicit stack: sketches can be deep)."""
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Hole):
            yield f"?{item.id}:{item.type}" if hole_types else f"?{item.id}"
        else:
            head = option_id(item.function, item.metadata)
            if not item.args:
                yield head
                continue
            yield head + "("
            stack.append(")")
            for index in range(len(item.args) - 1, -1, -1):
                param, child = item.args[index]
                stack.append(child)
                stack.append(f"{', ' if index else ''}{param}=")


def _fits(pieces: Iterator[str], room: int) -> str | None:
    """The pieces joined, if they fit in `room` characters (stops reading once they do not)."""
    taken, length = [], 0
    for piece in pieces:
        length += len(piece)
        if length > room:
            return None
        taken.append(piece)
    return "".join(taken)


def _lines(root: Node, width: int, hole_types: bool) -> list[str]:
    lines: list[str] = []
    # items: a finished line, or (node, indent, prefix, suffix) to lay out
    stack: list[str | tuple[Node, int, str, str]] = [(root, 0, "", "")]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node, indent, prefix, suffix = item
        pad = INDENT * indent
        start = f"{pad}{prefix}"
        if isinstance(node, Hole) or not node.args:
            lines.append(start + format_node_inline(node, hole_types=hole_types) + suffix)
            continue
        inline = _fits(_inline_pieces(node, hole_types), width - len(start) - len(suffix))
        if inline is not None:
            lines.append(start + inline + suffix)
            continue
        lines.append(f"{start}{option_id(node.function, node.metadata)}(")
        stack.append(f"{pad}){suffix}")
        for param, child in reversed(node.args):
            stack.append((child, indent + 1, f"{param}=", ","))
    return lines
