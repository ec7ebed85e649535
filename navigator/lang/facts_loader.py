"""Load a fact program (`*.hb.toml`): ground facts and one goal, checked against a library.

Format (Honeybee's):

    [[Prop]]
    name = "Extent"
    args.level = 0
    args.size = 64

    [Goal]
    name = "Schedule"
    args = { region = 0 }    # may constrain only some fields (a Navigator extension)
"""

from __future__ import annotations

import os
from typing import Any

from navigator.lang.load_errors import FactError, toml_key
from navigator.lang.formula import Value, describe_value, value_type_of
from navigator.lang.formula_check import did_you_mean
from navigator.lang.limits import INT_MAX, INT_MIN, int_in_range, int_range_problem
from navigator.lang.model import Fact, FactProgram, Goal, Library
from navigator.lang.toml_source import parse_toml, read_toml_text

_TOP_LEVEL_KEYS = ("Prop", "Goal")
#: what the file is, for messages
WHAT = "a fact program (.hb.toml)"


def load_facts(path: str | os.PathLike, library: Library) -> FactProgram:
    source = str(path)
    return _build(parse_toml(read_toml_text(source, FactError, WHAT), source, FactError, WHAT), source, library)


def parse_facts(text: str, library: Library, source: str = "<facts>") -> FactProgram:
    return _build(parse_toml(text, source, FactError, WHAT), source, library)


def facts_from_records(facts: list[tuple[str, dict[str, Any]]], goal: tuple[str, dict[str, Any]],
                       library: Library, source: str = "<facts>") -> FactProgram:
    """The fact program of (prop, args) records already in memory, checked exactly as if
    they had been read from their `*.hb.toml` text (which a generator need not write)."""
    doc = {"Prop": [{"name": prop, "args": args} for prop, args in facts],
           "Goal": {"name": goal[0], "args": goal[1]}}
    return _build(doc, source, library)


def facts_from_generator(facts: list[tuple[str, dict[str, Any]]], goal: tuple[str, dict[str, Any]],
                         library: Library, source: str = "<facts>") -> FactProgram:
    """`facts_from_records` for records a generator in this process just made, which gives every
    fact of a Prop the same fields with values of the same types (navigator.fuseflow.facts does). The
    first fact of each Prop is checked in full, with the same errors; the others only for their
    fields, so a program's 100,000 facts load in a fraction of the time."""
    shapes: dict[str, tuple[str, ...]] = {}
    built = []
    for i, (name, args) in enumerate(facts):
        names = shapes.get(name)
        if names is not None and len(args) == len(names):
            try:
                built.append(Fact(name, tuple([args[n] for n in names])))
                continue
            except KeyError:
                pass
        fact = _fact({"name": name, "args": args}, f"{source}: Prop[{i}]", library)
        shapes.setdefault(name, library.props[name].field_names)
        built.append(fact)
    return FactProgram(tuple(built), _goal({"name": goal[0], "args": goal[1]}, f"{source}: Goal", library),
                       source, ())


def _build(doc: dict[str, Any], source: str, library: Library) -> FactProgram:
    warnings = []
    for key in doc:
        if key not in _TOP_LEVEL_KEYS:
            hint = did_you_mean(key, _TOP_LEVEL_KEYS)
            warnings.append(f"{source}: unknown top-level key {key!r} ignored"
                            + (f" ({hint})" if hint else ""))
    raw_facts = doc.get("Prop", [])
    if isinstance(raw_facts, dict):
        raise FactError("Prop must be an array of tables", where=f"{source}: Prop",
                        fix="write each fact as [[Prop]] (double brackets)")
    if not isinstance(raw_facts, list):
        raise FactError("Prop must be an array of tables", where=f"{source}: Prop",
                        fix="write each fact as [[Prop]] with name and args")
    shapes: dict[str, tuple[tuple[str, ...], tuple[type, ...]] | None] = {}
    facts = tuple(_fast_fact(entry, library, shapes)
                  or _fact(entry, f"{source}: Prop[{i}]", library)
                  for i, entry in enumerate(raw_facts))
    if "Goal" not in doc:
        raise FactError("missing [Goal]", where=source,
                        fix='add [Goal] with name = "TypeName" and args = { ... }')
    goal = _goal(doc["Goal"], f"{source}: Goal", library)
    return FactProgram(facts, goal, source, tuple(warnings))


def _name_and_args(entry: Any, where: str, what: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(entry, dict):
        raise FactError(f"{what} must be a table with name and args", where=where,
                        fix='write name = "..." and args = { field = value, ... }')
    for key in entry:
        if key not in ("name", "args"):
            raise FactError(f"unknown key {key!r} in {what}", where=f"{where}.{toml_key(key)}",
                            fix="a fact or goal has only name and args")
    name = entry.get("name")
    if not isinstance(name, str):
        raise FactError(f"{what} needs name = \"...\"", where=f"{where}.name",
                        fix="name is the Prop of a fact, or the Type of the goal, as a string")
    args = entry.get("args", {})
    if not isinstance(args, dict):
        raise FactError("args must be a table of field = value", where=f"{where}.args",
                        fix="write args.field = value or args = { field = value }")
    return name, args


def _check_value(value: Any, expected: str, where: str, owner: str, field: str) -> Value:
    got = value_type_of(value)
    if got is None:
        kind = {float: "a float", list: "an array", dict: "a table"}.get(type(value), type(value).__name__)
        raise FactError(f"field {field!r} of {owner} is {expected}, got {kind}", where=where,
                        fix="metadata values are integers, strings or booleans")
    if got != expected:
        raise FactError(f"field {field!r} of {owner} is {expected}, got {got} {describe_value(value)}",
                        where=where, fix=f"give an {expected} value" if expected == "Int" else f"give a {expected} value")
    if got == "Int" and not int_in_range(value):
        raise FactError(f"field {field!r} of {owner}: {int_range_problem(value)}", where=where,
                        fix="Int values are 64-bit integers")
    return value


def _fact(entry: Any, where: str, library: Library) -> Fact:
    name, args = _name_and_args(entry, where, "a fact")
    prop = library.props.get(name)
    if prop is None:
        if name in library.types:
            raise FactError(f"{name!r} is a Type, not a Prop; facts are instances of Props",
                            where=f"{where}.name", fix="name a Prop of the library, or declare one")
        hint = did_you_mean(name, library.props)
        raise FactError(f"unknown Prop {name!r}", where=f"{where}.name",
                        fix=hint or f"declare [Prop.{name}] in the library")
    for field in args:
        if prop.field(field) is None:
            hint = did_you_mean(field, prop.field_names)
            raise FactError(f"field {field!r} does not exist in Prop {name} "
                            f"(fields: {', '.join(prop.field_names) or '(none)'})",
                            where=f"{where}.args.{toml_key(field)}", fix=hint)
    values = []
    for decl in prop.fields:
        if decl.name not in args:
            raise FactError(f"fact {name} is missing field {decl.name!r}", where=f"{where}.args",
                            fix=f"facts are ground: give every field ({', '.join(prop.field_names)})")
        values.append(_check_value(args[decl.name], decl.type, f"{where}.args.{decl.name}",
                                   f"Prop {name}", decl.name))
    return Fact(name, tuple(values))


_PY_TYPES = {"Int": int, "Str": str, "Bool": bool}


def _fast_fact(entry: Any, library: Library, shapes: dict) -> Fact | None:
    """The common case of `_fact`, checked quickly; None means "let `_fact` decide" (it
    builds the same Fact, or raises the error that explains what is wrong)."""
    if type(entry) is not dict or len(entry) != 2:
        return None
    name = entry.get("name")
    args = entry.get("args")
    if type(name) is not str or type(args) is not dict:
        return None
    shape = shapes.get(name, False)
    if shape is False:
        prop = library.props.get(name)
        shape = shapes[name] = None if prop is None else (
            prop.field_names, tuple(_PY_TYPES.get(f.type) for f in prop.fields))
    if shape is None:
        return None
    names, types = shape
    if len(args) != len(names):
        return None
    try:
        values = tuple([args[n] for n in names])
    except KeyError:
        return None
    for value, expected in zip(values, types):
        if type(value) is not expected or (expected is int and not INT_MIN <= value <= INT_MAX):
            return None
    return Fact(name, values)


def _goal(entry: Any, where: str, library: Library) -> Goal:
    name, args = _name_and_args(entry, where, "the goal")
    decl = library.types.get(name)
    if decl is None:
        if name in library.props:
            raise FactError(f"goal {name!r} is a Prop, not a Type", where=f"{where}.name",
                            fix="the goal names the Type of the value to build")
        hint = did_you_mean(name, library.types)
        raise FactError(f"goal of unknown type {name!r}", where=f"{where}.name",
                        fix=hint or f"declare [Type.{name}] in the library")
    pairs = []
    for field, value in args.items():
        field_decl = decl.field(field)
        if field_decl is None:
            hint = did_you_mean(field, decl.field_names)
            raise FactError(f"field {field!r} does not exist in Type {name} "
                            f"(fields: {', '.join(decl.field_names) or '(none)'})",
                            where=f"{where}.args.{toml_key(field)}", fix=hint)
        pairs.append((field, _check_value(value, field_decl.type, f"{where}.args.{field}",
                                          f"Type {name}", field)))
    # Keep the type's field order so equal goals compare equal.
    order = {f: i for i, f in enumerate(decl.field_names)}
    return Goal(name, tuple(sorted(pairs, key=lambda p: order[p[0]])))


def facts_to_rows(program: FactProgram, library: Library) -> dict[str, Any]:
    """The facts as compact JSON data, in their order: each Prop named once with its fields
    (`props`), each fact a row `[prop index, value, ...]` (`rows`), and the goal. A third the
    size of (prop, args) records, and read back without a dict per fact (`facts_from_rows`)."""
    index: dict[str, int] = {}
    props: list[list] = []
    rows = []
    for fact in program.facts:
        i = index.get(fact.prop)
        if i is None:
            i = index[fact.prop] = len(props)
            props.append([fact.prop, list(library.props[fact.prop].field_names)])
        rows.append([i, *fact.values])
    return {"props": props, "rows": rows, "goal": [program.goal.type, dict(program.goal.args)]}


def facts_from_rows(data: Any, library: Library, source: str = "<facts>") -> FactProgram:
    """`facts_to_rows` read back, for rows this code wrote (a signed cache entry): each Prop's
    fields and the value types of its first fact are checked against the library, with the
    errors `facts_from_records` gives; the other rows only for their length."""
    props, rows, goal = data["props"], data["rows"], data["goal"]
    names: list[str] = []
    widths: list[int] = []
    checked: set[int] = set()
    for name, fields in props:
        prop = library.props.get(name)
        if prop is None or list(fields) != list(prop.field_names):
            raise FactError(f"the facts' Prop {name!r} does not match the library's", where=source,
                            fix="the facts were made for another library: generate them again")
        names.append(name)
        widths.append(len(fields) + 1)
    built = []
    for number, row in enumerate(rows):
        i = row[0]
        if len(row) != widths[i]:
            raise FactError(f"fact {number} has {len(row) - 1} values for {names[i]}", where=source)
        if i not in checked:  # the first fact of a Prop: in full, as a file's would be
            checked.add(i)
            built.append(_fact({"name": names[i], "args": dict(zip(props[i][1], row[1:]))},
                               f"{source}: Prop[{number}]", library))
            continue
        built.append(Fact(names[i], tuple(row[1:])))
    return FactProgram(tuple(built), _goal({"name": goal[0], "args": goal[1]}, f"{source}: Goal", library),
                       source, ())
