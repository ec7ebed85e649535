"""Which region a hole belongs to, so `show` stays readable on sketches with hundreds of holes.

The rule is generic, not FuseFlow's: a hole belongs to the region named by the `region`
metadata field of its nearest enclosing application (the FuseFlow library puts one on every
`dataflow`, `order`, `var_par`, ... application); a hole with no such application above it
(the choice of fusion, of the next region) belongs to no region and is shown as
program-wide. A list node (an application with a child of its own type, such as the
FuseFlow library's `region(schedule, rest)`) names the region of its other children only: the
rest of the list is not part of it, and a region starts at the element, not at the list.
Libraries without a `region` field simply have no regions.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.synth.sketch import App, Hole, Node, Sketch

#: the metadata field that names a region
REGION_FIELD = "region"


@dataclass(frozen=True)
class RegionView:
    """The holes of each region, and the top-most applications of each region, in sketch order."""

    #: hole id -> region name (None: program-wide)
    hole_region: dict[int, str | None]
    #: region name -> the applications where it starts (outermost first)
    roots: dict[str, list[App]]

    @property
    def names(self) -> list[str]:
        return list(self.roots)


def region_view(sketch: Sketch) -> RegionView:
    """Walk the sketch once (an explicit stack: sketches can be deep)."""
    hole_region: dict[int, str | None] = {}
    roots: dict[str, list[App]] = {}
    stack: list[tuple[Node, str | None]] = [(sketch.root, None)]
    while stack:
        node, region = stack.pop()
        if isinstance(node, Hole):
            hole_region[node.id] = region
            continue
        named = node.metadata_dict().get(REGION_FIELD)
        if not isinstance(named, str) or not named:
            named = region
        continues = [child for _, child in node.args if child.type == node.type]
        if continues:  # a list: its element belongs to `named`, the rest of the list does not
            stack.extend((child, region if child.type == node.type else named) for _, child in reversed(node.args))
            continue
        if named != region:
            roots.setdefault(named, []).append(node)
        stack.extend((child, named) for _, child in reversed(node.args))
    return RegionView(hole_region, roots)
