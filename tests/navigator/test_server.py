"""A session's server (navigator.server, navigator.process.served): commands it runs print and
exit exactly as commands run in their own process, Ctrl-C reaches them, and it stops when it
should; nobody else can use it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from navigator.process import served
from tests.cli import assert_user_error, clean_env, default_sigint

GCN_SMALL = ["--dim", "N=16", "--dim", "F=4", "--dim", "H=4", "--dim", "C=3"]


@pytest.fixture
def runtime(tmp_path, monkeypatch) -> Path:
    """A folder of its own for the servers' sockets (short: a socket's path is at most 107 bytes),
    the server switched on; servers stopped after."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="nav-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("NAVIGATOR_SERVER", "on")
    monkeypatch.setenv("NAVIGATOR_SERVER_IDLE", "60")
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(tmp_path / "cache"))
    yield folder
    for lock in (folder / "navigator").glob("*.lock"):
        try:
            os.kill(int(lock.read_text().strip()), signal.SIGTERM)
        except (ValueError, OSError):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def _env(**extra) -> dict[str, str]:
    return clean_env(**extra)


def _run(cwd: Path, *args: str, env=None, timeout=120) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "navigator", *args], cwd=cwd, env=env or _env(),
                            capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _wait_for_server(session: Path, seconds: float = 60) -> None:
    path = served.socket_path(str(session.resolve()))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path and os.path.exists(path) and served.listening(path):
            return
        time.sleep(0.1)
    pytest.fail("the session's server did not start")


def _started(tmp_path: Path) -> Path:
    assert _run(tmp_path, "start", "gcn", *GCN_SMALL).returncode == 0
    session = tmp_path / ".navigator" / "session.json"
    _wait_for_server(session)
    return session


def _served(argv: list[str], capfd) -> tuple[int | None, str, str]:
    """Run `argv` through the server from this process (its streams are captured at the fd level)."""
    capfd.readouterr()
    code = served.run_in_server(argv)
    out, err = capfd.readouterr()
    return code, out, err


def test_commands_the_server_runs_print_and_exit_as_their_own_processes_do(tmp_path, runtime, capfd,
                                                                           monkeypatch):
    """Each command twice from the same session file: through the server, then (the file put
    back) in its own process; the same exit code, output and last line of stderr, and the same
    session afterwards."""
    import shutil

    session = _started(tmp_path)
    monkeypatch.chdir(tmp_path)
    folder = session.parent
    for argv in (["show"], ["show", "--json"], ["fill", "?0", "1"], ["show", "--hints"], ["fill", "?1", "--auto",
                 "default"], ["history"], ["undo"], ["redo"], ["fill", "?99", "1"], ["show", "--hole", "zz"],
                 ["export", "--json", "schedule.json", "--partial"], ["show", "--bogus"], ["undo", "2"]):
        before = tmp_path / "before"
        shutil.rmtree(before, ignore_errors=True)
        shutil.copytree(folder, before)
        code, out, err = _served(argv, capfd)
        assert code is not None, argv  # the server ran it
        after_served = _run(tmp_path, "show", env=_env(NAVIGATOR_SERVER="off")).stdout
        shutil.rmtree(folder)
        shutil.copytree(before, folder)
        local = _run(tmp_path, *argv, env=_env(NAVIGATOR_SERVER="off"))
        after_local = _run(tmp_path, "show", env=_env(NAVIGATOR_SERVER="off")).stdout
        assert (code, out) == (local.returncode, local.stdout), argv
        assert err.splitlines()[-1:] == local.stderr.splitlines()[-1:], argv
        assert after_served == after_local, argv
    assert (tmp_path / "schedule.json").is_file()


def test_a_user_error_in_the_server_is_one_line_and_exit_2(tmp_path, runtime, capfd, monkeypatch):
    _started(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = _served(["fill", "?99", "1"], capfd)
    assert_user_error(subprocess.CompletedProcess([], code, out, err), "?99 is not an open hole")


def test_ctrl_c_reaches_the_command_the_server_runs(tmp_path, runtime):
    _started(tmp_path)
    # a search long enough to be interrupted
    client = subprocess.Popen([sys.executable, "-m", "navigator", "fill", "?0", "--auto", "anneal", "--all",
                               "--budget", "100000"], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    time.sleep(3)
    client.send_signal(signal.SIGINT)
    try:
        out, err = client.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        client.kill()
        out, err = client.communicate()
        pytest.fail(f"the client did not end after Ctrl-C; its stderr: {err[-2000:]}")
    assert client.returncode == 130, err
    assert err.count("navigator: interrupted") == 1 and "Traceback" not in err
    # the server still serves, and the session is as it was before the interrupted command
    assert _run(tmp_path, "show").returncode == 0


def test_the_server_stops_when_idle_and_when_its_session_is_gone(tmp_path, runtime, monkeypatch):
    monkeypatch.setenv("NAVIGATOR_SERVER_IDLE", "1")
    session = _started(tmp_path)
    path = served.socket_path(str(session.resolve()))
    deadline = time.monotonic() + 30
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path)
    monkeypatch.setenv("NAVIGATOR_SERVER_IDLE", "60")
    assert _run(tmp_path, "show").returncode == 0  # served by no one, and starts one again
    _wait_for_server(session)
    session.unlink()
    result = _run(tmp_path, "show")
    assert_user_error(result, "no session file here")


def test_an_edited_program_is_noticed_as_by_a_command_of_its_own(tmp_path, runtime):
    program = tmp_path / "spmm.toml"
    from fuseflow.program.bundled import bundled_program_text

    program.write_text(bundled_program_text("spmm"), encoding="utf-8")
    assert _run(tmp_path, "start", str(program), "--dim", "N=4", "--dim", "J=2").returncode == 0
    _wait_for_server(tmp_path / ".navigator" / "session.json")
    program.write_text(bundled_program_text("spmm") + "\n# edited\n", encoding="utf-8")
    assert_user_error(_run(tmp_path, "show"), "changed since the session was saved")


def test_a_socket_folder_others_can_enter_is_not_used(tmp_path, runtime, monkeypatch):
    folder = runtime / "navigator"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    assert served.socket_folder() is None
    assert _run(tmp_path, "start", "gcn", *GCN_SMALL).returncode == 0
    time.sleep(1)
    assert list(folder.iterdir()) == []  # no server was started
    assert _run(tmp_path, "show").returncode == 0  # the command ran in its own process


def test_a_client_of_another_version_is_declined_and_the_server_stops(tmp_path, runtime, capfd, monkeypatch):
    session = _started(tmp_path)
    monkeypatch.chdir(tmp_path)
    import navigator.version

    monkeypatch.setattr(navigator.version, "__version__", "0.0.0-other")
    assert _served(["show"], capfd)[0] is None  # declined: the command runs in its own process
    path = served.socket_path(str(session.resolve()))
    deadline = time.monotonic() + 30
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path)


def test_a_socket_path_too_long_for_a_socket_uses_no_server(tmp_path, monkeypatch):
    deep = tmp_path / ("x" * 120)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    assert served.socket_path(str(tmp_path / "session.json")) is None


def test_switched_off_help_and_no_cache_are_never_served():
    assert not served.wanted(["show", "--help"])
    assert not served.wanted(["show", "--no-cache"])
    assert not served.wanted(["tui"])
    assert not served.wanted(["check", "gcn"])
    assert served.session_argument(["show", "--session", "s.json"]) == "s.json"
    assert served.session_argument(["show", "--session=t.json"]) == "t.json"
