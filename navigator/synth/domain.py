"""The finite metadata domain: which values a metadata field may take.

A field of type Int (Str) ranges over every Int (Str) literal written in the library's
conditions, in the facts and in the goal. Bool fields range over {false, true}. Because the
domain is finite, the set of inhabited (type, metadata) pairs is finite, which makes the
menus' soundness and completeness decidable.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.lang import FactProgram, Library, Literal, value_type_of
from navigator.lang.formula import Value


@dataclass(frozen=True)
class Domain:
    values: dict[str, tuple[Value, ...]]

    def of(self, value_type: str) -> tuple[Value, ...]:
        return self.values.get(value_type, ())

    def contains(self, value_type: str, value: Value) -> bool:
        return value_type_of(value) == value_type and value in self.values.get(value_type, ())


def build_domain(library: Library, facts: FactProgram) -> Domain:
    found: dict[str, set[Value]] = {"Int": set(), "Str": set(), "Bool": {False, True}}

    def add(value: Value) -> None:
        found[value_type_of(value)].add(value)  # type: ignore[index]

    for function in library.functions.values():
        for formula in function.condition:
            for atom in formula.atoms():
                if isinstance(atom, Literal):
                    add(atom.value)
    for fact in facts.facts:
        for value in fact.values:
            add(value)
    for _, value in facts.goal.args:
        add(value)
    return Domain({kind: tuple(sorted(vals)) for kind, vals in found.items()})
