"""A session is saved only over the version that was read; temporary files of killed writers
do not pile up beside it; a wait for the lock says who it waits for (issue 21)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from navigator.workspace import locked_workspace, open_workspace, session_lock
from navigator.workspace.session_workspace import StaleSessionError


def _steps(path) -> list[int]:
    return [record.hole for record in open_workspace(path).session.steps]


def test_a_workspace_read_before_another_save_refuses_to_overwrite_it(cli, spmm_session):
    """Two writers: the first read the session, then another process saved a step; the
    first's save must not erase that step (before: it silently did)."""
    stale = open_workspace(spmm_session)
    cli("fill", "?0", "1", ok=True)  # the other process, under the lock
    stale.session.apply_default()
    with pytest.raises(StaleSessionError, match="changed since this command read it"):
        stale.save()
    assert _steps(spmm_session) == [0]  # the other process's step is kept
    with locked_workspace(spmm_session) as fresh:  # read again, it saves
        fresh.session.apply_default()
        fresh.save()
    assert _steps(spmm_session) == [0, 1]


def test_a_wait_for_the_lock_names_the_holder(spmm_session):
    """What the TUI shows instead of a blank screen while a command holds the session."""
    heard: list[str] = []
    waiting, done = threading.Event(), threading.Event()

    def on_wait(text: str) -> None:
        heard.append(text)
        waiting.set()

    def wait_for_the_lock():
        with session_lock(spmm_session, on_wait=on_wait):
            done.set()

    waiter = threading.Thread(target=wait_for_the_lock)
    with session_lock(spmm_session, holder="navigator fill"):
        waiter.start()
        assert waiting.wait(30)
        assert not done.is_set()
    waiter.join(30)
    assert done.is_set()
    assert heard[0].startswith(f"waiting for navigator fill (pid {os.getpid()} on ")
    assert heard[0].endswith("to finish with the session (at most 60 s)")


_KILLED_WRITER = """
import os, sys, time
from fuseflow.support import files

def stuck(*args):  # the temporary file is written; the writer is killed before renaming it
    print("ready", flush=True)
    time.sleep(120)

files.os.replace = stuck
files.write_text_atomic(sys.argv[1], "half of a session")
"""


def test_temporary_files_of_a_killed_writer_are_removed_when_the_session_is_next_opened(cli, spmm_session):
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(spmm_session)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert writer.stdout.readline().strip() == "ready"
    writer.send_signal(signal.SIGKILL)
    writer.wait(30)
    folder = spmm_session.parent
    left = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and f".~{writer.pid}-" in left[0]  # named after its writer
    alive = folder / left[0].replace(f".~{writer.pid}-", f".~{os.getpid()}-")  # a writer still running
    alive.write_text("in progress")
    cli("fill", "?0", "1", ok=True)
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == [alive.name]
    assert _steps(spmm_session) == [0]


def _kill_a_writer_of(target) -> str:
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert writer.stdout.readline().strip() == "ready"
    writer.send_signal(signal.SIGKILL)
    writer.wait(30)
    return f".~{writer.pid}-"


def test_an_export_killed_beside_the_session_leaves_nothing_once_the_session_is_next_opened(cli, spmm_session):
    """Fuzz case 2:1337: `export` killed while writing out.json beside the session; `show`
    and `undo` come next, and the first that takes the session clears the dead writer's file."""
    folder = spmm_session.parent
    tag = _kill_a_writer_of(folder / "out.json")
    assert [p.name for p in folder.iterdir() if tag in p.name]
    cli("fill", "?0", "1", ok=True)
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_the_next_write_of_a_target_clears_its_killed_writers_temporary_file(tmp_path):
    """An export written far from any session: the next export to the same file clears it."""
    from fuseflow.support.files import write_text_atomic

    target = tmp_path / "elsewhere" / "schedule.json"
    target.parent.mkdir()
    tag = _kill_a_writer_of(target)
    other = target.parent / f".other.json{tag}abc.tmp"  # another target's: not this writer's business
    other.write_text("x")
    write_text_atomic(target, "{}", follow_link=True)  # an export: a path the user named
    assert sorted(p.name for p in target.parent.iterdir()) == [other.name, "schedule.json"]
