"""Sketches: expression trees whose leaves may be typed holes.

Nodes are immutable, so every step makes a new sketch and old ones stay valid (undo keeps
them). Holes are numbered by a counter that only grows: filling a hole with a function
of arity k creates holes `next_hole ... next_hole + k - 1` in parameter order. Replaying
the same steps therefore always produces the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping, Union

from navigator.lang.formula import Value


@dataclass(frozen=True)
class Hole:
    id: int
    type: str


@dataclass(frozen=True)
class App:
    """A function application: the function, its return metadata and its arguments."""

    function: str
    type: str
    #: (field, value) pairs in the return type's field order
    metadata: tuple[tuple[str, Value], ...]
    #: (parameter, child) pairs in the function's parameter order
    args: tuple[tuple[str, "Node"], ...]

    @property
    def meta(self) -> tuple[Value, ...]:
        return tuple(v for _, v in self.metadata)

    def metadata_dict(self) -> dict[str, Value]:
        return dict(self.metadata)

    def arg(self, name: str) -> "Node":
        for param, child in self.args:
            if param == name:
                return child
        raise KeyError(name)


Node = Union[Hole, App]


@dataclass(frozen=True)
class HoleSite:
    """Where a hole sits: its parent application (None at the root) and parameter."""

    hole: Hole
    parent: App | None
    param: str | None
    #: the parameter's position in the parent (0-based), None at the root
    position: int | None
    depth: int


@dataclass(frozen=True)
class Sketch:
    root: Node
    next_hole: int

    @staticmethod
    def initial(goal_type: str) -> "Sketch":
        return Sketch(Hole(0, goal_type), 1)

    # -- queries --------------------------------------------------------------------

    def holes(self) -> list[Hole]:
        """Open holes in ascending id order."""
        return sorted((site.hole for site in self.hole_sites()), key=lambda h: h.id)

    def hole_sites(self) -> list[HoleSite]:
        sites: list[HoleSite] = []
        stack: list[tuple[Node, App | None, str | None, int | None, int]] = [
            (self.root, None, None, None, 0)]
        while stack:
            node, parent, param, position, depth = stack.pop()
            if isinstance(node, Hole):
                sites.append(HoleSite(node, parent, param, position, depth))
            else:
                for i, (name, child) in reversed(list(enumerate(node.args))):
                    stack.append((child, node, name, i, depth + 1))
        return sorted(sites, key=lambda s: s.hole.id)

    def hole(self, hole_id: int) -> Hole:
        for site in self.hole_sites():
            if site.hole.id == hole_id:
                return site.hole
        raise KeyError(hole_id)

    def has_hole(self, hole_id: int) -> bool:
        return any(site.hole.id == hole_id for site in self.hole_sites())

    @property
    def complete(self) -> bool:
        return not any(True for _ in _iter_holes(self.root))

    def applications(self) -> Iterator[App]:
        """Every application node, parents before children."""
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, App):
                yield node
                stack.extend(child for _, child in reversed(node.args))

    def size(self) -> int:
        """Number of nodes, holes included."""
        count = 0
        stack: list[Node] = [self.root]
        while stack:
            node = stack.pop()
            count += 1
            if isinstance(node, App):
                stack.extend(child for _, child in node.args)
        return count

    # -- steps ----------------------------------------------------------------------

    def fill(self, hole_id: int, function: str, metadata: Mapping[str, Value] | tuple,
             params: tuple[tuple[str, str], ...]) -> "Sketch":
        """Replace hole `hole_id` by `function` applied to fresh holes.

        `params` lists (parameter name, type) in order; `metadata` is the return metadata
        as (field, value) pairs or a mapping in the return type's field order. This is the
        raw tree operation; `Oracle` decides which fills are allowed.
        """
        target = None
        for site in self.hole_sites():
            if site.hole.id == hole_id:
                target = site.hole
        if target is None:
            raise KeyError(f"no open hole ?{hole_id}")
        pairs = tuple(metadata.items()) if isinstance(metadata, Mapping) else tuple(metadata)
        fresh = tuple((name, Hole(self.next_hole + i, type_name))
                      for i, (name, type_name) in enumerate(params))
        replacement = App(function, target.type, pairs, fresh)
        return Sketch(_replace(self.root, hole_id, replacement), self.next_hole + len(params))


def _iter_holes(node: Node) -> Iterator[Hole]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Hole):
            yield current
        else:
            stack.extend(child for _, child in current.args)


def _replace(root: Node, hole_id: int, replacement: Node) -> Node:
    """Rebuild the path from the root to the hole; everything else is shared.

    Iterative, so very deep sketches (long recursive chains) do not hit Python's
    recursion limit.
    """
    path: list[tuple[App, int]] = []
    stack: list[tuple[Node, list[tuple[App, int]]]] = [(root, [])]
    while stack:
        node, trail = stack.pop()
        if isinstance(node, Hole):
            if node.id == hole_id:
                path = trail
                break
            continue
        for index, (_, child) in enumerate(node.args):
            stack.append((child, trail + [(node, index)]))
    else:
        return root
    new: Node = replacement
    for parent, index in reversed(path):
        args = list(parent.args)
        args[index] = (args[index][0], new)
        new = App(parent.function, parent.type, parent.metadata, tuple(args))
    return new
