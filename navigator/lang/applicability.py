"""Which functions of a library can never be applied, whatever the facts.

Without a fact program every fact pattern can be matched (some fact file may hold the
fact), and any value may appear in the domain (facts bring their values). So a function
can never be applied only when

1. its comparisons contradict each other for every value of their fields (`ret.n = 1` and
   `ret.n = 2`; `a.x < b.x` and `b.x < a.x`; `ret.flag != ret.flag`), or
2. one of its parameters has a type that no applicable function builds (no function
   returns it, or every one that does can never be applied itself, e.g. it needs a value
   of the same type to start from).

Comparisons are decided exactly, in time linear in their number: `=` classes with their
literals, Int order (`<`, `<=`) by bounds propagated along the order's strongly connected
components within the signed 64-bit range, Bool `!=` as a two-colouring, and
Str `!=` between different classes always satisfiable (strings are unbounded). For Int,
`!=` is reported when the other comparisons force both sides equal; several `!=` that
together exhaust a range (`1 <= x`, `x <= 2`, `x != 1`, `x != 2`) are not detected.
The check with a fact program (what *these* facts allow) is the engine's:
`navigator.synth.blocked_by_facts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Hashable

from fuseflow.support.union_find import UnionFind
from navigator.lang.formula import (
    Atom,
    Comparison,
    Literal,
    ParamField,
    RetField,
    value_type_of,
)
from navigator.lang.limits import INT_MAX, INT_MIN
from navigator.lang.model import FunctionDecl, Library


@dataclass(frozen=True)
class NeverApplied:
    """A function that can never be applied: the key at fault and why."""

    function: str
    #: e.g. "Function.f.condition[2]" or "Function.f.params.order"
    key: str
    message: str
    fix: str


def never_applicable(library: Library) -> list[NeverApplied]:
    """Every function of the library that no fact program lets apply, in declaration order."""
    contradictions: dict[str, int] = {}
    for decl in library.functions.values():
        index = first_contradiction(decl, library)
        if index is not None:
            contradictions[decl.name] = index
    applicable = _applicable(library, set(contradictions))
    buildable = {library.functions[name].ret for name in applicable}
    found = []
    for decl in library.functions.values():
        if decl.name in contradictions:
            index = contradictions[decl.name]
            formula = decl.condition[index]
            alone = satisfiable([formula], _type_of(decl, library))  # type: ignore[list-item]
            found.append(NeverApplied(
                decl.name, f"Function.{decl.name}.condition[{index}]",
                f"can never be applied: {formula} "
                + ("contradicts the comparisons before it" if alone else "is never true")
                + ", whatever the values",
                "remove or correct the contradicting comparison"))
        elif decl.name not in applicable:
            param = next(p for p in decl.params if p.type not in buildable)
            makers = library.functions_returning(param.type)
            why = ("no function returns one" if not makers else
                   "no function that returns one can ever be applied "
                   f"({', '.join(f.name for f in makers[:5])}{', ...' if len(makers) > 5 else ''})")
            found.append(NeverApplied(
                decl.name, f"Function.{decl.name}.params.{param.name}",
                f"can never be applied: parameter {param.name} needs a value of type {param.type}, and {why}",
                f"add a function that builds a {param.type} from what the library can build"))
    return found


def first_contradiction(decl: FunctionDecl, library: Library) -> int | None:
    """The index of the formula at which the function's comparisons stop being
    satisfiable (the earliest prefix of its condition that is contradictory), or None."""
    comparisons = _comparisons(decl)
    type_of = _type_of(decl, library)
    if satisfiable([c for _, c in comparisons], type_of):
        return None
    low, high = 1, len(comparisons)  # the shortest contradictory prefix has `high` comparisons
    while low < high:
        middle = (low + high) // 2
        if satisfiable([c for _, c in comparisons[:middle]], type_of):
            low = middle + 1
        else:
            high = middle
    return comparisons[high - 1][0]


def satisfiable(comparisons: list[Comparison], type_of: Callable[[Atom], str | None]) -> bool:
    """Whether some values of the fields make every comparison true (fields range over all
    values of their type; Int over the signed 64-bit range)."""
    classes = _Classes()
    for c in comparisons:
        classes.add(_node(c.left), type_of(c.left), c.left)
        classes.add(_node(c.right), type_of(c.right), c.right)
        if c.op == "=":
            classes.union(_node(c.left), _node(c.right))
    literal_of: dict[Hashable, object] = {}
    for node, (value_type, atom) in classes.nodes.items():
        if isinstance(atom, Literal):
            root = classes.find(node)
            if root in literal_of and _node(Literal(literal_of[root])) != node:  # type: ignore[arg-type]
                return False  # one class, two different literals
            literal_of[root] = atom.value
    different = [(classes.find(_node(c.left)), classes.find(_node(c.right)))
                 for c in comparisons if c.op == "!="]
    if any(a == b for a, b in different):
        return False
    int_roots = {classes.find(n) for n, (t, _) in classes.nodes.items() if t == "Int"}
    order = [(classes.find(_node(c.left)), c.op, classes.find(_node(c.right)))
             for c in comparisons if c.op in ("<", "<=")]
    bounds = _IntBounds(int_roots, literal_of, order)
    if not bounds.feasible:
        return False
    bool_roots = {classes.find(n) for n, (t, _) in classes.nodes.items() if t == "Bool"}
    if not _two_colourable(bool_roots, literal_of, [(a, b) for a, b in different if a in bool_roots]):
        return False
    return not any(bounds.forced_equal(a, b) for a, b in different if a in int_roots)


# -- the pieces ---------------------------------------------------------------------------


def _comparisons(decl: FunctionDecl) -> list[tuple[int, Comparison]]:
    return [(i, f) for i, f in enumerate(decl.condition) if isinstance(f, Comparison)]


def _type_of(decl: FunctionDecl, library: Library) -> Callable[[Atom], str | None]:
    def type_of(atom: Atom) -> str | None:
        if isinstance(atom, Literal):
            return value_type_of(atom.value)
        if isinstance(atom, RetField):
            owner = library.types[decl.ret]
        else:
            param = decl.param(atom.param)
            owner = library.types[param.type] if param is not None else None
        field = owner.field(atom.field) if owner is not None else None
        return field.type if field is not None else None
    return type_of


def _node(atom: Atom) -> Hashable:
    # Literal(True) == Literal(1) as dataclasses: a literal's node carries its value type.
    if isinstance(atom, Literal):
        return ("literal", value_type_of(atom.value), atom.value)
    if isinstance(atom, RetField):
        return ("ret", atom.field)
    assert isinstance(atom, ParamField)
    return ("param", atom.param, atom.field)


class _Classes:
    """Union-find over the atoms: the classes `=` makes."""

    def __init__(self) -> None:
        self.classes = UnionFind()
        self.nodes: dict[Hashable, tuple[str | None, Atom]] = {}

    def add(self, node: Hashable, value_type: str | None, atom: Atom) -> None:
        if node not in self.classes:
            self.classes.add(node)
            self.nodes[node] = (value_type, atom)

    def find(self, node: Hashable) -> Hashable:
        return self.classes.find(node)

    def union(self, a: Hashable, b: Hashable) -> None:
        self.classes.union(b, a)  # b's root stays the root


class _IntBounds:
    """Int classes ordered by `<` and `<=`, each within [low, high] (its literal, else the
    64-bit range). Classes on a cycle of the order are equal (a `<` on the cycle is a
    contradiction); the cycles collapsed, the order is acyclic, and lower bounds pushed
    forward along it and upper bounds backward are exact: values exist iff every low <= high
    (take each class's lower bound). Linear in the comparisons."""

    def __init__(self, roots: set[Hashable], literal_of: dict[Hashable, object],
                 order: list[tuple[Hashable, str, Hashable]]) -> None:
        successors: dict[Hashable, list[Hashable]] = {r: [] for r in roots}
        for left, _, right in order:
            successors[left].append(right)
        #: class -> its strongly connected component, components in reverse topological order
        self.component, components = _strong_components(successors)
        low = [INT_MIN] * len(components)
        high = [INT_MAX] * len(components)
        for root in roots:
            value = literal_of.get(root)
            if isinstance(value, int):
                c = self.component[root]
                low[c], high[c] = max(low[c], value), min(high[c], value)
        edges: list[tuple[int, int, int]] = []
        self.feasible = True
        for left, op, right in order:
            a, b = self.component[left], self.component[right]
            step = 1 if op == "<" else 0
            if a == b:
                if step:
                    self.feasible = False  # x < ... <= x
                continue
            edges.append((a, b, step))
        # Tarjan numbers components so that every edge goes from a higher to a lower number.
        for a, b, step in sorted(edges, key=lambda e: -e[0]):
            low[b] = max(low[b], low[a] + step)
        for a, b, step in sorted(edges, key=lambda e: e[1]):
            high[a] = min(high[a], high[b] - step)
        self.feasible = self.feasible and all(lo <= hi for lo, hi in zip(low, high))
        self.low, self.high = low, high

    def forced_equal(self, a: Hashable, b: Hashable) -> bool:
        """Whether the order forces `a = b`: on one cycle, or both pinned to one value (for
        feasible constraints the only ways `a <= b` and `b <= a` can both be forced)."""
        ca, cb = self.component[a], self.component[b]
        return ca == cb or (self.low[ca] == self.high[ca] == self.low[cb] == self.high[cb])


def _strong_components(successors: dict[Hashable, list[Hashable]]) -> tuple[dict[Hashable, int], list[list[Hashable]]]:
    """Tarjan's algorithm without recursion: each node's component number, and the
    components in reverse topological order (an edge never leads to a higher number)."""
    index: dict[Hashable, int] = {}
    lowlink: dict[Hashable, int] = {}
    on_stack: set[Hashable] = set()
    stack: list[Hashable] = []
    component: dict[Hashable, int] = {}
    components: list[list[Hashable]] = []
    for start in sorted(successors, key=repr):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = lowlink[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            children = successors[node]
            if position < len(children):
                work.append((node, position + 1))
                child = children[position]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    lowlink[node] = min(lowlink[node], index[child])
                continue
            if lowlink[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = len(components)
                    members.append(member)
                    if member == node:
                        break
                components.append(members)
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
    return component, components


def _two_colourable(roots: set[Hashable], literal_of: dict[Hashable, object],
                    different: list[tuple[Hashable, Hashable]]) -> bool:
    """Bool classes with `!=` between some: values exist iff each connected part can be
    coloured true/false alternately, agreeing with its literals."""
    neighbours: dict[Hashable, list[Hashable]] = {r: [] for r in roots}
    for a, b in different:
        neighbours[a].append(b)
        neighbours[b].append(a)
    colour: dict[Hashable, bool] = {}
    for start in sorted(roots, key=lambda r: (r not in literal_of, repr(r))):
        if start in colour:
            continue
        fixed = literal_of.get(start)
        colour[start] = bool(fixed) if isinstance(fixed, bool) else True
        stack = [start]
        while stack:
            node = stack.pop()
            for other in neighbours[node]:
                wanted = not colour[node]
                known = literal_of.get(other)
                if isinstance(known, bool) and known != wanted:
                    return False
                if other in colour:
                    if colour[other] != wanted:
                        return False
                    continue
                colour[other] = wanted
                stack.append(other)
    return True


def _applicable(library: Library, contradictory: set[str]) -> set[str]:
    """The least fixpoint: a function applies when its condition is not contradictory and
    every parameter's type is built by a function that applies."""
    applicable: set[str] = set()
    buildable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for decl in library.functions.values():
            if decl.name in applicable or decl.name in contradictory:
                continue
            if all(p.type in buildable for p in decl.params):
                applicable.add(decl.name)
                buildable.add(decl.ret)
                changed = True
    return applicable
