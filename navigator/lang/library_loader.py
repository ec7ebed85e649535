"""Load a scheduling library (`*.hblib.toml`) in Honeybee's format.

Every Honeybee library loads. Navigator's extensions (documented in
docs/formula-language.md) are the `<=` operator, negative integer literals, fact patterns
that leave fields out, trailing commas in patterns, and `default` and `alias` keys on functions.
Unknown keys are ignored as Honeybee ignores them, but reported in `Library.warnings`.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping

from navigator.lang.load_errors import LibraryError
from navigator.lang.formula import VALUE_TYPES, Formula, Value, describe_value, value_type_of
from navigator.lang.formula_check import FormulaChecker, FormulaTypeError, did_you_mean
from navigator.lang.formula_parser import FormulaSyntaxError, parse_formula
from navigator.lang.limits import MAX_FIELDS, MAX_FORMULAS, MAX_PARAMS, int_in_range, int_range_problem
from navigator.lang.model import (
    DefaultMark,
    FieldDecl,
    FunctionDecl,
    Library,
    ParamDecl,
    PropDecl,
    TypeDecl,
)
from navigator.lang.toml_source import parse_toml, read_toml_text

#: what the file is, for messages
WHAT = "a scheduling library"
_TOP_LEVEL_KEYS = ("Prop", "Type", "Function", "Preamble", "Config")
_DECL_KEYS = ("params", "info")
_FUNCTION_KEYS = ("params", "ret", "condition", "info", "default", "alias")


def load_library(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> Library:
    """Load one library file, or several merged in order (names must not collide)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [str(p) for p in paths]
    if not paths:
        raise LibraryError("no library file given", fix="pass at least one *.hblib.toml")
    documents = [(p, parse_toml(read_toml_text(p, LibraryError, WHAT), p, LibraryError, WHAT)) for p in paths]
    return _build(documents)


def load_library_file(path: str | os.PathLike) -> tuple[Library, str]:
    """One library file, and its text (whose content hash a session keeps to notice a changed library)."""
    text = read_toml_text(path, LibraryError, WHAT)
    return parse_library(text, str(path)), text


def parse_library(text: str, source: str = "<library>") -> Library:
    """Load a library from TOML text; `source` names it in error messages."""
    return _build([(source, parse_toml(text, source, LibraryError, WHAT))])


def load_library_collecting(path: str | os.PathLike) -> tuple[Library, list[LibraryError]]:
    """Load a library and report every problem in its declarations instead of stopping at
    the first: the library of the declarations that load, and the errors of the others
    (all of a function's unknown types and bad formulas). A file that cannot be read or is
    not TOML still raises."""
    path = str(path)
    problems: list[LibraryError] = []
    document = parse_toml(read_toml_text(path, LibraryError, WHAT), path, LibraryError, WHAT)
    return _build([(path, document)], problems), problems


class _Skipped(Exception):
    """A declaration whose problems are already recorded (collecting mode)."""


class _Builder:
    def __init__(self, problems: list[LibraryError] | None = None) -> None:
        #: collecting mode (`load_library_collecting`) when a list: problems go there
        self.problems = problems
        self.props: dict[str, PropDecl] = {}
        self.types: dict[str, TypeDecl] = {}
        self.raw_functions: dict[str, tuple[str, dict[str, Any]]] = {}
        self.origin: dict[tuple[str, str], str] = {}
        self.preamble: list[Mapping[str, Any]] = []
        self.config: dict[str, Any] = {}
        self.warnings: list[str] = []

    @contextmanager
    def declaration(self) -> Iterator[None]:
        """One declaration's checks: in collecting mode its error is recorded and the
        declaration left out; otherwise the error propagates."""
        try:
            yield
        except _Skipped:
            pass
        except LibraryError as exc:
            if self.problems is None:
                raise
            self.problems.append(exc)

    def problem(self, exc: LibraryError, found: list[LibraryError]) -> None:
        """A problem after which, in collecting mode, the declaration's other checks go on."""
        if self.problems is None:
            raise exc
        found.append(exc)

    def skip_if(self, found: list[LibraryError]) -> None:
        """Leave the declaration out if `problem` recorded anything for it."""
        if found:
            self.problems.extend(found)  # type: ignore[union-attr]
            raise _Skipped

    # -- declarations ---------------------------------------------------------------

    def add_document(self, source: str, doc: dict[str, Any]) -> None:
        for key in doc:
            if key not in _TOP_LEVEL_KEYS:
                hint = did_you_mean(key, _TOP_LEVEL_KEYS)
                self.warnings.append(f"{source}: unknown top-level key {key!r} ignored"
                                     + (f" ({hint})" if hint else ""))
        for kind, target, cls in (("Prop", self.props, PropDecl), ("Type", self.types, TypeDecl)):
            for name, body in self._section(source, doc, kind).items():
                with self.declaration():
                    _check_name(name, f"{source}: {kind}", f"a {kind} name")
                    self._claim(source, kind, name)
                    target[name] = self._fielded(source, kind, name, body, cls)
        for name, body in self._section(source, doc, "Function").items():
            with self.declaration():
                _check_name(name, f"{source}: Function", "a Function name")
                self._claim(source, "Function", name)
                if not isinstance(body, dict):
                    raise LibraryError(f"[Function.{name}] must be a table", where=f"{source}: Function.{name}",
                                       fix=f"write [Function.{name}] with params, ret and condition")
                self.raw_functions[name] = (source, body)
        preamble = doc.get("Preamble")
        with self.declaration():
            if preamble is not None:
                if not isinstance(preamble, list) or not all(isinstance(p, dict) for p in preamble):
                    raise LibraryError("Preamble must be an array of tables", where=f"{source}: Preamble",
                                       fix="write each block as [[Preamble]] with content = '''...'''")
                self.preamble.extend(preamble)
        config = doc.get("Config")
        with self.declaration():
            if config is not None:
                if not isinstance(config, dict):
                    raise LibraryError("Config must be a table", where=f"{source}: Config",
                                       fix="write [Config] with key = value lines")
                self.config.update(config)

    def _section(self, source: str, doc: dict[str, Any], kind: str) -> dict[str, Any]:
        section = doc.get(kind, {})
        if not isinstance(section, dict):
            error = LibraryError(f"{kind} must be a table of declarations", where=f"{source}: {kind}",
                                 fix=f"declare each one as [{kind}.Name]")
            self.problem(error, self.problems)  # type: ignore[arg-type]
            return {}  # collecting: the section is left out
        return section

    def _claim(self, source: str, kind: str, name: str) -> None:
        """Names are unique per kind across files; a Prop and a Type may not share one."""
        previous = self.origin.get((kind, name))
        if previous is not None:
            raise LibraryError(f"duplicate name: {kind} {name!r} is already declared in {previous}",
                               where=f"{source}: {kind}.{name}", fix="rename one of them")
        other = {"Prop": "Type", "Type": "Prop"}.get(kind)
        if other and (other, name) in self.origin:
            elsewhere = self.origin[(other, name)]
            place = "" if elsewhere == source else f" (the {other} is in {elsewhere})"
            raise LibraryError(
                f"{name!r} is declared both as a Prop and as a Type{place}",
                where=f"{source}: {kind}.{name}",
                fix=f"Props and Types share one namespace; rename one (e.g. P_{name})")
        self.origin[(kind, name)] = source

    def _fielded(self, source: str, kind: str, name: str, body: Any, cls: type) -> Any:
        where = f"{source}: {kind}.{name}"
        if not isinstance(body, dict):
            raise LibraryError(f"[{kind}.{name}] must be a table", where=where,
                               fix=f'write [{kind}.{name}] with params.field = "Int"')
        for key in body:
            if key not in _DECL_KEYS:
                self.warnings.append(f"{where}: unknown key {key!r} ignored")
        params = body.get("params", {})
        if not isinstance(params, dict):
            raise LibraryError("params must be a table of field = value type", where=f"{where}.params",
                               fix='write params.field = "Int" (or "Str", "Bool"), or params = {}')
        if len(params) > MAX_FIELDS:
            raise LibraryError(f"{len(params)} fields; a {kind} has at most {MAX_FIELDS}", where=f"{where}.params",
                               fix="split the metadata over several types built by separate functions")
        fields = []
        for field_name, vt in params.items():
            _check_name(field_name, f"{where}.params", "a field name")
            if vt not in VALUE_TYPES:
                hint = did_you_mean(vt, VALUE_TYPES) if isinstance(vt, str) else None
                shown = repr(vt) if isinstance(vt, str) and len(vt) <= 40 else _toml_kind(vt)
                raise LibraryError(
                    f"unknown value type {shown} for field {field_name!r}",
                    where=f"{where}.params.{field_name}",
                    fix=(hint + " " if hint else "") + "a field's type is \"Int\", \"Str\" or \"Bool\"")
            fields.append(FieldDecl(field_name, vt))
        return cls(name, tuple(fields), _info(body, where))

    # -- functions ------------------------------------------------------------------

    def build_function(self, name: str) -> FunctionDecl:
        source, body = self.raw_functions[name]
        where = f"{source}: Function.{name}"
        for key in body:
            if key not in _FUNCTION_KEYS:
                hint = did_you_mean(key, _FUNCTION_KEYS)
                self.warnings.append(f"{where}: unknown key {key!r} ignored"
                                     + (f" ({hint})" if hint else ""))
        params_raw = body.get("params", {})
        if not isinstance(params_raw, dict):
            raise LibraryError("params must be a table of parameter = \"Type\"", where=f"{where}.params",
                               fix='write params.arg = "TypeName", or params = {}')
        if len(params_raw) > MAX_PARAMS:
            raise LibraryError(f"{len(params_raw)} parameters; a function takes at most {MAX_PARAMS}",
                               where=f"{where}.params",
                               fix="group parameters into a Type built by another function, or split the function")
        params = []
        found: list[LibraryError] = []
        for param_name, type_name in params_raw.items():
            _check_name(param_name, f"{where}.params", "a parameter name")
            try:
                self._require_type(type_name, f"{where}.params.{param_name}",
                                   f"parameter {param_name!r}")
            except LibraryError as exc:
                self.problem(exc, found)
                continue
            if param_name == "ret":
                self.warnings.append(f"{where}.params.ret: a parameter named 'ret' cannot be "
                                     "referred to in conditions (ret.f means the return value)")
            params.append(ParamDecl(param_name, type_name))
        if "ret" not in body:
            self.problem(LibraryError("missing ret (the return type)", where=where,
                                      fix='add ret = "TypeName"'), found)
            self.skip_if(found)
        ret = body["ret"]
        try:
            self._require_type(ret, f"{where}.ret", "the return type")
        except LibraryError as exc:
            self.problem(exc, found)
        self.skip_if(found)
        condition_raw = body.get("condition", [])
        if isinstance(condition_raw, str):
            condition_raw = [condition_raw]  # tolerate a single formula; Honeybee wants a list
            self.warnings.append(f"{where}.condition: a single string was given; write a list")
        if not isinstance(condition_raw, list):
            raise LibraryError("condition must be a list of formula strings",
                               where=f"{where}.condition", fix='write condition = ["ret.x = a.x"]')
        if len(condition_raw) > MAX_FORMULAS:
            raise LibraryError(f"{len(condition_raw)} formulas; a condition has at most {MAX_FORMULAS}",
                               where=f"{where}.condition", fix="split the function into steps with smaller conditions")
        checker = FormulaChecker(tuple(params), ret, self.types, self.props)
        condition = []
        for index, text in enumerate(condition_raw):
            key = f"{where}.condition[{index}]"
            try:
                if not isinstance(text, str):
                    raise LibraryError(f"formula must be a string, got {_toml_kind(text)}", where=key,
                                       fix='quote it: "ret.x = a.x"')
                condition.append(_parse_and_check(text, key, checker))
            except LibraryError as exc:
                self.problem(exc, found)
        self.skip_if(found)
        default = _default_mark(body.get("default"), f"{where}.default", self.types[ret])
        alias = _alias_mark(body.get("alias", False), f"{where}.alias")
        return FunctionDecl(name, tuple(params), ret, tuple(condition), _info(body, where), default, alias)

    def _require_type(self, type_name: Any, where: str, what: str) -> None:
        if not isinstance(type_name, str):
            raise LibraryError(f"{what} must be a type name string, got {_toml_kind(type_name)}",
                               where=where, fix='write the name of a [Type] in quotes, e.g. "Order"')
        if type_name in self.types:
            return
        if ("Type", type_name) in self.origin:
            raise _Skipped  # collecting: the type is declared, and its problem reported
        if type_name in self.props:
            raise LibraryError(f"{type_name!r} is a Prop, not a Type; {what} must be a Type",
                               where=where, fix=f"declare [Type.{type_name}] or use a Type")
        if type_name in VALUE_TYPES:
            raise LibraryError(
                f"{what} is the value type {type_name!r}; parameters and returns must be Types",
                where=where, fix=f"wrap the value in a Type with params.value = \"{type_name}\"")
        hint = did_you_mean(type_name, self.types)
        raise LibraryError(f"unknown type {type_name!r} for {what}", where=where,
                           fix=hint or f"declare it with [Type.{type_name}]")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def _check_name(name: str, where: str, what: str) -> None:
    """Names are those formulas can write (letters, digits, _ and -): they appear in
    conditions, option ids and printed sketches, which must read back the same."""
    if _NAME.fullmatch(name) is None:
        raise LibraryError(f"{json.dumps(name[:60])}{'...' if len(name) > 60 else ''} is not a usable name",
                           where=where, fix=f"{what} starts with a letter or _ and has only letters, "
                                            "digits, _ and -")


def _parse_and_check(text: str, key: str, checker: FormulaChecker) -> Formula:
    try:
        formula = parse_formula(text)
    except FormulaSyntaxError as exc:
        raise LibraryError(f"formula does not parse {_point_at(text, exc.column)}: {exc.message}",
                           where=key, fix="see docs/formula-language.md for the grammar") from None
    try:
        checker.check(formula)
    except FormulaTypeError as exc:
        raise LibraryError(exc.message, where=key, fix=exc.fix) from None
    return formula


def _point_at(text: str, column: int) -> str:
    """Where parsing stopped, on one line (errors are one line): the column (1-based, with the
    line of a multi-line formula) and the text from there on."""
    line_start = text.rfind("\n", 0, column) + 1
    place = f"at column {column - line_start + 1}"
    if "\n" in text:
        place += f" of formula line {text.count(chr(10), 0, column) + 1}"
    rest = text[column:].split("\n", 1)[0].rstrip()
    if not rest:
        return f"{place}, at the end of the line"
    return f"{place}, at {rest[:20] + ('...' if len(rest) > 20 else '')!r}"


def _default_mark(raw: Any, where: str, ret: TypeDecl) -> DefaultMark | None:
    if raw is None or raw is False:
        return None
    if raw is True:
        return DefaultMark(((),))
    choices_raw = raw if isinstance(raw, list) else [raw]
    choices = []
    for index, choice in enumerate(choices_raw):
        key = where if not isinstance(raw, list) else f"{where}[{index}]"
        if not isinstance(choice, dict):
            raise LibraryError(f"default must be true, a table of metadata or a list of tables, "
                               f"got {_toml_kind(choice)}", where=key,
                               fix="write default = true or default = { field = value }")
        pairs: list[tuple[str, Value]] = []
        for field_name, value in choice.items():
            decl = ret.field(field_name)
            if decl is None:
                raise LibraryError(
                    f"field {field_name!r} does not exist in return type {ret.name} "
                    f"(fields: {', '.join(ret.field_names) or '(none)'})",
                    where=f"{key}.{field_name}", fix="a default mark names fields of the function's return type")
            if value_type_of(value) != decl.type:
                raise LibraryError(f"field {field_name!r} is {decl.type}, got {_toml_kind(value)}",
                                   where=f"{key}.{field_name}", fix=f"give a value of type {decl.type}")
            if decl.type == "Int" and not int_in_range(value):
                raise LibraryError(int_range_problem(value), where=f"{key}.{field_name}",
                                   fix="Int values are 64-bit integers")
            pairs.append((field_name, value))
        choices.append(tuple(pairs))
    return DefaultMark(tuple(choices))


def _alias_mark(raw: Any, where: str) -> bool:
    if not isinstance(raw, bool):
        raise LibraryError(f"alias must be true or false, got {_toml_kind(raw)}", where=where,
                           fix="write alias = true on a shortcut function, or leave the key out")
    return raw


def _info(body: dict[str, Any], where: str) -> Mapping[str, Any]:
    info = body.get("info", {})
    if not isinstance(info, dict):
        raise LibraryError("info must be a table", where=f"{where}.info",
                           fix='write info.title = "..."')
    return info


def _toml_kind(value: Any) -> str:
    kind = value_type_of(value)
    if kind is not None:
        return f"{kind} {describe_value(value)}"
    return {float: "a float", list: "an array", dict: "a table"}.get(type(value), type(value).__name__)


def _build(documents: list[tuple[str, dict[str, Any]]],
           problems: list[LibraryError] | None = None) -> Library:
    builder = _Builder(problems)
    for source, doc in documents:
        builder.add_document(source, doc)
    # Functions are checked once every Prop and Type of every file is known.
    functions = {}
    for name in builder.raw_functions:
        with builder.declaration():
            functions[name] = builder.build_function(name)
    return Library(
        props=builder.props,
        types=builder.types,
        functions=functions,
        preamble=tuple(builder.preamble),
        config=builder.config,
        sources=tuple(source for source, _ in documents),
        warnings=tuple(builder.warnings),
    )
