"""Honeybee problems (`P.hb.toml` with `--library L.hblib.toml`) on every command that takes a
program, and the one-line refusals of the commands that need a tensor program (docs/honeybee.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from navigator.lang import load_library
from tests.cli import SMALL_SPMM, assert_user_error, check_schema
from tests.paths import DOCS, HARNESS_DATA, NAVIGATOR_DATA, PROGRAMS, REPO

EXAMPLE = DOCS / "examples" / "honeybee"
BUNDLED_LIBRARY = REPO / "navigator" / "library" / "fuseflow.hblib.toml"
GOLDEN = Path(__file__).parent / "golden"
#: programs of the example problem: 1 load x 2 normalizations x (keep all + 2 thresholds) x 2 reports
EXAMPLE_PROGRAMS = 12


@pytest.fixture
def problem(tmp_path) -> tuple[str, str]:
    """The docs' example problem and library, copied into the test's folder: (problem, library)."""
    for name in ("pipeline.hb.toml", "pipeline.hblib.toml"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    return "pipeline.hb.toml", "pipeline.hblib.toml"


def _start(run, problem, *extra: str):
    return run("start", problem[0], "--library", problem[1], *extra, ok=True)


# ---------------------------------------------------------------- session commands

def test_session_commands_on_a_problem(nav, problem, golden, tmp_path):
    started = _start(nav, problem)
    assert "Honeybee problem" in started.stderr
    shown = nav("show", "--verbose", ok=True).stdout
    golden(GOLDEN / "show_problem_verbose.txt", shown.replace(str(tmp_path), "TMP"))
    assert "1. summarize{name=\"sales\"}   (default)   -- Summarize" in shown
    assert "Print how many values are left and their mean." in shown
    assert "Print how many values" not in nav("show", ok=True).stdout  # descriptions only with --verbose
    filled = nav("fill", "?0", "histogram", ok=True).stdout
    assert "?0 := histogram{name=\"sales\"}" in filled
    assert "undid ?0 := histogram" in nav("undo", ok=True).stdout
    assert "redid ?0 := histogram" in nav("redo", ok=True).stdout
    steps = nav.json("fill", "?1", "drop_small", "threshold=10", schema="steps")
    assert steps["steps"][0]["option"] == 'drop_small{name="sales", threshold=10}'
    history = nav.json("history", schema="history")
    assert [s["option"] for s in history["steps"]] == ['histogram{name="sales"}',
                                                       'drop_small{name="sales", threshold=10}']
    assert history["program"]["kind"] == "honeybee-problem"
    assert "problem  " in nav("history", ok=True).stdout


def test_show_json_carries_each_options_info(cli, problem, tmp_path):
    _start(cli, problem)
    library = load_library(tmp_path / problem[1])
    data = cli.json("show", schema="show")
    assert data["program"]["kind"] == "honeybee-problem" and data["program"]["name"] == "pipeline"
    assert data["program"]["spec"] == str((tmp_path / problem[0]).resolve())
    [root] = data["holes"]
    for option in root["options"]:
        assert option["info"] == dict(library.function(option["function"]).info)
    assert root["options"][0]["info"]["code"].strip().startswith("print(")


def test_round_trip_start_fill_export_replay(nav, problem, tmp_path):
    """start -> fill --auto default -> export --json: the exported expression replays, from the
    session, from --facts and from --program."""
    _start(nav, problem)
    nav("fill", "?0", "--auto", "default", "--subtree", ok=True)
    expression = nav.json("show", schema="show")["sketch"]["expression"]
    assert "wrote e.json" in nav("export", "--json", "e.json", ok=True).stderr
    exported = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert exported == expression and exported["App"][0]["name"] == "summarize"
    assert json.loads(nav("export", ok=True).stdout) == exported  # stdout without --json
    for args in ((), ("--facts", problem[0], "--library", problem[1]),
                 ("--program", problem[0], "--library", problem[1])):
        report = nav.json("replay", "e.json", *args, schema="replay")
        assert report["reached"] and report["rounds"] == 4, args


def test_export_partial_leaves_the_session_unchanged(cli, problem, tmp_path):
    _start(cli, problem)
    cli("fill", "?0", "2", ok=True)
    assert_user_error(cli("export", "--json", "e.json"), "open holes", "--partial")
    result = cli("export", "--partial", "--json", "e.json", ok=True)
    assert "--partial filled 3 open holes" in result.stderr
    expression = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert expression["App"][0]["name"] == "histogram"
    assert cli.json("show")["steps"] == 1
    assert cli.json("replay", "e.json")["reached"]


# ---------------------------------------------------------------- count, sample

def test_count_a_problem_three_ways(nav, cli, problem):
    data = nav.json("count", problem[0], "--library", problem[1], schema="count")
    assert data["schedules"] == data["programs_in_library"] == EXAMPLE_PROGRAMS
    assert data["kind"] == "honeybee-problem" and data["closed_form"] is None
    assert cli.json("count", "--facts", problem[0], "--library", problem[1], schema="count")["schedules"] == 12
    _start(cli, problem)
    assert cli("count", ok=True).stdout.startswith(f"pipeline: {EXAMPLE_PROGRAMS} programs")


def test_sample_writes_expressions_that_replay(nav, cli, problem, tmp_path):
    data = nav.json("sample", problem[0], "20", "--library", problem[1], "--out", "drawn", "--seed", "5",
                    schema="sample")
    assert data["space"] == EXAMPLE_PROGRAMS and data["kind"] == "honeybee-problem" and data["count"] == 20
    assert 1 < data["unique"] <= EXAMPLE_PROGRAMS
    again = nav.json("sample", problem[0], "20", "--library", problem[1], "--out", "again", "--seed", "5")
    assert [f["key"] for f in again["files"]] == [f["key"] for f in data["files"]]  # the seed decides
    for entry in data["files"][:5]:
        assert cli.json("replay", entry["path"], "--facts", problem[0], "--library", problem[1])["reached"]


def test_bundled_fuseflow_library_on_its_generated_facts(nav, cli, tmp_path):
    """`navigator facts` writes a problem for the bundled library: it counts the same programs as
    the tensor program, and its exported expression replays on the tensor program too."""
    nav("facts", "spmm", *SMALL_SPMM, "-o", "spmm.hb.toml", ok=True)
    library = str(BUNDLED_LIBRARY)
    tensor = cli.json("count", "spmm", *SMALL_SPMM)
    problem = cli.json("count", "spmm.hb.toml", "--library", library, schema="count")
    # the library's default_schedule is an alias: left out of both counts, kept in programs_in_library
    assert (problem["schedules"], problem["programs_in_library"]) == (tensor["schedules"], tensor["programs_in_library"])
    assert tensor["programs_in_library"] == tensor["schedules"] + 1
    nav("start", "spmm.hb.toml", "--library", library, ok=True)
    nav("fill", "?0", "--auto", "default", "--subtree", ok=True)
    nav("export", "--json", "e.json", ok=True)
    assert cli.json("replay", "e.json")["reached"]
    assert cli.json("replay", "e.json", "--program", "spmm", *SMALL_SPMM)["reached"]


# ---------------------------------------------------------------- recognition

def test_a_problem_is_recognised_by_its_content(cli, problem, tmp_path):
    shutil.copy(tmp_path / problem[0], tmp_path / "facts.toml")  # no .hb in the name
    assert cli.json("start", "facts.toml", "--library", problem[1])["program"]["kind"] == "honeybee-problem"
    shutil.copy(PROGRAMS / "spmm.toml", tmp_path / "tensor.hb.toml")  # a tensor program, whatever its name
    data = cli.json("start", "tensor.hb.toml", *SMALL_SPMM, "--force")
    assert data["program"]["kind"] == "tensor" and data["program"]["name"] == "spmm"


# ---------------------------------------------------------------- refusals

def test_a_problem_needs_its_library_and_no_tensor_options(cli, problem):
    assert_user_error(cli("start", problem[0]), problem[0], "needs its library", "--library")
    assert_user_error(cli("count", problem[0]), "needs its library", "--library")
    assert_user_error(cli("sample", problem[0], "2", "--out", "d"), "needs its library")
    assert_user_error(cli("start", problem[0], "--library", problem[1], "--dim", "N=2"), "--dim", "Honeybee problem")
    assert_user_error(cli("count", problem[0], "--library", problem[1], "--data", "g.npz"), "--data")
    assert_user_error(cli("count", "spmm", "--facts", problem[0]), "not both")
    assert_user_error(cli("count", "--facts", problem[0]), "unknown Prop 'Dataset'", "--library L.hblib.toml")


@pytest.mark.parametrize("command", [
    ("check", "P"), ("eval", "e.json", "--program", "P"), ("compare", "P"), ("validate", "e.json", "--program", "P"),
    ("facts", "P"), ("batch", "e.json", "--program", "P", "--out", "r.jsonl"),
])
def test_tensor_only_commands_refuse_a_problem(cli, problem, command):
    (cli.cwd / "e.json").write_text("{}", encoding="utf-8")
    args = [problem[0] if a == "P" else a for a in command]
    assert_user_error(cli(*args), f"`navigator {command[0]}` needs a tensor program", "Honeybee problem")


@pytest.mark.parametrize("command", [("check",), ("eval", "e.json"), ("validate", "e.json"), ("facts",)])
def test_tensor_only_commands_refuse_a_problem_session(cli, problem, command):
    _start(cli, problem)
    (cli.cwd / "e.json").write_text("{}", encoding="utf-8")
    assert_user_error(cli(*command), f"`navigator {command[0]}` needs a tensor program")


def test_export_options_that_do_not_fit(cli, problem, spmm_session):
    assert_user_error(cli("export", "--notebook", "n.ipynb"), "--notebook", "--python")
    _start(cli, problem, "--session", "p.json")
    cli("fill", "?0", "--auto", "default", "--subtree", "--session", "p.json", ok=True)
    assert_user_error(cli("export", "--session", "p.json", "--json", "x.json", "--notebook", "x.json"),
                      "--json and --notebook name the same file")
    cli("export", "--session", "p.json", "--json", "e.json", ok=True)
    cli("replay", "e.json", "--session", "p.json", ok=True)
    (cli.cwd / "s.json").write_text(json.dumps({"dataflow-ordering": "i k j"}), encoding="utf-8")
    assert_user_error(cli("replay", "s.json", "--facts", problem[0], "--library", problem[1]),
                      "needs a tensor program")


# ---------------------------------------------------------------- integrity

def test_a_changed_problem_or_library_is_noticed(cli, problem, tmp_path):
    _start(cli, problem)
    cli("fill", "?0", "1", ok=True)
    path = tmp_path / problem[0]
    path.write_text(path.read_text(encoding="utf-8").replace("value = 10", "value = 20"), encoding="utf-8")
    assert_user_error(cli("show"), "changed since the session was saved", "the problem file")
    notes = cli("show", "--accept-changes", ok=True).stderr
    assert "accepted changes" in notes
    library = tmp_path / problem[1]
    library.write_text(library.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert_user_error(cli("fill", "?1", "1"), "the library file")


def test_an_edited_kind_is_noticed(cli, problem, tmp_path):
    _start(cli, problem)
    session = tmp_path / ".navigator" / "session.json"
    data = json.loads(session.read_text(encoding="utf-8"))
    check_schema("session-file", data)
    assert data["context"]["navigator"]["kind"] == "honeybee-problem"
    assert data["context"]["navigator"]["fingerprints"]["record"]["kind"]
    data["context"]["navigator"]["kind"] = "tensor"
    session.write_text(json.dumps(data), encoding="utf-8")
    assert_user_error(cli("show"), "edited since navigator saved it: context.navigator.kind")


# ---------------------------------------------------------------- export --python / --notebook

def test_export_python_and_notebook_assemble_the_library_code(cli, problem, tmp_path):
    import subprocess
    import sys

    _start(cli, problem)
    cli("fill", "?0", "summarize", ok=True)
    cli("fill", "?1", "drop_small", "threshold=5", ok=True)
    result = cli("export", "--partial", "--python", "p.py", "--notebook", "p.ipynb", "--json", "e.json", ok=True)
    assert result.stdout == "" and "wrote p.py" in result.stderr and "wrote p.ipynb" in result.stderr
    program = (tmp_path / "p.py").read_text(encoding="utf-8")
    # the steps in the expression's post order: every argument before the step that uses it
    titles = [line[5:] for line in program.splitlines() if line.startswith("# %% ")]
    assert titles == ["Initialization code", "Load the CSV file", "Normalize the values", "Drop small values",
                      "Summarize"]
    assert "import statistics" in program and "threshold=5," in program
    cells = json.loads((tmp_path / "p.ipynb").read_text(encoding="utf-8"))["cells"]
    assert any("Drop small values" in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    # the program is a real one: run it (the test runs it; navigator never does) on a small table
    (tmp_path / "sales.csv").write_text("value\n1\n2\n3\n10\n", encoding="utf-8")
    ran = subprocess.run([sys.executable, "p.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    name, kept, _mean = ran.stdout.split()
    assert name == "sales" and int(kept) == 3  # z-scores -0.85 -0.57 -0.28 1.70: one under 0.5 is dropped


def test_export_never_runs_library_code(cli, tmp_path):
    """Library code that would leave a file behind if it ran is only written out."""
    library = (EXAMPLE / "pipeline.hblib.toml").read_text(encoding="utf-8")
    marker = tmp_path / "ran.txt"
    library = library.replace("import csv\n", f"import csv\nopen({str(marker)!r}, 'w').write('ran')\n", 1)
    library = library.replace('__hb_ret.data = list(__hb_data.data)',
                              f"__hb_ret.data = list(__hb_data.data)\nopen({str(marker)!r}, 'w').write('ran')")
    (tmp_path / "evil.hblib.toml").write_text(library, encoding="utf-8")
    shutil.copy(EXAMPLE / "pipeline.hb.toml", tmp_path / "p.hb.toml")
    cli("start", "p.hb.toml", "--library", "evil.hblib.toml", ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    cli("export", "--python", "p.py", "--notebook", "p.ipynb", ok=True)
    assert "write('ran')" in (tmp_path / "p.py").read_text(encoding="utf-8")
    assert not marker.exists()


def test_export_python_needs_library_code(cli, tmp_path):
    data = HARNESS_DATA
    cli("start", str(data / "sched.hb.toml"), "--library", str(data / "sched.hblib.toml"), ok=True)
    for _ in range(20):
        holes = cli.json("show")["open_holes"]
        if not holes:
            break
        cli("fill", f"?{holes[0]}", "1", ok=True)
    assert_user_error(cli("export", "--python", "p.py"), "--python", "no code to assemble", "--json F")
    assert_user_error(cli("export", "--notebook", "p.ipynb"), "--notebook", "no code to assemble")
    assert not (tmp_path / "p.py").exists()


def test_the_docs_example_runs_as_written(tmp_path):
    """docs/honeybee.md's shell block, pasted as is in a copy of the repository's layout."""
    import os
    import re
    import subprocess
    import sys

    from tests.cli import clean_env

    text = (DOCS / "honeybee.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    shutil.copytree(EXAMPLE, tmp_path / "docs" / "examples" / "honeybee")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "navigator"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m navigator "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    env = clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                    PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    ran = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, capture_output=True, text=True, env=env,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert "pipeline: 12 programs" in ran.stdout and "reached in 4 rounds" in ran.stdout
    assert "-- Print a histogram" in ran.stdout and "Print how many values are left" in ran.stdout
    assert (tmp_path / "pipeline.py").is_file() and len(list((tmp_path / "drawn").iterdir())) == 5


def test_titles_and_descriptions_are_printed_safely(cli, problem, tmp_path):
    """Library text reaches the terminal on its own line, without escape sequences."""
    library = tmp_path / problem[1]
    text = library.read_text(encoding="utf-8").replace(
        'info.title = "Summarize"', 'info.title = "Sum\\u001b[31marize\\nnow"').replace(
        'info.description = "Print how many values are left and their mean."',
        'info.description = "first line\\n\\u001b[2Jsecond line"')
    library.write_text(text, encoding="utf-8")
    _start(cli, problem)
    shown = cli("show", "--verbose", ok=True).stdout
    assert "\x1b" not in shown
    assert '1. summarize{name="sales"}   (default)   -- Sum\\x1b[31marize now' in shown
    assert "       first line\n       \\x1b[2Jsecond line\n" in shown
    assert cli.json("show")["holes"][0]["options"][0]["info"]["title"] == "Sum\x1b[31marize\nnow"
