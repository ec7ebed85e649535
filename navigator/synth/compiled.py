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
    )


def compile_library(library: Library) -> tuple[CompiledFunction, ...]:
    return tuple(compile_function(i, decl, library)
                 for i, decl in enumerate(library.functions.values()))


class FactIndex:
    """Facts grouped by prop, as value tuples in the prop's field order."""

    def __init__(self, facts: FactProgram):
        self.by_prop: dict[str, list[tuple]] = {}
        seen: set[tuple] = set()
        for fact in facts.facts:
            key = (fact.prop, tuple((type(v), v) for v in fact.values))
            if key in seen:  # duplicate facts do not change the meaning
                continue
            seen.add(key)
            self.by_prop.setdefault(fact.prop, []).append(fact.values)

        self._projections: dict[tuple[str, tuple[int, ...]], list[tuple]] = {}

    def rows(self, prop: str) -> list[tuple]:
        return self.by_prop.get(prop, [])

    def projected(self, prop: str, positions: tuple[int, ...]) -> list[tuple]:
        """Distinct rows restricted to some fields (cached: facts never change)."""
        key = (prop, positions)
        cached = self._projections.get(key)
        if cached is None:
            seen = dict.fromkeys(tuple((type(row[p]), row[p]) for p in positions)
                                 for row in self.rows(prop))
            cached = [tuple(v for _, v in row) for row in seen]
            self._projections[key] = cached
        return cached


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
