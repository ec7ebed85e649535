"""What a scheduling library must provide for Navigator to read a schedule out of its programs.

`navigator start/sample/count --library L` navigate any library whose facts are the ones
`navigator.fuseflow.facts` generates, but exporting, sampling and evaluating read the finished
expression the way the bundled library builds it (docs/fuseflow-library.md#your-own-library):

    Schedule <- f(fusion: F)                      (or default_schedule: the compiler's defaults)
    F        <- g(regions: R)
    R        <- l(schedule: S, rest: R') | anything without `rest` (the end of the list)
    S        <- h(order: O, pars: P)
    O{region: Str, order: Str}  <- i(vector: V)
    V{shape: Int}               <- j(block: B)
    B{enabled: Bool}
    P        <- m(par: Q, rest: P) | anything without `rest`
    Q{var: Str, factor: Int}

Only the parameter names and the fields read are fixed; types and function names are the
library's own (a list may change type along the way, as the FuseFlow library's region-by-region
list does not: every function with a `rest` parameter continues its list). `check_interface` checks this
once, when the space is built, and names the first function, parameter or field missing;
navigator.fuseflow.sketch_reading reads the shape, and nothing else does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from navigator.lang import Library, LibraryError

#: the goal's one function that needs no fusion: the compiler's defaults everywhere
DEFAULT_SCHEDULE = "default_schedule"


@dataclass(frozen=True)
class _Role:
    """How schedule_of reads a value of one type."""

    #: what the value is, for messages
    what: str
    #: parameter -> the role of its argument (every function returning the type needs them)
    params: dict[str, str] = field(default_factory=dict)
    #: field -> value type the reader takes from the value's metadata
    fields: dict[str, str] = field(default_factory=dict)
    #: a list type: a function with a `rest` parameter continues it, any other ends it
    is_list: bool = False
    #: functions that need none of the params (the compiler-default shortcut)
    exempt: tuple[str, ...] = ()


_ROLES = {
    "schedule": _Role("the goal (a schedule)", {"fusion": "fusion"}, exempt=(DEFAULT_SCHEDULE,)),
    "fusion": _Role("a fusion grouping", {"regions": "regions"}),
    "regions": _Role("the list of region schedules", {"schedule": "region", "rest": "regions"}, is_list=True),
    "region": _Role("one region's schedule", {"order": "order", "pars": "pars"}),
    "order": _Role("a dataflow order", {"vector": "vector"}, {"region": "Str", "order": "Str"}),
    "vector": _Role("a stream shape", {"block": "block"}, {"shape": "Int"}),
    "block": _Role("the block-sparse switch", fields={"enabled": "Bool"}),
    "pars": _Role("the list of parallel factors", {"par": "par", "rest": "pars"}, is_list=True),
    "par": _Role("one parallel factor", fields={"var": "Str", "factor": "Int"}),
}

_FIX = "see docs/fuseflow-library.md#your-own-library for what export, sample and eval read"


def check_interface(library: Library, goal_type: str) -> None:
    """Raise LibraryError unless every program of `goal_type` reads as a schedule."""
    source = ", ".join(library.sources) or "the library"
    pending = [(goal_type, "schedule")]
    seen: set[tuple[str, str]] = set()
    while pending:
        type_name, role_name = pending.pop()
        if (type_name, role_name) in seen:
            continue
        seen.add((type_name, role_name))
        role = _ROLES[role_name]
        decl = library.types.get(type_name)
        if decl is None:
            raise LibraryError(f"has no [Type.{type_name}] ({role.what})", where=source, fix=_FIX)
        for name, value_type in role.fields.items():
            found = decl.field(name)
            if found is None or found.type != value_type:
                raise LibraryError(f"Type {type_name} ({role.what}) needs the field {name} = \"{value_type}\"",
                                   where=f"{source}: Type.{type_name}.params", fix=_FIX)
        for function in library.functions_returning(type_name):
            if function.name in role.exempt or (role.is_list and function.param("rest") is None):
                continue
            for param, child_role in role.params.items():
                found_param = function.param(param)
                if found_param is None:
                    raise LibraryError(
                        f"Function {function.name} returns {type_name} ({role.what}), so it needs a parameter "
                        f"{param!r} ({_ROLES[child_role].what})", where=f"{source}: Function.{function.name}.params",
                        fix=_FIX)
                pending.append((found_param.type, child_role))
