"""Hostile libraries and fact files through the commands (issue 9): exit 2 and one error line,
or the work done; never a traceback, an internal error or a command that does not end."""

from __future__ import annotations

import json

import pytest

from navigator.cli import main
from navigator.fuseflow.bundled_library import bundled_library_text

BUNDLED = bundled_library_text()
PROPS = BUNDLED.split("# ---------------------------------------------------------------- types")[0]


@pytest.fixture
def run(tmp_path, capsys, monkeypatch):
    """run(*args) -> (exit code, stdout, stderr), in tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NAVIGATOR_SESSION", raising=False)

    def call(*args: str):
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "internal error" not in err, err
        return code, out, err

    return call


def user_error(result, *fragments: str) -> str:
    code, out, err = result
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and lines and lines[-1].startswith("navigator: error:"), err
    assert len([line for line in lines if line.startswith("navigator: error:")]) == 1, err
    for fragment in fragments:
        assert fragment in lines[-1], (fragment, lines[-1])
    return lines[-1]


def library(tmp_path, text: str, name: str = "lib.hblib.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_schedule_without_fusion_is_refused_when_the_space_is_built(run, tmp_path):
    """Was: KeyError: 'fusion' in export and sample."""
    lib = library(tmp_path, PROPS + '[Type.Schedule]\nparams.program = "Str"\n[Function.schedule]\n'
                                    'ret = "Schedule"\ncondition = ["Program { name = ret.program }"]\n')
    for args in (["sample", "spmm", "1", "--out", "out"], ["start", "spmm"], ["count", "spmm"]):
        user_error(run(*args, "--library", lib), "Function.schedule", "needs a parameter 'fusion'")


def test_a_library_without_the_fuseflow_facts_names_the_library(run, tmp_path):
    lib = library(tmp_path, BUNDLED.replace("[Prop.Succ]", "[Prop.Next]"))
    user_error(run("count", "spmm", "--library", lib), lib, "unknown Prop 'Succ'")


def test_a_chain_of_2000_types_is_refused(run, tmp_path):
    """Was: RecursionError in sample (with 1,000 types, when sketches nested at most 256 deep)."""
    text = PROPS + '[Type.Schedule]\nparams.program = "Str"\n[Function.schedule]\nparams.fusion = "T0"\n' \
                   'ret = "Schedule"\ncondition = ["Program { name = ret.program }"]\n'
    for i in range(2000):
        params = f'params.regions = "T{i + 1}"' if i < 1999 else "params = {}"
        text += f'[Type.T{i}]\nparams = {{}}\n[Function.f{i}]\n{params}\nret = "T{i}"\n'
    user_error(run("sample", "spmm", "1", "--out", "out", "--library", library(tmp_path, text)),
               "nests at least 2001 applications deep")


def test_a_literal_of_5000_digits_is_refused(run, tmp_path):
    lib = library(tmp_path, BUNDLED.replace('"ret.index = ret.count"]', f'"ret.index = ret.count", "ret.index < {"9" * 5000}"]'))
    user_error(run("sample", "spmm", "1", "--out", "out", "--library", lib), "Function.grouping_end.condition[1]",
               "64-bit range")


def test_a_function_of_1000_parameters_is_refused_quickly(run, tmp_path):
    params = "".join(f'params.p{i} = "Fusion"\n' for i in range(1000))
    lib = library(tmp_path, BUNDLED.replace('[Function.schedule]\nparams.fusion = "Fusion"\n',
                                            f'[Function.schedule]\nparams.fusion = "Fusion"\n{params}'))
    user_error(run("sample", "spmm", "1", "--out", "out", "--library", lib), "1001 parameters")


def test_a_recursive_default_declared_first_terminates_in_fill_and_export(run, tmp_path):
    """Was: `fill --auto default --subtree` and `export --partial` ran forever. (A `wrap:
    Schedule -> Schedule` does not fit the interface export reads, so it is refused at
    `start`; the same recursion on the list of regions fits it.)"""
    lib = library(tmp_path, BUNDLED.replace("[Function.region]", '[Function.again]\nparams.r = "Regions"\n'
                                            'ret = "Regions"\ndefault = true\ncondition = ["r.state = ret.state", '
                                            '"r.region = ret.region", "r.is_default = ret.is_default"]\n\n[Function.region]'))
    assert run("start", "spmm", "--library", lib)[0] == 0
    code, _, err = run("export", "--partial", "--json", "partial.json")
    assert code == 0 and "?0 := schedule{" in err
    assert json.loads((tmp_path / "partial.json").read_text())["regions"]
    assert run("fill", "?0", "--auto", "default", "--subtree")[0] == 0
    assert "unbounded" in run("count", "spmm", "--library", lib)[1]


def test_illegal_schedules_from_a_user_library_are_refused(run, tmp_path):
    """A library that offers a factor the program's rules forbid: sample says so, naming it."""
    lib = library(tmp_path, BUNDLED.replace(
        'condition = ["ParFactor { region = ret.region, var = ret.var, factor = ret.factor }"]',
        'condition = ["RegionVar { region = ret.region, var = ret.var }", "ret.factor = 3"]'))
    user_error(run("sample", "spmm", "2", "--out", "out", "--library", lib), lib, "breaks the rules of program spmm")


def test_a_library_that_leaves_loop_variables_without_a_factor_is_refused(run, tmp_path):
    lib = library(tmp_path, BUNDLED.replace('[Function.no_more_pars]\nparams = {}\nret = "Pars"\n'
                                            'condition = ["ret.index = ret.count"]',
                                            '[Function.no_more_pars]\nparams = {}\nret = "Pars"\ncondition = []'))
    user_error(run("sample", "spmm", "3", "--out", "out", "--seed", "1", "--library", lib),
               "gives no parallel factor for the loop variable")


def test_a_library_with_no_program_explains_the_empty_space(run, tmp_path):
    lib = library(tmp_path, PROPS + '[Type.Schedule]\nparams.program = "Str"\n')
    assert run("start", "spmm", "--library", lib)[0] == 0
    user_error(run("export", "--partial", "--json", "s.json"), "no function of the library returns the goal type")
    user_error(run("sample", "spmm", "1", "--out", "out", "--library", lib), "the space is empty")


def test_hostile_fact_files_under_replay(run, tmp_path):
    assert run("facts", "spmm", "-o", "good.hb.toml")[0] == 0
    good = (tmp_path / "good.hb.toml").read_text()
    (tmp_path / "target.json").write_text('{"Hole": 0}')
    cases = {
        "big": (good.replace("args = { n = 0, next = 1 }", "args = { n = " + "9" * 5000 + ", next = 1 }"),
                "thousands of digits"),
        "wide": (good.replace("args = { n = 0, next = 1 }", "args = { n = 99999999999999999999, next = 1 }"),
                 "64-bit range"),
        "goal": (good.replace('[Goal]\nname = "Schedule"', '[Goal]\nname = "Nope"'), "goal of unknown type 'Nope'"),
        "deep": (good + '[[Prop]]\nname = "Succ"\nargs.' + ".".join(["a"] * 100) + " = 1\n", "more than 64 levels"),
    }
    for name, (text, fragment) in cases.items():
        (tmp_path / f"{name}.hb.toml").write_text(text)
        user_error(run("replay", "--facts", f"{name}.hb.toml", "target.json"), f"{name}.hb.toml", fragment)
    many = good + "".join(f'[[Prop]]\nname = "Succ"\nargs = {{ n = {i}, next = {i + 1} }}\n' for i in range(10, 5000))
    (tmp_path / "many.hb.toml").write_text(many)
    assert run("replay", "--facts", "many.hb.toml", "target.json")[0] == 0
