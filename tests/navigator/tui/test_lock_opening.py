"""The TUI opens its session under the lock and never erases what another writer saved
(issue 21): opened while a CLI `fill` holds the lock, it waits, says for whom, and shows the
state after the fill; a file changed under it is read again before the next action. Its
export dialog offers files beside the session."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from pathlib import Path

import pytest

from fuseflow.support.errors import UserError
from navigator.workspace import ProgramSpec, locked_workspace, open_workspace
from navigator.tui.controller import Navigation

SESSION = Path(".navigator/session.json")
SPEC = dict(program="spmm", dims={"N": 2, "J": 2})


def _start(path=SESSION) -> None:
    Navigation.open(path, ProgramSpec.from_user(**SPEC))


def test_opened_while_a_fill_holds_the_lock_it_waits_and_shows_the_fill(here):
    _start()
    heard: list[str] = []
    holding, tui_waits = threading.Event(), threading.Event()
    filled: list[int] = []

    def cli_fill():  # `navigator fill`: holds the lock while it reads, fills and saves
        with locked_workspace(here / SESSION) as workspace:
            holding.set()
            assert tui_waits.wait(30)
            workspace.session.apply_default()
            workspace.save()
            filled.append(len(workspace.session.steps))

    def on_wait(text: str) -> None:
        heard.append(text)
        tui_waits.set()

    other = threading.Thread(target=cli_fill)
    other.start()
    assert holding.wait(30)
    with ExitStack() as held:  # the TUI, opened meanwhile
        navigation, _ = Navigation.open_held(SESSION, None, held, on_wait=on_wait)
        other.join(30)
        assert filled and len(navigation.session.steps) == filled[0]  # before: the state before the fill
        navigation.take_default(navigation.open_holes()[0])  # its first step keeps the CLI's
    assert len(open_workspace(SESSION).session.steps) == filled[0] + 1
    assert heard[0].startswith("waiting for ") and heard[0].endswith("to finish with the session (at most 60 s)")


def test_a_session_changed_on_disk_is_read_again_before_an_action(here):
    _start()
    navigation, _ = Navigation.open(SESSION)
    hole = navigation.open_holes()[0]
    other = open_workspace(SESSION)  # another writer (the lock is not held here)
    other.session.apply_default()
    other.save()
    with pytest.raises(UserError, match="changed on disk"):
        navigation.take_default(hole)
    assert len(navigation.session.steps) == len(other.session.steps)  # what is on disk now
    navigation.take_default(navigation.open_holes()[0])
    assert len(open_workspace(SESSION).session.steps) == len(other.session.steps) + 1


def test_the_export_dialog_offers_files_beside_the_session(here):
    _start(here / "x" / "s.json")
    navigation, _ = Navigation.open(here / "x" / "s.json")
    assert navigation.export_stem == here / "x" / "schedule"  # before: here / "schedule"
    _start()
    navigation, _ = Navigation.open(SESSION)
    assert navigation.export_stem.resolve() == (here / "schedule").resolve()  # beside .navigator/
