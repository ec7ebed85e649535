"""The index-expression language of tensor programs: `T(i,j) = relu(A(i,k) * X(k,j) + b(j))`.

Grammar (precedence climbing, left associative):
    statement := access '=' expr
    expr      := term (('+' | '-') term)*
    term      := unary (('*' | '/') unary)*
    unary     := '-' unary | primary
    primary   := NUMBER | FUNC '(' expr ')' | access | '(' expr ')'
    access    := NAME '(' [NAME (',' NAME)*] ')' | NAME        (a bare NAME is a scalar)

Values are dense arrays mathematically: formats change storage and iteration, never the result.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Element-wise functions: name -> whether f(0) == 0, which decides if it keeps sparsity.
FUNCTIONS: dict[str, bool] = {
    "relu": True,
    "neg": True,
    "exp": False,
    "log": False,
    "sigmoid": False,
}
BINARY_OPS = ("+", "-", "*", "/")


class ExprSyntaxError(ValueError):
    """A statement does not parse; `column` is 1-based within the statement text."""

    def __init__(self, message: str, column: int):
        self.column = column
        super().__init__(f"{message} at column {column}")


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
        return repr(self.value) if self.value != int(self.value) else str(int(self.value))


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


Expr = Access | Const | Call | Neg | BinOp


def _wrap(expr: Expr) -> str:
    return f"({expr})" if isinstance(expr, BinOp) else str(expr)


@dataclass(frozen=True)
class Statement:
    output: Access
    expr: Expr

    def __str__(self) -> str:
        return f"{self.output} = {self.expr}"


def accesses(expr: Expr) -> list[Access]:
    """All tensor accesses in evaluation (left-to-right) order."""
    if isinstance(expr, Access):
        return [expr]
    if isinstance(expr, (Call, Neg)):
        return accesses(expr.arg)
    if isinstance(expr, BinOp):
        return accesses(expr.lhs) + accesses(expr.rhs)
    return []


def flops_per_point(expr: Expr) -> int:
    """Arithmetic operations one evaluation of the expression performs."""
    if isinstance(expr, (Access, Const)):
        return 0
    if isinstance(expr, (Call, Neg)):
        return 1 + flops_per_point(expr.arg)
    return 1 + flops_per_point(expr.lhs) + flops_per_point(expr.rhs)


def keeps_zero(expr: Expr, sparse: set[str]) -> bool:
    """True when the expression is zero wherever every sparse operand it multiplies is zero."""
    if isinstance(expr, Access):
        return expr.tensor in sparse
    if isinstance(expr, Const):
        return expr.value == 0
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
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ExprSyntaxError(f"unexpected character {text[pos]!r}", pos + 1)
        kind = match.lastgroup or "sym"
        start = match.start(kind)
        tokens.append((kind, match.group(kind), start + 1))
        pos = match.end()
    tokens.append(("end", "", len(text) + 1))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.pos = 0

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
            op = self.take()[1]
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.unary()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "sym":
            op = self.take()[1]
            node = BinOp(op, node, self.unary())
        return node

    def unary(self) -> Expr:
        if self.peek() [1] == "-" and self.peek()[0] == "sym":
            self.take()
            return Neg(self.unary())
        return self.primary()

    def primary(self) -> Expr:
        kind, value, column = self.take()
        if kind == "num":
            number = float(value)
            if not math.isfinite(number):
                raise ExprSyntaxError(f"number {value} is not finite", column)
            return Const(number)
        if kind == "sym" and value == "(":
            inner = self.expr()
            self.expect(")", "')' to close the parenthesis")
            return inner
        if kind == "name":
            if value in FUNCTIONS:
                self.expect("(", f"'(' after the function {value}")
                arg = self.expr()
                self.expect(")", f"')' to close {value}(")
                return Call(value, arg)
            if self._looks_like_call():
                raise ExprSyntaxError(f"unknown function {value!r} (known: {', '.join(FUNCTIONS)})", column)
            return self.access_after_name(value)
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
