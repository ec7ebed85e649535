"""Fingerprints of what a session file records: hand edits of its settings, step log or redo
stack, deleted fingerprints and sessions saved by an older navigator are refused, naming
what is wrong; --accept-changes replays everything and the next save re-fingerprints."""

from __future__ import annotations

import json

import pytest

from tests.cli import SMALL_SPMM, assert_user_error, check_schema

COMMANDS = (["show"], ["fill", "?2", "1"], ["undo"], ["redo"], ["history"], ["export", "--partial"])


@pytest.fixture
def session(cli, tmp_path):
    """spmm with steps ?0 and ?1 taken and ?2 undone (on the redo stack)."""
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    for hole in (0, 1, 2):
        cli("fill", f"?{hole}", "1", "--rationale", f"step {hole}", ok=True)
    cli("undo", ok=True)
    path = tmp_path / ".navigator" / "session.json"
    check_schema("session-file", json.loads(path.read_text()))
    return path


def edit(path, change) -> bytes:
    data = json.loads(path.read_text())
    change(data, data["context"]["navigator"])
    path.write_text(json.dumps(data, indent=2))
    return path.read_bytes()


EDITS = {
    "fingerprints deleted": (lambda d, c: c.pop("fingerprints"),
                             "it has no fingerprints (context.navigator.fingerprints)"),
    "record deleted": (lambda d, c: c["fingerprints"].pop("record"),
                       "lacks the fingerprints of its settings and steps (record)"),
    "facts fingerprint deleted": (lambda d, c: c["fingerprints"].pop("facts"),
                                  "lacks the fingerprints of the facts"),
    "dims": (lambda d, c: c["dims"].update(N=4), "edited since navigator saved it: context.navigator.dims"),
    "program": (lambda d, c: c.update(program="sddmm"),
                "edited since navigator saved it: context.navigator.program"),
    "data": (lambda d, c: c.update(data="/elsewhere/g.mtx"),
             "edited since navigator saved it: context.navigator.data"),
    "library": (lambda d, c: c.update(library="/elsewhere/lib.toml"), "context.navigator.library"),
    "rationale": (lambda d, c: d["steps"][0].update(rationale="edited"),
                  "edited since navigator saved it: the step log (steps)"),
    "step removed": (lambda d, c: d["steps"].pop(), "the step log (steps)"),
    "redo removed": (lambda d, c: d.update(redo=[]), "edited since navigator saved it: the redo stack (redo)"),
    "forced steps": (lambda d, c: d.update(forced_steps=True),
                     "edited since navigator saved it: the forced-steps setting (forced_steps)"),
    "command": (lambda d, c: d["steps"][1].update(command=1), "edited since navigator saved it: the step log"),
    "older navigator": (lambda d, c: (c.update(version=1), c["fingerprints"].pop("record")),
                        "saved by an older navigator, without the fingerprints of its own settings and steps"),
}


@pytest.mark.parametrize("kind", sorted(EDITS))
def test_edited_or_unfingerprinted_sessions_are_refused(cli, session, kind):
    change, message = EDITS[kind]
    before = edit(session, change)
    for command in COMMANDS:
        result = cli(*command)
        # The restart command repeats the recorded program only when its fingerprints vouch for it.
        spec_intact = kind in ("rationale", "step removed", "redo removed", "facts fingerprint deleted", "command",
                               "forced steps")
        restart = "`navigator start spmm --dim J=2 --dim N=2 --force`" if spec_intact else \
            "`navigator start PROGRAM --force` (PROGRAM: a name `navigator programs` lists"
        assert_user_error(result, ".navigator/session.json: cannot trust this session file", message,
                          "--accept-changes to replay the", f"start again with {restart}",
                          "restore the previous version, kept in .navigator/session.json.bak: "
                          "`cp .navigator/session.json.bak .navigator/session.json`")
    assert_user_error(cli("count"), "cannot take the program from this session", message,
                      "name the program on the command line")
    assert session.read_bytes() == before


def test_accept_changes_replays_an_edited_log_and_records_new_fingerprints(cli, session):
    edit(session, lambda d, c: d["steps"][0].update(rationale="edited"))
    shown = cli("show", "--accept-changes", ok=True)
    assert "accepted, after checking that its steps replay: edited since navigator saved it: the step log" \
        in shown.stderr
    assert_user_error(cli("show"), "the step log (steps)")  # show saves nothing
    cli("redo", "--accept-changes", ok=True)  # saves: the edit is now what navigator recorded
    history = cli.json("history", schema="history")
    assert [s["rationale"] for s in history["steps"]] == ["edited", "step 1", "step 2"]
    check_schema("session-file", json.loads(session.read_text()))


def test_accept_changes_takes_a_different_but_offered_step(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    for hole in range(5):
        cli("fill", f"?{hole}", "1", ok=True)
    second = cli.json("show", schema="show")["holes"][0]["options"][1]  # option 2 at ?5 (an order)
    cli("fill", "?5", "1", ok=True)
    path = tmp_path / ".navigator" / "session.json"
    edit(path, lambda d, c: d["steps"][5].update(option=second["id"], function=second["function"],
                                                 metadata=second["metadata"]))
    assert_user_error(cli("fill", "?6", "1"), "the step log (steps)")
    cli("undo", "--accept-changes", ok=True)
    redone = cli.json("redo", schema="steps")
    assert redone["steps"][0]["option"] == second["id"]


def test_accept_changes_still_refuses_steps_or_undone_steps_that_do_not_replay(cli, session):
    before = edit(session, lambda d, c: d["redo"].insert(0, dict(d["steps"][0])))
    assert_user_error(cli("show"), "the redo stack (redo)")
    assert_user_error(cli("undo", "--accept-changes"), "session.json: redo[0]",
                      "undone step 1 (?0 := schedule{program=\"spmm\"}) cannot be replayed", "not an open hole")
    assert session.read_bytes() == before
    edit(session, lambda d, c: d.update(steps=d["steps"][1:]))
    assert_user_error(cli("show", "--accept-changes"), "steps[0]", "step 1 (?1 := ", "cannot be replayed")


def test_a_session_of_an_older_navigator_is_recovered_with_accept_changes(cli, session):
    edit(session, lambda d, c: (c.update(version=1), c["fingerprints"].pop("record")))
    result = cli("fill", "?2", "1", "--accept-changes", ok=True)
    assert "saved by an older navigator" in result.stderr
    saved = json.loads(session.read_text())
    assert saved["context"]["navigator"]["version"] == 3
    check_schema("session-file", saved)
    assert cli.json("show", schema="show")["steps"] == 3


def test_a_context_from_a_newer_navigator_is_refused(cli, session):
    edit(session, lambda d, c: c.update(version=4))
    assert_user_error(cli("show", "--accept-changes"), "saved by a newer navigator (context version 4",
                      "upgrade navigator")
    edit(session, lambda d, c: c.update(version="two"))
    assert_user_error(cli("show"), "context.navigator.version must be a positive integer")


def test_a_session_saved_before_region_by_region_fusion_says_its_library_changed(cli, tmp_path):
    """data/session_before_incremental_fusion.json (beside this file) was saved by the navigator
    that chose a whole grouping in one step (gcn, grouping `... | transform2+bias2`, 34 steps).
    Opening it now names what changed instead of failing on an unknown option; --accept-changes
    then stops at the first step the new library does not offer, naming it."""
    import shutil
    from pathlib import Path

    shutil.copy(Path(__file__).parent / "data" / "session_before_incremental_fusion.json", tmp_path / "old.json")
    before = (tmp_path / "old.json").read_bytes()
    assert_user_error(cli("show", "--session", "old.json"), "old.json: changed since the session was saved",
                      "the bundled scheduling library (navigator was upgraded)", "--accept-changes")
    replayed = cli("show", "--session", "old.json", "--accept-changes")
    assert replayed.returncode == 2 and "fuse{" in replayed.stderr and "\n" not in replayed.stderr.strip()
    assert (tmp_path / "old.json").read_bytes() == before  # never rewritten by a failed load
