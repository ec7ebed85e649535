"""The index-expression language of tensor programs: `T(i,j) = relu(A(i,k) * X(k,j) + b(j))`.

Grammar (precedence climbing, left associative):
    statement := access '=' expr
    expr      := term (('+' | '-') term)*
    term      := unary (('*' | '/') unary)*
    unary     := '-' unary | primary
    primary   := NUMBER | FUNC '(' expr ')' | access | '(' expr ')'
    access    := NAME '(' [NAME (',' NAME)*] ')' | NAME        (a bare NAME is a scalar)

A bare NAME that the program declares as a dimension, and not as a tensor, is that dimension's
extent: the frontend turns it into an `Extent` (resolve_extents), and whatever evaluates the
expression puts the bound value in its place (bind_extents), so `--dim C=...` changes it.

Values are dense arrays mathematically: formats change storage and iteration, never the result.

The parser bounds what it builds (MAX_EXPR_DEPTH, MAX_EXPR_NODES, MAX_NAME_LENGTH,
MAX_STATEMENT_LENGTH): every walker of the tree, here and in the binding, the cost model,
the lowering and the simulator, recurses once per level, so a bounded depth is what keeps
them all clear of Python's recursion limit.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Element-wise functions: name -> whether f(0) == 0, which decides if it keeps sparsity.
# rsqrt(0) is 0 because the language defines x / 0 as 0 (rsqrt(x) == 1 / sqrt(x) everywhere).
FUNCTIONS: dict[str, bool] = {
    "relu": True,
    "neg": True,
    "exp": False,
    "log": False,
    "sigmoid": False,
    "sqrt": True,
    "rsqrt": True,
    "tanh": True,
    "gelu": True,
}
#: Arithmetic operations one call counts for in FLOPs (cost model and simulator alike). A function
#: a special-function unit evaluates (exp, log, sigmoid, sqrt, rsqrt, tanh) counts one; gelu, in its
#: tanh form 0.5·x·(1 + tanh(0.79788456·(x + 0.044715·x³))), is that tanh and eight more operations.
FUNCTION_FLOPS: dict[str, int] = {name: 1 for name in FUNCTIONS} | {"gelu": 9}
BINARY_OPS = ("+", "-", "*", "/")

#: Levels of nesting in one expression: each parenthesis, function call and unary minus adds
#: one, and so does each operator of a chain (`a + b + c` is two levels, as it is a tree of
#: two additions). Real ops nest a handful of levels.
MAX_EXPR_DEPTH = 64
#: Tensors, numbers, operators and function calls in one expression.
MAX_EXPR_NODES = 512
#: Characters in a tensor or index name (and, in fuseflow.program.frontend, any name).
MAX_NAME_LENGTH = 64
#: Characters in one statement: room for MAX_EXPR_NODES terms with long names.
MAX_STATEMENT_LENGTH = 20_000

_SYNTAX_FIX = "write OUT(i,j) = expr with the operators + - * /, the functions and parentheses " \
              "(docs/program-format.md, Expressions)"
_SPLIT_FIX = "split it into several ops, each computing an intermediate tensor the next one reads"


class ExprSyntaxError(ValueError):
    """A statement does not parse; `column` is 1-based within the statement text, `fix` says
    what to write instead."""

    def __init__(self, message: str, column: int, fix: str = _SYNTAX_FIX):
        self.column = column
        self.fix = fix
        super().__init__(f"{message} at column {column}")


class ExprTooLargeError(ExprSyntaxError):
    """A statement exceeds one of the parser's bounds."""

    def __init__(self, message: str, column: int):
        super().__init__(message, column, _SPLIT_FIX)


@dataclass(frozen=True)
class Access:
    tensor: str
    indices: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.tensor}({','.join(self.indices)})"


@dataclass(frozen=True)
class Const:
    value: float

    def __str__(self) -> str:
        # Whole numbers print without ".0", but 1e300 stays 1e+300 rather than 301 digits.
        if self.value.is_integer() and abs(self.value) < 1e16:
            return str(int(self.value))
        return repr(self.value)


@dataclass(frozen=True)
class Extent:
    """A dimension's extent used as a number (`Z(i,c) / C`); its value comes from the binding."""

    dim: str

    def __str__(self) -> str:
        return self.dim


@dataclass(frozen=True)
class Call:
    func: str
    arg: "Expr"

    def __str__(self) -> str:
        return f"{self.func}({self.arg})"


@dataclass(frozen=True)
class Neg:
    arg: "Expr"

    def __str__(self) -> str:
        return f"-{_wrap(self.arg)}"


@dataclass(frozen=True)
class BinOp:
    op: str
    lhs: "Expr"
    rhs: "Expr"

    def __str__(self) -> str:
        return f"{_wrap(self.lhs)} {self.op} {_wrap(self.rhs)}"


Expr = Access | Const | Extent | Call | Neg | BinOp


def _wrap(expr: Expr) -> str:
    return f"({expr})" if isinstance(expr, BinOp) else str(expr)


@dataclass(frozen=True)
class Statement:
    output: Access
    expr: Expr

    def __str__(self) -> str:
        return f"{self.output} = {self.expr}"


def map_leaves(expr: Expr, leaf) -> Expr:
    """The expression with each leaf (an Access, Const or Extent) replaced by `leaf(node)`; the
    same object where nothing changed, so evaluators that key nodes by identity see no change.
    Recursive: expressions nest at most MAX_EXPR_DEPTH deep."""
    if isinstance(expr, Call):
        arg = map_leaves(expr.arg, leaf)
        return expr if arg is expr.arg else Call(expr.func, arg)
    if isinstance(expr, Neg):
        arg = map_leaves(expr.arg, leaf)
        return expr if arg is expr.arg else Neg(arg)
    if isinstance(expr, BinOp):
        lhs, rhs = map_leaves(expr.lhs, leaf), map_leaves(expr.rhs, leaf)
        return expr if lhs is expr.lhs and rhs is expr.rhs else BinOp(expr.op, lhs, rhs)
    return leaf(expr)


def rename_tensors(expr: Expr, name_of) -> Expr:
    """The expression with each access's tensor renamed by `name_of(tensor)`."""
    return map_leaves(expr, lambda node: Access(name_of(node.tensor), node.indices)
                      if isinstance(node, Access) else node)


def accesses(expr: Expr) -> list[Access]:
    """All tensor accesses in evaluation (left-to-right) order."""
    if isinstance(expr, Access):
        return [expr]
    if isinstance(expr, (Call, Neg)):
        return accesses(expr.arg)
    if isinstance(expr, BinOp):
        return accesses(expr.lhs) + accesses(expr.rhs)
    return []


def resolve_extents(expr: Expr, is_extent) -> Expr:
    """The expression with every bare name for which `is_extent(name)` holds made an Extent."""
    return map_leaves(expr, lambda node: Extent(node.tensor) if isinstance(node, Access) and not node.indices
                      and is_extent(node.tensor) else node)


def bind_extents(expr: Expr, extents: dict[str, int]) -> Expr:
    """The expression with every Extent replaced by its bound value, a Const; the same object
    when it names no extent, so evaluators that key nodes by identity see no change."""
    return map_leaves(expr, lambda node: Const(float(extents[node.dim])) if isinstance(node, Extent) else node)


def extents_of(expr: Expr) -> list[str]:
    """The dimensions an expression uses as numbers."""
    if isinstance(expr, Extent):
        return [expr.dim]
    if isinstance(expr, (Call, Neg)):
        return extents_of(expr.arg)
    if isinstance(expr, BinOp):
        return extents_of(expr.lhs) + extents_of(expr.rhs)
    return []


def flops_per_point(expr: Expr) -> int:
    """Arithmetic operations one evaluation of the expression performs."""
    if isinstance(expr, (Access, Const, Extent)):
        return 0
    if isinstance(expr, Call):
        return FUNCTION_FLOPS[expr.func] + flops_per_point(expr.arg)
    if isinstance(expr, Neg):
        return 1 + flops_per_point(expr.arg)
    return 1 + flops_per_point(expr.lhs) + flops_per_point(expr.rhs)


def keeps_zero(expr: Expr, sparse: set[str]) -> bool:
    """True when the expression is zero wherever every sparse operand it multiplies is zero."""
    if isinstance(expr, Access):
        return expr.tensor in sparse
    if isinstance(expr, Const):
        return expr.value == 0
    if isinstance(expr, Extent):
        return False  # an extent is at least 1
    if isinstance(expr, Call):
        return FUNCTIONS[expr.func] and keeps_zero(expr.arg, sparse)
    if isinstance(expr, Neg):
        return keeps_zero(expr.arg, sparse)
    if expr.op == "*":
        return keeps_zero(expr.lhs, sparse) or keeps_zero(expr.rhs, sparse)
    if expr.op == "/":
        return keeps_zero(expr.lhs, sparse)  # x/0 is defined as 0, so 0/y stays 0
    return keeps_zero(expr.lhs, sparse) and keeps_zero(expr.rhs, sparse)


def _factors(expr: Expr) -> list[Expr]:
    """The multiplicative factors of an expression (the numerator, for a division)."""
    if isinstance(expr, BinOp) and expr.op == "*":
        return _factors(expr.lhs) + _factors(expr.rhs)
    if isinstance(expr, BinOp) and expr.op == "/":
        return _factors(expr.lhs)
    if isinstance(expr, Neg):
        return _factors(expr.arg)
    return [expr]


def is_linear_in(expr: Expr, tensor: str) -> bool:
    """True when the expression is a product in which `tensor` is one factor and appears nowhere else,
    so partial sums of that tensor may stream through it before they are complete."""
    uses = [a for a in accesses(expr) if a.tensor == tensor]
    factor_uses = [f for f in _factors(expr) if isinstance(f, Access) and f.tensor == tensor]
    return len(uses) == 1 and len(factor_uses) == 1


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d*\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<sym>[-+*/(),=]))")


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    if len(text) > MAX_STATEMENT_LENGTH:
        raise ExprTooLargeError(f"the statement is {len(text):,} characters long, more than the "
                                f"{MAX_STATEMENT_LENGTH:,} allowed", MAX_STATEMENT_LENGTH + 1)
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ExprSyntaxError(f"unexpected character {text[pos]!r}", pos + 1,
                                  "names are ASCII letters, digits and _; see docs/program-format.md, Expressions")
        kind = match.lastgroup or "sym"
        start = match.start(kind)
        value = match.group(kind)
        if kind == "name" and len(value) > MAX_NAME_LENGTH:
            raise ExprSyntaxError(f"the name {value[:20]}... is {len(value)} characters long, more than the "
                                  f"{MAX_NAME_LENGTH} allowed", start + 1, "use a shorter name")
        tokens.append((kind, value, start + 1))
        pos = match.end()
    tokens.append(("end", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.pos = 0
        self.nesting = 0                  # parentheses, calls and unary minus open right now
        self.nodes = 0
        self.depth: dict[int, int] = {}   # id(node) -> depth of its subtree (nodes live in the tree)

    def node(self, node: Expr, column: int, *children: Expr) -> Expr:
        """Count a new node and its depth against the bounds."""
        self.nodes += 1
        if self.nodes > MAX_EXPR_NODES:
            raise ExprTooLargeError(f"the expression has more than {MAX_EXPR_NODES} terms "
                                    "(tensors, numbers, operators and functions)", column)
        depth = 1 + max((self.depth[id(child)] for child in children), default=0)
        if depth > MAX_EXPR_DEPTH:
            raise self.too_deep(column)
        self.depth[id(node)] = depth
        return node

    def too_deep(self, column: int) -> ExprTooLargeError:
        return ExprTooLargeError(f"the expression nests more than {MAX_EXPR_DEPTH} levels deep (each parenthesis, "
                                 "function call, unary minus and chained operator is a level)", column)

    def nested(self, parse, column: int) -> Expr:
        """Run a parsing method one level deeper; the recursion stops at the bound."""
        self.nesting += 1
        if self.nesting > MAX_EXPR_DEPTH:
            raise self.too_deep(column)
        try:
            return parse()
        finally:
            self.nesting -= 1

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.pos]

    def take(self) -> tuple[str, str, int]:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, symbol: str, what: str) -> None:
        kind, value, column = self.take()
        if value != symbol or kind != "sym":
            found = "end of text" if kind == "end" else repr(value)
            raise ExprSyntaxError(f"expected {what} but found {found}", column)

    def statement(self) -> Statement:
        kind, name, column = self.take()
        if kind != "name":
            raise ExprSyntaxError("a statement starts with the output tensor, e.g. T(i,j) = ...", column)
        if name in FUNCTIONS:
            raise ExprSyntaxError(f"the output cannot be the function {name!r}", column)
        output = self.access_after_name(name)
        self.expect("=", "'=' after the output tensor")
        expr = self.expr()
        kind, value, column = self.peek()
        if kind != "end":
            raise ExprSyntaxError(f"unexpected {value!r} after the end of the expression", column)
        return Statement(output, expr)

    def expr(self) -> Expr:
        node = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "sym":
            _, op, column = self.take()
            rhs = self.term()
            node = self.node(BinOp(op, node, rhs), column, node, rhs)
        return node

    def term(self) -> Expr:
        node = self.unary()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "sym":
            _, op, column = self.take()
            rhs = self.unary()
            node = self.node(BinOp(op, node, rhs), column, node, rhs)
        return node

    def unary(self) -> Expr:
        if self.peek()[1] == "-" and self.peek()[0] == "sym":
            column = self.take()[2]
            arg = self.nested(self.unary, column)
            return self.node(Neg(arg), column, arg)
        return self.primary()

    def primary(self) -> Expr:
        kind, value, column = self.take()
        if kind == "num":
            number = float(value)
            if not math.isfinite(number):
                raise ExprSyntaxError(f"number {value[:20]} is not finite", column,
                                      "write a number below 1.8e308")
            return self.node(Const(number), column)
        if kind == "sym" and value == "(":
            inner = self.nested(self.expr, column)
            self.expect(")", "')' to close the parenthesis")
            return inner
        if kind == "name":
            if value in FUNCTIONS:
                self.expect("(", f"'(' after the function {value}")
                arg = self.nested(self.expr, column)
                self.expect(")", f"')' to close {value}(")
                return self.node(Call(value, arg), column, arg)
            if self._looks_like_call():
                raise ExprSyntaxError(f"unknown function {value!r}", column,
                                      f"the functions are: {', '.join(FUNCTIONS)}")
            return self.node(self.access_after_name(value), column)
        found = "end of text" if kind == "end" else repr(value)
        raise ExprSyntaxError(f"expected a tensor, a number, a function or '(' but found {found}", column)

    def _looks_like_call(self) -> bool:
        """After NAME: '(' followed by anything but a plain index list means a function call."""
        if self.tokens[self.pos][1] != "(":
            return False
        pos = self.pos + 1
        if self.tokens[pos][1] == ")":
            return False
        while True:
            if self.tokens[pos][0] != "name" or self.tokens[pos][1] in FUNCTIONS:
                return True
            if self.tokens[pos + 1][1] == ")":
                return False
            if self.tokens[pos + 1][1] != ",":
                return True
            pos += 2

    def access_after_name(self, name: str) -> Access:
        if not (self.peek()[0] == "sym" and self.peek()[1] == "("):
            return Access(name, ())
        self.take()
        indices: list[str] = []
        if self.peek()[1] == ")":
            self.take()
            return Access(name, ())
        while True:
            kind, value, column = self.take()
            if kind != "name":
                found = "end of text" if kind == "end" else repr(value)
                raise ExprSyntaxError(f"expected an index variable in {name}(...) but found {found}", column)
            indices.append(value)
            kind, value, column = self.take()
            if value == ")":
                return Access(name, tuple(indices))
            if value != ",":
                found = "end of text" if kind == "end" else repr(value)
                raise ExprSyntaxError(f"expected ',' or ')' in {name}(...) but found {found}", column)


def parse_statement(text: str) -> Statement:
    """Parse `OUT(i,j) = expr`; raises ExprSyntaxError with a column on failure."""
    return _Parser(text).statement()
