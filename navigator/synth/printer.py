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

from navigator.synth.menu import option_id
from navigator.synth.sketch import App, Hole, Node, Sketch

INDENT = "  "


def format_sketch(sketch: Sketch | Node, *, width: int = 80, hole_types: bool = False) -> str:
    node = sketch.root if isinstance(sketch, Sketch) else sketch
    return "\n".join(_lines(node, 0, width, hole_types))


def format_node_inline(node: Node, *, hole_types: bool = False) -> str:
    """The whole node on one line."""
    if isinstance(node, Hole):
        return f"?{node.id}:{node.type}" if hole_types else f"?{node.id}"
    head = option_id(node.function, node.metadata)
    if not node.args:
        return head
    inner = ", ".join(f"{param}={format_node_inline(child, hole_types=hole_types)}"
                      for param, child in node.args)
    return f"{head}({inner})"


def _lines(node: Node, indent: int, width: int, hole_types: bool, prefix: str = "",
           suffix: str = "") -> list[str]:
    pad = INDENT * indent
    inline = f"{pad}{prefix}{format_node_inline(node, hole_types=hole_types)}{suffix}"
    if len(inline) <= width or isinstance(node, Hole) or not node.args:
        return [inline]
    assert isinstance(node, App)
    lines = [f"{pad}{prefix}{option_id(node.function, node.metadata)}("]
    for param, child in node.args:
        lines.extend(_lines(child, indent + 1, width, hole_types, f"{param}=", ","))
    lines.append(f"{pad}){suffix}")
    return lines
