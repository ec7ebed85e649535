"""Sketches: expression trees whose leaves may be typed holes.

Nodes are immutable, so every step makes a new sketch and old ones stay valid (undo keeps
them). Holes are numbered by a counter that only grows: filling a hole with a function
of arity k creates holes `next_hole ... next_hole + k - 1` in parameter order. Replaying
the same steps therefore always produces the same numbers.

A recursive library makes sketches as deep as its user goes, so nothing here recurses over
the tree: walks use explicit stacks, and an application's hash is computed once, without
recursion, and cached. A sketch nests at most MAX_SKETCH_DEPTH applications: its JSON form
(three levels per application) must stay within what Python's JSON reader and writer,
which do recurse, can handle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping, Union

from fuseflow.support.memory import ResourceError
from navigator.lang.formula import Value

#: applications on the longest path from the root (the root application is at depth 1): a list of
#: regions nests one level per region, and programs have up to 1,000 ops
MAX_SKETCH_DEPTH = 1200
#: JSON levels a file holding a sketch may nest: Honeybee's form takes three per application
#: ({"App": [..., {args}]}), plus a few for the file's envelope
SKETCH_JSON_NESTING = 3 * MAX_SKETCH_DEPTH + 8


class SketchTooDeep(ResourceError):
    """A step would nest the sketch deeper than MAX_SKETCH_DEPTH applications."""


@dataclass(frozen=True)
class Hole:
    id: int
    type: str


@dataclass(frozen=True, eq=False)
class App:
    """A function application: the function, its return metadata and its arguments.

    Equality and hashing are structural, as for a dataclass, but without recursion."""

    function: str
    type: str
    #: (field, value) pairs in the return type's field order
    metadata: tuple[tuple[str, Value], ...]
    #: (parameter, child) pairs in the function's parameter order
    args: tuple[tuple[str, "Node"], ...]
    _hash: list = field(default_factory=list, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        if not self._hash:
            _hash_tree(self)
        return self._hash[0]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not App:
            return NotImplemented
        pairs: list[tuple[Node, Node]] = [(self, other)]  # type: ignore[list-item]
        while pairs:
            a, b = pairs.pop()
            if a is b:
                continue
            if a.__class__ is not b.__class__:
                return False
            if a.__class__ is Hole:
                if a != b:
                    return False
                continue
            if a._hash and b._hash and a._hash[0] != b._hash[0]:  # type: ignore[union-attr]
                return False
            if (a.function != b.function or a.type != b.type  # type: ignore[union-attr]
                    or a.metadata != b.metadata or len(a.args) != len(b.args)):  # type: ignore[union-attr]
                return False
            for (pa, ca), (pb, cb) in zip(a.args, b.args):  # type: ignore[union-attr]
                if pa != pb:
                    return False
                pairs.append((ca, cb))
        return True

    def __repr__(self) -> str:
        # Not the dataclass repr: that one recurses into every child.
        params = ", ".join(param for param, _ in self.args)
        return f"App({self.function!r}, {self.type!r}, {self.metadata!r}, args=[{params}])"

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


def _hash_tree(root: App) -> None:
    """Cache the hash of `root` and of every application beneath it that has none yet,
    children first, with an explicit stack."""
    stack = [root]
    while stack:
        node = stack[-1]
        if node._hash:
            stack.pop()
            continue
        missing = [child for _, child in node.args if child.__class__ is App and not child._hash]
        if missing:
            stack.extend(missing)  # type: ignore[arg-type]
            continue
        node._hash.append(hash((node.function, node.type, node.metadata,
                                tuple([(param, hash(child)) for param, child in node.args]))))
        stack.pop()


def depth_of(node: Node) -> int:
    """Applications on the longest path from `node` down (0 for a hole)."""
    deepest = 0
    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if current.__class__ is App:
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for _, child in current.args)  # type: ignore[union-attr]
    return deepest


def too_deep(hole_id: int, function: str, depth: int) -> SketchTooDeep:
    what = "at the limit" if depth <= MAX_SKETCH_DEPTH else "past it"
    return SketchTooDeep(
        f"?{hole_id} := {function} would nest the sketch {depth} applications deep ({what}: sketches nest at "
        f"most {MAX_SKETCH_DEPTH}, and an application there takes no arguments)",
        fix="the library's recursion goes that deep here: choose an option that ends it (a base case), "
            "or shorten the recursion in the library")


@dataclass(frozen=True)
class HoleSite:
    """Where a hole sits: its parent application (None at the root) and parameter."""

    hole: Hole
    parent: App | None
    param: str | None
    #: the parameter's position in the parent (0-based), None at the root
    position: int | None
    depth: int


class Sketch:
    """A tree whose leaves may be holes, and the counter that numbers the next holes.

    Immutable to its users. A step (`fill`) does not rebuild the path from the hole to the
    root at once: the new sketch keeps the sketch it came from and the step, and builds its
    tree when first asked for `root`, together with every step since the last sketch that
    had one (each node on the union of their paths is copied once). A run of steps whose
    trees nobody reads, a strategy filling a subtree, then costs the steps, not the steps
    times the depth of a deep spine (a program's list of regions is hundreds long).
    """

    __slots__ = ("_root", "next_hole", "_base", "_step", "_index", "_hash")

    def __init__(self, root: Node | None, next_hole: int, *, _base: "Sketch | None" = None,
                 _step: "tuple[tuple[int, ...], App, App | None] | None" = None):
        self._root = root
        self.next_hole = next_hole
        #: while the tree is not built: the sketch this one came from, and the step
        #: (the hole's positions, the new application, its parent's updated copy)
        self._base = _base
        self._step = _step
        #: the open holes: id -> (argument positions from the root, the hole, its parent
        #: application or None), found by one walk of the tree and then kept up to date by
        #: `fill`, so finding a hole costs nothing like the sketch's size
        self._index: list = []
        self._hash: int | None = None

    @staticmethod
    def initial(goal_type: str) -> "Sketch":
        return Sketch(Hole(0, goal_type), 1)

    @property
    def root(self) -> Node:
        if self._root is None:
            self._build()
        return self._root  # type: ignore[return-value]

    @property
    def last_step(self) -> "tuple[tuple[int, ...], App, App | None] | None":
        """The step that made this sketch from the one before (positions of the filled hole,
        the new application, the copy of its parent with it), or None."""
        return self._step

    def _build(self) -> None:
        steps = []
        sketch = self
        while sketch._root is None:
            steps.append(sketch._step)
            sketch = sketch._base  # type: ignore[assignment]
        steps.reverse()
        self._root = _apply_steps(sketch._root, steps)  # type: ignore[arg-type]
        self._base = None  # the tree no longer needs the sketches before it

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Sketch:
            return NotImplemented
        return self is other or (self.next_hole == other.next_hole and self.root == other.root)  # type: ignore

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.root, self.next_hole))
        return self._hash

    def __repr__(self) -> str:
        return f"Sketch(root={self.root!r}, next_hole={self.next_hole})"

    def __reduce__(self):
        return Sketch, (self.root, self.next_hole)

    def _holes_index(self) -> dict[int, tuple[tuple[int, ...], Hole, "App | None"]]:
        if not self._index:
            found: dict[int, tuple[tuple[int, ...], Hole, App | None]] = {}
            stack: list[tuple[Node, tuple[int, ...], App | None]] = [(self.root, (), None)]
            while stack:
                node, path, parent = stack.pop()
                if node.__class__ is Hole:
                    found[node.id] = (path, node, parent)  # type: ignore[union-attr]
                else:
                    stack.extend((child, path + (i,), node)  # type: ignore[misc]
                                 for i, (_, child) in enumerate(node.args))  # type: ignore[union-attr]
            self._index.append(found)
        return self._index[0]

    # -- queries --------------------------------------------------------------------

    def holes(self) -> list[Hole]:
        """Open holes in ascending id order."""
        index = self._holes_index()
        return [index[h][1] for h in sorted(index)]

    def lowest_hole(self) -> Hole | None:
        """The open hole with the smallest id (the one menus list first), or None."""
        index = self._holes_index()
        return index[min(index)][1] if index else None

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
        return self._holes_index()[hole_id][1]

    def has_hole(self, hole_id: int) -> bool:
        return hole_id in self._holes_index()

    @property
    def complete(self) -> bool:
        return not self._holes_index()

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
        index = self._holes_index()
        found = index.get(hole_id)
        if found is None:
            raise KeyError(f"no open hole ?{hole_id}")
        positions, hole, parent = found
        # The new application sits at depth len(positions) + 1; one with parameters there
        # would leave holes that no step could fill.
        if len(positions) + 1 + bool(params) > MAX_SKETCH_DEPTH:
            raise too_deep(hole_id, function, len(positions) + 1)
        pairs = tuple(metadata.items()) if isinstance(metadata, Mapping) else tuple(metadata)
        fresh = tuple((name, Hole(self.next_hole + i, type_name))
                      for i, (name, type_name) in enumerate(params))
        new = App(function, hole.type, pairs, fresh)
        holes = dict(index)
        del holes[hole_id]
        new_parent = None
        if parent is not None:
            # the parent as it is now (what an analysis of the step reads), and the parent
            # its other open holes have from now on
            position = positions[-1]
            args = parent.args
            new_parent = _with_arg(parent, args[:position] + ((args[position][0], new),) + args[position + 1:])
            for _, child in args:
                if child.__class__ is Hole and child.id in holes:  # type: ignore[union-attr]
                    sibling = holes[child.id]  # type: ignore[union-attr]
                    holes[child.id] = (sibling[0], sibling[1], new_parent)  # type: ignore[union-attr]
        for i, (_, fresh_hole) in enumerate(fresh):
            holes[fresh_hole.id] = (positions + (i,), fresh_hole, new)
        sketch = Sketch(None, self.next_hole + len(params), _base=self, _step=(positions, new, new_parent))
        sketch._index.append(holes)
        return sketch


def _apply_steps(root: Node, steps: list) -> Node:
    """The tree `root` after `steps` (positions of a hole, the application filling it), in
    order: the nodes on the union of their paths are rebuilt once, bottom-up, everything
    else is shared."""
    # A trie of the steps' positions: [replacement or None, {position: trie}]
    top: list = [None, {}]
    for positions, new, _ in steps:
        trie = top
        for position in positions:
            kids = trie[1]
            below = kids.get(position)
            if below is None:
                below = kids[position] = [None, {}]
            trie = below
        trie[0] = new
    # Post-order, without recursion (trees nest up to MAX_SKETCH_DEPTH).
    built: dict[int, Node] = {}
    stack: list = [(top, root, False)]
    while stack:
        trie, node, ready = stack.pop()
        if trie[0] is not None:
            node = trie[0]
        if not trie[1]:
            built[id(trie)] = node
            continue
        if not ready:
            stack.append((trie, node, True))
            args = node.args  # type: ignore[union-attr]
            stack.extend((below, args[position][1], False) for position, below in trie[1].items())
            continue
        args = list(node.args)  # type: ignore[union-attr]
        for position, below in trie[1].items():
            args[position] = (args[position][0], built.pop(id(below)))
        built[id(trie)] = _with_arg(node, tuple(args))  # type: ignore[arg-type]
    return built[id(top)]


def _with_arg(parent: App, args: tuple[tuple[str, Node], ...]) -> App:
    """`parent` with `args`: App(parent.function, parent.type, parent.metadata, args), built
    as the dataclass would build it (its fields, and an empty hash cache)."""
    copy = object.__new__(App)
    copy.__dict__.update(function=parent.function, type=parent.type, metadata=parent.metadata, args=args,
                         _hash=[])
    return copy
