"""The formula AST used in function conditions, and how to print it back.

A condition is a list of formulas that must all hold. A formula either compares two atoms
or matches a fact pattern. Atoms name a metadata field of the return value (`ret.f`), of a
parameter (`arg.f`), or are literals.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Union

#: A metadata or fact value. Python's bool is an int subclass, so code that compares
#: values of unknown type must check `type(...)` as well (see `same_value`).
Value = Union[bool, int, str]

#: The three value types a field can have, as written in TOML.
VALUE_TYPES = ("Int", "Str", "Bool")

#: Comparison operators. `<=` is a Navigator extension (Honeybee has `=`, `!=`, `<`).
COMPARISON_OPS = ("=", "!=", "<", "<=")
ORDER_OPS = ("<", "<=")


def value_type_of(value: object) -> str | None:
    """The value type of a Python value, or None if it is not a metadata value."""
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, int):
        return "Int"
    if isinstance(value, str):
        return "Str"
    return None


def same_value(a: object, b: object) -> bool:
    """Equality that does not confuse True with 1."""
    return type(a) is type(b) and a == b


def format_value(value: Value) -> str:
    """A value the way formulas and option ids write it: 3, "text", true."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # Formulas have no escapes inside strings; json.dumps gives an unambiguous display.
    return json.dumps(value, ensure_ascii=False)


def describe_value(value: Value, limit: int = 40) -> str:
    """`format_value` for messages: long values are cut (the middle is left out)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = format_value(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit // 2]}...{text[-(limit // 4):]} ({len(text)} characters)"


@dataclass(frozen=True)
class Literal:
    value: Value

    def __str__(self) -> str:
        return format_value(self.value)


@dataclass(frozen=True)
class RetField:
    """`ret.field`: a metadata field of the function's return value."""

    field: str

    def __str__(self) -> str:
        return f"ret.{self.field}"


@dataclass(frozen=True)
class ParamField:
    """`param.field`: a metadata field of one of the function's arguments."""

    param: str
    field: str

    def __str__(self) -> str:
        return f"{self.param}.{self.field}"


Atom = Union[Literal, RetField, ParamField]


@dataclass(frozen=True)
class Comparison:
    op: str
    left: Atom
    right: Atom

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"

    def atoms(self) -> tuple[Atom, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class FactPattern:
    """`Prop { field = atom, other = _ }`: some fact of `prop` matches every given field.

    `args` keeps the order written; a field mapped to None is a wildcard (`_`). Fields
    left out are wildcards too (a Navigator extension: Honeybee requires every field).
    """

    prop: str
    args: tuple[tuple[str, Atom | None], ...]

    def __str__(self) -> str:
        inner = ", ".join(f"{name} = {'_' if atom is None else atom}" for name, atom in self.args)
        return f"{self.prop} {{ {inner} }}" if inner else f"{self.prop} {{}}"

    def atoms(self) -> tuple[Atom, ...]:
        return tuple(atom for _, atom in self.args if atom is not None)


Formula = Union[Comparison, FactPattern]
