"""The data model of a scheduling library and of a fact program.

These are plain, immutable records. Loading and checking live in `library_loader` and
`facts_loader`; the semantics (what a program means, which are valid) live in
`navigator.synth`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from navigator.lang.formula import Formula, Value, format_value


@dataclass(frozen=True)
class FieldDecl:
    """One metadata field: its name and value type ("Int", "Str" or "Bool")."""

    name: str
    type: str


@dataclass(frozen=True)
class _FieldedDecl:
    name: str
    fields: tuple[FieldDecl, ...]
    info: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> FieldDecl | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def field_index(self, name: str) -> int:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        raise KeyError(name)


@dataclass(frozen=True)
class PropDecl(_FieldedDecl):
    """`[Prop.Name]`: a fact relation."""


@dataclass(frozen=True)
class TypeDecl(_FieldedDecl):
    """`[Type.Name]`: a value type whose values carry metadata fields."""


@dataclass(frozen=True)
class ParamDecl:
    name: str
    type: str


@dataclass(frozen=True)
class DefaultMark:
    """Marks a function as a hole's default option (a Navigator extension).

    `choices` lists partial metadata in priority order; an option matches a choice when
    it agrees on every field the choice names. `default = true` is one empty choice
    (any metadata).
    """

    choices: tuple[tuple[tuple[str, Value], ...], ...]

    def matches(self, metadata: Mapping[str, Value]) -> int | None:
        """The index of the first choice the metadata matches, or None."""
        for index, choice in enumerate(self.choices):
            if all(name in metadata and type(metadata[name]) is type(value)
                   and metadata[name] == value for name, value in choice):
                return index
        return None


@dataclass(frozen=True)
class FunctionDecl:
    """`[Function.name]`: params in the order written, return type, condition."""

    name: str
    params: tuple[ParamDecl, ...]
    ret: str
    condition: tuple[Formula, ...]
    info: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    default: DefaultMark | None = None
    #: a shortcut (a Navigator extension): every program built through it is also built
    #: without it, so counts leave its derivations out (docs/formula-language.md)
    alias: bool = False

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> ParamDecl | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def title(self) -> str | None:
        title = self.info.get("title") if isinstance(self.info, Mapping) else None
        return title if isinstance(title, str) else None


@dataclass(frozen=True, eq=False)
class Library:
    """A whole scheduling library: props, types and functions in declaration order."""

    props: Mapping[str, PropDecl]
    types: Mapping[str, TypeDecl]
    functions: Mapping[str, FunctionDecl]
    #: Honeybee's `[[Preamble]]` code blocks and `[Config]` table, kept as written.
    preamble: tuple[Mapping[str, Any], ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    #: The files it was loaded from (empty when parsed from text).
    sources: tuple[str, ...] = ()
    #: Things that load but are probably mistakes (unknown keys, ...).
    warnings: tuple[str, ...] = ()

    def type(self, name: str) -> TypeDecl:
        return self.types[name]

    def function(self, name: str) -> FunctionDecl:
        return self.functions[name]

    def functions_returning(self, type_name: str) -> tuple[FunctionDecl, ...]:
        return tuple(f for f in self.functions.values() if f.ret == type_name)


@dataclass(frozen=True)
class Fact:
    """One ground fact: a prop name and its values in the prop's field order."""

    prop: str
    values: tuple[Value, ...]

    def __str__(self) -> str:
        return f"{self.prop}({', '.join(format_value(v) for v in self.values)})"


@dataclass(frozen=True)
class Goal:
    """`[Goal]`: the type to build and (possibly partial) constraints on its metadata."""

    type: str
    args: tuple[tuple[str, Value], ...] = ()

    def args_dict(self) -> dict[str, Value]:
        return dict(self.args)


@dataclass(frozen=True)
class FactProgram:
    """A fact program (`*.hb.toml`): ground facts and one goal."""

    facts: tuple[Fact, ...]
    goal: Goal
    source: str | None = None
    warnings: tuple[str, ...] = ()
