"""The condition-formula parser: Honeybee's grammar plus `<=` and negative literals."""

from __future__ import annotations

import pytest

from navigator.lang import (
    Comparison,
    FactPattern,
    FormulaSyntaxError,
    Literal,
    ParamField,
    RetField,
    parse_formula,
)


@pytest.mark.parametrize("text, expected", [
    ("ret.x = in.x", Comparison("=", RetField("x"), ParamField("in", "x"))),
    ("raster.resolution < ret.resolution",
     Comparison("<", ParamField("raster", "resolution"), RetField("resolution"))),
    ("0 < ret.resolution", Comparison("<", Literal(0), RetField("resolution"))),
    ('ret.name != "bad"', Comparison("!=", RetField("name"), Literal("bad"))),
    ("ret.on = true", Comparison("=", RetField("on"), Literal(True))),
    ("ret.par <= next.par", Comparison("<=", RetField("par"), ParamField("next", "par"))),
    ("ret.x = -3", Comparison("=", RetField("x"), Literal(-3))),
    ("my-param.some_field = 1", Comparison("=", ParamField("my-param", "some_field"), Literal(1))),
    ("In { x = ret.x }", FactPattern("In", (("x", RetField("x")),))),
    ("P_Tensor { name = ret.name, path = _, order = 2 }",
     FactPattern("P_Tensor", (("name", RetField("name")), ("path", None), ("order", Literal(2))))),
    ("Empty {}", FactPattern("Empty", ())),
    ("P { a = 1, }", FactPattern("P", (("a", Literal(1)),))),
    ("InputRaster {\n    name = ret.name,\n    data = ret.data\n}",
     FactPattern("InputRaster", (("name", RetField("name")), ("data", RetField("data"))))),
])
def test_parses(text, expected):
    assert parse_formula(text) == expected


def test_round_trips_through_str():
    for text in ["ret.x <= a.y", 'P { a = _, b = "s", c = ret.c }', "1 != ret.n"]:
        assert str(parse_formula(text)) == text


@pytest.mark.parametrize("text, fragment, column", [
    ("ret.x < = 3", "expected an atom", 8),
    ("ret.x > 1", "'>' is not an operator", 6),
    ("ret.x", "expected an operator", 5),
    ("ret.x = ", "found end of formula", 8),
    ('ret.s = "open', "string literal is not closed", 8),
    ("P { a = 1, a = 2 }", "appears twice", 11),
    ("P { a = 1 b = 2 }", "expected ',' or '}'", 10),
    ("ret.x = _", "only allowed as a field of a fact pattern", 8),
    ("ret.x = 1 ret.y = 2", "after a complete formula", 10),
    ("", "empty formula", 0),
    ("ret.x = 1 & ret.y", "unexpected character '&'", 10),
])
def test_syntax_errors_say_where(text, fragment, column):
    with pytest.raises(FormulaSyntaxError) as info:
        parse_formula(text)
    assert fragment in info.value.message
    assert info.value.column == column
