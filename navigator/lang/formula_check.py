"""Type-check a parsed formula against its function's signature.

Rules (Honeybee's, with `<=` added): every `ret.f` / `arg.f` names an existing parameter
and field; both sides of a comparison have the same value type; `<` and `<=` compare
integers only; a fact pattern names a declared Prop, only its fields, with matching types.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Mapping

from navigator.lang.formula import (
    ORDER_OPS,
    Atom,
    Comparison,
    FactPattern,
    Formula,
    Literal,
    ParamField,
    RetField,
    value_type_of,
)
from navigator.lang.model import ParamDecl, PropDecl, TypeDecl


class FormulaTypeError(Exception):
    """A formula is well-formed but ill-typed; the loader adds file and key."""

    def __init__(self, message: str, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {matches[0]!r}?" if matches else None


def _choices(names: Iterable[str]) -> str:
    names = list(names)
    return ", ".join(names) if names else "(none)"


class FormulaChecker:
    """Checks the formulas of one function."""

    def __init__(self, params: tuple[ParamDecl, ...], ret: str,
                 types: Mapping[str, TypeDecl], props: Mapping[str, PropDecl]):
        self.params = {p.name: p for p in params}
        self.ret = ret
        self.types = types
        self.props = props

    def atom_type(self, atom: Atom) -> str:
        if isinstance(atom, Literal):
            return value_type_of(atom.value)  # type: ignore[return-value]
        if isinstance(atom, RetField):
            return self._field_type(self.types[self.ret], atom.field, f"ret.{atom.field}",
                                    "the return type")
        assert isinstance(atom, ParamField)
        param = self.params.get(atom.param)
        if param is None:
            hint = did_you_mean(atom.param, self.params)
            raise FormulaTypeError(
                f"unknown parameter {atom.param!r} in '{atom}'; this function's parameters "
                f"are: {_choices(self.params)}",
                hint or "use ret.field or one of the parameters")
        return self._field_type(self.types[param.type], atom.field, str(atom),
                                f"parameter {param.name!r}")

    def _field_type(self, decl: TypeDecl, name: str, written: str, whose: str) -> str:
        found = decl.field(name)
        if found is None:
            hint = did_you_mean(name, decl.field_names)
            raise FormulaTypeError(
                f"field {name!r} does not exist in '{written}': {whose} has type "
                f"{decl.name} with fields {_choices(decl.field_names)}",
                hint or f"declare it with [Type.{decl.name}] params.{name} = \"Int\" (or Str/Bool)")
        return found.type

    def check(self, formula: Formula) -> None:
        if isinstance(formula, Comparison):
            self._check_comparison(formula)
        else:
            self._check_pattern(formula)

    def _check_comparison(self, formula: Comparison) -> None:
        left = self.atom_type(formula.left)
        right = self.atom_type(formula.right)
        if left != right:
            raise FormulaTypeError(
                f"'{formula}' compares {left} with {right}",
                "both sides of a comparison must have the same type")
        if formula.op in ORDER_OPS and left != "Int":
            raise FormulaTypeError(
                f"'{formula.op}' compares integers only, but '{formula}' compares {left} values",
                "use '=' or '!=' for Str and Bool")

    def _check_pattern(self, formula: FactPattern) -> None:
        prop = self.props.get(formula.prop)
        if prop is None:
            if formula.prop in self.types:
                raise FormulaTypeError(
                    f"{formula.prop!r} is a Type, not a Prop; fact patterns match Props",
                    f"declare [Prop.{formula.prop}] or match a Prop")
            hint = did_you_mean(formula.prop, self.props)
            raise FormulaTypeError(
                f"unknown Prop {formula.prop!r} in fact pattern '{formula}'",
                hint or f"declare it with [Prop.{formula.prop}]")
        for field_name, atom in formula.args:
            decl = prop.field(field_name)
            if decl is None:
                hint = did_you_mean(field_name, prop.field_names)
                raise FormulaTypeError(
                    f"field {field_name!r} does not exist in Prop {prop.name} "
                    f"(fields: {_choices(prop.field_names)})",
                    hint or "match only declared fields")
            if atom is None:
                continue
            got = self.atom_type(atom)
            if got != decl.type:
                raise FormulaTypeError(
                    f"field {field_name!r} of Prop {prop.name} is {decl.type}, "
                    f"but '{atom}' is {got}")
