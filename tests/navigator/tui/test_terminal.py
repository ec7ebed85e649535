"""The TUI in a real pseudo-terminal: `navigator` alone opens it on gcn (and resumes, saying so),
q and Ctrl-C leave it with the terminal restored, and without a terminal it is a usage error."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from tests.cli import clean_env

#: the alternate screen is left and the cursor shown again: the terminal is restored
RESTORED = (b"\x1b[?1049l", b"\x1b[?25h")


def run_in_terminal(args: list[str], cwd, keys: bytes, wait_for: bytes = b"Menu", timeout: float = 60.0,
                    during=None):
    """Run navigator under a pty until `wait_for` shows, call `during()`, send `keys`, and return
    (exit code, output)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI in a terminal of 100x30
        os.chdir(cwd)
        env = clean_env(TERM="xterm-256color", COLUMNS="100", LINES="30")
        os.execve(sys.executable, [sys.executable, "-m", "navigator", *args], env)
    output = b""
    deadline = time.monotonic() + timeout
    sent = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the terminal closed: the process has exited
                    chunk = b""
                if not chunk:
                    _, status = os.waitpid(pid, 0)
                    return os.waitstatus_to_exitcode(status), output
                output += chunk
            if not sent and wait_for in output:
                time.sleep(0.5)  # let the first paint finish
                if during is not None:
                    during()
                os.write(fd, keys)
                sent = True
            finished, status = os.waitpid(pid, os.WNOHANG)
            if finished:
                return os.waitstatus_to_exitcode(status), output
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail(f"the TUI did not finish: {output[-2000:]!r}")
    finally:
        os.close(fd)


def test_bare_navigator_opens_the_tui_on_gcn_and_q_leaves_it_restored(tmp_path):
    code, output = run_in_terminal([], tmp_path, b"q")
    assert code == 0, output[-2000:]
    assert all(sequence in output for sequence in RESTORED)
    assert b"Traceback" not in output
    assert (tmp_path / ".navigator" / "session.json").is_file()
    # a second time, the session is resumed (and the notification says so)
    code, output = run_in_terminal([], tmp_path, b"q", wait_for=b"resumed")
    assert code == 0


def test_ctrl_c_leaves_the_tui_restored(tmp_path):
    code, output = run_in_terminal(["tui", "gcn"], tmp_path, b"\x03")
    assert code == 0, output[-2000:]
    assert all(sequence in output for sequence in RESTORED)


def test_without_a_terminal_it_is_a_usage_error(tmp_path):
    bare = subprocess.run([sys.executable, "-m", "navigator"], capture_output=True, text=True, cwd=tmp_path,
                          env=clean_env(), stdin=subprocess.DEVNULL)
    # one line, like every argument error (issue 21), naming where the commands are listed
    assert bare.returncode == 2 and bare.stderr.count("\n") == 1
    assert bare.stderr.startswith("navigator: error: ") and "navigator --help" in bare.stderr
    tui = subprocess.run([sys.executable, "-m", "navigator", "tui", "gcn"], capture_output=True, text=True,
                         cwd=tmp_path, env=clean_env(), stdin=subprocess.DEVNULL)
    assert tui.returncode == 2 and "navigator: error: tui: the terminal UI needs a terminal" in tui.stderr
    assert "Traceback" not in bare.stderr + tui.stderr


def test_a_corrupted_session_is_shown_in_the_interface_then_exit_2(tmp_path):
    session = tmp_path / ".navigator" / "session.json"
    session.parent.mkdir()
    session.write_text('{"format": "navigator-session", "steps": [', encoding="utf-8")
    code, output = run_in_terminal(["tui"], tmp_path, b"q", wait_for=b"cannot open the session")
    assert code == 2
    assert all(sequence in output for sequence in RESTORED)
    assert b"navigator: error:" in output and b"Traceback" not in output


def test_while_the_tui_runs_other_writers_are_told_who_holds_the_session(tmp_path):
    seen = {}

    def other_commands():
        def navigator(*args):
            return subprocess.run([sys.executable, "-m", "navigator", *args], capture_output=True, text=True,
                                  cwd=tmp_path, env=clean_env(), timeout=30)

        seen["fill"] = navigator("fill", "?0", "1")
        seen["show"] = navigator("show")

    code, _ = run_in_terminal(["tui", "gcn"], tmp_path, b"q", during=other_commands)
    assert code == 0
    fill = seen["fill"]
    assert fill.returncode == 2 and "the session is open in navigator tui (pid" in fill.stderr, fill.stderr
    assert seen["show"].returncode == 0  # reading commands still work
