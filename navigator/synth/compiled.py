"""Functions compiled for solving: conditions over numbered slots and field indices.

Slot 0 is the return value, slot i (1-based) the i-th parameter. A `Var(slot, field)` is one
metadata field of one slot; a `Const` is a literal. Names are resolved once here so the
solver works on small integers and tuples only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from navigator.lang import (
    Comparison,
    FactProgram,
    FunctionDecl,
    Library,
    Literal,
    ParamField,
    RetField,
)
from navigator.lang.formula import Atom, Value

#: A metadata tuple: one value per field of its type, in declaration order.
Meta = tuple


@dataclass(frozen=True)
class Var:
    slot: int
    field: int


@dataclass(frozen=True)
class Const:
    value: Value


Operand = Union[Var, Const]


@dataclass(frozen=True)
class CompiledComparison:
    op: str
    left: Operand
    right: Operand


@dataclass(frozen=True)
class CompiledPattern:
    """A fact pattern: prop field index -> operand, wildcards dropped."""

    prop: str
    positions: tuple[tuple[int, Operand], ...]


@dataclass(frozen=True)
class CompiledFunction:
    index: int
    name: str
    #: slot_types[0] is the return type; slot_types[i] the type of parameter i.
    slot_types: tuple[str, ...]
    #: The value types of each slot's fields.
    slot_fields: tuple[tuple[str, ...], ...]
    param_names: tuple[str, ...]
    comparisons: tuple[CompiledComparison, ...]
    patterns: tuple[CompiledPattern, ...]
    #: a shortcut: its derivations are left out of the counts of the pairs it derives
    alias: bool = False

    @property
    def ret_type(self) -> str:
        return self.slot_types[0]

    @property
    def arity(self) -> int:
        return len(self.slot_types) - 1


def compile_function(index: int, decl: FunctionDecl, library: Library) -> CompiledFunction:
    slot_types = (decl.ret,) + tuple(p.type for p in decl.params)
    slot_of_param = {p.name: i + 1 for i, p in enumerate(decl.params)}

    def operand(atom: Atom) -> Operand:
        if isinstance(atom, Literal):
            return Const(atom.value)
        if isinstance(atom, RetField):
            return Var(0, library.types[decl.ret].field_index(atom.field))
        assert isinstance(atom, ParamField)
        slot = slot_of_param[atom.param]
        return Var(slot, library.types[slot_types[slot]].field_index(atom.field))

    comparisons, patterns = [], []
    for formula in decl.condition:
        if isinstance(formula, Comparison):
            comparisons.append(CompiledComparison(formula.op, operand(formula.left),
                                                  operand(formula.right)))
        else:
            prop = library.props[formula.prop]
            patterns.append(CompiledPattern(formula.prop, tuple(
                (prop.field_index(name), operand(atom))
                for name, atom in formula.args if atom is not None)))
    return CompiledFunction(
        index=index,
        name=decl.name,
        slot_types=slot_types,
        slot_fields=tuple(tuple(f.type for f in library.types[t].fields) for t in slot_types),
        param_names=decl.param_names,
        comparisons=tuple(comparisons),
        patterns=tuple(patterns),
        alias=decl.alias,
    )


def compile_library(library: Library) -> tuple[CompiledFunction, ...]:
    return tuple(compile_function(i, decl, library)
                 for i, decl in enumerate(library.functions.values()))


class FactIndex:
    """Facts grouped by prop, as value tuples in the prop's field order."""

    def __init__(self, facts: FactProgram):
        grouped: dict[str, list[tuple]] = {}
        for fact in facts.facts:
            rows = grouped.get(fact.prop)
            if rows is None:
                rows = grouped[fact.prop] = []
            rows.append(fact.values)
        self.by_prop: dict[str, list[tuple]] = {}
        #: props whose every column holds values of one Python type
        self._uniform: set[str] = set()
        for prop, rows in grouped.items():
            if _uniform(rows):
                # Plain tuples compare like typed ones here: no True/1 mix-up possible.
                self._uniform.add(prop)
                self.by_prop[prop] = list(dict.fromkeys(rows))
            else:
                # duplicate facts do not change the meaning
                typed = dict.fromkeys(tuple((type(v), v) for v in row) for row in rows)
                self.by_prop[prop] = [tuple(v for _, v in row) for row in typed]

        self._projections: dict[tuple[str, tuple[int, ...]], list[tuple]] = {}
        self._indexes: dict[tuple, dict[tuple, list[tuple]]] = {}
        self._row_sets: dict[tuple, set[tuple]] = {}

    def rows(self, prop: str) -> list[tuple]:
        return self.by_prop.get(prop, [])

    def columns(self, prop: str) -> list[tuple]:
        """The distinct rows' columns (one tuple of values per field)."""
        rows = self.rows(prop)
        return list(zip(*rows)) if rows else []

    def uniform(self, prop: str) -> bool:
        return prop in self._uniform

    def projected(self, prop: str, positions: tuple[int, ...]) -> list[tuple]:
        """Distinct rows restricted to some fields (cached: facts never change)."""
        key = (prop, positions)
        cached = self._projections.get(key)
        if cached is None:
            rows = self.rows(prop)
            if positions == tuple(range(len(rows[0]) if rows else 0)):
                cached = rows
            elif prop in self._uniform:
                cached = list(dict.fromkeys(tuple([row[p] for p in positions]) for row in rows))
            else:
                seen = dict.fromkeys(tuple((type(row[p]), row[p]) for p in positions)
                                     for row in rows)
                cached = [tuple(v for _, v in row) for row in seen]
            self._projections[key] = cached
        return cached

    def index(self, prop: str, positions: tuple[int, ...],
              key_positions: tuple[int, ...]) -> dict[tuple, list[tuple]]:
        """The distinct rows projected on `positions`, grouped by the values at
        `key_positions` (indices into the projected row). Cached."""
        cache_key = (prop, positions, key_positions)
        index = self._indexes.get(cache_key)
        if index is None:
            groups: dict[tuple, list[tuple]] = {}
            for row in self.projected(prop, positions):
                groups.setdefault(tuple([row[p] for p in key_positions]), []).append(row)
            index = self._indexes[cache_key] = groups
        return index

    def row_set(self, prop: str, positions: tuple[int, ...]) -> set[tuple]:
        """The distinct rows projected on `positions`, as a set (membership checks)."""
        cache_key = (prop, positions)
        rows = self._row_sets.get(cache_key)
        if rows is None:
            rows = self._row_sets[cache_key] = set(self.projected(prop, positions))
        return rows


def _uniform(rows: list[tuple]) -> bool:
    """Every row has the same length and every column one Python type."""
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        return False
    return all(len(set(map(type, column))) == 1 for column in zip(*rows))


def compare(op: str, a: Value, b: Value) -> bool:
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    if op == "<":
        return a < b  # type: ignore[operator]
    if op == "<=":
        return a <= b  # type: ignore[operator]
    raise ValueError(op)
