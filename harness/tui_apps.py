"""The TUI in the states the snapshot tests, docs/tui.svg and benchmarks/tui_latency.py show.

Everything here runs in the current directory, with the session at the relative path
`.navigator/session.json`, so the title (which shows the session's path) is the same on every
machine. The states are reached through the controller (`Navigation`), the keys of interest
are pressed by the caller; `settle` waits until every worker is done and the screen repainted.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

from rich.console import Console

from navigator.workspace import ProgramSpec
from navigator.tui.app import NavigatorApp
from navigator.tui.controller import Navigation

SESSION = Path(".navigator/session.json")
#: the menu positions (1-based, as the menu numbers them) that lead gcn to a region of all six
#: ops, whose order hole has 6! = 120 legal orders
GCN_LONG_ORDER_MENU = (1, 1, 6)


def navigation(program: str = "gcn", picks: Sequence[int] = ()) -> Navigation:
    """A new session for `program` at SESSION, the first open hole filled with option number
    `pick` for each of `picks` (as a user pressing enter on that row would)."""
    nav, _ = Navigation.open(SESSION, ProgramSpec.from_user(program, None, {}, None))
    for pick in picks:
        hole = nav.open_holes()[0]
        nav.choose(hole, nav.options(hole)[pick - 1].id)
    return nav


def app(program: str = "gcn", picks: Sequence[int] = (), *, evaluate: bool = True) -> NavigatorApp:
    """The app on a new session for `program` (see `navigation`), with the start note when no
    step was taken (as `navigator tui PROGRAM` shows it)."""
    if not picks:
        nav, note = Navigation.open(SESSION, ProgramSpec.from_user(program, None, {}, None))
        return NavigatorApp(nav, note, evaluate=evaluate)
    return NavigatorApp(navigation(program, picks), evaluate=evaluate)


async def settle(pilot) -> None:
    """Wait until no worker runs (a worker's result can start another: hints after a choice),
    every screen has handled what was sent to it and the screen is repainted.

    Every screen, not only the top one: the status line under a dialog is updated when a
    worker ends (Worker.StateChanged), and Pilot's own waits cover only the top screen, so a
    snapshot of a dialog could show the status line of a moment before."""
    app = pilot.app
    for _ in range(20):
        await _workers_done(app)
        await _screens_quiet(app)
        await pilot.pause()
        if all(worker.is_finished for worker in app.workers):
            break
    await _screens_quiet(app)
    await pilot.pause()


async def _workers_done(app) -> None:
    """Every worker finished, however (one replaced by another of its group is cancelled)."""
    from textual.worker import WorkerCancelled, WorkerFailed

    for worker in list(app.workers):
        try:
            await worker.wait()
        except (WorkerCancelled, WorkerFailed):
            pass


async def _screens_quiet(app) -> None:
    """Every message sent so far to the app and to the widgets of every screen on the stack is
    handled (a callback queued behind them has run), and the screens under the top one have
    applied their pending repaints."""
    import asyncio

    if not app.is_running:
        return
    handled = []
    for node in [app, *(widget for screen in app.screen_stack for widget in screen.walk_children(with_self=True))]:
        done = asyncio.Event()
        if node.call_later(done.set):
            handled.append(done.wait())
    # as Pilot's own wait: an exception that ends the app ends the wait (its queues stop)
    everything, failed = asyncio.ensure_future(asyncio.gather(*handled)), asyncio.ensure_future(
        app._exception_event.wait())
    await asyncio.wait([everything, failed], return_when=asyncio.FIRST_COMPLETED)
    for pending in (everything, failed):
        pending.cancel()
    if app.is_running:
        for screen in app.screen_stack:
            screen._on_timer_update()


def screen_text(app: NavigatorApp) -> str:
    """The screen as plain text (what export_screenshot draws, without the styles)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True,
                      legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
