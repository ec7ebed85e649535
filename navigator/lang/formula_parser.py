"""Parse one condition formula from its text.

Grammar (a superset of Honeybee's):

    formula  := atom OP atom | NAME "{" [arg ("," arg)* [","]] "}"
    arg      := NAME "=" ("_" | atom)
    atom     := INT | STRING | "true" | "false" | NAME "." NAME
    OP       := "=" | "!=" | "<" | "<="

NAME is a letter or `_` followed by letters, digits, `_` or `-`. INT may carry a leading
minus sign. STRING is double-quoted with no escapes (as in Honeybee). Syntax errors carry
the 0-based column where parsing stopped, so the loader can point at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from navigator.lang.limits import INT_MAX, INT_MIN, int_in_range
from navigator.lang.formula import (
    COMPARISON_OPS,
    Atom,
    Comparison,
    FactPattern,
    Formula,
    Literal,
    ParamField,
    RetField,
)


class FormulaSyntaxError(Exception):
    """A formula does not parse; `column` is 0-based into the formula text."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True)
class _Token:
    kind: str  # NAME INT STRING OP PUNCT END
    text: str
    column: int


_TOKEN_RE = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<INT>-?[0-9]+)
  | (?P<NAME>[A-Za-z_][A-Za-z0-9_\-]*)
  | (?P<STRING>"[^"]*")
  | (?P<OP><=|!=|<|=)
  | (?P<PUNCT>[{}.,])
    """,
    re.VERBOSE,
)


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            char = text[pos]
            if char == '"':
                raise FormulaSyntaxError("string literal is not closed (add a closing \")", pos)
            if char == ">":
                raise FormulaSyntaxError(
                    "'>' is not an operator; swap the sides and use '<' or '<='", pos)
            raise FormulaSyntaxError(f"unexpected character {char!r}", pos)
        kind = match.lastgroup
        if kind != "space":
            tokens.append(_Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(_Token("END", "", len(text)))
    return tokens


def _shorten(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} characters)"


def _describe(token: _Token) -> str:
    return "end of formula" if token.kind == "END" else repr(_shorten(token.text))


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.index = 0

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def peek(self, offset: int = 1) -> _Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def advance(self) -> _Token:
        token = self.token
        self.index += 1
        return token

    def expect(self, kind: str, text: str | None, what: str) -> _Token:
        token = self.token
        if token.kind != kind or (text is not None and token.text != text):
            raise FormulaSyntaxError(f"expected {what}, found {_describe(token)}", token.column)
        return self.advance()

    def formula(self) -> Formula:
        token = self.token
        if token.kind == "NAME" and self.peek().kind == "PUNCT" and self.peek().text == "{":
            result: Formula = self.fact_pattern()
        else:
            left = self.atom()
            op = self.token
            if op.kind != "OP":
                raise FormulaSyntaxError(
                    f"expected an operator ({', '.join(COMPARISON_OPS)}), found {_describe(op)}",
                    op.column)
            self.advance()
            right = self.atom()
            result = Comparison(op.text, left, right)
        if self.token.kind != "END":
            raise FormulaSyntaxError(
                f"unexpected {_describe(self.token)} after a complete formula "
                "(write one formula per list entry)", self.token.column)
        return result

    def fact_pattern(self) -> FactPattern:
        prop = self.advance().text
        self.expect("PUNCT", "{", "'{'")
        args: list[tuple[str, Atom | None]] = []
        seen: set[str] = set()
        while not (self.token.kind == "PUNCT" and self.token.text == "}"):
            name_token = self.expect("NAME", None, "a field name or '}'")
            if name_token.text in seen:
                raise FormulaSyntaxError(
                    f"field {name_token.text!r} appears twice in the pattern", name_token.column)
            seen.add(name_token.text)
            self.expect("OP", "=", f"'=' after field {name_token.text!r}")
            if self.token.kind == "NAME" and self.token.text == "_":
                self.advance()
                args.append((name_token.text, None))
            else:
                args.append((name_token.text, self.atom()))
            if self.token.kind == "PUNCT" and self.token.text == ",":
                self.advance()
            elif not (self.token.kind == "PUNCT" and self.token.text == "}"):
                raise FormulaSyntaxError(
                    f"expected ',' or '}}', found {_describe(self.token)}", self.token.column)
        self.advance()
        return FactPattern(prop, tuple(args))

    def atom(self) -> Atom:
        token = self.token
        if token.kind == "INT":
            # Checked on the text: int() refuses over 4,300 digits with a ValueError.
            digits = token.text.lstrip("-")
            if len(digits) > 19 or not int_in_range(int(token.text)):
                raise FormulaSyntaxError(
                    f"the integer literal {_shorten(token.text)} is outside the 64-bit range of Int values "
                    f"({INT_MIN}..{INT_MAX})", token.column)
            self.advance()
            return Literal(int(token.text))
        if token.kind == "STRING":
            self.advance()
            return Literal(token.text[1:-1])
        if token.kind == "NAME":
            if token.text in ("true", "false") and not (
                    self.peek().kind == "PUNCT" and self.peek().text == "."):
                self.advance()
                return Literal(token.text == "true")
            if token.text == "_":
                raise FormulaSyntaxError(
                    "'_' (any value) is only allowed as a field of a fact pattern", token.column)
            self.advance()
            self.expect("PUNCT", ".", f"'.' after {token.text!r} (atoms look like ret.field, "
                        "param.field or a literal)")
            field = self.expect("NAME", None, "a field name")
            if token.text == "ret":
                return RetField(field.text)
            return ParamField(token.text, field.text)
        raise FormulaSyntaxError(
            f"expected an atom (ret.field, param.field, a number, a \"string\", true or false), "
            f"found {_describe(token)}", token.column)


def parse_formula(text: str) -> Formula:
    """Parse one formula; raises FormulaSyntaxError with a column on failure."""
    if not text.strip():
        raise FormulaSyntaxError("empty formula", 0)
    return _Parser(text).formula()
