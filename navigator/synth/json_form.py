"""Sketches in Honeybee's JSON expression form.

    {"Hole": 3}
    {"App": [{"name": "f", "metadata": {"x": 1}, "arity": ["a", "b"]},
             {"a": <expression>, "b": <expression>}]}

This is the serde encoding of Honeybee's `Sketch<ParameterizedFunction>`, so expressions
move between the two tools unchanged. Reading checks the shape and the library (function
names, parameters, metadata fields and value types, argument types); whether the
expression is *valid* (conditions, domain, goal) is the oracle's business.
"""

from __future__ import annotations

from typing import Any

from fuseflow.errors import UserError
from navigator.lang import Library
from navigator.lang.formula import value_type_of
from navigator.synth.sketch import App, Hole, Node, Sketch


class ExpressionError(UserError):
    """A JSON expression is malformed or does not fit the library."""


def node_to_json(node: Node) -> dict[str, Any]:
    if isinstance(node, Hole):
        return {"Hole": node.id}
    return {"App": [
        {"name": node.function, "metadata": dict(node.metadata),
         "arity": [param for param, _ in node.args]},
        {param: node_to_json(child) for param, child in node.args},
    ]}


def sketch_to_json(sketch: Sketch) -> dict[str, Any]:
    return node_to_json(sketch.root)


def sketch_from_json(data: Any, library: Library, goal_type: str, *,
                     source: str = "expression") -> Sketch:
    """Read an expression whose root has type `goal_type`; `source` names it in errors."""
    holes: set[int] = set()
    root = _node(data, library, goal_type, "$", holes, source)
    return Sketch(root, max(holes) + 1 if holes else 0)


def _fail(message: str, path: str, source: str, fix: str | None = None) -> ExpressionError:
    return ExpressionError(message, where=f"{source}: {path}", fix=fix)


def _node(data: Any, library: Library, expected: str, path: str, holes: set[int],
          source: str) -> Node:
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)) not in ("Hole", "App"):
        raise _fail("an expression is {\"Hole\": n} or {\"App\": [function, arguments]}", path,
                    source)
    if "Hole" in data:
        number = data["Hole"]
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise _fail("a hole number is a non-negative integer", f"{path}.Hole", source)
        if number in holes:
            raise _fail(f"hole ?{number} appears twice", f"{path}.Hole", source,
                        "every hole has its own number")
        holes.add(number)
        return Hole(number, expected)
    body = data["App"]
    if not isinstance(body, list) or len(body) != 2 or not isinstance(body[0], dict) \
            or not isinstance(body[1], dict):
        raise _fail("\"App\" holds [{\"name\", \"metadata\", \"arity\"}, {param: expression}]",
                    f"{path}.App", source)
    head, args = body
    name = head.get("name")
    decl = library.functions.get(name) if isinstance(name, str) else None
    if decl is None:
        raise _fail(f"unknown function {name!r}", f"{path}.App[0].name", source)
    if decl.ret != expected:
        raise _fail(f"{name} returns {decl.ret}, but a {expected} is needed here",
                    f"{path}.App[0].name", source)
    arity = head.get("arity", list(decl.param_names))
    if not isinstance(arity, list) or sorted(map(str, arity)) != sorted(decl.param_names):
        raise _fail(f"arity of {name} is {list(decl.param_names)}, got {arity!r}",
                    f"{path}.App[0].arity", source)
    if sorted(args) != sorted(decl.param_names):
        raise _fail(f"{name} takes arguments {list(decl.param_names)}, got {sorted(args)}",
                    f"{path}.App[1]", source)
    metadata = head.get("metadata", {})
    ret = library.types[decl.ret]
    if not isinstance(metadata, dict) or sorted(metadata) != sorted(ret.field_names):
        raise _fail(f"metadata of {name} must give exactly the fields of {ret.name}: "
                    f"{list(ret.field_names)}", f"{path}.App[0].metadata", source)
    pairs = []
    for field in ret.fields:
        value = metadata[field.name]
        if value_type_of(value) != field.type:
            raise _fail(f"metadata {field.name} is {field.type}, got {value!r}",
                        f"{path}.App[0].metadata.{field.name}", source)
        pairs.append((field.name, value))
    children = tuple((p.name, _node(args[p.name], library, p.type, f"{path}.App[1].{p.name}",
                                    holes, source)) for p in decl.params)
    return App(decl.name, decl.ret, tuple(pairs), children)
