"""Support expressions: which coordinates a loop level must visit for one op.

A level iterates the coordinates where the op's expression can be non-zero (formats never
change values, so unvisited points must be zero). The expression is read as a merge tree:
a product intersects its factors, a sum unites its terms, `f(x)` keeps `x`'s support only
when f(0) = 0, and a division keeps its numerator's. A leaf is an input whose storage level
for this variable is compressed; a dense level, or an input without the variable, supports
every coordinate (`ALL`).

Trees are tuples: ("all",), ("empty",), ("fiber", key), ("and", ...), ("or", ...).
"""

from __future__ import annotations

from collections.abc import Callable

from fuseflow.program.expr import Access, Call, Const, Expr, Extent, FUNCTIONS, Neg

ALL = ("all",)
EMPTY = ("empty",)
Support = tuple


def fiber(key: str) -> Support:
    return ("fiber", key)


def _flatten(kind: str, parts) -> list[Support]:
    out: list[Support] = []
    for part in parts:
        if part[0] == kind:
            out.extend(_flatten(kind, part[1:]))
        elif part not in out:
            out.append(part)
    return out


def s_and(*parts: Support) -> Support:
    parts = [p for p in _flatten("and", parts) if p != ALL]
    if EMPTY in parts:
        return EMPTY
    if not parts:
        return ALL
    return parts[0] if len(parts) == 1 else ("and", *parts)


def s_or(*parts: Support) -> Support:
    parts = [p for p in _flatten("or", parts) if p != EMPTY]
    if ALL in parts:
        return ALL
    if not parts:
        return EMPTY
    return parts[0] if len(parts) == 1 else ("or", *parts)


def expression_support(expr: Expr, leaf: Callable[[Access], Support]) -> Support:
    if isinstance(expr, Access):
        return leaf(expr)
    if isinstance(expr, Const):
        return ALL if expr.value != 0 else EMPTY
    if isinstance(expr, Extent):
        return ALL  # an extent is at least 1
    if isinstance(expr, Call):
        return expression_support(expr.arg, leaf) if FUNCTIONS[expr.func] else ALL
    if isinstance(expr, Neg):
        return expression_support(expr.arg, leaf)
    if expr.op == "*":
        return s_and(expression_support(expr.lhs, leaf), expression_support(expr.rhs, leaf))
    if expr.op == "/":
        return expression_support(expr.lhs, leaf)
    return s_or(expression_support(expr.lhs, leaf), expression_support(expr.rhs, leaf))


def leaves(support: Support) -> list[str]:
    if support[0] == "fiber":
        return [support[1]]
    out: list[str] = []
    for part in support[1:]:
        for key in leaves(part):
            if key not in out:
                out.append(key)
    return out


def conjuncts(support: Support) -> set[str]:
    """Leaves that every visited coordinate must lie in (top-level factors of an intersection)."""
    if support[0] == "fiber":
        return {support[1]}
    if support[0] == "and":
        return {p[1] for p in support[1:] if p[0] == "fiber"}
    return set()


def show(support: Support) -> str:
    kind = support[0]
    if kind == "fiber":
        return support[1]
    if kind in ("all", "empty"):
        return kind.upper()
    sep = " ∩ " if kind == "and" else " ∪ "
    return "(" + sep.join(show(p) for p in support[1:]) + ")"
