"""Shortcuts (`alias = true`) on the command line: `show` marks them, `count` and `sample`
leave them out, a bad mark is one line (docs/formula-language.md#marking-shortcuts)."""

from __future__ import annotations

import json

import pytest

from tests.cli import assert_user_error

# Two parts of three picks each: 9 plans; `quick` is a shortcut to one of them.
LIBRARY = '''
[Prop.Pick]
params.v = "Int"
[Type.Plan]
params.size = "Int"
[Type.Part]
params.v = "Int"
[Function.plan]
params.a = "Part"
params.b = "Part"
ret = "Plan"
condition = ["ret.size = 2"]
default = true
info.title = "Two parts"
[Function.quick]
ret = "Plan"
condition = ["ret.size = 2"]
alias = true
info.title = "Two default parts"
[Function.part]
ret = "Part"
condition = ["Pick { v = ret.v }"]
default = { v = 1 }
'''
FACTS = "".join(f'[[Prop]]\nname = "Pick"\nargs.v = {v}\n' for v in (1, 2, 3)) + '[Goal]\nname = "Plan"\n'


@pytest.fixture
def shortcut(tmp_path) -> tuple[str, str]:
    (tmp_path / "plan.hblib.toml").write_text(LIBRARY, encoding="utf-8")
    (tmp_path / "plan.hb.toml").write_text(FACTS, encoding="utf-8")
    return "plan.hb.toml", "plan.hblib.toml"


def test_show_marks_a_shortcut_and_leaves_it_out_of_the_total(nav, cli, shortcut):
    nav("start", shortcut[0], "--library", shortcut[1], "--no-forced", ok=True)
    text = nav("show", ok=True).stdout
    assert "status   1 open hole, 9 completions" in text
    assert '  2. quick{size=2}   (shortcut)   -- Two default parts\n       1 completion' in text
    assert "  1. plan{size=2}   (default)   -- Two parts\n       9 completions" in text
    data = cli.json("show", schema="show")
    options = data["holes"][0]["options"]
    assert [(o["function"], o["count"], o["subtree_count"], o["alias"]) for o in options] == [
        ("plan", 9, 9, False), ("quick", 1, 1, True)]
    assert data["completions"] == 9
    # taking the shortcut leaves exactly its one program
    assert cli.json("fill", "?0", "quick", schema="steps")["completions"] == 1


def test_count_and_sample_count_each_program_once(nav, cli, shortcut, tmp_path):
    data = cli.json("count", shortcut[0], "--library", shortcut[1], schema="count")
    assert (data["schedules"], data["programs_in_library"]) == (9, 10)
    assert cli("count", shortcut[0], "--library", shortcut[1], ok=True).stdout.startswith("plan: 9 programs")
    drawn = nav.json("sample", shortcut[0], "40", "--library", shortcut[1], "--out", "drawn", "--seed", "3",
                     schema="sample")
    assert drawn["space"] == 9
    roots = {json.loads((tmp_path / f["path"]).read_text())["App"][0]["name"] for f in drawn["files"]}
    assert roots == {"plan"}  # the shortcut is never drawn


def test_defaults_still_take_a_shortcut_marked_default(cli, shortcut, tmp_path):
    library = tmp_path / shortcut[1]
    library.write_text(LIBRARY.replace("alias = true\n", "alias = true\ndefault = true\n")
                       .replace('default = true\ninfo.title = "Two parts"', 'info.title = "Two parts"'),
                       encoding="utf-8")
    cli("start", shortcut[0], "--library", shortcut[1], ok=True)
    steps = cli.json("fill", "?0", "--auto", "default", schema="steps")
    assert [s["option"] for s in steps["steps"]] == ["quick{size=2}"] and steps["complete"]


def test_an_alias_that_is_not_a_boolean_is_one_line(nav, cli, shortcut, tmp_path):
    (tmp_path / shortcut[1]).write_text(LIBRARY.replace("alias = true", 'alias = "yes"'), encoding="utf-8")
    assert_user_error(nav("start", shortcut[0], "--library", shortcut[1]),
                      "plan.hblib.toml: Function.quick.alias: alias must be true or false, got Str \"yes\"",
                      "write alias = true")
    report = cli.json("library", "check", shortcut[1], code=1, schema="library-check")
    assert [(p["key"], p["kind"]) for p in report["problems"]] == [("Function.quick.alias", "declaration")]
