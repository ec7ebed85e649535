"""Who holds a session's lock: the record beside `<session>.lock`, the at-once refusal while
the TUI (an interactive holder) has the session, the holder named when a wait times out,
and records that cannot be trusted (a dead process, garbage, links, pipes) ignored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigator.navigation.session_errors import SessionError
from navigator.workspace import hold_session, locked_workspace, session_lock
from navigator.workspace import session_file as files
from navigator.workspace.lock_owner import (LockOwner, default_holder, owner_path, read_owner, remove_owner,
                                                write_owner)
from tests.cli import SMALL_SPMM, assert_user_error, clean_env

SESSION = Path(".navigator") / "session.json"
LOCK = Path(".navigator") / "session.json.lock"
OWNER = Path(".navigator") / "session.json.lock.owner"
CHANGING = (["fill", "?0", "1"], ["undo"], ["redo"], ["start", "spmm", *SMALL_SPMM, "--force"])
READING = (["show"], ["history"], ["export", "--partial"])

_HOLD = """
import pathlib, sys, time
from navigator.workspace import {function}
with {function}(pathlib.Path(sys.argv[1]){extra}):
    print("held", flush=True)
    time.sleep(300)
"""


class Holder:
    """Another process holding the session's lock until `stop()`."""

    def __init__(self, cwd: Path, function: str = "hold_session", extra: str = ""):
        code = _HOLD.format(function=function, extra=extra)
        self.proc = subprocess.Popen([sys.executable, "-c", code, str(SESSION)], cwd=cwd, env=clean_env(),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line == "held\n", (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.pid = self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=30)


@pytest.fixture
def holders(tmp_path):
    started: list[Holder] = []

    def start(**kwargs) -> Holder:
        started.append(Holder(tmp_path, **kwargs))
        return started[-1]

    yield start
    for holder in started:
        holder.stop()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _record(pid: int, kind: str = "interactive", host: str | None = None, command: str = "navigator tui") -> str:
    import socket

    return json.dumps({"pid": pid, "host": host or socket.gethostname(), "command": command,
                       "since": "2024-05-01T05:31:00+00:00", "kind": kind})


# ---------------------------------------------------------------- the TUI holds the session

def test_a_command_fails_at_once_while_the_tui_holds_the_session(nav, cli, tmp_path, holders):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    before = (tmp_path / SESSION).read_bytes()
    tui = holders()
    record = json.loads((tmp_path / OWNER).read_text())
    assert record["pid"] == tui.pid and record["kind"] == "interactive" and record["command"] == "navigator tui"
    for command in CHANGING:
        started = time.monotonic()
        result = nav(*command, timeout=files.LOCK_TIMEOUT / 2)  # waiting for the lock would take LOCK_TIMEOUT
        assert time.monotonic() - started < files.LOCK_TIMEOUT / 2
        assert_user_error(result, "session.json.lock: the session is open in navigator tui",
                          f"(pid {tui.pid} on ", " UTC)", "quit it (q)", "--session FILE")
    for command in READING:  # reading commands take no lock: they work while the TUI is open
        assert nav(*command).returncode == 0
    assert (tmp_path / SESSION).read_bytes() == before
    tui.stop()  # killed: the OS frees the lock; the record it leaves names a dead process
    assert (tmp_path / OWNER).exists()
    cli("fill", "?0", "1", ok=True)
    assert not (tmp_path / OWNER).exists()


def test_the_tui_cannot_open_a_session_another_tui_holds(cli, tmp_path, holders, monkeypatch):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    first = holders()
    monkeypatch.setattr(files, "LOCK_TIMEOUT", 30.0)
    started = time.monotonic()
    with pytest.raises(SessionError, match=f"the session is open in navigator tui \\(pid {first.pid} on "):
        with hold_session(tmp_path / SESSION):
            pass
    assert time.monotonic() - started < 15


def test_a_command_holder_is_named_when_the_wait_times_out(cli, tmp_path, holders, monkeypatch):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    fill = holders(function="session_lock", extra=', holder="navigator fill"')
    monkeypatch.setattr(files, "LOCK_TIMEOUT", 0.6)
    for command in CHANGING:
        assert_user_error(cli(*command), "session.json.lock: another navigator command has held the session lock",
                          f"held by navigator fill (pid {fill.pid} on ", "wait for it to finish")
    # The TUI waits for a command too, then says who it waited for.
    with pytest.raises(SessionError, match=f"held by navigator fill \\(pid {fill.pid} "):
        with hold_session(tmp_path / SESSION):
            pass


def test_a_record_from_another_host_is_trusted(cli, tmp_path, monkeypatch):
    from filelock import FileLock

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    monkeypatch.setattr(files, "LOCK_TIMEOUT", 30.0)
    with FileLock(str(tmp_path / LOCK)):  # a TUI on another machine, through a shared folder
        (tmp_path / OWNER).write_text(_record(_dead_pid(), host="elsewhere"))
        started = time.monotonic()
        assert_user_error(cli("fill", "?0", "1"), "the session is open in navigator tui", " on elsewhere since ")
        assert time.monotonic() - started < 15


# ---------------------------------------------------------------- records that are not trusted

def _untrusted_records(tmp_path: Path) -> dict:
    """Ways the owner path can hold something that must be ignored, each as a function making it."""
    live_interactive = _record(os.getpid())
    target = tmp_path / "elsewhere.json"

    def link():
        target.write_text(live_interactive)
        (tmp_path / OWNER).symlink_to(target)

    return {
        "dead pid": lambda: (tmp_path / OWNER).write_text(_record(_dead_pid())),
        "not json": lambda: (tmp_path / OWNER).write_text("{pid: 1"),
        "binary": lambda: (tmp_path / OWNER).write_bytes(bytes(range(256)) * 8),
        "huge": lambda: (tmp_path / OWNER).write_bytes(b"{" + b" " * (8 << 20) + b"}"),
        "wrong types": lambda: (tmp_path / OWNER).write_text(json.dumps(
            {"pid": "1", "host": 3, "command": [], "since": "yesterday", "kind": "interactive"})),
        "huge pid": lambda: (tmp_path / OWNER).write_text(_record(10 ** 40)),
        "no time zone": lambda: (tmp_path / OWNER).write_text(
            _record(os.getpid()).replace("+00:00", "")),
        "deep": lambda: (tmp_path / OWNER).write_text("[" * 2000 + "]" * 2000),
        "a symbolic link": link,
        "a named pipe": lambda: os.mkfifo(tmp_path / OWNER),
        "a directory": lambda: (tmp_path / OWNER).mkdir(),
    }


def _clear(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()


def test_untrusted_records_are_ignored_while_the_lock_is_busy(cli, tmp_path, monkeypatch):
    from filelock import FileLock

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    monkeypatch.setattr(files, "LOCK_TIMEOUT", 0.3)
    for name, make in _untrusted_records(tmp_path).items():
        make()
        with FileLock(str(tmp_path / LOCK)):  # a holder that wrote no record
            result = cli("fill", "?0", "1")
        assert_user_error(result, "another navigator command has held the session lock for 0 s (wait")
        assert "open in" not in result.stderr and "held by" not in result.stderr, name
        _clear(tmp_path / OWNER)


def test_a_record_never_stops_a_command_when_the_lock_is_free(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    records = _untrusted_records(tmp_path)
    # The lock decides, not the record: a live interactive record beside a free lock is stale.
    records["live but free"] = lambda: (tmp_path / OWNER).write_text(_record(os.getpid()))
    for index, (name, make) in enumerate(records.items()):
        make()
        kind = os.lstat(tmp_path / OWNER).st_mode
        cli(*(["undo"] if index % 2 else ["fill", "?0", "1"]), ok=True)
        if name in ("a symbolic link", "a named pipe", "a directory"):  # left alone, never written through
            assert os.lstat(tmp_path / OWNER).st_mode == kind, name
        else:
            assert not (tmp_path / OWNER).exists(), name  # replaced by the command's own, then removed
        _clear(tmp_path / OWNER)
    assert json.loads((tmp_path / "elsewhere.json").read_text())["pid"] == os.getpid()


@settings(max_examples=150, deadline=None)
@given(data=st.one_of(st.binary(max_size=300), st.builds(lambda v: json.dumps(v).encode(), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["pid", "host", "command", "since", "kind", "x"]), inner, max_size=6)))))
def test_reading_any_owner_file_never_raises(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("owner")
    lock = folder / "s.json.lock"
    owner_path(lock).write_bytes(data)
    found = read_owner(lock)
    assert found is None or (isinstance(found, LockOwner) and found.pid > 0 and found.describe())


# ---------------------------------------------------------------- writing and removing the record

def test_the_record_lives_exactly_as_long_as_the_hold(tmp_path):
    session = tmp_path / "s.json"
    lock = files.lock_path(session)
    with session_lock(session, holder="navigator fill"):
        owner = read_owner(lock)
        assert (owner.pid, owner.command, owner.kind) == (os.getpid(), "navigator fill", "command")
        assert abs((datetime.now(timezone.utc) - owner.since).total_seconds()) < 60
    assert not owner_path(lock).exists()
    with pytest.raises(RuntimeError):
        with session_lock(session, interactive=True):
            assert read_owner(lock).interactive
            raise RuntimeError("a crash inside the hold")
    assert not owner_path(lock).exists()
    with session_lock(session, timeout=0):  # and the lock itself was released
        pass


def test_hold_session_lets_its_own_thread_change_the_session(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    with hold_session(tmp_path / SESSION) as target:
        assert target == tmp_path / SESSION
        with locked_workspace(target) as workspace:  # the TUI saves through what commands use
            workspace.session.apply_default()
            workspace.save()
        assert read_owner(tmp_path / LOCK).interactive  # the inner hold did not replace the record
        result = {}
        thread = threading.Thread(target=lambda: result.setdefault("error", _try_lock(target)))
        thread.start()
        thread.join(30)
        assert "open in navigator tui" in str(result["error"])  # another thread is another writer
    assert not (tmp_path / OWNER).exists()
    assert len(json.loads((tmp_path / SESSION).read_text())["steps"]) == 1


def _try_lock(target: Path):
    try:
        with session_lock(target):
            return None
    except SessionError as exc:
        return exc


def test_remove_owner_leaves_a_record_it_did_not_write(tmp_path):
    lock = tmp_path / "s.json.lock"
    other = LockOwner(pid=_dead_pid(), host="h", command="navigator fill",
                      since=datetime(2024, 5, 1, 5, 31, tzinfo=timezone.utc), kind="command")
    owner_path(lock).write_text(_record(12345, kind="command"))
    write_owner(lock, other)
    assert read_owner(lock) == other
    remove_owner(lock, LockOwner(**{**other.__dict__, "pid": other.pid + 1}))
    assert read_owner(lock) == other
    owner_path(lock).write_text("an export someone wrote here")
    remove_owner(lock, other)
    assert owner_path(lock).read_text() == "an export someone wrote here"


def test_how_a_holder_is_described():
    owner = LockOwner(pid=1234, host="HOST", command="navigator tui",
                      since=datetime(2024, 5, 1, 5, 31, 7, tzinfo=timezone.utc), kind="interactive")
    assert owner.describe(now=datetime(2024, 5, 1, 23, 0, tzinfo=timezone.utc)) == \
        "navigator tui (pid 1234 on HOST since 05:31 UTC)"
    assert owner.describe(now=datetime(2024, 5, 2, 1, 0, tzinfo=timezone.utc)) == \
        "navigator tui (pid 1234 on HOST since 2024-05-01 05:31 UTC)"
    assert default_holder(["/venv/bin/navigator", "fill", "?0", "1", "--max-memory", "1G"]) == "navigator fill"
    assert default_holder([str(Path("/src/navigator/__main__.py")), "undo"]) == "navigator undo"
    assert default_holder(["navigator", "\x1b[31mred"]) == "navigator ?[31mred"  # no escape reaches a terminal


def test_an_export_is_refused_over_the_owner_record(cli, spmm_session):
    for option in ("--json", "--python"):
        assert_user_error(cli("export", "--partial", option, str(OWNER)),
                          "is the record of who holds the session's lock")
