"""`navigator show --hints` / `start --hints`: each option's cost hint beside its count, in text
and in `show --json` (docs/cost-model.md#cost-hints, docs/session-json.md)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.paths import DOCS

GOLDEN = Path(__file__).parent / "golden"
EXAMPLE = DOCS / "examples" / "honeybee"
HINT = re.compile(r"completions?, est\. (>= )?\S+ cycles, \S+ bytes, \S+ FLOPs \((best completion|bound)\)$")


def test_show_hints_beside_every_count(cli, golden):
    cli("start", "nested_matmul", "--dim", "I=4", "--dim", "J=3", "--dim", "K=2", "--dim", "L=2", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "1", "1", ok=True)   # fuse region by region: the first region's options differ
    shown = cli("show", "--hints", ok=True).stdout
    counts = [line for line in shown.splitlines() if re.search(r"\d+ completions?", line) and "status" not in line]
    assert counts and all(HINT.search(line) for line in counts)
    golden(GOLDEN / "show_hints.txt", shown)
    # Without --hints, show prints the counts alone (and never binds the program: test_startup.py).
    assert "est. " not in cli("show", ok=True).stdout


def test_show_json_hints_match_the_python_api(cli):
    cli("start", "gcn", "--dim", "N=8", ok=True)
    data = cli.json("show", "--hints", schema="show")
    assert data["version"] == 2
    options = [o for hole in data["holes"] for o in hole["options"]]
    assert options and all(o["hint"] is not None and o["hint"]["exact"] for o in options)
    best = min(o["hint"]["cycles"] for o in options)
    [schedule] = [o for o in options if o["function"] == "schedule"]
    assert schedule["hint"]["cycles"] == best   # the shortcut's schedule is one of those beneath `schedule`
    plain = cli.json("show", schema="show")
    assert all(o["hint"] is None for hole in plain["holes"] for o in hole["options"])
    started = cli.json("start", "gcn", "--dim", "N=8", "--force", "--hints", schema="show")
    assert [o["hint"] for h in started["holes"] for o in h["options"]] == [o["hint"] for o in options]


def test_a_honeybee_problem_has_no_hints_and_no_error(cli, tmp_path):
    for name in ("pipeline.hb.toml", "pipeline.hblib.toml"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    cli("start", "pipeline.hb.toml", "--library", "pipeline.hblib.toml", ok=True)
    data = cli.json("show", "--hints", schema="show")
    assert all(o["hint"] is None for hole in data["holes"] for o in hole["options"])
    assert "est." not in cli("show", "--hints", ok=True).stdout


def test_show_simulate_prints_sim_beside_est_and_caches(cli, tmp_path, monkeypatch):
    """`show --simulate`: the options of the first open hole, best hints first, each simulated
    with the current choices and the heuristic for the rest; a second run simulates nothing."""
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(tmp_path / "cache"))
    cli("start", "gcn", "--dim", "N=8", ok=True)
    cli("fill", "0", "1", ok=True)
    first = cli("show", "--simulate", "--simulate-limit", "2", ok=True)
    lines = [line for line in first.stdout.splitlines() if "sim. " in line]
    assert len(lines) == 2 and all(re.search(r"est\. \S+ cycles.*, sim\. \S+ cycles$", line) for line in lines)
    again = cli("show", "--simulate", "--simulate-limit", "2", ok=True)
    assert again.stdout.count("(cached)") == 2
    data = cli.json("show", "--simulate", "--simulate-limit", "2", schema="show")
    simulated = [o["simulated"] for hole in data["holes"] for o in hole["options"] if "simulated" in o]
    assert len(simulated) == 2 and all(s["sim_cycles"] > 0 and s["cached"] for s in simulated)


def test_show_simulate_refuses_a_complete_sketch_and_a_honeybee_problem(cli, tmp_path):
    cli("start", "spmm", "--dim", "N=2", "--dim", "J=2", ok=True)
    cli("fill", "0", "--auto", "default", "--all", ok=True)
    done = cli("show", "--simulate")
    assert done.returncode == 2 and done.stdout == ""
    line, = done.stderr.strip().splitlines()
    assert "--simulate" in line and "the sketch is complete" in line
    (tmp_path / "plan.hblib.toml").write_text(
        '[Type.Plan]\nparams.size = "Int"\n[Function.plan]\nret = "Plan"\ncondition = ["ret.size = 2"]\n', encoding="utf-8")
    (tmp_path / "plan.hb.toml").write_text('[Goal]\nname = "Plan"\n', encoding="utf-8")
    cli("start", "plan.hb.toml", "--library", "plan.hblib.toml", "--force", "--no-forced", ok=True)
    problem = cli("show", "--simulate")
    assert problem.returncode == 2 and problem.stdout == ""
    line, = problem.stderr.strip().splitlines()
    assert "--simulate" in line and "no cost model or simulator" in line
