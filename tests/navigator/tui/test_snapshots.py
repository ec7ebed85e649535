"""Snapshots (pytest-textual-snapshot) of the TUI's main states: the start, a long order menu
filtered, the model's proposals, the complete schedule with its evaluation, an error
notification, the start without colour (NO_COLOR), and transformer12 (276 ops) part-way,
at 80x24 and 160x45.

Each state is reached by keys after every worker (hints, evaluation, strategy, model) is done,
so the screen does not depend on timing; before each snapshot the screen's text is also checked
for what the state is about, so an accepted snapshot cannot hide a wrong state. The session is
at a relative path in a working directory of the test's own (the title shows that path).

After an intended change of the screen, rewrite the snapshots and look at them:
    python -m pytest tests/navigator/tui/test_snapshots.py --snapshot-update -p no:cacheprovider
(a failing run writes snapshot_report.html, a side-by-side view of what changed).
"""

from __future__ import annotations

import pytest

from harness.tui_apps import GCN_LONG_ORDER_MENU, app, screen_text, settle

pytestmark = pytest.mark.usefixtures("here")

SIZE = (100, 30)
SMALL = (80, 24)
LARGE = (160, 45)
#: keys that fill every hole with the heuristic: a (auto), heuristic is the first strategy;
#: tab to the scopes, down twice and space picks "all", enter runs
HEURISTIC_ALL = ("a", "tab", "down", "down", "space", "enter")


def starting_app():
    """gcn after `navigator tui gcn`: its start note stays up until the snapshot however slow
    the machine (a toast's timeout is wall-clock time)."""
    started = app("gcn")
    started.NOTIFICATION_TIMEOUT = 3600
    return started


def after(*keys: str, expect: tuple[str, ...] = (), toasts: bool = False):
    """A run_before that settles, presses `keys` (settling after each), drops the toasts unless
    `toasts` (their timeouts are wall-clock time), settles again and checks that the screen
    shows `expect`. Every snapshot test's state is reached through it."""

    async def run(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        if not toasts:
            clear_toasts(pilot.app)
        # every worker done and every screen repainted, the ones under a dialog too (the
        # status line under the model's proposals changes when the model's worker ends)
        await settle(pilot)
        shown = screen_text(pilot.app)
        for text in expect:
            assert text in shown, f"{text!r} is not on the screen:\n{shown}"
        assert "computing…" not in shown and "evaluating…" not in shown, shown

    return run


def clear_toasts(app) -> None:
    """Drop every notification from every screen. Textual's clear_notifications updates the top
    screen's toasts only: a toast the main screen showed when a dialog was pushed over it stayed
    in its corner, drawn through the dialog's backdrop or not depending on how far the main
    screen had painted it (test_model_proposals: "asking fake about ?2…")."""
    from textual.css.query import NoMatches
    from textual.widgets._toast import ToastRack

    app.clear_notifications()
    for screen in app.screen_stack:
        try:
            screen.get_child_by_type(ToastRack).show(app._notifications)
        except NoMatches:
            pass


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["100x30", "80x24"])
def test_start(snap_compare, size):
    expect = ("gcn — .navigator/session.json", "started gcn in", "?0 : Schedule",
              "2,555,630", "85,631,509 sim. cycles")
    assert snap_compare(starting_app(), terminal_size=size, run_before=after(expect=expect, toasts=True))


def test_start_without_colour(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    started = starting_app()
    assert started.no_color
    assert snap_compare(started, terminal_size=SMALL, run_before=after(expect=("?0 : Schedule",), toasts=True))


def test_long_order_menu_filtered(snap_compare):
    """gcn's six ops fused in one region: its order hole has 6! = 120 orders; the filter keeps
    the 20 whose innermost loop is c."""
    state = app("gcn", GCN_LONG_ORDER_MENU)
    hole = state.navigation.open_holes()[0]
    assert len(state.navigation.options(hole)) == 120

    async def filtered(pilot) -> None:
        await after("slash", *"inner=c", "enter", expect=("filter 'inner=c'", "order=f h i2 i k c"))(pilot)
        assert pilot.app.query_one("#menu").row_count == 20

    assert snap_compare(state, terminal_size=SIZE, run_before=filtered)


def test_model_proposals(snap_compare, model):
    """The fake model's ranked plans for gcn's first region hole (the holes beneath at their defaults), each simulated."""
    state = app("gcn", (1, 1))
    expect = ("The model's plans", "take plan 1", "simulated 66,563,458 cycles")
    assert snap_compare(state, terminal_size=SIZE, run_before=after("l", expect=expect))
    assert model.chat_requests


def test_complete_schedule_with_evaluation(snap_compare):
    expect = ("the sketch is complete", "complete: 41 steps", "[strategy:heuristic]", "2,553,099 sim. cycles")
    assert snap_compare(app("gcn"), terminal_size=SIZE, run_before=after(*HEURISTIC_ALL, expect=expect))


def test_error_notification(snap_compare):
    """`l` with no model configured: the error and how to configure one, the app still running."""

    async def asked(pilot) -> None:
        await after()(pilot)  # the start note goes first, so the error toast is the only one
        await after("l", expect=("the model is not configured", "no model is configured"), toasts=True)(pilot)

    assert snap_compare(app("gcn"), terminal_size=SIZE, run_before=asked)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x45"])
def test_transformer12_part_way(snap_compare, size):
    """A program of 276 ops: its first region placed, the sketch filtered to a region by name
    (`f`), the next open hole selected (`n`); every count and hint shown whole, in the one
    number format (tests/navigator/tui/figures_fit.py)."""
    from tests.navigator.tui.figures_fit import check_figures_fit

    state = app("transformer12", (1, 1, 1), evaluate=False)
    expect = ("transformer12 — .navigator/session.json", "completions", "rows match")

    async def run(pilot) -> None:
        await after("f", *"mean1", "enter", "n", expect=expect)(pilot)
        check_figures_fit(pilot.app)

    assert snap_compare(state, terminal_size=size, run_before=run)
