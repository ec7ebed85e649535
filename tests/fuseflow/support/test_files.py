"""fuseflow.support.files: what Navigator reads must be a regular file of bounded size; what it
writes is written atomically, through symbolic links, with the umask's mode."""

from __future__ import annotations

import errno
import os
import stat
import threading

import pytest

from fuseflow.support.errors import UserError
from fuseflow.support.files import file_stem, read_user_bytes, read_user_text, write_text_atomic


def _finishes(function, seconds: float = 5.0):
    """Run `function` in a thread; fail (instead of hanging the suite) if it blocks."""
    outcome: dict = {}

    def run():
        try:
            outcome["value"] = function()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the call blocked"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "session.json"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match=r"named pipe \(FIFO\), not a regular file"):
        _finishes(lambda: read_user_text(fifo, UserError, "a session file"))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_refused_before_reading():
    with pytest.raises(UserError, match="is a device, not a regular file"):
        _finishes(lambda: read_user_bytes("/dev/zero", UserError, "a schedule"))


def test_directory_missing_and_oversized_files(tmp_path):
    with pytest.raises(UserError, match="is a directory"):
        read_user_text(tmp_path, UserError, "a schedule")
    with pytest.raises(UserError, match="file not found") as missing:
        read_user_text(tmp_path / "nope.json", UserError, "a schedule")
    assert missing.value.fix
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(UserError, match="larger than the 1.0 KiB allowed"):
        read_user_text(big, UserError, "a schedule", limit=1024)
    binary = tmp_path / "x.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UserError, match="is not UTF-8 text"):
        read_user_text(binary, UserError, "a schedule")
    with pytest.raises(UserError, match="a part of the path is a file"):
        read_user_text(big / "child.json", UserError, "a schedule")


def test_writing_through_a_symlink_keeps_the_link_and_changes_the_target(tmp_path):
    """Only for a path the user named (follow_link): see the test below for every other write."""
    target = tmp_path / "real" / "session.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "session.json"
    link.symlink_to(target)
    write_text_atomic(link, "new", follow_link=True)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "created-by-write.json")
    write_text_atomic(dangling, "x", follow_link=True)
    assert dangling.is_symlink() and (tmp_path / "created-by-write.json").read_text() == "x"


def test_new_files_follow_the_umask_and_rewrites_keep_the_mode(tmp_path):
    previous = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.json"
        write_text_atomic(fresh, "{}")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        script = tmp_path / "rebuild.py"
        write_text_atomic(script, "print()", executable=True)
        assert stat.S_IMODE(script.stat().st_mode) == 0o750
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        kept.chmod(0o604)
        write_text_atomic(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604 and kept.read_text() == "new"
    finally:
        os.umask(previous)


def test_write_errors_name_the_path_and_leave_nothing_behind(tmp_path):
    folder = tmp_path / "taken"
    folder.mkdir()
    with pytest.raises(UserError, match="is a directory") as exc:
        write_text_atomic(folder, "x")
    assert exc.value.where == str(folder) and exc.value.fix
    plain = tmp_path / "plain.txt"
    plain.write_text("keep me")
    with pytest.raises(UserError, match="exists and is not a folder|a part of the path is a file"):
        write_text_atomic(plain / "out.json", "x")
    assert plain.read_text() == "keep me"
    with pytest.raises(UserError, match="not valid Unicode"):
        write_text_atomic(tmp_path / "s.json", "why: \udcff")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.txt", "taken"]


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "session.json"
    target.write_text("old")

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(UserError, match="no space left on the disk"):
        write_text_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]


def test_permission_denied_is_a_user_error(tmp_path, monkeypatch):
    import tempfile

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(UserError, match="permission denied: cannot write here") as exc:
        write_text_atomic(tmp_path / "out.json", "x")
    assert "choose a path you may write" in str(exc.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_a_read_only_folder_is_a_user_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(UserError, match="permission denied"):
            write_text_atomic(folder / "out.json", "x")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("name, stem", [("gcn", "gcn"), ("../../etc/passwd", "_.._etc_passwd"),
                                        ("a b\nc", "a_b_c"), ("", "unnamed"), (".hidden", "hidden"),
                                        ("C:\\x", "C_x")])
def test_file_stems_from_user_text_cannot_leave_their_folder(name, stem):
    assert file_stem(name) == stem


def test_a_link_where_navigator_writes_is_replaced_never_followed(tmp_path):
    """Issue 21: a backup, a cache entry, a record... written where someone left a link
    replaces the link; the file it pointed at is untouched."""
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's file")
    link = tmp_path / "entry.json"
    link.symlink_to(outside)
    write_text_atomic(link, "new")
    assert not link.is_symlink() and link.read_text() == "new"
    assert outside.read_text() == "the user's file"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a link away")
def test_a_named_output_that_is_another_users_link_is_refused(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's file")
    link = tmp_path / "out.json"
    link.symlink_to(outside)
    os.lchown(link, 12345, 12345)  # planted by someone else (in a shared folder such as /tmp)
    with pytest.raises(UserError, match="symbolic link owned by another user"):
        write_text_atomic(link, "new", follow_link=True)
    assert outside.read_text() == "the user's file" and link.is_symlink()
