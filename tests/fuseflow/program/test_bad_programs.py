"""Malformed programs: each gets a message naming file, line and key and saying how to fix it,
and exit code 2.

BAD_PROGRAMS drives every place the reader raises an error (test_every_reader_error_is_driven
checks that against the source), so a new check without a case here fails the suite.
"""

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import fuseflow.program.frontend
from fuseflow.support.errors import ProgramError
from fuseflow.program.frontend import parse_program
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
    ("unknown function", GOOD.replace("A(i,k) * X(k,f)", "erf(A(i,k)) * X(k,f)"),
     ["unknown function 'erf'", "the functions are: relu, neg, exp, log, sigmoid, sqrt, rsqrt, tanh, gelu"]),
    ("unknown format", GOOD.replace('"compressed"', '"csr"'), ["unknown level format 'csr'", "tensors.A.format"]),
    ("unknown dim", GOOD.replace('shape = ["N", "F"]', 'shape = ["N", "G"]'), ["unknown dimension 'G'", "[dims]"]),
    ("parse error", GOOD.replace("A(i,k) * X(k,f)", "A(i,k) * * X(k,f)"), ["cannot parse", "column"]),
    ("arity", GOOD.replace("X(k,f)", "X(k)"), ["uses 1 indices but 'X' has 2 dimensions"]),
    ("unknown key", GOOD.replace('name = "agg"', 'name = "agg"\nfusion = 3'), ["unknown key 'fusion'", "expected one of"]),
    ("missing ops", GOOD.split("[[ops]]")[0], ["missing [[ops]]"]),
    ("negative dim", GOOD.replace("N = 8", "N = -8"), ["extent must be positive", "dims.N"]),
    ("unknown reduction", GOOD + 'reduce = "mean"\n', ["unknown reduction 'mean'", "sum, max"]),
    ("origin of the wrong type", GOOD + 'origin = 3\n', ["origin must be one line of text", "ops.0.origin"]),
    ("origin on two lines", GOOD + 'origin = "gcn.mlir:3\\nlinalg.matmul"\n', ["origin must be one line"]),
    ("blank origin", GOOD + 'origin = " "\n', ["origin must be one line"]),
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


def _top(line: str) -> str:
    """GOOD with a top-level line (before the first table)."""
    return line + "\n" + GOOD


def _data(lines: str) -> str:
    return GOOD.replace("[dims]", f"[data]\n{lines}\n[dims]")


def _dims(lines: str) -> str:
    return GOOD.replace("[tensors]", f"{lines}\n[tensors]")


def _tensor(line: str) -> str:
    return GOOD.replace("[[ops]]", f"{line}\n[[ops]]")


def _op(lines: str) -> str:
    return GOOD + "[[ops]]\n" + lines + "\n"


def _expr(expr: str) -> str:
    return GOOD.replace("T(i,f) = A(i,k) * X(k,f)", expr)


WITHOUT_DIMS = GOOD.replace("[dims]\nN = 8\nF = 4\n", "")
MANY_VARS = "T(" + ",".join(f"v{k}" for k in range(9)) + ") = " + " * ".join(
    f"A(v{k},w{k})" for k in range(9))

# Hostile programs (issue 9): each a one-line ProgramError with its key and a fix.
BAD_PROGRAMS += [
    ("1,000-deep TOML arrays", _top("x = " + "[" * 1000 + "]" * 1000), ["more than 64 levels deep"]),
    ("unknown top key", _top("bogus = 1"), ["unknown key 'bogus'", "expected one of"]),
    ("description with a newline", _top('description = "two\\nlines"'), ["description", "one line"]),
    ("description of the wrong type", _top("description = 3"), ["[description]"]),
    ("program name with a slash", GOOD.replace('name = "p"', 'name = "../evil"'), ["not a valid program name"]),
    ("empty program name", GOOD.replace('name = "p"', 'name = ""'), ["not a valid program name"]),
    ("program name of the wrong type", GOOD.replace('name = "p"', "name = 5"), ["not a valid program name"]),
    ("data of the wrong type", _top("data = 5"), ["[data]", "must be a table"]),
    ("unknown data key", _data("foo = 1"), ["unknown key 'foo'", "data.foo"]),
    ("unknown preset", _data('preset = "nope"'), ["unknown graph preset 'nope'", "cora"]),
    ("preset of the wrong type", _data("preset = 3"), ["unknown graph preset 3"]),
    ("flag of the wrong type", _data('symmetrize = "yes"'), ["must be true or false", "data.symmetrize"]),
    ("normalize of the wrong type", _data("normalize = [1]"), ["unknown normalization [1]"]),
    ("negative seed", _data("seed = -1"), ["data.seed", "from 0 to 2**63 - 1"]),
    ("huge seed", _data(f"seed = {2**64}"), ["data.seed", "from 0 to 2**63 - 1"]),
    ("seed of the wrong type", _data("seed = 1.5"), ["data.seed"]),
    ("missing dims", WITHOUT_DIMS, ["missing [dims] table"]),
    ("empty dims", _dims("").replace("N = 8\nF = 4\n", ""), ["[dims]", "non-empty table"]),
    ("too many dims", _dims("\n".join(f"D{k} = 2" for k in range(1000))), ["1,002 dimensions", "more than the 1,000"]),
    ("dimension name with a space", _dims('"N N" = 3'), ["'N N' is not a valid dimension name"]),
    ("unicode dimension name", _dims('"Ñ" = 3'), ["is not a valid dimension name", "ASCII"]),
    ("empty dimension name", _dims('"" = 3'), ["'' is not a valid dimension name"]),
    ("dimension name with a newline", _dims('"a\\nb" = 3'), ["'a\\nb' is not a valid dimension name"]),
    ("fractional extent", GOOD.replace("N = 8", "N = 1.5"), ["an extent is a positive integer", "dims.N"]),
    ("date extent", GOOD.replace("N = 8", "N = 1979-05-27"), ["an extent is a positive integer"]),
    ("nan extent", GOOD.replace("N = 8", "N = nan"), ["an extent is a positive integer", "nan"]),
    ("zero extent", GOOD.replace("N = 8", "N = 0"), ["extent must be positive, got 0", "e.g. N = 64"]),
    ("extent 10**30", GOOD.replace("N = 8", f"N = {10**30}"), ["larger than 2**40", "dims.N"]),
    ("extent 2**63", GOOD.replace("N = 8", f"N = {2**63}"), ["larger than 2**40"]),
    ("unknown binding", GOOD.replace("N = 8", 'N = "graph.edges"'), ["unknown data binding 'graph.edges'"]),
    ("missing tensors", '[dims]\nN = 8\n[[ops]]\nexpr = "T(i) = X(i)"\n', ["missing [tensors] table"]),
    ("tensors of the wrong type", 'tensors = 5\n[dims]\nN = 8\n[[ops]]\nexpr = "T(i) = X(i)"\n',
     ["[tensors]", "must be a table of tensors"]),
    ("too many tensors", _tensor("\n".join(f'Z{k} = {{ shape = ["N"], source = "ones" }}' for k in range(1000))),
     ["1,002 tensors"]),
    ("tensor name with a dash", _tensor('"A-1" = { shape = ["N"], source = "ones" }'),
     ["'A-1' is not a valid tensor name"]),
    ("long tensor name", _tensor(f'{"Z" * 65} = {{ shape = ["N"], source = "ones" }}'),
     ["is not a valid tensor name", "at most 64 characters"]),
    ("tensor named like a function", _tensor('relu = { shape = ["N"], source = "ones" }'),
     ["'relu' is the name of a function"]),
    ("tensor named like gelu", _tensor('gelu = { shape = ["N"], source = "ones" }'),
     ["'gelu' is the name of a function"]),
    ("function without an argument", _expr("T(i,f) = sqrt() * X(i,f)"), ["cannot parse", "column"]),
    ("tensor of the wrong type", _tensor("Z = 5"), ["tensors.Z", "must be a table"]),
    ("unknown tensor key", _tensor('Z = { shape = ["N"], source = "ones", colour = 1 }'), ["unknown key 'colour'"]),
    ("shape of the wrong type", _tensor('Z = { shape = "N", source = "ones" }'), ["shape must be a list"]),
    ("tensor of 17 dimensions", _tensor('Z = { shape = [' + ", ".join(['"N"'] * 17) + '], source = "ones" }'),
     ["17 dimensions, more than the 16"]),
    ("format of the wrong type", _tensor('Z = { shape = ["N"], format = "dense", source = "ones" }'),
     ["format must be a list"]),
    ("nan density", GOOD.replace("density = 0.5", "density = nan"), ["density must be a number in (0, 1]", "nan"]),
    ("inf density", GOOD.replace("density = 0.5", "density = inf"), ["density must be a number in (0, 1]", "inf"]),
    ("density of the wrong type", GOOD.replace("density = 0.5", 'density = "half"'), ["density must be a number"]),
    ("density without a random source", _tensor('Z = { shape = ["N"], source = "bigbird", density = 0.5 }'),
     ["density applies only to source = \"random\""]),
    ("zero block", GOOD.replace("density = 0.5", "density = 0.5, block = 0"), ["block must be a whole number"]),
    ("huge block", GOOD.replace("density = 0.5", f"density = 0.5, block = {10**30}"), ["from 1 to 4096"]),
    ("boolean block", GOOD.replace("density = 0.5", "density = 0.5, block = true"), ["block must be a whole number"]),
    ("block on one level", _tensor('Z = { shape = ["N"], source = "random", density = 0.5, block = 2 }'),
     ["block-sparse data needs at least two levels"]),
    ("block larger than the matrix", GOOD.replace("density = 0.5", "density = 0.5, block = 16"),
     ["block 16 is larger than dimension N = 8", "at most 8"]),
    ("ops of the wrong type", GOOD.replace("[[ops]]", "[ops]"), ["[ops]", "array of tables"]),
    ("too many ops", GOOD + "".join(f'[[ops]]\nexpr = "U{k}(i,f) = T(i,f)"\n' for k in range(1000)),
     ["1,001 ops, more than the 1,000"]),
    ("reduction of the wrong type", GOOD + "reduce = []\n", ["unknown reduction []"]),
    ("op name with a plus", GOOD.replace('name = "agg"', 'name = "a+b"'), ["'a+b' is not a valid op name"]),
    ("op name of the wrong type", GOOD.replace('name = "agg"', "name = 5"), ["5 is not a valid op name"]),
    ("empty op name", GOOD.replace('name = "agg"', 'name = ""'), ["'' is not a valid op name"]),
    ("op named like another tensor", GOOD.replace('name = "agg"', 'name = "X"'),
     ["op name 'X' is the name of another tensor", "ops.0.name"]),
    ("tensor never computed", _tensor('Z = { shape = ["N"] }'), ["tensor 'Z' has no source and no op computes it"]),
    ("op entry of the wrong type", GOOD.split("[[ops]]")[0].replace("[dims]", "ops = [1]\n[dims]"),
     ["ops.0", "must be a table"]),
    ("missing expr", GOOD.replace('expr = "T(i,f) = A(i,k) * X(k,f)"\n', ""), ["missing expr"]),
    ("expr of the wrong type", GOOD.replace('expr = "T(i,f) = A(i,k) * X(k,f)"', "expr = 5"),
     ["expr must be a string"]),
    ("400 terms", _expr("T(i,f) = " + " + ".join(["X(i,f)"] * 400)), ["nests more than 64 levels", "split it"]),
    ("400 parentheses", _expr("T(i,f) = " + "(" * 400 + "X(i,f)" + ")" * 400), ["nests more than 64 levels"]),
    ("500 nested relu", _expr("T(i,f) = " + "relu(" * 500 + "X(i,f)" + ")" * 500), ["nests more than 64 levels"]),
    ("2000 unary minus", _expr("T(i,f) = " + "-" * 2000 + "X(i,f)"), ["nests more than 64 levels"]),
    ("a sum of 70 products", _expr("T(i,f) = " + " + ".join(["(X(i,f) * X(i,f) * X(i,f))"] * 70)),
     ["more than 64 levels"]),
    ("too many terms", _expr("T(i,f) = " + " + ".join(
        "(" + " * ".join(["X(i,f)"] * 12) + ")" for _ in range(30))), ["more than 512 terms"]),
    ("statement too long", _expr("T(i,f) = X(i,f)" + " " * 20_000), ["more than the 20,000 allowed"]),
    ("long index name", _expr(f"T(i,f) = X(i,f) * A(i,{'k' * 65})"), ["more than the 64 allowed", "shorter name"]),
    ("unicode tensor in an expression", _expr("T(i,f) = Ä(i,f)"), ["unexpected character 'Ä'"]),
    ("infinite number", _expr("T(i,f) = X(i,f) * 1e999"), ["number 1e999 is not finite"]),
    ("empty expr", _expr(""), ["cannot parse ''", "a statement starts with the output tensor"]),
    ("tensor computed twice", _op('expr = "T(i,f) = X(i,f)"'), ["tensor 'T' is already computed by op 1"]),
    ("output repeats an index", _expr("T(i,i) = A(i,k) * X(k,i)"), ["output T(i,i) repeats an index"]),
    ("op reads its own output", _expr("T(i,f) = T(i,f) + X(i,f)"), ["op reads its own output 'T'"]),
    ("op reads its own declared output", _tensor('T = { shape = ["N", "F"] }').replace(
        "A(i,k) * X(k,f)", "T(i,f) * X(i,f)"), ["op reads its own output 'T'"]),
    ("declared tensor read but never computed", _tensor('U = { shape = ["N", "F"] }').replace(
        "A(i,k) * X(k,f)", "U(i,f) * X(i,f)"), ["tensor 'U' has no source and no op computes it", "ops.0.expr"]),
    ("declared tensor read before it is computed", _tensor('U = { shape = ["N", "F"] }').replace(
        "A(i,k) * X(k,f)", "U(i,f) * X(i,f)") + '[[ops]]\nexpr = "U(i,f) = X(i,f)"\n',
     ["tensor 'U' is used before the op that computes it"]),
    ("declared output of another arity", _tensor('T = { shape = ["N"] }'), ["T(i,f) uses 2 indices but 'T' is declared"]),
    ("an op of 18 index variables", GOOD.replace("T(i,f) = A(i,k) * X(k,f)", MANY_VARS),
     ["18 index variables, more than the 16"]),
    ("adjacency not square", _data('preset = "cora"').replace('source = "random", density = 0.5',
                                                             'source = "graph.adjacency"').replace(
        'A = { shape = ["N", "N"]', 'A = { shape = ["N", "F"]').replace("A(i,k) * X(k,f)", "A(i,f) * X(i,f)"),
     ["graph.adjacency needs a square two-dimensional tensor"]),
    ("features not two-dimensional", _data('preset = "cora"') .replace(
        "[[ops]]", 'G = { shape = ["N"], source = "graph.features" }\n[[ops]]'),
     ["graph.features needs a two-dimensional tensor"]),
    # BigBird masks: source = "bigbird" with a block and an optional pattern
    ("pattern without bigbird", GOOD.replace("density = 0.5", "density = 0.5, pattern = { window = 3 }"),
     ["pattern applies only to source = \"bigbird\"", "tensors.A.pattern"]),
    ("bigbird of one dimension", _tensor('M = { shape = ["N"], source = "bigbird" }'),
     ["a bigbird mask has two dimensions"]),
    ("bigbird without a block", _tensor('M = { shape = ["N", "N"], source = "bigbird" }'),
     ["a bigbird mask needs the edge of its blocks", "block = 16"]),
    ("bigbird pattern of the wrong type", _tensor('M = { shape = ["N", "N"], source = "bigbird", block = 2, '
                                                  'pattern = 3 }'), ["tensors.M.pattern", "must be a table"]),
    ("bigbird pattern key", _tensor('M = { shape = ["N", "N"], source = "bigbird", block = 2, pattern = { rand = 1 } }'),
     ["unknown key 'rand'", "causal, global, random, window"]),
    ("bigbird causal of the wrong type", _tensor('M = { shape = ["N", "N"], source = "bigbird", block = 2, '
                                                 'pattern = { causal = 1 } }'), ["causal must be true or false"]),
    ("bigbird negative random", _tensor('M = { shape = ["N", "N"], source = "bigbird", block = 2, '
                                        'pattern = { random = -1 } }'),
     ["tensors.M.pattern.random", "random must be a whole number of blocks from 0 to 4096, got -1"]),
    ("bigbird even window", _tensor('M = { shape = ["N", "N"], source = "bigbird", block = 2, '
                                    'pattern = { window = 2 } }'), ["window must be odd", "window = 3"]),
    # repeated blocks (tests/fuseflow/program/test_repeats.py has the rest): what the frontend checks itself
    ("placeholder in a top-level tensor", _tensor('"W{l}" = { shape = ["F", "F"], source = "random" }'),
     ["a placeholder in a tensor's name is read only in a repeated block", "tensors.'W{l}'"]),
    ("tensor declared by a block and at the top", _dims("layers = 2").replace(
        "[[ops]]", 'H1 = { shape = ["N", "F"], source = "random" }\n[[ops]]') +
     '[[repeat]]\ntimes = "layers"\nindex = "l"\n[repeat.tensors]\n"H{l}" = { shape = ["N", "F"], '
     'source = "random" }\n[[repeat.ops]]\nexpr = "U{l}(i,f) = H{l}(i,f) * T(i,f)"\n',
     ["tensor 'H1' is declared twice, the first time at bad.toml:", "[repeat.0.tensors.'H{l}', block l=1]"]),
    ("a tensor's name that is also a dimension", _tensor('F = { shape = ["N", "F"], source = "random" }') +
     '[[ops]]\nexpr = "U(i,f) = T(i,f) / F"\n',
     ["F() uses 0 indices but 'F' has 2 dimensions", "hides the dimension of that name"]),
]


@pytest.mark.parametrize("description,text,fragments", BAD_PROGRAMS, ids=[b[0] for b in BAD_PROGRAMS])
def test_bad_program_message(description, text, fragments):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "bad.toml")
    error = info.value
    message = str(error)
    assert message.startswith("bad.toml")
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    # The contract: where (the file, with the line and key when there is one), what, and the fix.
    assert error.where.startswith("bad.toml") and error.fix, message
    assert "\n" not in message and len(message) < 600, message


def _error_sites() -> dict[int, int]:
    """First line -> last line of every call in fuseflow/program/frontend.py that can raise a ProgramError."""
    raisers = {"fail", "identifier", "at_most", "table", "unknown_keys"}
    tree = ast.parse(Path(fuseflow.program.frontend.__file__).read_text(encoding="utf-8"))
    return {node.lineno: node.end_lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in raisers and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("check", "self")}


def test_every_reader_error_is_driven():
    """Each call that can raise is on the traceback of some case of BAD_PROGRAMS."""
    source = str(Path(fuseflow.program.frontend.__file__))
    reached: set[int] = set()
    for _, text, _ in BAD_PROGRAMS:
        with pytest.raises(ProgramError) as info:
            parse_program(text, "bad.toml")
        tb = info.value.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == source:
                reached.add(tb.tb_lineno)
            tb = tb.tb_next
    sites = _error_sites()
    missed = [line for line, end in sorted(sites.items()) if not any(line <= r <= end for r in reached)]
    assert len(sites) > 50 and not missed, f"no case in BAD_PROGRAMS reaches fuseflow/program/frontend.py lines {missed}"


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
