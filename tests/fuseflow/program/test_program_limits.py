"""Programs at and past the reader's limits and the compiler's budgets (issue 9).

Past a limit: one clean error naming the file and the fix, quickly. At a limit: the whole
pipeline works (check, facts, count, eval), which is what shows the bounds are low enough
for every recursive walker downstream.
"""

import json
import subprocess
import sys

import pytest

from fuseflow.support.errors import ProgramError
from fuseflow.program.expr import MAX_EXPR_DEPTH, MAX_EXPR_NODES
from fuseflow.analysis.fusion import legal_groupings, region_problem
from fuseflow.program.frontend import parse_program
from fuseflow.program.ir import MAX_EXTENT, MAX_VARS
from fuseflow.support.memory import ResourceError
from fuseflow.schedule import Schedule, default_region_schedule, default_schedule, save_schedule
from fuseflow.analysis.unification import unify_region
from fuseflow.schedule.space_size import schedule_space_size
from fuseflow.program.binding import bind
from tests.cli import assert_user_error

HEAD = '''name = "limits"
[dims]
N = 4
[tensors]
A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.5 }
B = { shape = ["N", "N"], source = "random" }
'''


def _ops(*exprs: str) -> str:
    return HEAD + "".join(f'[[ops]]\nexpr = "{e}"\n' for e in exprs)


def _balanced_product(leaves: int) -> str:
    terms = ["A(i,j)" if k % 2 else "B(i,j)" for k in range(leaves)]
    while len(terms) > 1:
        terms = [f"({terms[k]} * {terms[k + 1]})" if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    return terms[0]


# Each at exactly one bound: depth MAX_EXPR_DEPTH (a leaf is level 1), MAX_EXPR_DEPTH open parentheses,
# or MAX_EXPR_NODES nodes.
DEEP_CALLS = "relu(" * (MAX_EXPR_DEPTH - 2) + "A(i,j) + B(i,j)" + ")" * (MAX_EXPR_DEPTH - 2)
LONG_SUM = " + ".join(["B(i,j)"] * MAX_EXPR_DEPTH)
DEEP_PARENS = "(" * MAX_EXPR_DEPTH + "A(i,j)" + ")" * MAX_EXPR_DEPTH
DEEP_NEGATION = "-" * (MAX_EXPR_DEPTH - 1) + "A(i,j)"
WIDE = _balanced_product((MAX_EXPR_NODES + 1) // 2)
AT_THE_LIMITS = _ops(f"D(i,j) = {DEEP_CALLS}", f"S(i,j) = {LONG_SUM}", f"W(i,j) = {WIDE}",
                     f"P(i,j) = {DEEP_PARENS}", f"G(i,j) = {DEEP_NEGATION}",
                     "R(i,j) = D(i,j) * S(i,j) + W(i,j) - P(i,j) * G(i,j)")


def test_expressions_at_the_limits_run_through_the_whole_pipeline(cli, tmp_path):
    (tmp_path / "p.toml").write_text(AT_THE_LIMITS)
    program = parse_program(AT_THE_LIMITS)
    assert str(program.op_by_name["D"].statement).count("relu(") == MAX_EXPR_DEPTH - 2
    summary = json.loads(cli("check", "p.toml", "--json", ok=True).stdout)
    assert summary["groupings"]["fully_fused"] == [[op.name for op in program.ops]]
    assert "FusionStep" in cli("facts", "p.toml", ok=True).stdout
    cli("count", "p.toml", ok=True)
    everything = tuple(op.name for op in program.ops)
    fused = Schedule((default_region_schedule(unify_region(program, everything)),))
    for name, schedule in (("unfused", default_schedule(program)), ("fused", fused)):
        save_schedule(tmp_path / f"{name}.json", program, schedule)
        for executor in ("fast", "exact"):
            result = cli("eval", f"{name}.json", "--program", "p.toml", "--executor", executor, ok=True)
            assert "numerical check: passed" in result.stdout


@pytest.mark.parametrize("expr,message", [
    (DEEP_CALLS.replace("relu(", "relu(relu(", 1) + ")", "nests more than 64 levels"),
    (LONG_SUM + " + B(i,j)", "nests more than 64 levels"),
    ("(" + DEEP_PARENS + ")", "nests more than 64 levels"),
    ("-" + DEEP_NEGATION, "nests more than 64 levels"),
    (f"{WIDE} * A(i,j)", "more than 512 terms"),
], ids=["calls", "sum", "parentheses", "negation", "terms"])
def test_one_past_each_expression_limit_is_refused(expr, message):
    with pytest.raises(ProgramError, match="split it into several ops") as info:
        parse_program(_ops(f"T(i,j) = {expr}"), "p.toml")
    assert message in str(info.value) and "p.toml:8 [ops.0.expr]" in str(info.value)


def test_hostile_expressions_exit_2_with_one_line(cli, tmp_path):
    for name, expr in (("sum", " + ".join(["A(i,j)"] * 400)), ("parens", "(" * 400 + "A(i,j)" + ")" * 400),
                       ("relu", "relu(" * 500 + "A(i,j)" + ")" * 500), ("neg", "-" * 5000 + "A(i,j)")):
        (tmp_path / f"{name}.toml").write_text(_ops(f"T(i,j) = {expr}"))
        for command in ("check", "facts"):
            assert_user_error(cli(command, f"{name}.toml"), f"{name}.toml:8 [ops.0.expr]", "64 levels")


def test_a_line_of_many_spaces_is_scanned_in_linear_time(tmp_path):
    """The key-line scan once backtracked for minutes on a line of 10,000 spaces after a '['."""
    text = "colour = [\n[" + " " * 200_000 + "1,\n2]]\n" + _ops("T(i,j) = A(i,j) * B(i,j)")
    (tmp_path / "p.toml").write_text(text)
    result = subprocess.run([sys.executable, "-m", "navigator", "check", "p.toml"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "unknown key 'colour'" in result.stderr


def _chain(n: int) -> str:
    lines = [HEAD]
    previous = "B"
    for k in range(n):
        lines.append(f'[[ops]]\nexpr = "T{k}(i,j) = relu({previous}(i,j))"\n')
        previous = f"T{k}"
    return "".join(lines)


def test_a_long_chain_stops_at_the_grouping_budget(cli, tmp_path):
    """16 ops in a chain have 32,768 groupings; 1,000 ops once ran out of memory enumerating them."""
    program = parse_program(_chain(16), "chain.toml")
    with pytest.raises(ResourceError, match="more than 10,000 legal fusion groupings"):
        list(legal_groupings(program))
    (tmp_path / "chain.toml").write_text(_chain(1000))
    # every interval of the chain fuses: the fusion states' regions are too many to explore
    for command in ("check", "facts", "count"):
        assert_user_error(cli(command, "chain.toml"), "chain.toml: more than 1,000,000 steps exploring fusion "
                          "regions", "split the program into smaller programs")


def test_a_wide_fan_out_stops_at_the_step_budget(tmp_path):
    """One op feeding 40 others: 2**40 candidate regions hold the first op."""
    text = HEAD + '[[ops]]\nexpr = "S(i,j) = relu(B(i,j))"\n' + "".join(
        f'[[ops]]\nexpr = "C{k}(i,j) = exp(S(i,j))"\n' for k in range(40))
    with pytest.raises(ResourceError, match="steps enumerating fusion groupings"):
        list(legal_groupings(parse_program(text, "fan.toml")))


def test_too_many_ops_are_refused_before_any_work(cli, tmp_path):
    (tmp_path / "chain.toml").write_text(_chain(10_000))
    assert_user_error(cli("check", "chain.toml"), "chain.toml", "10,000 ops, more than the 1,000 allowed")


def _many_vars(n: int, name: str = "V") -> str:
    half = n // 2
    vs = [f"v{k}" for k in range(n)]
    return (f"{name}({','.join(vs[:half])}) = "
            f"X({','.join(vs[:half])}) * Y({','.join(vs[half:])})")


def _shape(dims) -> str:
    return "[" + ", ".join(f'"{d}"' for d in dims) + "]"


def _vars_program(n: int) -> str:
    half = n // 2
    return ('name = "vars"\n[dims]\nN = 2\n[tensors]\n'
            f'X = {{ shape = {_shape(["N"] * half)}, source = "random" }}\n'
            f'Y = {{ shape = {_shape(["N"] * (n - half))}, source = "random" }}\n'
            f'[[ops]]\nexpr = "{_many_vars(n)}"\n')


def test_regions_of_more_than_16_loop_variables_do_not_fuse():
    text = _vars_program(MAX_VARS) + '[[ops]]\nexpr = "W(v0,u) = V(v0,v1,v2,v3,v4,v5,v6,v7) * X(u,v1,v2,v3,v4,v5,v6,v7)"\n'
    program = parse_program(text)
    assert "17 loop variables, more than the 16" in region_problem(program, ("V", "W"))
    assert list(legal_groupings(program)) == [(("V",), ("W",))]


def test_factorially_many_orders_stop_the_facts_but_not_the_summary(cli, tmp_path):
    """Nine unordered loop variables: 362,880 orders, one fact each."""
    (tmp_path / "vars.toml").write_text(_vars_program(9))
    assert_user_error(cli("facts", "vars.toml"), "vars.toml: more than 100,000 facts for the navigator")
    assert_user_error(cli("count", "vars.toml"), "more than 100,000 facts")
    # The closed form counts orders without listing them: 9! orders, each level's factors.
    program = parse_program(_vars_program(9), "vars.toml")
    size = schedule_space_size(program, bind(program))
    assert size["regions"][0]["orders"] == 362_880 and size["schedules"] % 362_880 == 0
    summary = json.loads(cli("check", "vars.toml", "--json", ok=True).stdout)
    assert summary["regions"][0]["orders"] == 362_880
    sixteen = json.loads(cli("check", "--json", _write(tmp_path, "v16.toml", _vars_program(16)), ok=True).stdout)
    assert sixteen["regions"][0]["orders"] == 20_922_789_888_000  # 16!, counted, not listed


def _write(folder, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return name


def test_the_largest_extents_keep_every_figure_finite(cli, tmp_path):
    """Sixteen dimensions of 2**40: the cost model's products reach 2**640 and stay floats. (Compressed
    levels fix the loop order, so the facts list one order, not 16!.)"""
    dims = [f"D{k}" for k in range(16)]
    text = ('[dims]\n' + "".join(f"{d} = {MAX_EXTENT}\n" for d in dims) + '[tensors]\n'
            f'X = {{ shape = {_shape(dims)}, format = {_shape(["compressed"] * 16)}, source = "ones" }}\n'
            '[[ops]]\nexpr = "T(' + ",".join(f"v{k}" for k in range(16)) + ') = relu(X('
            + ",".join(f"v{k}" for k in range(16)) + '))"\n')
    out = cli("check", "--json", _write(tmp_path, "huge.toml", text), ok=True).stdout

    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON output")

    summary = json.loads(out, parse_constant=refuse)
    assert summary["default_schedule"]["flops"] == 2.0 ** 640
    assert "LegalOrder" in cli("facts", "huge.toml", ok=True).stdout


def test_compare_needs_no_enumeration_of_a_layer(cli, tmp_path):
    """The per-layer baseline tried every subset of a layer (2**29 for 30 ops in one layer) and ran
    out of its budget; it is now a shortest path over the fusion states (fuseflow.analysis.fusion_shortcuts)."""
    (tmp_path / "chain.toml").write_text(_chain(30))
    shown = cli("compare", "chain.toml", ok=True).stdout
    assert "all ops in one region" in shown


def test_long_budgeted_work_reports_progress_on_stderr(cli, tmp_path, monkeypatch):
    """Nothing runs long in silence: past PROGRESS_AFTER seconds, a budgeted computation prints
    one line on stderr every PROGRESS_AFTER seconds (here at once), then its error or result."""
    from fuseflow.support import work_budget as budget

    monkeypatch.setattr(budget, "PROGRESS_AFTER", 0.0)
    (tmp_path / "chain.toml").write_text(_chain(1000))
    result = cli("facts", "chain.toml")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) >= 2
    assert all(line.startswith("navigator: still working on chain.toml: steps exploring fusion regions, ")
               for line in lines[:-1])
    assert lines[-1].startswith("navigator: error: chain.toml: more than 1,000,000 steps exploring")
    assert budget._progress_hook is None  # the CLI removes its hook when the command ends


def test_a_budget_reports_its_share_used_to_the_hook(monkeypatch):
    from fuseflow.support import work_budget as budget

    seen = []
    monkeypatch.setattr(budget, "PROGRESS_AFTER", 0.0)
    budget.set_progress_hook(lambda what, where, share: seen.append((what, where, share)))
    try:
        steps = budget.StepBudget(10_000, "things", "here", "fix")
        for _ in range(5_000):
            steps.spend()
    finally:
        budget.set_progress_hook(None)
    assert seen and all(what == "things" and where == "here" and 0 < share <= 0.5 for what, where, share in seen)
