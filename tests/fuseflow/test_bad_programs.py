"""Malformed programs: each gets a message naming file, line and key, and exit code 2."""

import pytest
from hypothesis import given, settings, strategies as st

from fuseflow.errors import ProgramError
from fuseflow.frontend import parse_program
from navigator.cli import main

GOOD = '''name = "p"
[dims]
N = 8
F = 4
[tensors]
A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.5 }
X = { shape = ["N", "F"], format = ["dense", "dense"], source = "random" }
[[ops]]
name = "agg"
expr = "T(i,f) = A(i,k) * X(k,f)"
'''

# (description, text, fragments the message must contain)
BAD_PROGRAMS = [
    ("toml syntax", GOOD.replace('N = 8', 'N = = 8'), ["TOML syntax error", "line 3"]),
    ("unknown tensor", GOOD.replace("X(k,f)", "Y(k,f)"), ["unknown tensor 'Y'", ":10", "ops.0.expr"]),
    ("two extents", GOOD.replace("X(k,f)", "X(f,k)"), ["index 'k' is used with two different extents", ":10"]),
    ("format length", GOOD.replace('format = ["dense", "dense"]', 'format = ["dense"]'),
     ["format lists 1 levels but the shape has 2", ":7", "tensors.X.format"]),
    ("unknown function", GOOD.replace("A(i,k) * X(k,f)", "tanh(A(i,k)) * X(k,f)"),
     ["unknown function 'tanh'", "relu"]),
    ("unknown format", GOOD.replace('"compressed"', '"csr"'), ["unknown level format 'csr'", "tensors.A.format"]),
    ("unknown dim", GOOD.replace('shape = ["N", "F"]', 'shape = ["N", "G"]'), ["unknown dimension 'G'", "[dims]"]),
    ("parse error", GOOD.replace("A(i,k) * X(k,f)", "A(i,k) * * X(k,f)"), ["cannot parse", "column"]),
    ("arity", GOOD.replace("X(k,f)", "X(k)"), ["uses 1 indices but 'X' has 2 dimensions"]),
    ("unknown key", GOOD.replace('name = "agg"', 'name = "agg"\nfusion = 3'), ["unknown key 'fusion'", "expected one of"]),
    ("missing ops", GOOD.split("[[ops]]")[0], ["missing [[ops]]"]),
    ("negative dim", GOOD.replace("N = 8", "N = -8"), ["extent must be positive", "dims.N"]),
    ("unknown reduction", GOOD + 'reduce = "mean"\n', ["unknown reduction 'mean'", "sum, max"]),
    ("free output index", GOOD.replace("T(i,f)", "T(i,g)"), ["output index 'g' does not appear"]),
    ("writes an input", GOOD.replace("T(i,f) =", "X(i,f) ="), ["op writes 'X', which is an input"]),
    ("unknown source", GOOD.replace('source = "random" }\n[[', 'source = "http" }\n[['), ["unknown data source 'http'"]),
    ("bad density", GOOD.replace("density = 0.5", "density = 2"), ["density must be a number in (0, 1]"]),
    ("graph without preset", GOOD.replace("N = 8", 'N = "graph.vertices"'), ["names no preset"]),
    ("duplicate op", GOOD + '[[ops]]\nname = "agg"\nexpr = "U(i,f) = T(i,f)"\n', ["duplicate op name 'agg'"]),
    ("diagonal", GOOD.replace("A(i,k) * X(k,f)", "A(k,k) * X(k,f)"), ["repeats an index"]),
    ("use before def", GOOD.replace('expr = "T(i,f) = A(i,k) * X(k,f)"',
                                    'expr = "T(i,f) = U(i,f)"\n[[ops]]\nexpr = "U(i,f) = A(i,k) * X(k,f)"'),
     ["used before the op that computes it"]),
]


@pytest.mark.parametrize("description,text,fragments", BAD_PROGRAMS, ids=[b[0] for b in BAD_PROGRAMS])
def test_bad_program_message(description, text, fragments):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "bad.toml")
    message = str(info.value)
    assert message.startswith("bad.toml")
    for fragment in fragments:
        assert fragment in message, (fragment, message)


@pytest.mark.parametrize("description,text,fragments", BAD_PROGRAMS[:6], ids=[b[0] for b in BAD_PROGRAMS[:6]])
def test_bad_program_exits_2_with_one_line(tmp_path, capsys, description, text, fragments):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert fragments[0] in err


def test_good_program_loads():
    program = parse_program(GOOD, "good.toml")
    assert [op.name for op in program.ops] == ["agg"]
    assert program.op_by_name["agg"].reduction_vars == ("k",)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_parser_fuzz_sees_only_clean_errors(text):
    try:
        parse_program(text, "fuzz.toml")
    except ProgramError as exc:
        assert str(exc).startswith("fuzz.toml")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("TAXik(),=*+-/ relu exp0.5\n")), max_size=60))
def test_expression_fuzz_sees_only_clean_errors(expr):
    text = GOOD.replace("T(i,f) = A(i,k) * X(k,f)", expr.replace('"', "").replace("\n", " "))
    try:
        parse_program(text, "fuzz.toml")
    except ProgramError as exc:
        assert str(exc).startswith("fuzz.toml")
