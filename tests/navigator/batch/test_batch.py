"""batch: results keyed by schedule hash, failures as data, timeouts, resume, Ctrl-C, dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli import check_schema, clean_env

SPMM = ["--program", "spmm", "--dim", "N=8"]


def _write_samples(folder: Path, program: str, count: int, dims: dict, seed: int) -> list[Path]:
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.schedule import save_schedule
    from navigator.navigation.sampling import sample_schedules
    from navigator.fuseflow.schedule_space import ScheduleSpace

    resolved = resolve_program(program)
    space = ScheduleSpace.build(resolved, bind(resolved, None, dims))
    paths = []
    for index, schedule in enumerate(sample_schedules(space, count, seed)):
        paths.append(folder / f"{program}-{index:02d}.json")
        save_schedule(paths[-1], resolved, schedule)
    return paths


@pytest.fixture(scope="module")
def gcn_samples(tmp_path_factory) -> Path:
    """8 distinct GCN schedules on the Cora-sized preset (each takes about 0.5 s to simulate)."""
    folder = tmp_path_factory.mktemp("gcn")
    _write_samples(folder, "gcn", 8, {}, seed=11)
    return folder


def read_records(path: Path) -> list[dict]:
    text = path.read_text()
    assert text.endswith("\n")
    records = [json.loads(line) for line in text.splitlines()]
    for record in records:
        check_schema("batch-record", record)
    return records


def test_batch_end_to_end_with_failures_as_data(nav, tmp_path):
    folder = tmp_path / "cands"
    folder.mkdir()
    paths = _write_samples(folder, "spmm", 6, {"N": 8}, seed=3)
    (folder / "broken.json").write_text("{not json")
    illegal = json.loads(paths[0].read_text())
    illegal["regions"][0]["stream-parallelizer"]["par_factors"] = [3, 1, 1]
    (folder / "illegal.json").write_text(json.dumps(illegal))
    (folder / "same-as-first.json").write_text(json.dumps(json.loads(paths[1].read_text()), indent=4))
    summary = nav.json("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "2", schema="batch-summary", code=1)
    unique = len({p.read_text() for p in paths})
    assert summary["files"] == 9 and summary["duplicates"] == 1 + (6 - unique)
    assert summary["ok"] == unique and summary["failures"] == {"bad-input": 1, "invalid-schedule": 1}
    records = read_records(tmp_path / "r.jsonl")
    assert len(records) == unique + 2 and len({r["key"] for r in records}) == len(records)
    by_source = {Path(r["schedule"]).name: r for r in records}
    assert by_source["broken.json"]["error"]["kind"] == "bad-input"
    assert by_source["illegal.json"]["error"] == dict(by_source["illegal.json"]["error"], kind="invalid-schedule",
                                                      rule="par-allowed")
    ok = [r for r in records if r["status"] == "ok"]
    assert all(r["metrics"]["cycles"] > 0 and r["report"]["check"]["passed"] for r in ok)
    # again: everything is already there
    again = nav.json("batch", "cands", *SPMM, "--out", "r.jsonl", schema="batch-summary", code=1)
    assert again["evaluated"] == 0 and again["skipped"] == len(records) and again["failed_total"] == 2
    # another configuration into the same file is refused
    result = nav("batch", "cands", "--program", "spmm", "--dim", "N=4", "--out", "r.jsonl")
    assert result.returncode == 2 and "holds results of another program, data, dimensions" in result.stderr


def test_timeouts_and_retry_in_process(cli, gcn_samples, tmp_path):
    summary = cli.json("batch", str(gcn_samples), "--program", "gcn", "--out", "t.jsonl", "--jobs", "2",
                       "--timeout", "0.001", "--no-progress", schema="batch-summary", code=1)
    # Nearly every evaluation misses 1 ms; under load one may still slip through, so count.
    timeouts = summary["failures"].get("timeout", 0)
    assert set(summary["failures"]) == {"timeout"} and timeouts >= 1 and timeouts + summary["ok"] == 8
    records = read_records(tmp_path / "t.jsonl")
    assert {r["error"]["message"] for r in records if r["status"] != "ok"} == {"did not finish within 0.001 s"}
    retried = cli.json("batch", str(gcn_samples), "--program", "gcn", "--out", "t.jsonl", "--jobs", "2",
                       "--retry-failed", "--no-progress", schema="batch-summary")
    assert retried["evaluated"] == timeouts and retried["ok"] == timeouts and retried["failed_total"] == 0
    latest = {r["key"]: r for r in read_records(tmp_path / "t.jsonl")}  # the last record of a key wins
    assert len(latest) == 8 and all(r["status"] == "ok" for r in latest.values())


def test_resume_repairs_a_truncated_last_line(cli, tmp_path):
    folder = tmp_path / "cands"
    folder.mkdir()
    _write_samples(folder, "spmm", 5, {"N": 8}, seed=5)
    cli.json("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "1", "--no-progress", schema="batch-summary")
    lines = (tmp_path / "r.jsonl").read_text().splitlines(keepends=True)
    # as if killed while writing the last record: drop it and leave half of it behind
    (tmp_path / "r.jsonl").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    result = cli("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "1", "--json", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "removed a truncated last line" in result.stderr
    summary = json.loads(result.stdout)
    assert summary["evaluated"] == 1 and summary["repaired_bytes"] > 0
    records = read_records(tmp_path / "r.jsonl")
    assert len(records) == summary["unique"] == len({r["key"] for r in records})


def test_ctrl_c_leaves_a_resumable_file(nav, gcn_samples, tmp_path):
    out = tmp_path / "g.jsonl"
    args = [sys.executable, "-m", "navigator", "batch", str(gcn_samples), "--program", "gcn", "--out", str(out),
            "--jobs", "1"]
    # its own process group, so SIGINT reaches the coordinator and its workers as Ctrl-C in a terminal does
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=clean_env(), start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "rerun the same command to resume" in err
    first = read_records(out)
    assert 2 <= len(first) < 8
    result = nav("batch", str(gcn_samples), "--program", "gcn", "--out", str(out), "--jobs", "2", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["skipped"] == len(first) and summary["evaluated"] == 8 - len(first)
    keys = [r["key"] for r in read_records(out)]
    assert len(keys) == 8 and len(set(keys)) == 8  # every schedule exactly once
    assert all(r["status"] == "ok" for r in read_records(out))


def test_dask_local_cluster(nav, tmp_path):
    distributed = pytest.importorskip("distributed")
    folder = tmp_path / "cands"
    folder.mkdir()
    _write_samples(folder, "spmm", 4, {"N": 8}, seed=9)
    cluster = distributed.LocalCluster(host="127.0.0.1", protocol="tcp", n_workers=1, threads_per_worker=2,
                                       processes=False, dashboard_address=None)
    try:
        summary = nav.json("batch", "cands", *SPMM, "--out", "d.jsonl", "--engine", "dask", "--scheduler",
                           cluster.scheduler_address, "--timeout", "60", schema="batch-summary")
    finally:
        cluster.close()
    assert summary["engine"] == "dask" and summary["slots"] == 2 and summary["failed"] == 0
    records = read_records(tmp_path / "d.jsonl")
    assert {r["engine"] for r in records} == {"dask"} and len(records) == summary["unique"]


def test_batch_usage_errors(cli, tmp_path):
    (tmp_path / "s.json").write_text("{}")
    result = cli("batch", "missing.json", *SPMM, "--out", "r.jsonl")
    assert result.returncode == 2 and "missing.json: no such schedule file or folder" in result.stderr
    result = cli("batch", "s.json", *SPMM, "--out", "r.jsonl", "--engine", "dask")
    assert result.returncode == 2 and "--engine dask needs the scheduler's address" in result.stderr
    result = cli("batch", "s.json", *SPMM, "--out", "r.jsonl", "--timeout", "0")
    assert result.returncode == 2 and "above 0" in result.stderr
    (tmp_path / "junk.jsonl").write_text('{"key": "a"}\nnot a record\n')
    result = cli("batch", "s.json", *SPMM, "--out", "junk.jsonl")
    assert result.returncode == 2 and "junk.jsonl: line 2 is not a batch result record" in result.stderr
