"""Concurrent commands, corrupted or foreign session files, and files changed under a session."""

from __future__ import annotations

import json
import time

import pytest

from tests.cli import SMALL_SPMM, assert_user_error


def test_two_fills_at_once_are_serialized_by_the_lock(nav, cli, tmp_path):
    from filelock import FileLock

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    for hole in (0, 1, 2):
        cli("fill", f"?{hole}", "1", ok=True)  # now ?3 and ?4 are open side by side
    session = tmp_path / ".navigator" / "session.json"
    lock = FileLock(str(session) + ".lock")
    with lock:  # both commands start, and must wait for the lock rather than read and overwrite
        first = nav.popen("fill", "?3", "1", "--rationale", "first")
        second = nav.popen("fill", "?4", "1", "--rationale", "second")
        time.sleep(4)
        assert first.poll() is None and second.poll() is None
    for proc in (first, second):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    history = cli.json("history", schema="history")
    assert sorted(s["hole"] for s in history["steps"][3:]) == [3, 4]  # neither step was lost
    assert {s["rationale"] for s in history["steps"][3:]} == {"first", "second"}
    assert cli.json("show", schema="show")["open_holes"] == [5, 6]


CORRUPTIONS = {
    "truncated": lambda text: text[: len(text) // 2],
    "not json": lambda text: "this is not a session\n",
    "foreign": lambda text: json.dumps({"format": "something-else", "version": 1}),
    "newer": lambda text: text.replace('"version": 2,', '"version": 99,', 1),
    "edited step": lambda text: text.replace('"option": "schedule{program=\\"spmm\\"}"',
                                             '"option": "schedule{program=\\"other\\"}"', 1),
    "no program": lambda text: text.replace('"navigator": {', '"elsewhere": {', 1),
}
MESSAGES = {
    "truncated": "corrupted session file: invalid JSON",
    "not json": "corrupted session file: invalid JSON",
    "foreign": "not a navigator session file",
    "newer": "session file version 99 is newer",
    "edited step": "does not match its function and metadata",
    "no program": "the session names no program",
}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_bad_session_files_are_reported_and_left_untouched(cli, kind, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "1", ok=True)
    session = tmp_path / ".navigator" / "session.json"
    session.write_text(CORRUPTIONS[kind](session.read_text()))
    before = session.read_bytes()
    for command in (["show"], ["fill", "?2", "1"], ["undo"], ["redo"], ["history"], ["export", "--partial"]):
        assert_user_error(cli(*command), ".navigator/session.json", MESSAGES[kind])
        assert session.read_bytes() == before, command


def test_corrupted_session_end_to_end(nav, cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    session = tmp_path / ".navigator" / "session.json"
    session.write_bytes(b"\x00\xff garbage")
    result = nav("fill", "?0", "1")
    assert_user_error(result, ".navigator/session.json", "not UTF-8")
    assert session.read_bytes() == b"\x00\xff garbage"


def test_changed_program_file_is_detected_and_named(cli, tmp_path):
    from fuseflow.program.bundled import bundled_program_text

    program = tmp_path / "prog.toml"
    program.write_text(bundled_program_text("spmm"), encoding="utf-8")
    cli("start", "prog.toml", "--dim", "N=2", "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    session = tmp_path / ".navigator" / "session.json"
    saved = session.read_bytes()

    program.write_text(program.read_text() + "# a comment changes the text, not the space\n")
    result = cli("show")
    assert_user_error(result, "changed since the session was saved", f"the program file {program}",
                      "--accept-changes to replay the 1 recorded steps")
    assert "facts" not in result.stderr and session.read_bytes() == saved
    accepted = cli("fill", "?1", "1", "--accept-changes", ok=True)
    assert "accepted changes since the session was saved" in accepted.stderr
    cli("show", ok=True)  # the new version is now the saved one

    program.write_text(program.read_text().replace("J = 16", "J = 4"))
    result = cli("show")
    assert_user_error(result, f"the program file {program}", "the facts generated from the program")
    program.unlink()
    assert_user_error(cli("show"), "cannot load what the session navigates", "prog.toml: file not found")


def test_changed_library_and_data_are_detected(cli, tmp_path):
    from navigator.fuseflow.bundled_library import bundled_library_text

    (tmp_path / "lib.hblib.toml").write_text(bundled_library_text(), encoding="utf-8")
    header = "%%MatrixMarket matrix coordinate pattern general\n"
    (tmp_path / "g.mtx").write_text(header + "4 4 3\n1 2\n2 3\n3 4\n")
    cli("start", "spmm", "--library", "lib.hblib.toml", "--data", "g.mtx", "--dim", "J=2", "--no-forced", ok=True)
    assert cli.json("show", schema="show")["program"]["library"] == str(tmp_path / "lib.hblib.toml")
    with open(tmp_path / "lib.hblib.toml", "a") as handle:
        handle.write("\n# edited\n")
    assert_user_error(cli("show"), f"the library file {tmp_path / 'lib.hblib.toml'}")
    # A command that fails saves nothing, so the change is still reported afterwards.
    assert_user_error(cli("undo", "--accept-changes"), "nothing to undo")
    (tmp_path / "g.mtx").write_text(header + "4 4 4\n1 2\n2 3\n3 4\n1 4\n")
    result = cli("show")
    assert_user_error(result, f"the data file {tmp_path / 'g.mtx'}", "the library file")
