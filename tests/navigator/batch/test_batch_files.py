"""batch and sample under hostile files: --out that is not a results file, schedules that do
not read, folders that cannot be listed or written, the lock file, a full disk."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

from tests.cli import assert_user_error, check_schema
from tests.navigator.batch.test_batch import SPMM, _write_samples

ONE_JOB = [*SPMM, "--jobs", "1", "--no-progress", "--no-check"]


# ---------------------------------------------------------------- permissions, also as root

def _inside(path, folder: Path) -> bool:
    return os.path.dirname(os.path.abspath(os.fspath(path))) == str(folder.resolve())


def _same(path, target: Path) -> bool:
    return os.path.abspath(os.fspath(path)) == str(target.resolve())


def deny(monkeypatch, path: Path, how: str) -> None:
    """Take a permission away as chmod does; root ignores modes, so the system calls that the
    kernel would refuse are also made to raise EACCES. `how`: "create-in" (a read-only
    folder), "write" (a read-only file), "read" (an unreadable file), "list" (a folder that
    cannot be listed)."""
    path.chmod({"create-in": 0o555, "write": 0o444, "read": 0o000, "list": 0o000}[how])  # undone by _restore_modes
    if os.geteuid() != 0:
        return
    real_open, real_mkdir, real_scandir = os.open, os.mkdir, os.scandir
    refused = PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    def fake_open(file, flags, *args, **kwargs):
        writes = flags & (os.O_WRONLY | os.O_RDWR)
        if how == "create-in" and _inside(file, path) and flags & os.O_CREAT and not os.path.exists(file):
            raise refused
        if how == "write" and _same(file, path) and writes:
            raise refused
        if how in ("read", "list") and _same(file, path):
            raise refused
        return real_open(file, flags, *args, **kwargs)

    def fake_mkdir(name, *args, **kwargs):
        if how == "create-in" and _inside(name, path) and not os.path.exists(name):
            raise refused
        return real_mkdir(name, *args, **kwargs)

    def fake_scandir(name="."):
        if how == "list" and _same(name, path):
            raise refused
        return real_scandir(name)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)
    monkeypatch.setattr(os, "scandir", fake_scandir)


@pytest.fixture(autouse=True)
def _restore_modes(tmp_path):
    yield
    for root, dirs, files in os.walk(tmp_path):
        for name in dirs + files:
            full = os.path.join(root, name)
            if not os.path.islink(full):
                os.chmod(full, 0o755)


@pytest.fixture
def samples(tmp_path) -> Path:
    folder = tmp_path / "cands"
    folder.mkdir()
    _write_samples(folder, "spmm", 2, {"N": 8}, seed=3)
    return folder


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- --out that is not a results file

RESULTS_LINE = (b'{"engine":"local","error":null,"key":"' + b"a" * 64 + b'","program":"spmm","schedule":"x.json",'
                b'"status":"ok","worker":"h\xc3\xa9te:1"}\n')

NOT_RESULTS = {
    "notes with a last line": (b"my notes\nline two\npartial", "line 1 is not a batch result record"),
    "one line of prose": (b"hello", "line 1 is not a batch result record"),
    "npz": (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)) * 4, "holds binary data"),
    "latin-1 text": ('{"key": "caf\u00e9"}\n'.encode("latin-1"), "line 1 is not a batch result record"),
    "json without newline": (b'{"a": 1}', "line 1 is not a batch result record"),
    "compact json, not a record": (b'{"a":1}', "line 1 is not a batch result record"),
    "a record, not canonical": (b'{"key": "a"}', "line 1 (the last) is not a batch result record"),
    "records, then prose": (RESULTS_LINE + b"a note", "line 2 (the last) is not a batch result record"),
    "records, then unsorted keys": (RESULTS_LINE + b'{"z":1,"a":', "line 2 (the last)"),
    "records, then spaces": (RESULTS_LINE + b'{"engine": "local",', "line 2 (the last)"),
    "records, then a bad line": (RESULTS_LINE + b"{}\n" + RESULTS_LINE, "line 2 is not a batch result record"),
    "nan record": (b'{"key":"a","x":NaN}\n', "line 1 is not a batch result record"),
}


@pytest.mark.parametrize("content,message", NOT_RESULTS.values(), ids=NOT_RESULTS.keys())
def test_out_that_is_not_a_results_file_is_left_byte_identical(cli, samples, tmp_path, content, message):
    out = tmp_path / "notes.txt"
    out.write_bytes(content)
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "notes.txt"), "notes.txt: ", message,
                      "give --out a new file name")
    assert out.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands", "notes.txt"]  # not even a lock file


def test_out_that_is_not_a_regular_file(cli, samples, tmp_path):
    (tmp_path / "folder.jsonl").mkdir()
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "folder.jsonl"), "folder.jsonl: is a directory")
    os.mkfifo(tmp_path / "pipe.jsonl")  # would block a reader that waits for a writer
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "pipe.jsonl"), "pipe.jsonl: is a named pipe")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "/dev/zero"), "/dev/zero: is a device")
    (tmp_path / "file").write_text("x")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "file/r.jsonl"), "file/r.jsonl: ",
                      "a part of the path is a file")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "file/sub/r.jsonl"), "a part of the path is a file")
    assert (tmp_path / "file").read_text() == "x"


def test_out_in_a_read_only_folder(cli, samples, tmp_path, monkeypatch):
    (tmp_path / "ro").mkdir()
    deny(monkeypatch, tmp_path / "ro", "create-in")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "ro/r.jsonl"), "ro/r.jsonl.lock: ",
                      "cannot create the lock file: permission denied")
    assert list((tmp_path / "ro").iterdir()) == []


def test_out_that_is_read_only_is_refused_before_any_work(cli, samples, tmp_path, monkeypatch):
    cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl", ok=True)
    before = (tmp_path / "r.jsonl").read_bytes()
    deny(monkeypatch, tmp_path / "r.jsonl", "write")
    (samples / "other.json").write_text("[1]")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl"), "r.jsonl: permission denied")
    assert (tmp_path / "r.jsonl").read_bytes() == before


def test_lock_file_in_the_way(cli, samples, tmp_path):
    (tmp_path / "r.jsonl.lock").mkdir()
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl"), "r.jsonl.lock: cannot create the lock file")
    assert not (tmp_path / "r.jsonl").exists()


def test_a_full_disk_is_one_clean_error(cli, samples, tmp_path, monkeypatch):
    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)  # only the results file is fsync'ed
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl"), "r.jsonl: no space left on the disk")


def test_new_results_file_gets_the_umask_mode(tmp_path):
    from navigator.batch import ResultsLog

    for umask, mode in ((0o077, 0o600), (0o002, 0o664)):
        previous = os.umask(umask)
        try:
            with ResultsLog(tmp_path / f"{umask:o}.jsonl") as results:
                results.append({"key": "a"})
        finally:
            os.umask(previous)
        assert stat.S_IMODE((tmp_path / f"{umask:o}.jsonl").stat().st_mode) == mode


def test_out_through_a_symlink_appends_to_its_target(cli, samples, tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "link.jsonl").symlink_to("store/r.jsonl")
    cli("batch", "cands", *ONE_JOB, "--out", "link.jsonl", ok=True)
    assert (tmp_path / "link.jsonl").is_symlink() and _records(tmp_path / "store" / "r.jsonl")
    assert (tmp_path / "store" / "r.jsonl.lock").exists()


# ---------------------------------------------------------------- the cut last line

def test_a_cut_record_is_recognised_wherever_it_was_cut():
    from navigator.batch.records import encode_record
    from navigator.batch.results_file import looks_like_record_start, parse_results

    line = encode_record({"key": "k" * 64, "schedule": "s\u00e9\u4e2d\U0001f600.json", "error": {"message": 'a "b"'},
                          "metrics": {"x": -1.5e-07, "ok": True, "none": None}, "report": {"list": [1, [2, {}]]}})
    for cut in range(1, len(line) - 1):
        assert looks_like_record_start(line[:cut]), line[:cut]
        content = parse_results(RESULTS_LINE + line[:cut], "r.jsonl")
        assert content.whole_bytes == len(RESULTS_LINE) and content.partial_bytes == cut
    # the whole record without its newline: also removed (it is evaluated again)
    assert parse_results(line[:-1], "r.jsonl").partial_bytes == len(line) - 1
    for text in (b"[", b"x", b'{"b":1,"a"', b'{"a":1}{', b'{ "a"', b'{"a":"\x01', b'{"a":1}', b"{\xff"):
        assert not looks_like_record_start(text), text


def test_resume_after_a_record_cut_inside_a_character(cli, samples, tmp_path):
    cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl", ok=True)
    lines = (tmp_path / "r.jsonl").read_bytes().splitlines(keepends=True)
    cut = lines[-1].index(b'"schedule"') + len('"schedule":"')
    (tmp_path / "r.jsonl").write_bytes(b"".join(lines[:-1]) + lines[-1][:cut] + "\u00e9".encode()[:1])
    result = cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl")
    assert result.returncode == 0 and "removed a truncated last line" in result.stderr
    assert len(_records(tmp_path / "r.jsonl")) == len(lines)


def test_records_of_any_shape_do_not_crash_the_run_check(cli, samples, tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"key":"a","run":[1]}\n{"key":"b"}\n{"key":"c","run":7}\n')
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl"), "holds results of another program")


# ---------------------------------------------------------------- schedules that do not read

def test_schedules_that_do_not_read_are_failed_records(cli, samples, tmp_path, monkeypatch):
    from fuseflow.support.files import TEXT_LIMIT

    folder = tmp_path / "cands"
    (folder / "nan.json").write_text('{"regions": NaN}')
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "bigint.json").write_text('{"version": ' + "9" * 5000 + "}")
    (folder / "binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (folder / "latin1.json").write_bytes('{"program": "caf\u00e9"}'.encode("latin-1"))
    (folder / "surrogate.json").write_text('{"program": "\\ud800"}')
    (folder / "empty.json").write_text("")
    (folder / "huge.json").touch()
    os.truncate(folder / "huge.json", TEXT_LIMIT + 1)
    os.mkfifo(folder / "fifo.json")
    (folder / "device.json").symlink_to("/dev/zero")
    (folder / "unreadable.json").write_text("{}")
    (folder / os.fsdecode(b"bad-name-\xff.json")).write_text("not json")
    (folder / "folder.json").mkdir()  # not a schedule file: skipped
    deny(monkeypatch, folder / "unreadable.json", "read")
    summary = cli.json("batch", "cands", *ONE_JOB, "--out", "r.jsonl", schema="batch-summary", code=1)
    assert summary["ok"] == summary["unique"] - 12 and summary["failed"] == 12
    assert summary["failures"] == {"bad-input": 12}
    records = {Path(r["schedule"]).name: r for r in _records(tmp_path / "r.jsonl")}
    for record in records.values():
        check_schema("batch-record", record)
    expected = {"nan.json": "holds NaN", "deep.json": "nests arrays or tables more than 64 levels",
                "bigint.json": "integer of thousands of digits", "binary.json": "is not UTF-8 text",
                "latin1.json": "is not UTF-8 text", "empty.json": "invalid JSON", "huge.json": "larger than",
                "fifo.json": "is a named pipe", "device.json": "is a device",
                "unreadable.json": "permission denied", "surrogate.json": "not valid Unicode"}
    for name, fragment in expected.items():
        assert records[name]["error"]["kind"] == "bad-input" and fragment in records[name]["error"]["message"], name
    assert records[os.fsdecode(b"bad-name-\xff.json")]["error"]["kind"] == "bad-input"  # written as \\udcff
    assert "folder.json" not in records
    # every key is stable: a second run has nothing to do
    again = cli.json("batch", "cands", *ONE_JOB, "--out", "r.jsonl", schema="batch-summary", code=1)
    assert again["evaluated"] == 0 and again["skipped"] == summary["unique"]


def test_a_crash_while_reading_one_schedule_is_its_result(cli, samples, monkeypatch):
    import fuseflow.schedule

    real = fuseflow.schedule.schedule_from_json

    def crash_on_one(program, data, where=None):
        if str(where).endswith("spmm-00.json"):
            raise KeyError("fusion")
        return real(program, data, where)

    monkeypatch.setattr(fuseflow.schedule, "schedule_from_json", crash_on_one)
    summary = cli.json("batch", "cands", *ONE_JOB, "--out", "r.jsonl", schema="batch-summary", code=1)
    assert summary["failures"] == {"error": 1} and summary["ok"] == 1
    record = next(r for r in _records(cli.cwd / "r.jsonl") if r["status"] != "ok")
    assert record["error"]["message"] == "KeyError: 'fusion'" and "crash_on_one" in record["error"]["traceback"]


def test_an_outcome_that_is_not_json_is_recorded_as_an_error(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from navigator.batch import Candidate, EvalConfig, ResultsLog, run_batch, runner
    from navigator.workspace import ProgramSpec

    monkeypatch.setattr(runner, "run_task", lambda task: {"status": "ok", "error": None, "metrics": {1, 2},
                                                          "report": None, "seconds": 0.0, "worker": "w"})
    with ResultsLog(tmp_path / "r.jsonl") as results, ThreadPoolExecutor(1) as pool:
        summary = run_batch([Candidate("x.json", "a" * 64, {})], EvalConfig(ProgramSpec.from_user("spmm")), pool,
                            results, slots=1)
    assert summary.failures == {"error": 1}
    [record] = _records(tmp_path / "r.jsonl")
    assert record["error"]["message"].startswith("the result could not be written as JSON: TypeError")


# ---------------------------------------------------------------- paths given to batch and sample

def test_schedule_paths_that_cannot_be_used(cli, samples, tmp_path, monkeypatch):
    assert_user_error(cli("batch", "a" * 5000, *ONE_JOB, "--out", "r.jsonl"), "the path is too long")
    assert_user_error(cli("batch", "cands/spmm-00.json/x", *ONE_JOB, "--out", "r.jsonl"),
                      "a part of the path is a file")
    (tmp_path / "loop").symlink_to("loop")
    assert_user_error(cli("batch", "loop", *ONE_JOB, "--out", "r.jsonl"), "too many levels of symbolic links")
    (tmp_path / "empty").mkdir()
    assert_user_error(cli("batch", "empty", *ONE_JOB, "--out", "r.jsonl"), "folder holds no .json schedules")
    deny(monkeypatch, samples, "list")
    assert_user_error(cli("batch", "cands", *ONE_JOB, "--out", "r.jsonl"), "cands: permission denied: cannot read")
    assert not (tmp_path / "r.jsonl").exists()


def test_sample_out_problems(cli, tmp_path, monkeypatch):
    small = ["--dim", "N=2", "--dim", "J=2"]
    (tmp_path / "file").write_text("x")
    assert_user_error(cli("sample", "spmm", "2", "--out", "file", *small), "file: exists and is not a folder")
    assert_user_error(cli("sample", "spmm", "2", "--out", "file/sub", *small), "a part of the path is a file")
    assert_user_error(cli("sample", "spmm", "2", "--out", "d" * 5000, *small), "the path is too long")
    (tmp_path / "ro").mkdir()
    deny(monkeypatch, tmp_path / "ro", "create-in")
    assert_user_error(cli("sample", "spmm", "2", "--out", "ro", *small), "ro/spmm-001.json: permission denied")
    assert_user_error(cli("sample", "spmm", "2", "--out", "ro/sub", *small), "ro/sub: permission denied")
    assert (tmp_path / "file").read_text() == "x" and list((tmp_path / "ro").iterdir()) == []


def test_sample_refuses_a_count_it_cannot_hold(cli):
    for count in (str(10**15), "9" * 4000):  # the second is beyond any float
        assert_user_error(cli("sample", "spmm", count, "--out", "s", "--max-memory", "64M"),
                          "N: the list of the N sampled files would need about", "draw fewer schedules")
    assert not (cli.cwd / "s").exists()


class _RefusingExecutor:
    """An executor whose submit raises `error` the first `times` calls, then runs tasks inline."""

    def __init__(self, error: Exception, times: int):
        self.error, self.times = error, times

    def submit(self, fn, *args):
        from concurrent.futures import Future

        if self.times:
            self.times -= 1
            raise self.error
        future = Future()
        future.set_result(fn(*args))
        return future


def _fake_outcome(task):
    return {"status": "ok", "error": None, "metrics": None, "report": None, "seconds": 0.0, "worker": "w"}


def test_an_executor_that_breaks_or_refuses_work_at_submit(tmp_path, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    from navigator.batch import Candidate, EvalConfig, ResultsLog, run_batch, runner
    from navigator.workspace import ProgramSpec

    monkeypatch.setattr(runner, "run_task", _fake_outcome)
    config = EvalConfig(ProgramSpec.from_user("spmm"))
    candidates = [Candidate(f"{n}.json", f"{n}" * 64, {}) for n in range(3)]
    with ResultsLog(tmp_path / "r.jsonl") as results:
        # a pool found broken when submitting, with nothing running: restarted at once
        restarts = []
        summary = run_batch(candidates, config, _RefusingExecutor(BrokenProcessPool("died"), 1), results, slots=2,
                            restart=lambda: restarts.append(1) or _RefusingExecutor(None, 0))
        assert restarts == [1] and summary.ok == 3 and summary.aborted is None
    with ResultsLog(tmp_path / "s.jsonl") as results:
        summary = run_batch(candidates, config, _RefusingExecutor(RuntimeError("client closed"), 1), results,
                            slots=2)
    assert summary.aborted == "the executor refused work (RuntimeError: client closed)" and summary.remaining == 3
    assert not (tmp_path / "s.jsonl").exists()


def test_run_task_turns_any_crash_into_an_outcome(monkeypatch):
    from fuseflow.schedule import default_schedule, schedule_to_json
    from navigator.evaluation import tasks as evaluation
    from navigator.evaluation.tasks import EvalConfig, Task
    from navigator.workspace import ProgramSpec

    config = EvalConfig(ProgramSpec.from_user("spmm", dims={"N": 8}), check=False)
    program = evaluation.load_inputs(config.spec, None, None).program
    task = Task("k", "s.json", schedule_to_json(program, default_schedule(program)), config)
    for crash in (RecursionError("deep"), MemoryError(), SystemExit(3), ZeroDivisionError()):
        def simulate(*args, crash=crash):
            raise crash

        monkeypatch.setattr(evaluation, "simulate", simulate)
        outcome = evaluation.run_task(task)
        assert outcome["status"] == "failed" and outcome["error"]["kind"] == "error", crash
        assert outcome["error"]["message"].startswith(type(crash).__name__)
