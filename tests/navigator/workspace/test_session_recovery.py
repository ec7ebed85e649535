"""A damaged session file: the error names the file and what is wrong, and says how to recover,
with commands that work when pasted: the previous version kept in `<session>.bak`, or
`navigator start --force` with the program, data, dims and library the file recorded."""

from __future__ import annotations

import json
import os
import re
import shlex

from tests.cli import SMALL_SPMM, assert_user_error


def _commands(stderr: str) -> list[list[str]]:
    """The commands quoted in backticks in the error line."""
    return [shlex.split(text) for text in re.findall(r"`([^`]+)`", stderr)]


def _run_suggested(nav, stderr: str, program: str) -> None:
    (command,) = [c for c in _commands(stderr) if c[0] == program]
    if program == "cp":
        import shutil

        shutil.copyfile(nav.cwd / command[1], nav.cwd / command[2])
    else:
        nav(*command[1:], ok=True)


def test_a_truncated_session_is_recovered_from_its_backup(nav):
    nav("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    nav("fill", "?0", "1", ok=True)
    nav("fill", "?1", "1", ok=True)
    session = nav.cwd / ".navigator" / "session.json"
    backup = nav.cwd / ".navigator" / "session.json.bak"
    assert json.loads(backup.read_text())["steps"][0]["hole"] == 0 and len(json.loads(backup.read_text())["steps"]) == 1
    damaged = session.read_bytes()[:200]
    session.write_bytes(damaged)
    for command in (["show"], ["fill", "?2", "1"], ["count"], ["history"]):
        result = nav(*command)
        assert_user_error(result, ".navigator/session.json: corrupted session file: invalid JSON",
                          "restore the previous version, kept in .navigator/session.json.bak: "
                          "`cp .navigator/session.json.bak .navigator/session.json`",
                          "start again with `navigator start PROGRAM --force`")
        assert session.read_bytes() == damaged
    _run_suggested(nav, result.stderr, "cp")
    shown = nav.json("show")
    assert len(nav.json("history")["steps"]) == 1 and shown["complete"] is False


def test_damaged_steps_suggest_the_recorded_program_and_that_command_works(nav, tmp_path):
    (tmp_path / "runs").mkdir()
    nav("start", "spmm", *SMALL_SPMM, "--session", "runs/one.json", ok=True)
    session = tmp_path / "runs" / "one.json"
    data = json.loads(session.read_text())
    data["steps"] = [{"hole": "first"}]
    session.write_text(json.dumps(data))
    result = nav("show", "--session", "runs/one.json")
    assert_user_error(result, "runs/one.json: steps[0].hole: step has no valid hole number",
                      "start again with `navigator start spmm --dim J=2 --dim N=2 --session runs/one.json --force`")
    assert "restore the previous version" not in result.stderr       # start alone keeps no backup
    _run_suggested(nav, result.stderr, "navigator")
    assert nav.json("show", "--session", "runs/one.json")["program"]["dims"] == {"J": 2, "N": 2}


def test_start_force_keeps_the_last_good_version(nav):
    nav("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    nav("fill", "?0", "1", ok=True)
    session = nav.cwd / ".navigator" / "session.json"
    backup = nav.cwd / ".navigator" / "session.json.bak"
    good = session.read_bytes()
    nav("start", "sddmm", "--dim", "N=2", "--dim", "K=2", "--force", ok=True)
    assert backup.read_bytes() == good                      # the replaced session, kept
    session.write_text("{ not json")
    nav("start", "spmm", "--force", ok=True)
    assert backup.read_bytes() == good                      # a damaged file does not replace the backup


def test_the_backup_sits_beside_a_links_target(nav, tmp_path):
    (tmp_path / "real").mkdir()
    nav("start", "spmm", *SMALL_SPMM, "--session", "real/s.json", ok=True)
    os.symlink("real/s.json", tmp_path / "link.json")
    nav("fill", "?0", "1", "--session", "link.json", ok=True)
    assert (tmp_path / "real" / "s.json.bak").is_file() and not (tmp_path / "link.json.bak").exists()
    assert (tmp_path / "link.json").is_symlink()


def test_something_in_the_way_of_the_backup_never_loses_a_step(nav, tmp_path):
    nav("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    backup = tmp_path / ".navigator" / "session.json.bak"
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("keep me")
    os.symlink(elsewhere, backup)
    result = nav("fill", "?0", "1", ok=True)
    assert "note: the previous version of the session was not kept" in result.stderr
    assert "is a symbolic link" in result.stderr
    assert elsewhere.read_text() == "keep me" and backup.is_symlink()
    backup.unlink()
    backup.mkdir()
    result = nav("fill", "?1", "1", ok=True)
    assert "is not a regular file" in result.stderr
    assert len(nav.json("history")["steps"]) == 2


def test_a_damaged_backup_is_not_suggested(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "1", ok=True)
    (tmp_path / ".navigator" / "session.json.bak").write_text("{")
    (tmp_path / ".navigator" / "session.json").write_text("[]")
    result = cli("show")
    assert_user_error(result, "not a navigator session file")
    (tmp_path / ".navigator" / "session.json").write_bytes(b"\xff\xfe{}")
    result = cli("show")
    assert_user_error(result, "corrupted session file: not UTF-8 text (byte 0 cannot be decoded)",
                      "start again with `navigator start PROGRAM --force`")
    assert ".bak" not in result.stderr
