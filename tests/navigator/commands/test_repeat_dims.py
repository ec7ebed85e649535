"""A repeat count given with --dim reaches every command: the program each one reads has that
many blocks (deep_gcn's `layers`), sessions remember it, and a count that is zero, negative or
too large is one line on stderr with exit code 2, answered before anything is expanded."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.cli import assert_user_error, clean_env

SMALL = ["--dim", "N=8", "--dim", "H=2"]


def test_a_count_too_large_is_refused_at_once_with_the_largest_allowed(nav):
    for command in (["check", "deep_gcn"], ["start", "deep_gcn"], ["count", "deep_gcn"]):
        result = nav(*command, "--dim", "layers=1000000")
        assert_user_error(result, "navigator: error: --dim: layers = 1,000,000 blocks of 3 ops make 3,000,000 ops",
                          "more than the 1,000 a program may have", "use --dim layers=N with N at most 333")


def test_a_count_of_zero_or_below_is_refused(nav):
    for value in ("0", "-2"):
        assert_user_error(nav("check", "deep_gcn", "--dim", f"layers={value}"), "--dim",
                          f"a repeat count must be at least 1, got {value}")


def test_check_and_count_see_the_depth_they_are_given(cli):
    one = json.loads(cli("check", "deep_gcn", *SMALL, "--dim", "layers=1", "--json", ok=True).stdout)
    three = json.loads(cli("check", "deep_gcn", *SMALL, "--dim", "layers=3", "--json", ok=True).stdout)
    assert (len(one["ops"]), len(three["ops"])) == (3, 9)
    assert three["dims"]["layers"] == 3
    assert one["groupings"]["count"] < three["groupings"]["count"]


def test_a_session_remembers_the_depth_and_every_command_uses_it(cli, tmp_path):
    cli("start", "deep_gcn", *SMALL, "--dim", "layers=3", ok=True)
    summary = json.loads(cli("check", "--json", ok=True).stdout)
    assert len(summary["ops"]) == 9 and summary["dims"]["layers"] == 3
    shown = json.loads(cli("show", "--json", ok=True).stdout)
    assert shown["program"]["dims"] == {"H": 2, "N": 8, "layers": 3}
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    cli("export", "--json", "s.json", "--python", "s.py", ok=True)
    schedule = json.loads((tmp_path / "s.json").read_text())
    assert sum(len(region["ops"]) for region in schedule["regions"]) == 9
    report = json.loads(cli("eval", "s.json", "--json", ok=True).stdout)
    assert report["check"]["passed"]
    assert cli("validate", "s.json", ok=True).returncode == 0
    # the exported script reads the program with the session's dimensions too
    run = subprocess.run([sys.executable, "s.py", "again.json"], cwd=tmp_path, capture_output=True, text=True,
                         env=clean_env(), timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "again.json").read_text()) == schedule


def test_the_depth_is_part_of_the_cached_facts_key(cli):
    counts = []
    for layers in ("2", "3", "2"):
        cli("start", "deep_gcn", *SMALL, "--dim", f"layers={layers}", "--force", ok=True)
        counts.append(json.loads(cli("count", "--json", ok=True).stdout)["schedules"])
    assert counts[0] == counts[2] != counts[1]


def test_sample_and_batch_take_the_depth(cli, tmp_path):
    depth = [*SMALL, "--dim", "layers=1"]
    cli("sample", "deep_gcn", "3", "--out", "samples", "--seed", "1", *depth, ok=True)
    for path in (tmp_path / "samples").iterdir():
        assert sum(len(r["ops"]) for r in json.loads(path.read_text())["regions"]) == 3
    result = cli("batch", "samples", "--program", "deep_gcn", *depth, "--out", "results.jsonl", "--jobs", "1",
                 "--no-progress")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert lines and all(line["status"] == "ok" for line in lines)
