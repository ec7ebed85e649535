"""Repeated blocks in the program format (`[[repeat]]`, fuseflow/program/repeats.py): a block written
once is the program written out by hand, its count comes from the dimensions (the command
line's --dim first), it runs where the top-level ops need it, and every mistake is one message
naming the file, line, key and block, with a fix; a count too large is refused before anything
is expanded.

BAD_REPEATS drives every place fuseflow/program/repeats.py raises (test_every_repeat_error_is_driven
checks that against the source)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import fuseflow.program.frontend
import fuseflow.program.repeats
from fuseflow.program.binding import bind
from fuseflow.support.errors import DataError, ProgramError
from fuseflow.program.frontend import MAX_OPS, parse_program

# A residual GCN with a classifier head: three ops per layer, then one op reading the last layer.
DEEP = '''name = "deep"
[dims]
N = 8
F = 4
C = 3
layers = 2
[tensors]
A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.5 }
H0 = { shape = ["N", "F"], source = "random" }
Wout = { shape = ["F", "C"], source = "random" }

[[repeat]]
times = "layers"
index = "l"

[repeat.tensors]
"W{l}" = { shape = ["F", "F"], source = "random" }

[[repeat.ops]]
name = "aggregate{l}"
expr = "AH{l}(i,f) = A(i,k) * H{l-1}(k,f)"

[[repeat.ops]]
name = "transform{l}"
expr = "XW{l}(i,h) = AH{l}(i,f) * W{l}(f,h)"

[[repeat.ops]]
name = "activate{l}"
expr = "H{l}(i,h) = relu(XW{l}(i,h) + H{l-1}(i,h))"

[[ops]]
name = "head"
expr = "Z(i,c) = H{layers}(i,f) * Wout(f,c)"
'''


def unrolled(layers: int) -> str:
    """DEEP written out by hand, layer by layer."""
    lines = ['name = "deep"', "[dims]", "N = 8", "F = 4", "C = 3", f"layers = {layers}", "[tensors]",
             'A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.5 }',
             'H0 = { shape = ["N", "F"], source = "random" }', 'Wout = { shape = ["F", "C"], source = "random" }']
    lines += [f'W{l} = {{ shape = ["F", "F"], source = "random" }}' for l in range(1, layers + 1)]
    for l in range(1, layers + 1):
        lines += ["[[ops]]", f'name = "aggregate{l}"', f'expr = "AH{l}(i,f) = A(i,k) * H{l - 1}(k,f)"',
                  "[[ops]]", f'name = "transform{l}"', f'expr = "XW{l}(i,h) = AH{l}(i,f) * W{l}(f,h)"',
                  "[[ops]]", f'name = "activate{l}"', f'expr = "H{l}(i,h) = relu(XW{l}(i,h) + H{l - 1}(i,h))"']
    lines += ["[[ops]]", 'name = "head"', f'expr = "Z(i,c) = H{layers}(i,f) * Wout(f,c)"']
    return "\n".join(lines) + "\n"


def shape_of(program):
    """What a program computes, without the lines it was written on."""
    ops = [(op.name, str(op.statement), op.reduce) for op in program.ops]
    tensors = {name: (d.dims, d.formats, d.source, d.density, d.block) for name, d in program.tensors.items()}
    return ops, tensors, program.dims


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=60))
def test_a_repeated_block_is_the_program_written_out(layers):
    expanded = parse_program(DEEP, "deep.toml", {"layers": layers})
    assert shape_of(expanded) == shape_of(parse_program(unrolled(layers), "unrolled.toml"))
    assert len(expanded.ops) == 3 * layers + 1
    assert expanded.repeat_dims == ("layers",)


def test_the_count_defaults_to_the_dimension_and_is_its_extent():
    program = parse_program(DEEP, "deep.toml")
    assert [op.name for op in program.ops] == ["aggregate1", "transform1", "activate1", "aggregate2", "transform2",
                                               "activate2", "head"]
    assert bind(program).extents["layers"] == 2
    assert bind(parse_program(DEEP, "deep.toml", {"layers": 5}), dims={"layers": 5}).extents["layers"] == 5


def test_other_overrides_leave_the_count_alone():
    program = parse_program(DEEP, "deep.toml", {"N": 16})
    assert len(program.ops) == 7 and program.dims["N"] == 8  # N is bound later, by bind()
    assert bind(program, dims={"N": 16}).extents == {"N": 16, "F": 4, "C": 3, "layers": 2}


def test_binding_refuses_a_count_the_program_was_not_read_with():
    program = parse_program(DEEP, "deep.toml")
    with pytest.raises(DataError, match="counts the program's repeated blocks.*layers=2, not 3"):
        bind(program, dims={"layers": 3})


def test_a_literal_count_and_the_last_block_named_by_number():
    text = DEEP.replace('times = "layers"', "times = 3").replace("H{layers}", "H3")
    program = parse_program(text, "deep.toml", {"layers": 7})  # layers no longer counts anything
    assert len(program.ops) == 10 and program.repeat_dims == ()


def test_blocks_run_before_the_first_top_level_op_that_reads_them():
    text = DEEP.replace('H0 = { shape = ["N", "F"], source = "random" }', 'X = { shape = ["N", "F"], source = "random" }')
    text += '[[ops]]\nname = "embed"\nexpr = "H0(i,f) = relu(X(i,f))"\n'  # listed last, read by block 1
    text = text.replace('[[ops]]\nname = "head"', '[[ops]]\nname = "embed_first"\nexpr = "E(i,f) = X(i,f) * 2"\n'
                                                   '[[ops]]\nname = "head"')
    with pytest.raises(ProgramError, match="tensor 'H0' is used before the op that computes it"):
        parse_program(text, "deep.toml")  # the blocks run before `head`, so before `embed`
    text = text.replace('[[ops]]\nname = "embed"\nexpr = "H0(i,f) = relu(X(i,f))"\n', "").replace(
        '[[ops]]\nname = "embed_first"', '[[ops]]\nname = "embed"\nexpr = "H0(i,f) = relu(X(i,f))"\n'
                                         '[[ops]]\nname = "embed_first"')
    names = [op.name for op in parse_program(text, "deep.toml").ops]
    assert names == ["embed", "embed_first", "aggregate1", "transform1", "activate1", "aggregate2", "transform2",
                     "activate2", "head"]


def test_a_later_repeat_never_runs_before_an_earlier_one():
    second = ('[[repeat]]\ntimes = 2\nindex = "r"\n[[repeat.ops]]\nname = "extra{r}"\n'
              'expr = "G{r}(i,f) = H2(i,f) * {r}"\n')
    text = DEEP.replace("[[ops]]\nname = \"head\"", second + "[[ops]]\nname = \"head\"")
    text = text.replace("H{layers}(i,f) * Wout", "G2(i,f) * Wout")
    names = [op.name for op in parse_program(text, "deep.toml").ops]
    assert names[-3:] == ["extra1", "extra2", "head"] and names.index("activate2") < names.index("extra1")


def test_a_repeat_count_can_also_be_an_extent_and_a_number():
    text = DEEP.replace('Wout = { shape = ["F", "C"], source = "random" }',
                        'Wout = { shape = ["F", "C"], source = "random" }\nper = { shape = ["layers"], source = "ones" }')
    text += '[[ops]]\nname = "depth"\nexpr = "d(j) = per(j) / layers"\n'
    program = parse_program(text, "deep.toml", {"layers": 4})
    assert bind(program, dims={"layers": 4}).extents["layers"] == 4
    assert str(program.op_by_name["depth"].statement) == "d(j) = per(j) / layers"


def test_the_count_is_refused_before_anything_is_expanded(monkeypatch):
    def never(*args):
        raise AssertionError("expanded before the count was checked")

    monkeypatch.setattr(fuseflow.program.frontend, "expand_ops", never)
    monkeypatch.setattr(fuseflow.program.frontend, "expand_tensors", never)
    with pytest.raises(ProgramError) as info:
        parse_program(DEEP, "deep.toml", {"layers": 10**18})
    assert info.value.where == "--dim"
    assert str(info.value).endswith(f"(use --dim layers=N with N at most {(MAX_OPS - 1) // 3})")
    assert "layers = 1,000,000,000,000,000,000 blocks of 3 ops" in str(info.value)


def test_the_largest_count_allowed_is_allowed():
    assert len(parse_program(DEEP, "deep.toml", {"layers": (MAX_OPS - 1) // 3}).ops) == MAX_OPS
    with pytest.raises(ProgramError, match="more than the 1,000 a program may have"):
        parse_program(DEEP, "deep.toml", {"layers": (MAX_OPS - 1) // 3 + 1})


def _repeat(**changes) -> str:
    text = DEEP
    for old, new in changes.items():
        text = text.replace(*{"times": ('times = "layers"', new), "index": ('index = "l"', new),
                              "head": ("H{layers}(i,f)", new), "first": ("H{l-1}(k,f)", new),
                              "tensor": ('"W{l}" = { shape', new), "name": ('name = "transform{l}"', new),
                              "output": ("XW{l}(i,h) = AH", new), "dims": ("layers = 2", new)}[old])
    return text


# (description, text, overrides, fragments the message must contain)
BAD_REPEATS = [
    ("repeat is a table", DEEP.replace("[[repeat]]", "[repeat]").replace("[repeat.tensors]", "[repeat.tensors]"),
     None, ["[repeat]", "must be an array of tables"]),
    ("nested repeat", _repeat(index='index = "l"\n[[repeat.repeat]]\ntimes = 2'), None,
     ["[repeat.0.repeat]", "a [[repeat]] inside a [[repeat]] is not supported"]),
    ("unknown key", _repeat(index='index = "l"\ncount = 3'), None, ["unknown key 'count'", "index, ops, tensors, times"]),
    ("no index", _repeat(index=""), None, [":12 [repeat.0]", "missing index"]),
    ("index of the wrong type", _repeat(index="index = 3"), None, ["3 is not a valid index name"]),
    ("index that is a dimension", _repeat(index='index = "N"'), None, ["index 'N' is also a dimension's name"]),
    ("no times", _repeat(times=""), None, ["missing times"]),
    ("times of the wrong type", _repeat(times="times = 2.5"), None, ["times must be a dimension's name or a whole"]),
    ("times zero", _repeat(times="times = 0"), None, ["[repeat.0.times]", "a repeat count must be at least 1, got 0"]),
    ("times an unknown dimension", _repeat(times='times = "depth"'), None, ["unknown dimension 'depth'", "N, F, C"]),
    ("count of zero on the command line", DEEP, {"layers": 0}, ["--dim", "at least 1, got 0"]),
    ("negative count on the command line", DEEP, {"layers": -4}, ["--dim", "at least 1, got -4"]),
    ("count bound to the data", _repeat(dims='layers = "graph.vertices"'), None,
     ["dimension layers = 'graph.vertices' is bound to the data"]),
    ("tensors of the wrong type", DEEP.replace('[repeat.tensors]\n"W{l}" = { shape = ["F", "F"], source = "random" }',
                                               "tensors = 3").replace("W{l}(f,h)", "Wout(f,h)"),
     None, ["[repeat.0.tensors]", "must be a table of tensors"]),
    ("no ops", DEEP.split("[[repeat.ops]]")[0] + '[[ops]]\nexpr = "Z(i,f) = H0(i,f)"\n', None,
     ["a [[repeat]] needs at least one op"]),
    ("ops of the wrong type", DEEP.split("[[repeat.ops]]")[0].replace('index = "l"', 'index = "l"\nops = 3'),
     None, ["must be an array of tables, one [[repeat.ops]] entry per op"]),
    ("the same tensor in every block", _repeat(tensor='W = { shape').replace("W{l}(f,h)", "W(f,h)"), None,
     ["[repeat.0.tensors.W]", "tensor 'W' would have the same name in every block", 'e.g. "W{l}"']),
    ("the same output in every block", _repeat(output="XW(i,h) = AH"), None,
     ["[repeat.0.ops.1.expr]", "the output 'XW' would be computed again by every block"]),
    ("the same op name in every block", _repeat(name='name = "transform"'), None,
     ["[repeat.0.ops.1.name]", "op name 'transform' would be the same in every block"]),
    ("a placeholder typo", _repeat(first="H{k-1}(k,f)"), None,
     [":21 [repeat.0.ops.0.expr, block l=1]", "unknown placeholder {k-1}", "{l} (this block"]),
    ("a block before the first", _repeat(first="H{l-2}(k,f)"), None,
     ["block l=1]", "{l-2} is -1 in block 1, which names no block"]),
    ("a block after the last", _repeat(first="H{l+1}(k,f)"), None,
     ["block l=2]", "{l+1} is 3 in block 2, which names no block"]),
    ("a count placeholder past the last block", _repeat(head="H{layers+1}(i,f)"), None,
     ["[ops.0.expr]", "{layers+1} is 3, which names no block", "{layers} is the last block"]),
    ("a placeholder that does not read", _repeat(first="H{l*2}(k,f)"), None,
     ["cannot read the placeholder near 'H{l*2}(k,f)'", "write {NAME}, {NAME-1} or {NAME+1}"]),
    ("a brace left open", _repeat(first="H{l-1(k,f)"), None, ["cannot read the placeholder"]),
    ("a block index outside its block", _repeat(head="H{l}(i,f)"), None,
     ["[ops.0.expr]", "{l} is the index of a [[repeat]], and means something only inside its blocks"]),
    ("a block index where no count names blocks", _repeat(times="times = 2", head="H{l}(i,f)"), None,
     ["{l} is the index of a [[repeat]]", 'times = "NAME"']),
    ("a placeholder in a program without repeats", DEEP.split("[[repeat]]")[0] + '[[ops]]\nexpr = "Z{x}(i,f) = H0(i,f)"\n',
     None, ["unknown placeholder {x}", "placeholders name the blocks of a [[repeat]]"]),
    ("too many ops in the file", _repeat(dims="layers = 400"), None,
     [":6 [dims.layers]", "layers = 400 blocks of 3 ops make 1,201 ops", "set layers to at most 333"]),
    ("too many ops from a literal count", _repeat(times="times = 5000"), None,
     ["[repeat.0.times]", "5000 = 5,000 blocks", "repeat at most 333 times"]),
    ("too many tensors", _repeat(times="times = 999").replace('[[ops]]\nname = "head"', "").replace(
        'expr = "Z(i,c) = H{layers}(i,f) * Wout(f,c)"', "").split("[[repeat.ops]]")[0] + (
        '[[repeat.ops]]\nname = "t{l}"\nexpr = "U{l}(i,f) = H0(i,f) * W{l}(f,f2)"\n').replace("(f,f2)", "(f,f)"),
     None, ["tensors make 1,002 tensors, more than the 1,000", "repeat at most 997 times"]),
    ("no room at all", _repeat(times="times = 2") + "".join(
        f'[[ops]]\nexpr = "V{k}(i,f) = H0(i,f)"\n' for k in range(998)), None,
     ["more than the 1,000", "split the program into several programs"]),
    ("no room for a count dimension", DEEP + "".join(f'[[ops]]\nexpr = "V{k}(i,f) = H0(i,f)"\n' for k in range(998)),
     None, ["[dims.layers]", "split the program into several programs"]),
    ("no room on the command line", DEEP + "".join(f'[[ops]]\nexpr = "V{k}(i,f) = H0(i,f)"\n' for k in range(998)),
     {"layers": 1}, ["--dim", "split the program into several programs"]),
]


@pytest.mark.parametrize("description,text,overrides,fragments", BAD_REPEATS, ids=[b[0] for b in BAD_REPEATS])
def test_bad_repeat_message(description, text, overrides, fragments):
    with pytest.raises(ProgramError) as info:
        parse_program(text, "bad.toml", overrides)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert info.value.fix and "\n" not in message and len(message) < 600, message
    assert info.value.where.startswith("bad.toml") or info.value.where == "--dim", message


def test_every_repeat_error_is_driven():
    """Each `fail(` in fuseflow/program/repeats.py is on the traceback of some case of BAD_REPEATS."""
    source = Path(fuseflow.program.repeats.__file__)
    tree = ast.parse(source.read_text(encoding="utf-8"))
    sites = {node.lineno: node.end_lineno for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "fail"}
    reached: set[int] = set()
    for _, text, overrides, _ in BAD_REPEATS:
        with pytest.raises(ProgramError) as info:
            parse_program(text, "bad.toml", overrides)
        tb = info.value.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(source):
                reached.add(tb.tb_lineno)
            tb = tb.tb_next
    missed = [line for line, end in sorted(sites.items()) if not any(line <= r <= end for r in reached)]
    assert len(sites) > 20 and not missed, f"no case in BAD_REPEATS reaches fuseflow/program/repeats.py lines {missed}"


def _many_repeats(count: int, times: str) -> str:
    head = 'name = "many"\n[dims]\nN = 4\nL = 3\n[tensors]\nA = { shape = ["N"], source = "random" }\n'
    return head + "".join(f'[[repeat]]\ntimes = {times}\nindex = "b{i}"\n[[repeat.ops]]\nname = "op{i}_{{b{i}}}"\n'
                          f'expr = "A{i}_{{b{i}}}(n) = A(n) * 2"\n' for i in range(count))


def test_the_location_of_400_repeats_too_many_is_a_line_and_a_key_path():
    # issue 21: the location was a Python list, "many.toml ['many.toml:4 [dims.L]']"
    with pytest.raises(ProgramError) as info:
        parse_program(_many_repeats(400, '"L"'), "many.toml")
    assert info.value.where == "many.toml:4 [dims.L]"
    assert "L = 3 blocks of 1 ops make 1,200 ops, more than the 1,000" in str(info.value)
    with pytest.raises(ProgramError) as info:
        parse_program(_many_repeats(400, "3"), "many.toml")
    assert info.value.where == "many.toml:8 [repeat.0.times]"
    assert "3 = 3 blocks of 1 ops make 1,200 ops, more than the 1,000" in str(info.value)


LOCATION = r"bad\.toml(:[0-9]+)? \[[A-Za-z0-9_.'{}-]+(, block [a-z]+=[0-9]+)?\]|--dim"


@pytest.mark.parametrize("description,text,overrides,fragments", BAD_REPEATS, ids=[b[0] for b in BAD_REPEATS])
def test_every_repeat_error_is_located_by_a_line_and_a_key_path(description, text, overrides, fragments):
    import re

    with pytest.raises(ProgramError) as info:
        parse_program(text, "bad.toml", overrides)
    assert re.fullmatch(LOCATION, info.value.where), info.value.where
