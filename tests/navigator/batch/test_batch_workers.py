"""batch's executors under stress: a killed coordinator, pools started from threads, absurd
--jobs, garbage dask addresses, out-of-range timeouts, a progress bar that fails."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests.cli import assert_user_error, clean_env
from tests.navigator.batch.test_batch import SPMM, _write_samples
from tests.paths import REPO

#: workers must be gone this soon after their coordinator is killed
GONE_WITHIN = 5.0


def _busy_children(process: psutil.Process, count: int, cpu_seconds: float = 0.3,
                   limit: float = 120) -> list[psutil.Process]:
    """Wait until `process` has `count` children that have each run `cpu_seconds` (busy with a candidate)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        children = process.children()
        try:
            if len(children) >= count and all(c.cpu_times().user >= cpu_seconds for c in children):
                return children
        except psutil.NoSuchProcess:
            pass
        time.sleep(0.05)
    raise AssertionError(f"no {count} busy workers within {limit} s")


def _kill_and_count_survivors(proc: subprocess.Popen, workers: list[psutil.Process]) -> list[psutil.Process]:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    _, alive = psutil.wait_procs(workers, timeout=GONE_WITHIN)
    for survivor in alive:  # do not leave them behind for the next test
        survivor.kill()
    return alive


def test_workers_die_when_the_coordinator_is_killed(tmp_path):
    folder = tmp_path / "cands"
    folder.mkdir()
    _write_samples(folder, "spmm", 4, {"N": 8}, seed=3)
    # N=5000 with the exact executor: each candidate runs for seconds, longer than GONE_WITHIN
    args = [sys.executable, "-m", "navigator", "batch", "cands", "--program", "spmm", "--dim", "N=5000",
            "--executor", "exact", "--no-check", "--jobs", "2", "--no-progress", "--out", "r.jsonl"]
    proc = subprocess.Popen(args, cwd=tmp_path, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        workers = _busy_children(psutil.Process(proc.pid), 2)
    except AssertionError:
        proc.kill()
        raise AssertionError(proc.communicate()[1]) from None
    assert _kill_and_count_survivors(proc, workers) == []


WATCHDOG_ONLY = textwrap.dedent("""
    import sys, threading, time
    from navigator.batch import engines

    def busy():
        while True:
            pass

    pools = []
    # Started from a thread, so the kernel's parent-death signal is not armed: the watchdog must do it.
    thread = threading.Thread(target=lambda: pools.append(engines._local_pool(2)))
    thread.start()
    thread.join()
    for _ in range(2):
        pools[0].submit(busy)
    print("ready", flush=True)
    time.sleep(600)
""")


def test_the_watchdog_alone_ends_busy_workers(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WATCHDOG_ONLY], cwd=REPO, env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.communicate()[1]
    workers = _busy_children(psutil.Process(proc.pid), 2, cpu_seconds=0.2)
    assert _kill_and_count_survivors(proc, workers) == []


def test_a_pool_started_from_a_thread_keeps_its_workers_after_that_thread_ends():
    import os

    from navigator.batch import engines

    pools = []
    thread = threading.Thread(target=lambda: pools.append(engines._local_pool(1)))
    thread.start()
    thread.join()
    try:
        first = pools[0].submit(os.getpid).result(timeout=30)
        time.sleep(1.5)  # several watchdog periods after the thread's end
        assert pools[0].submit(os.getpid).result(timeout=30) == first
    finally:
        engines._terminate(pools[0])


def parent_death_signal() -> int:
    import ctypes

    value = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
    return value.value


def test_workers_started_from_the_main_thread_arm_the_parent_death_signal():
    import os

    from navigator.batch import engines

    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    pool = engines._local_pool(1)
    try:
        assert pool.submit(parent_death_signal).result(timeout=30) == signal.SIGKILL
        assert pool.submit(os.getppid).result(timeout=30) == os.getpid()
    finally:
        engines._terminate(pool)


# ---------------------------------------------------------------- start-up and options

@pytest.fixture
def one_schedule(tmp_path) -> Path:
    folder = tmp_path / "cands"
    folder.mkdir()
    _write_samples(folder, "spmm", 1, {"N": 8}, seed=3)
    return folder


def test_jobs_beyond_the_machine_are_refused(cli, one_schedule, monkeypatch):
    from navigator.batch import engines

    monkeypatch.setattr(engines, "usable_cpus", lambda: 2)
    assert_user_error(cli("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "100000"),
                      "--jobs: 100000 worker processes is more than this machine can use (2 CPUs; at most 8",
                      "use --jobs 2")
    assert not (cli.cwd / "r.jsonl").exists()


def test_workers_that_cannot_start_are_one_clean_error(cli, one_schedule, monkeypatch):
    import errno
    from concurrent.futures import ProcessPoolExecutor

    def no_more_processes(self, *args, **kwargs):
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(ProcessPoolExecutor, "submit", no_more_processes)
    assert_user_error(cli("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "2"),
                      "--jobs: cannot start 2 worker processes", "use a smaller --jobs")


@pytest.mark.parametrize("address", ["garbage", "foo://1.2.3.4:5", "tcp://[::1", "tcp://", "://"])
def test_garbage_dask_addresses(cli, one_schedule, address):
    pytest.importorskip("distributed")
    assert_user_error(cli("batch", "cands", *SPMM, "--out", "r.jsonl", "--engine", "dask", "--scheduler", address),
                      f"{address}: cannot reach the dask scheduler", "check the address")


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e999", "1e300", "1000001", "x"])
def test_timeouts_out_of_range(cli, one_schedule, value):
    result = cli("batch", "cands", *SPMM, "--out", "r.jsonl", "--timeout", value)
    assert result.returncode == 2 and "expected a number of seconds above 0 and at most 1,000,000" in result.stderr


def test_time_limit_accepts_any_number():
    from navigator.evaluation.tasks import time_limit

    for seconds in (float("inf"), 1e300, 2.0**40):
        with time_limit(seconds):
            pass


def test_a_failing_progress_bar_does_not_stop_the_batch(cli, one_schedule, monkeypatch):
    from rich.progress import Progress

    def broken(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Progress, "update", broken)
    monkeypatch.setattr(Progress, "stop", broken)
    summary = cli.json("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "1", "--no-check")
    assert summary["ok"] == 1
    monkeypatch.setattr(Progress, "start", broken)
    summary = cli.json("batch", "cands", *SPMM, "--out", "r.jsonl", "--jobs", "1", "--no-check")
    assert summary["skipped"] == 1 and json.loads((cli.cwd / "r.jsonl").read_text())["status"] == "ok"


def test_a_closed_stderr_keeps_the_json_summary(tmp_path, one_schedule):
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # whoever read stderr is gone: the progress bar's writes fail with EPIPE
    try:
        result = subprocess.run([sys.executable, "-m", "navigator", "batch", "cands", *SPMM, "--out", "r.jsonl",
                                 "--jobs", "1", "--json"], cwd=tmp_path, env=clean_env(), stdout=subprocess.PIPE,
                                stderr=write_end, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert json.loads(result.stdout)["ok"] == 1  # rich would point stdout at /dev/null and exit 1
