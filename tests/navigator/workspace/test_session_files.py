"""Session files and the file system: symbolic links, directories, FIFOs and devices where a
session or its lock should be, paths under files, read-only folders, text that is not
valid Unicode, and numbers too long to read. Each is one line on stderr and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.cli import SMALL_SPMM, assert_user_error, clean_env

SESSION = Path(".navigator") / "session.json"
CHANGING = (["fill", "?0", "1"], ["undo"], ["redo"], ["start", "spmm", *SMALL_SPMM, "--force"])
READING = (["show"], ["history"], ["export", "--partial"])


def _steps(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["steps"]


# ---------------------------------------------------------------- symbolic links

def test_a_session_reached_through_a_symbolic_link_writes_its_target(cli, tmp_path):
    (tmp_path / "real").mkdir()
    link, target = tmp_path / "link.json", tmp_path / "real" / "s.json"
    link.symlink_to("real/s.json")  # dangling: start creates the target
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", "--session", "link.json", ok=True)
    cli("fill", "?0", "1", "--session", "link.json", ok=True)
    assert link.is_symlink() and os.readlink(link) == "real/s.json"
    assert [s["hole"] for s in _steps(target)] == [0]
    cli("fill", "?1", "1", "--session", "link.json", ok=True)
    cli("undo", "--session", "link.json", ok=True)
    assert link.is_symlink() and [s["hole"] for s in _steps(target)] == [0]
    assert json.loads(target.read_text())["redo"][0]["hole"] == 1
    cli("start", "spmm", *SMALL_SPMM, "--force", "--session", "link.json", ok=True)
    assert link.is_symlink() and _steps(target) == []
    # One lock, beside the target, whichever name the command was given.
    assert (tmp_path / "real" / "s.json.lock").exists() and not (tmp_path / "link.json.lock").exists()


def test_link_and_target_contend_for_the_same_lock(cli, tmp_path, monkeypatch):
    from filelock import FileLock

    import navigator.workspace.session_file as files

    (tmp_path / "real").mkdir()
    (tmp_path / "link.json").symlink_to("real/s.json")
    cli("start", "spmm", *SMALL_SPMM, "--session", "real/s.json", ok=True)
    monkeypatch.setattr(files, "LOCK_TIMEOUT", 0.2)
    with FileLock(str(tmp_path / "real" / "s.json.lock")):  # held by "another command" on the target
        for command in CHANGING:
            result = cli(*command, "--session", "link.json")
            assert_user_error(result, "real/s.json.lock", "another navigator command has held the session lock")
    assert _steps(tmp_path / "real" / "s.json") == []


def test_link_and_target_contend_for_the_same_lock_end_to_end(nav, cli, tmp_path):
    from filelock import FileLock

    (tmp_path / "real").mkdir()
    (tmp_path / "link.json").symlink_to("real/s.json")
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", "--session", "real/s.json", ok=True)
    with FileLock(str(tmp_path / "real" / "s.json.lock")):
        waiting = nav.popen("fill", "?0", "1", "--session", "link.json")
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(timeout=3)  # it cannot finish while the target's lock is held
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert (tmp_path / "link.json").is_symlink()
    assert [s["hole"] for s in _steps(tmp_path / "real" / "s.json")] == [0]


def test_a_symbolic_link_loop_is_reported(cli, tmp_path):
    (tmp_path / "loop.json").symlink_to("loop.json")
    for command in (["show"], ["fill", "?0", "1"], ["start", "spmm"]):
        assert_user_error(cli(*command, "--session", "loop.json"), "loop.json", "symbolic links")
    (tmp_path / "loop.toml").symlink_to("loop.toml")  # Path.resolve() raises RuntimeError on it
    assert_user_error(cli("start", "loop.toml"), "loop.toml", "symbolic links")
    assert_user_error(cli("start", "spmm", "--data", "loop.toml"), "loop.toml")  # the data loader words it


# ---------------------------------------------------------------- things in the way

def test_a_directory_at_the_session_path(cli, tmp_path):
    (tmp_path / "dir.json").mkdir()
    for command in (*CHANGING, *READING, ["start", "spmm"], ["count"], ["replay", "s.json"]):
        assert_user_error(cli(*command, "--session", "dir.json"), "dir.json: is a directory, not a session file")
    assert not (tmp_path / "dir.json.lock").exists()  # refused before a lock file was made beside it
    assert list((tmp_path / "dir.json").iterdir()) == []


def test_a_directory_or_a_symbolic_link_at_the_lock_path(cli, spmm_session, tmp_path):
    before = spmm_session.read_bytes()
    lock = tmp_path / ".navigator" / "session.json.lock"
    lock.unlink()
    lock.mkdir()
    for command in CHANGING:
        assert_user_error(cli(*command), "session.json.lock: is a directory, not the session's lock file",
                          "remove it")
    lock.rmdir()
    lock.symlink_to(tmp_path / "elsewhere")
    assert_user_error(cli("fill", "?0", "1"), "session.json.lock: is a symbolic link", "remove it")
    assert spmm_session.read_bytes() == before and not (tmp_path / "elsewhere").exists()


def test_a_session_path_under_a_regular_file(cli, tmp_path):
    (tmp_path / "afile").write_text("")
    for command in (["start", "spmm"], *CHANGING, *READING):
        assert_user_error(cli(*command, "--session", "afile/s.json"), "afile/s.json",
                          "a part of the path is a file, not a folder")
    assert (tmp_path / "afile").read_text() == ""


def test_a_fifo_at_the_session_path(nav, cli, tmp_path):
    os.mkfifo(tmp_path / "fifo.json")
    for command in (*CHANGING, *READING, ["start", "spmm"]):
        assert_user_error(cli(*command, "--session", "fifo.json"), "fifo.json: is not a regular file")
    assert not (tmp_path / "fifo.json.lock").exists()
    # The real process does not block opening it either (the test would time out).
    assert_user_error(nav("fill", "?0", "1", "--session", "fifo.json", timeout=60), "fifo.json: is not a regular file")


def test_a_device_at_the_session_path(cli):
    existed = os.path.exists("/dev/zero.lock")
    for command in (*CHANGING, *READING, ["start", "spmm"]):
        assert_user_error(cli(*command, "--session", "/dev/zero"), "/dev/zero: is not a regular file")
    assert existed or not os.path.exists("/dev/zero.lock")  # no lock file created in /dev


def test_file_hash_refuses_a_fifo_and_a_device(tmp_path):
    from fuseflow.support.errors import UserError
    from navigator.workspace.spec import file_hash

    os.mkfifo(tmp_path / "hw.toml")
    for path in (str(tmp_path / "hw.toml"), "/dev/zero"):
        with pytest.raises(UserError, match="not a regular file"):
            file_hash(path, "the hardware file")


# ---------------------------------------------------------------- permissions

def _unprivileged() -> list[str]:
    """A prefix that runs a command as a user a read-only folder stops (root ignores permissions)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be tested")
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import navigator"], capture_output=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip("the unprivileged user 65534 cannot import navigator here")
    return prefix


def test_a_read_only_folder_end_to_end(cli, monkeypatch):
    prefix = _unprivileged()
    folder = Path(tempfile.mkdtemp(prefix="navigator-ro-"))  # reachable by the unprivileged user
    try:
        folder.chmod(0o755)
        monkeypatch.chdir(folder)
        cli("start", "spmm", *SMALL_SPMM, "--no-forced", "--session", "s.json", ok=True)
        cli("fill", "?0", "1", "--session", "s.json", ok=True)
        (folder / "s.json").chmod(0o644)
        (folder / "s.json.lock").chmod(0o666)  # the lock opens; the folder refuses the new file
        before = (folder / "s.json").read_bytes()
        folder.chmod(0o555)

        def run(*args: str) -> subprocess.CompletedProcess:
            result = subprocess.run([*prefix, sys.executable, "-m", "navigator", *args], cwd=folder,
                                    capture_output=True, text=True, env=clean_env(), timeout=120)
            assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
            return result

        assert_user_error(run("start", "spmm", "--session", "new.json"), "new.json.lock", "permission denied")
        for command, where in ((["fill", "?1", "1"], "s.json"), (["undo"], "s.json"),
                               (["export", "--partial", "--json", "out.json"], "out.json")):
            assert_user_error(run(*command, "--session", "s.json"), f"error: {where}: permission denied")
        assert (folder / "s.json").read_bytes() == before
        # s.json.bak: the version before the fill, kept while the folder could be written
        assert sorted(p.name for p in folder.iterdir()) == ["s.json", "s.json.bak", "s.json.lock"]
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_permission_denied_while_writing_is_one_line(cli, spmm_session, monkeypatch):
    import errno
    import tempfile as tempfile_module

    before = spmm_session.read_bytes()

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile_module, "mkstemp", denied)
    for command in (["fill", "?0", "1"], ["start", "spmm", *SMALL_SPMM, "--force"],
                    ["export", "--partial", "--python", "s.py"]):
        assert_user_error(cli(*command), "permission denied")
    assert spmm_session.read_bytes() == before


# ---------------------------------------------------------------- text that is not valid Unicode

def test_text_that_is_not_valid_unicode_is_refused_where_it_enters(cli, spmm_session, tmp_path):
    before = spmm_session.read_bytes()
    assert_user_error(cli("fill", "?0", "1", "--rationale", "why \udcff"), "--rationale: holds '\\udcff'",
                      "not valid Unicode")
    assert_user_error(cli("start", "spmm", "--session", "s\udcff.json"), "--session: holds '\\udcff'", "rename")
    assert_user_error(cli("start", "p\udcff.toml", "--force"), "PROGRAM: holds '\\udcff'")
    assert_user_error(cli("start", "spmm", "--data", "g\udcff.mtx", "--force"), "--data: holds '\\udcff'")
    assert_user_error(cli("start", "spmm", "--library", "l\udcff.toml", "--force"), "--library: holds")
    assert_user_error(cli("start", "spmm", "--session", "a\0b.json"), "--session: holds a NUL character")
    assert spmm_session.read_bytes() == before and sorted(os.listdir(tmp_path / ".navigator")) == [
        "session.json", "session.json.lock"]


def test_a_rationale_of_undecodable_bytes_end_to_end(nav, cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    before = (tmp_path / SESSION).read_bytes()
    result = nav("fill", "?0", "1", "--rationale", b"caf\xe9")  # Latin-1 bytes: not UTF-8
    assert_user_error(result, "--rationale: holds '\\udce9'", "not valid Unicode")
    assert (tmp_path / SESSION).read_bytes() == before


def test_a_session_file_holding_an_unpaired_surrogate(cli, spmm_session):
    cli("fill", "?0", "1", "--rationale", "fine", ok=True)
    text = spmm_session.read_text().replace('"rationale": "fine"', '"rationale": "\\udcff"')
    spmm_session.write_text(text)
    for command in (*READING, *CHANGING[:3]):
        assert_user_error(cli(*command), "corrupted session file: steps[0].rationale holds text that is not "
                                         "valid Unicode")
    assert spmm_session.read_text() == text


# ---------------------------------------------------------------- numbers

def test_numbers_too_long_or_not_ascii_are_user_errors(cli, spmm_session):
    digits = "9" * 5000
    assert_user_error(cli("fill", f"?{digits}", "1"), "cannot read hole")
    assert_user_error(cli("fill", "?0", digits), "cannot read option")
    assert_user_error(cli("fill", "?0", "\u00b2"), "cannot read option")  # '²' is a digit to str.isdigit
    assert_user_error(cli("fill", "?\u00b2", "1"), "cannot read hole")
    assert_user_error(cli("show", "--hole", digits), "cannot read hole")
    assert_user_error(cli("undo", "\u00b2"), "expected a whole number of steps")
    assert_user_error(cli("undo", digits), "expected a whole number of steps")
    assert_user_error(cli("start", "spmm", "--dim", "N=\u00b2", "--force"), "--dim: cannot read 'N=\u00b2'")
    assert_user_error(cli("start", "spmm", "--dim", f"N={digits}", "--force"), "--dim: dimension N = 999999999999...", "larger than")
    cli("fill", "?0", "1", ok=True)
    for hole, option in ((1, "1"), (2, "1"), (3, "1"), (4, "1"), (5, "2"), (6, "1")):
        cli("fill", f"?{hole}", option, ok=True)
    assert_user_error(cli("fill", "?8", "par", f"factor={digits}"), "offers no par with factor=")
