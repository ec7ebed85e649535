"""`navigator library check L.hblib.toml [P.hb.toml]`: one line per problem, exit 0/1/2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import assert_user_error, check_schema
from tests.paths import HARNESS_DATA, NAVIGATOR_DATA, REPO

CHECK = NAVIGATOR_DATA / "check"
SCHED = HARNESS_DATA
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def files(tmp_path) -> Path:
    """The check test files copied into the test's directory (so messages name them short)."""
    for path in [*CHECK.iterdir(), SCHED / "sched.hblib.toml", SCHED / "sched.hb.toml"]:
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_a_clean_library_and_problem(nav, files):
    result = nav("library", "check", "sched.hblib.toml", "sched.hb.toml")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "sched.hblib.toml: no problems; the goal has 9 programs\n"
    assert result.stderr == ""


def test_every_problem_one_line_each(nav, files, golden):
    result = nav("library", "check", "never.hblib.toml", "facts.hb.toml")
    assert result.returncode == 1, result.stderr
    golden(GOLDEN / "library_check_never.txt", result.stdout)
    lines = result.stdout.splitlines()
    assert len(lines) == 7
    assert all(line.startswith("never.hblib.toml: Function.") for line in lines)


def test_declaration_problems_are_all_reported(cli, files, golden):
    result = cli("library", "check", "declarations.hblib.toml", "facts.hb.toml")
    assert result.returncode == 1
    golden(GOLDEN / "library_check_declarations.txt", result.stdout)
    assert "fix these first" in result.stderr


def test_a_goal_without_solution(cli, files):
    result = cli("library", "check", "never.hblib.toml", "unsolvable.hb.toml")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1].startswith(
        "unsolvable.hb.toml: Goal: the goal Schedule {fused = false} has no solution")


@pytest.mark.parametrize("args, code, kinds", [
    (("sched.hblib.toml",), 0, []),
    (("never.hblib.toml",), 1, ["never-applied"] * 5),
    (("never.hblib.toml", "unsolvable.hb.toml"), 1, ["never-applied"] * 5 + ["blocked-by-facts"] * 2
     + ["no-solution"]),
    (("declarations.hblib.toml",), 1, ["declaration"] * 6),
])
def test_json_report(cli, files, args, code, kinds):
    result = cli("library", "check", *args, "--json")
    assert result.returncode == code, result.stderr
    report = json.loads(result.stdout)
    check_schema("library-check", report)
    assert [p["kind"] for p in report["problems"]] == kinds
    assert report["clean"] is (code == 0)


def test_the_shipped_library_with_generated_facts(nav, files):
    # gcn: a program with several groupings, so the shortcuts' facts exist (spmm has one grouping
    # and no shortcut, and `library check` rightly says those functions never apply there)
    nav("facts", "gcn", "--dim", "N=2", "--dim", "F=2", "--dim", "H=2", "--dim", "C=2", "-o", "gcn.hb.toml", ok=True)
    library = str(REPO / "navigator" / "library" / "fuseflow.hblib.toml")
    report = nav.json("library", "check", library, "gcn.hb.toml", schema="library-check")
    assert report["clean"] and report["goal"]["programs"] > 0


@pytest.mark.parametrize("args, fragment", [
    (("missing.hblib.toml",), "missing.hblib.toml"),
    (("not_toml.hblib.toml",), "not_toml.hblib.toml"),
    (("sched.hblib.toml", "other.hb.toml"), "other.hb.toml: Prop[0].name"),  # a prop it does not declare
    (("sched.hblib.toml", "missing.hb.toml"), "missing.hb.toml"),
    (("declarations.hblib.toml", "missing.hb.toml"), "missing.hb.toml"),
])
def test_unreadable_input_exits_2(cli, files, args, fragment):
    (files / "not_toml.hblib.toml").write_text("[Type.A\nparams = ", encoding="utf-8")
    (files / "other.hb.toml").write_text('[[Prop]]\nname = "Extent"\nargs = { region = 0, extent = 4 }\n'
                                         '[Goal]\nname = "Schedule"\n', encoding="utf-8")
    result = cli("library", "check", *args)
    assert_user_error(result, fragment)
    assert result.stdout == ""


def test_library_needs_a_subcommand(cli):
    result = cli("library")
    assert result.returncode == 2
    assert "library_command" in result.stderr or "check" in result.stderr
