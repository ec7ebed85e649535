"""The TUI under keys that race its own updates (Textual's Pilot): the command palette paged
before its list is laid out, dialogs closed twice at once, selections made of a state a step
has changed since, and an exception in a handler, which ends the app as the CLI's contract
says (no traceback on the terminal; the exception kept for the crash report)."""

from __future__ import annotations

import asyncio
import json

import pytest
from textual import events
from textual.command import CommandList
from textual.widgets.option_list import Option

from harness.tui_apps import SESSION, app as make_app, settle
from navigator.tui.app import NavigatorApp
from navigator.tui.palette import NavigatorPalette
from navigator.tui.screens import AutoDialog, ConfirmDialog, ExportDialog, HelpScreen
from navigator.tui.widgets.history_pane import HistoryPane
from navigator.tui.widgets.menu_pane import MenuPane
from navigator.tui.widgets.sketch_pane import SketchPane

pytestmark = pytest.mark.usefixtures("here")

SIZE = (100, 30)


def run(scenario) -> NavigatorApp:
    """Run `scenario(app, pilot)` on gcn (no evaluation: nothing runs in the background but hints)."""
    app = make_app("gcn", evaluate=False)

    async def main():
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await scenario(app, pilot)
            await settle(pilot)
            assert app.is_running, "the app ended"
            await pilot.press("q")

    asyncio.run(main())
    return app


def test_page_up_in_the_palette_before_its_list_is_laid_out():
    """ctrl+p then PageUp at once: the list has its commands and a highlight, not yet its lines."""

    async def scenario(app, pilot):
        await pilot.press("ctrl+p")
        await settle(pilot)
        palette = app.screen
        assert isinstance(palette, NavigatorPalette)
        commands = palette.query_one(CommandList)
        commands.clear_options()
        await settle(pilot)                                  # laid out empty: no height
        commands.add_option(Option("a command"))             # what the palette does as its search returns
        commands.highlighted = 0
        await app.run_action("command_list('page_up')", palette)   # PageUp's binding, before the next layout
        await app.run_action("command_list('page_down')", palette)
        await pilot.press("escape")

    run(scenario)


def test_the_export_dialog_closed_by_enter_and_escape_together():
    written = []

    async def scenario(app, pilot):
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)
        app.navigation.export = lambda *args: written.append(args) or []
        app.post_message(events.Key("enter", "\r"))         # read together: both reach the dialog
        app.post_message(events.Key("escape", "\x1b"))
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog) and len(app.screen_stack) == 1

    run(scenario)
    assert len(written) <= 1


@pytest.mark.parametrize("dialog", ["auto", "confirm", "help", "export"])
def test_every_dialog_closed_twice_at_once_closes_once(dialog):
    """The auto dialog's run and escape in the same moment (and the same for every dialog):
    the first closes it, the second is ignored, the result callback runs once."""
    answers = []

    async def scenario(app, pilot):
        screen = {"auto": lambda: AutoDialog(0), "confirm": lambda: ConfirmDialog("sure?"),
                  "help": HelpScreen, "export": lambda: ExportDialog(False, "s.json", "s.py")}[dialog]()
        app.push_screen(screen, answers.append)
        await settle(pilot)
        accept = {"auto": "action_run", "confirm": "action_yes", "help": "action_dismiss_none",
                  "export": "_write"}[dialog]
        getattr(screen, accept)()
        screen.action_dismiss_none()
        await settle(pilot)
        assert len(app.screen_stack) == 1

    run(scenario)
    assert len(answers) == 1


def test_a_hole_selected_right_after_a_step_filled_it():
    """The sketch's enter on ?0 and a step that fills ?0 (`d`) handled before it: the
    selection is of a hole that is no longer open."""

    async def scenario(app, pilot):
        sketch = app.query_one(SketchPane)
        sketch.post_message(SketchPane.HoleSelected(0))
        app.action_default()                                  # fills ?0 before the message is handled
        await settle(pilot)
        assert 0 not in app.navigation.open_holes()
        assert app.hole in app.navigation.open_holes()
        assert any("?0 is filled already" in str(n.message) for n in app._notifications)

    run(scenario)


def test_an_option_chosen_for_a_hole_filled_meanwhile_is_ignored():
    async def scenario(app, pilot):
        option = app.navigation.options(0)[0].id
        app.query_one(MenuPane).post_message(MenuPane.OptionChosen(0, option))
        app.action_default()
        await settle(pilot)
        assert len(app.navigation.session.steps) == 1       # the default only
        assert any("?0 is filled already" in str(n.message) for n in app._notifications)

    run(scenario)


def test_a_history_step_selected_before_the_history_changed_is_ignored():
    async def scenario(app, pilot):
        await pilot.press("d", "d")
        await settle(pilot)
        first, taken = app.navigation.history()[0], app.navigation.session.steps[0].option
        app.query_one(HistoryPane).post_message(HistoryPane.StepSelected(first))
        app.action_undo()
        app.action_undo()
        other = next(o.id for o in app.navigation.options(0) if o.id != taken)
        app._choose(0, other)                                 # step 1 is now another step
        assert app.navigation.history()[0] != first
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert any("the history has changed" in str(n.message) for n in app._notifications)

    run(scenario)


def test_an_exception_in_a_handler_ends_the_app_without_a_traceback(monkeypatch):
    """A bug in a key's handler: the app exits (return code 1) through its loop, prints nothing
    over the terminal, and keeps the exception for the command line's crash report; the
    session on disk is the one saved after the last step."""

    def broken(self):
        raise RuntimeError("an injected fault")

    monkeypatch.setattr(NavigatorApp, "action_undo", broken)
    app = make_app("gcn", evaluate=False)

    async def main():
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("d")
            await settle(pilot)
            await pilot.press("u")
            await settle(pilot)

    with pytest.raises(RuntimeError, match="an injected fault"):  # run_test raises what ended the app
        asyncio.run(main())
    assert isinstance(app.crash, RuntimeError) and app.return_code == 1
    assert not app._exit_renderables                             # no traceback to print after the app
    saved = json.loads(SESSION.read_text(encoding="utf-8"))
    assert len(saved["steps"]) == 1
