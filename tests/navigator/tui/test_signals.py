"""The TUI in a real pseudo-terminal, ended or paused by signals, and crashing: every way it
ends gives the terminal back (the alternate screen left, the cursor shown, mouse tracking and
bracketed paste off, the terminal attributes as they were: cooked, ICANON and ECHO), leaves
the session file whole and its lock free, and exits as the CLI does (128 + the signal with one
line; a bug: one line, a crash file, exit 1)."""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import termios
import time

import pytest

from tests.cli import clean_env

#: (mode switched on, switched off): the alternate screen, the cursor, mouse tracking, bracketed paste
MODES = ((b"\x1b[?1049h", b"\x1b[?1049l"), (b"\x1b[?25l", b"\x1b[?25h"), (b"\x1b[?1000h", b"\x1b[?1000l"),
         (b"\x1b[?1003h", b"\x1b[?1003l"), (b"\x1b[?1006h", b"\x1b[?1006l"), (b"\x1b[?2004h", b"\x1b[?2004l"))
#: an injected bug: the undo key raises (python -c runs it, then the command line as usual)
FAULT = ("import navigator.tui.app as app\n"
         "def undo(self):\n    raise RuntimeError('an injected fault')\n"
         "app.NavigatorApp.action_undo = undo\n"
         "from navigator.launcher import main\nraise SystemExit(main())\n")


class Terminal:
    """`navigator ARGS` on a pseudo-terminal of 100x30 whose slave end this test keeps open, to
    read its attributes after the program ends."""

    def __init__(self, args: list[str], cwd, prelude: str | None = None):
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, b"\x1e\x00\x64\x00\x00\x00\x00\x00")  # 30 rows, 100 columns
        self.cooked = termios.tcgetattr(self.slave)
        self.output = b""
        self.pid = os.fork()
        if self.pid == 0:  # the child: a session of its own, the pty as its controlling terminal
            try:
                os.setsid()
                fcntl.ioctl(self.slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(self.slave, fd)
                os.chdir(cwd)
                env = clean_env(TERM="xterm-256color", COLUMNS="100", LINES="30")
                command = ["-c", prelude] if prelude else ["-m", "navigator"]
                os.execve(sys.executable, [sys.executable, *command, *args], env)
            finally:
                os._exit(127)
        self.code: int | None = None

    def read_until(self, expected: bytes, timeout: float = 90.0) -> None:
        """Read the output until `expected` appears after what was read so far (fails after `timeout`)."""
        start = len(self.output)
        deadline = time.monotonic() + timeout
        while expected not in self.output[start:]:
            if time.monotonic() > deadline or not self._read(0.2):
                if self.code is not None or time.monotonic() > deadline:
                    self.kill()
                    pytest.fail(f"never showed {expected!r}: {self.output[-2000:]!r}")

    def _read(self, wait: float) -> bool:
        """Read what is there; False once the program has exited."""
        import select

        if select.select([self.master], [], [], wait)[0]:
            self.output += os.read(self.master, 65536)
        if self.code is None:
            finished, status = os.waitpid(self.pid, os.WNOHANG)
            if finished:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code is None

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def wait(self, timeout: float = 60.0) -> int:
        """Until the program exits, then what is left of its output; its exit code."""
        deadline = time.monotonic() + timeout
        while self._read(0.2):
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"the TUI did not exit: {self.output[-2000:]!r}")
        self.drain()
        return self.code

    def drain(self) -> None:
        """Read until nothing more comes (this test holds the slave end: no end of file)."""
        import select

        while select.select([self.master], [], [], 0.1)[0]:
            try:
                more = os.read(self.master, 65536)
            except OSError:
                return
            if not more:
                return
            self.output += more

    def attributes(self) -> list:
        return termios.tcgetattr(self.slave)

    def kill(self) -> None:
        if self.code is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.code = -9

    def close(self) -> None:
        self.kill()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def terminal(tmp_path):
    opened = []

    def start(*args: str, prelude: str | None = None) -> Terminal:
        opened.append(Terminal(list(args), tmp_path, prelude))
        return opened[-1]

    yield start
    for each in opened:
        each.close()


def assert_restored(term: Terminal) -> None:
    """Every mode the TUI switched on was switched off after, and the attributes are the cooked
    ones the terminal had before."""
    for on, off in MODES:
        if on in term.output:
            assert term.output.rfind(off) > term.output.rfind(on), (on, term.output[-1500:])
    now = term.attributes()
    assert now == term.cooked, (now, term.cooked)
    assert now[3] & termios.ICANON and now[3] & termios.ECHO
    assert b"Traceback" not in term.output


def assert_session_whole(tmp_path) -> None:
    """The session opens, and its lock is free (a command that changes it runs)."""
    from navigator.workspace import open_workspace

    session = tmp_path / ".navigator" / "session.json"
    assert open_workspace(session).session.steps
    assert not list(session.parent.glob("*.tmp*")), list(session.parent.iterdir())


def paint_and_step(term: Terminal, tmp_path, steps: int = 1) -> None:
    """Wait for the first paint, take one step (`d`) and wait until it is saved."""
    term.read_until(b"Menu")
    term.send(b"d")
    wait_for_steps(term, tmp_path, steps)


def wait_for_steps(term: Terminal, tmp_path, steps: int) -> None:
    """Until the session on disk has `steps` steps."""
    import json

    session = tmp_path / ".navigator" / "session.json"
    deadline = time.monotonic() + 60
    while len(json.loads(session.read_text(encoding="utf-8"))["steps"]) < steps:
        assert time.monotonic() < deadline, term.output[-1500:]
        term.drain()


def said_after(term: Terminal) -> list[bytes]:
    """The lines written after the terminal was restored, without escape sequences."""
    import re

    after = re.sub(rb"\x1b\[[0-9;?<>=$]*[a-zA-Z]", b"", term.output.rsplit(b"\x1b[?1049l", 1)[1])
    return [line for line in after.replace(b"\r", b"").split(b"\n") if line.strip()]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT],
                         ids=lambda s: signal.Signals(s).name)
def test_a_terminating_signal_restores_the_terminal_and_exits_128_plus_it(terminal, tmp_path, signum):
    term = terminal("tui", "gcn")
    paint_and_step(term, tmp_path)
    term.signal(signum)
    code = term.wait()
    assert code == 128 + signum, term.output[-1500:]
    assert_restored(term)
    expected = b"navigator: interrupted" if signum == signal.SIGINT else \
        f"navigator: stopped by {signal.Signals(signum).name}".encode()
    assert said_after(term) == [expected]      # one line, once the terminal is back
    assert_session_whole(tmp_path)


def test_sigcont_to_a_running_tui_leaves_it_working_and_q_restores(terminal, tmp_path):
    term = terminal("tui", "gcn")
    paint_and_step(term, tmp_path)
    term.signal(signal.SIGCONT)
    term.send(b"d")                            # it still reads keys
    wait_for_steps(term, tmp_path, 2)
    term.send(b"q")
    assert term.wait() == 0, term.output[-1500:]
    assert_restored(term)
    assert b"never awaited" not in term.output
    assert_session_whole(tmp_path)


def test_sigtstp_suspends_with_the_terminal_given_back_and_sigcont_resumes(terminal, tmp_path):
    term = terminal("tui", "gcn")
    paint_and_step(term, tmp_path)
    term.signal(signal.SIGTSTP)
    deadline = time.monotonic() + 60
    while True:                                # until it has stopped
        _, status = os.waitpid(term.pid, os.WUNTRACED | os.WNOHANG)
        if status and os.WIFSTOPPED(status):
            break
        assert time.monotonic() < deadline, term.output[-1500:]
        term.drain()
    term.drain()
    assert term.output.rfind(b"\x1b[?1049l") > term.output.rfind(b"\x1b[?1049h")   # the main screen, while stopped
    assert term.attributes() == term.cooked
    term.signal(signal.SIGCONT)
    term.read_until(b"\x1b[?1049h")            # the TUI takes the terminal again
    term.send(b"q")
    assert term.wait() == 0, term.output[-1500:]
    assert_restored(term)


def test_a_bug_in_a_handler_is_one_line_a_crash_file_and_exit_1(terminal, tmp_path, monkeypatch):
    crashes = tmp_path / "crashes"
    monkeypatch.setenv("NAVIGATOR_CRASH_DIR", str(crashes))   # this test provokes one on purpose
    term = terminal("tui", "gcn", prelude=FAULT)
    paint_and_step(term, tmp_path)
    term.send(b"u")
    assert term.wait() == 1, term.output[-1500:]
    assert_restored(term)
    lines = said_after(term)
    assert len(lines) == 1 and b"internal error" in lines[0] and b"an injected fault" in lines[0], lines
    reports = list(crashes.iterdir())
    assert len(reports) == 1 and "RuntimeError: an injected fault" in reports[0].read_text()
    assert_session_whole(tmp_path)
