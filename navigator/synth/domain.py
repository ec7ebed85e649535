"""The finite metadata domain: which values a metadata field may take.

A field of type Int (Str) ranges over every Int (Str) literal written in the library's
conditions, in the facts and in the goal. Bool fields range over {false, true}. Because the
domain is finite, the set of inhabited (type, metadata) pairs is finite, which makes the
menus' soundness and completeness decidable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from navigator.lang import FactProgram, Library, Literal, value_type_of
from navigator.lang.formula import Value


@dataclass(frozen=True)
class Domain:
    values: dict[str, tuple[Value, ...]]
    _indexes: dict = field(default_factory=dict, compare=False, repr=False)

    def of(self, value_type: str) -> tuple[Value, ...]:
        return self.values.get(value_type, ())

    def index(self, value_type: str, keyed: bool) -> dict[tuple, list[tuple]]:
        """The values of a type as one-field rows: all under the key `()`, or each under
        its own value (a membership check that binds the field). Cached."""
        cached = self._indexes.get((value_type, keyed))
        if cached is None:
            values = self.of(value_type)
            cached = ({(v,): [(v,)] for v in values} if keyed
                      else {(): [(v,) for v in values]})
            self._indexes[(value_type, keyed)] = cached
        return cached

    def contains(self, value_type: str, value: Value) -> bool:
        if value_type_of(value) != value_type:  # (True == 1: the type decides first)
            return False
        members = self._indexes.get(value_type)
        if members is None:  # a set: the Str values are thousands, and every step's check asks
            members = self._indexes[value_type] = frozenset(self.of(value_type))
        return value in members


def build_domain(library: Library, facts: FactProgram, index=None) -> Domain:
    """`index`: the facts' `FactIndex`, if already built (same result, faster)."""
    found: dict[str, set[Value]] = {"Int": set(), "Str": set(), "Bool": {False, True}}

    def add(value: Value) -> None:
        found[value_type_of(value)].add(value)  # type: ignore[index]

    for function in library.functions.values():
        for formula in function.condition:
            for atom in formula.atoms():
                if isinstance(atom, Literal):
                    add(atom.value)
    if index is None:
        for fact in facts.facts:
            for value in fact.values:
                add(value)
    else:
        for prop in index.by_prop:
            for column in index.columns(prop):
                if index.uniform(prop):
                    # one Python type per column: a whole column goes to one value type
                    found[value_type_of(column[0])].update(column)  # type: ignore[index]
                else:
                    for value in column:
                        add(value)
    for _, value in facts.goal.args:
        add(value)
    return Domain({kind: tuple(sorted(vals)) for kind, vals in found.items()})
