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

from fuseflow.support.errors import UserError
from navigator.lang import Library
from navigator.lang.formula import value_type_of
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING, App, Hole, Node, Sketch
from navigator.synth.inhabitation import gc_paused


class ExpressionError(UserError):
    """A JSON expression is malformed or does not fit the library."""


#: levels of a JSON document that are indented: a sketch nests three per application, and
#: indenting every level of one 1,200 applications deep writes 65 MB of spaces (thousands on
#: each line); deeper containers are written on one line each
INDENTED_LEVELS = 64


def sketch_json_text(value: Any) -> str:
    """Indented JSON of a value that may hold a sketch, thousands of levels deep for a program
    with hundreds of regions (fuseflow.support.readers.dumps_deep). The first INDENTED_LEVELS
    levels are indented by two spaces per level, what lies deeper is written compactly."""
    import json
    import re
    import uuid

    from fuseflow.support.readers import dumps_deep

    def compact(container: Any) -> str:
        return dumps_deep(container, SKETCH_JSON_NESTING, ensure_ascii=False)

    marker = f"@deep-{uuid.uuid4().hex}-"
    deep: list[str] = []
    outline = _outline(value, INDENTED_LEVELS, lambda container: deep.append(compact(container))
                       or f"{marker}{len(deep) - 1}@")
    text = json.dumps(outline, indent=2, ensure_ascii=False)
    if not deep:
        return text
    return re.sub(f'"{re.escape(marker)}(\\d+)@"', lambda found: deep[int(found.group(1))], text)


def _outline(value: Any, levels: int, replace) -> Any:
    """A copy of `value`'s first `levels` levels of lists and dicts, each non-empty container
    below them given to `replace`, whose result stands in for it (an explicit stack)."""
    def copy(item: Any, level: int) -> Any:
        if not isinstance(item, (dict, list)) or not item:
            return item
        if level > levels:
            return replace(item)
        shell = dict(item) if isinstance(item, dict) else list(item)
        pending.append((shell, level))
        return shell

    pending: list[tuple[Any, int]] = []
    root = copy(value, 1)
    while pending:
        shell, level = pending.pop()
        keys = shell.keys() if isinstance(shell, dict) else range(len(shell))
        for key in keys:
            shell[key] = copy(shell[key], level + 1)
    return root


def node_to_json(node: Node) -> dict[str, Any]:
    """The JSON form of a node (built with an explicit stack: sketches can be deep)."""
    def shell(current: Node) -> dict[str, Any]:
        if isinstance(current, Hole):
            return {"Hole": current.id}
        args: dict[str, Any] = {param: None for param, _ in current.args}
        pending.extend((child, args, param) for param, child in current.args)
        return {"App": [{"name": current.function, "metadata": dict(current.metadata),
                         "arity": [param for param, _ in current.args]}, args]}

    pending: list[tuple[Node, dict[str, Any], str]] = []
    root = shell(node)
    while pending:
        child, args, param = pending.pop()
        args[param] = shell(child)
    return root


def sketch_to_json(sketch: Sketch) -> dict[str, Any]:
    return node_to_json(sketch.root)


def sketch_from_json(data: Any, library: Library, goal_type: str, *,
                     source: str = "expression") -> Sketch:
    """Read an expression whose root has type `goal_type`; `source` names it in errors."""
    holes: set[int] = set()
    with gc_paused():   # a deep expression is a tree of thousands of nodes, no cycles
        root = _read(data, library, goal_type, holes, source)
    return Sketch(root, max(holes) + 1 if holes else 0)


#: what to do about an expression that does not read
EXPRESSION_FIX = "write Honeybee's JSON expression form (docs/engine.md) for the library's functions"


def _fail(message: str, path: str, source: str, fix: str | None = None) -> ExpressionError:
    return ExpressionError(message, where=f"{source}: {path}", fix=fix or EXPRESSION_FIX)


class _Frame:
    """An application being read: its checked head, and its children read so far."""

    __slots__ = ("decl", "pairs", "path", "param", "pending", "next", "built")

    def __init__(self, decl, pairs, path: str, param: str | None, pending: list):
        self.decl = decl
        self.pairs = pairs
        self.path = path
        #: the parameter of the parent this application fills (None at the root)
        self.param = param
        #: (parameter, expression, expected type, path) per child, in parameter order
        self.pending = pending
        self.next = 0
        self.built: list[tuple[str, Node]] = []


def _read(data: Any, library: Library, goal_type: str, holes: set[int], source: str) -> Node:
    """Read the tree depth first with an explicit stack of `_Frame`s; at most
    MAX_SKETCH_DEPTH applications deep."""
    first = _node(data, library, goal_type, "$", holes, source, None)
    if not isinstance(first, _Frame):
        return first
    stack = [first]
    while True:
        frame = stack[-1]
        if frame.next < len(frame.pending):
            param, child_data, child_type, child_path = frame.pending[frame.next]
            frame.next += 1
            child = _node(child_data, library, child_type, child_path, holes, source, param)
            if isinstance(child, _Frame):
                if len(stack) >= MAX_SKETCH_DEPTH:
                    raise _fail(f"the expression nests more than {MAX_SKETCH_DEPTH} applications deep",
                                child_path, source, f"Navigator's sketches nest at most {MAX_SKETCH_DEPTH} deep")
                stack.append(child)
            else:
                frame.built.append((param, child))
            continue
        stack.pop()
        app = App(frame.decl.name, frame.decl.ret, frame.pairs, tuple(frame.built))
        if not stack:
            return app
        stack[-1].built.append((frame.param, app))  # type: ignore[arg-type]


def _node(data: Any, library: Library, expected: str, path: str, holes: set[int],
          source: str, param: str | None) -> Hole | _Frame:
    """Check one node: a Hole, or the head of an application (its children are read later)."""
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
        raise _fail(f"unknown function {_shown(name)}", f"{path}.App[0].name", source)
    if decl.ret != expected:
        raise _fail(f"{name} returns {decl.ret}, but a {expected} is needed here",
                    f"{path}.App[0].name", source)
    arity = head.get("arity", list(decl.param_names))
    if not isinstance(arity, list) or sorted(map(str, arity)) != sorted(decl.param_names):
        raise _fail(f"arity of {name} is {list(decl.param_names)}, got {_shown(arity)}",
                    f"{path}.App[0].arity", source)
    if sorted(args) != sorted(decl.param_names):
        raise _fail(f"{name} takes arguments {list(decl.param_names)}, got {_shown(sorted(args))}",
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
            raise _fail(f"metadata {field.name} is {field.type}, got {_shown(value)}",
                        f"{path}.App[0].metadata.{field.name}", source)
        pairs.append((field.name, value))
    pending = [(p.name, args[p.name], p.type, f"{path}.App[1].{p.name}") for p in decl.params]
    return _Frame(decl, tuple(pairs), path, param, pending)


def _shown(value: Any) -> str:
    """A value from the JSON for a message: its repr, cut when long."""
    try:
        text = repr(value) if not isinstance(value, (dict, list)) or len(value) < 20 else type(value).__name__
    except (ValueError, RecursionError):  # an integer of over 4,300 digits, a deep list
        text = type(value).__name__
    return text if len(text) <= 60 else text[:40] + "..." + text[-10:]
