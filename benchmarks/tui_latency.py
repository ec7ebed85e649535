"""TUI latency with Textual's Pilot (headless, 100x30): startup to first paint, and a key press
to the repainted menu.

The session is opened as `navigator tui` opens it (`Navigation.open_held`: the UI holds the
session's lock while it runs, so a step's save does not take it again).

- startup: from `Navigation.open_held` (building the program's space, as the user waits for it) and
  creating the app to the first frame sent to the (headless) terminal with the menu filled
  (its rows on screen; the cost hints and the evaluation still come in the background).
  Target for gcn: <= 1.5 s. (Pilot's `pause()` would add its own idle wait, about 0.8 s.)
- key to menu: `down` (the next option: details repainted), `enter` (choose it: a step, the
  session saved, every panel rebuilt) and `u` (undo it), cycled; each is timed from the press
  to the first frame the app sends to the (headless) terminal that shows its effect (the
  cursor moved, the step taken or undone). Pilot's own waits (it sleeps until the process
  looks idle, tens of ms) are not counted; `pilot_ms` reports press-to-`pause()` with them.
  The hints and evaluation workers are waited for between presses (untimed), as a user reads
  the screen between keys, so each press starts from a quiet app. Targets: p95 <= 50 ms on
  gcn and <= 100 ms on transformer12.

- resume (issue 24): the session filled by default (2,955 steps on transformer12), opened
  again: the steps replayed, the first paint, the first evaluation, and `q` to the app's end;
  then the same session cut to its first RESUMED_STEPS steps (the size the targets name: no
  redo stack, as after a new step) and resumed the same way (`resume_1000`). Targets, for the
  1,000 steps: first paint <= 2 s, first evaluation <= 5 s, quit <= 0.5 s.

    python benchmarks/tui_latency.py [--programs gcn,transformer12] [--presses 51] [--no-evaluate] [--no-resume]

Prints JSON: per program, startup seconds, and per key and overall median/p95/max in
milliseconds. Runs in a temporary directory (a new session there).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _util import emit, summary  # noqa: E402

SIZE = (100, 30)
KEYS = ("down", "enter", "u")
#: the session size the resume targets are stated for
RESUMED_STEPS = 1000


async def measure(program: str, presses: int, evaluate: bool) -> dict:
    from navigator.workspace import ProgramSpec
    from navigator.tui.app import NavigatorApp
    from navigator.tui.controller import Navigation
    from harness.tui_apps import SESSION

    start = time.perf_counter()
    with contextlib.ExitStack() as held:
        navigation, note = Navigation.open_held(SESSION, ProgramSpec.from_user(program, None, {}, None), held)
        opened = time.perf_counter()
        app = NavigatorApp(navigation, note, evaluate=evaluate)
        return await _presses(app, navigation, presses, start, opened)


async def _presses(app, navigation, presses: int, start: float, opened: float) -> dict:
    from harness.tui_apps import settle

    painted = watch_first_paint(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        menu = app.query_one("#menu")
        assert menu.row_count > 0 and painted, "the menu is empty at the first paint"
        first_paint = painted[0]
        await settle(pilot)
        frames = watch_frames(app, menu)
        times: dict[str, list[float]] = {key: [] for key in KEYS}
        pilot_times: list[float] = []
        for number in range(presses):
            key = KEYS[number % len(KEYS)]
            before = (menu.cursor_row, len(navigation.session.steps))
            wanted = ((before[0] + 1, before[1]) if key == "down" else
                      (None, before[1] + (1 if key == "enter" else -1)))
            frames.clear()
            tick = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()
            pilot_times.append((time.perf_counter() - tick) * 1000)
            shown = next((at for at, row, steps in frames
                          if steps == wanted[1] and wanted[0] in (None, row)), None)
            assert shown is not None, f"no frame showed {key}: {frames} (wanted {wanted})"
            times[key].append((shown - tick) * 1000)
            await settle(pilot)
    every = [ms for values in times.values() for ms in values]
    return {"startup_seconds": first_paint - start, "open_seconds": opened - start,
            "presses": len(every), "key_to_menu_ms": summary(every),
            "per_key_ms": {key: summary(values) for key, values in times.items()},
            "pilot_ms": summary(pilot_times)}


def cut_session(steps: int) -> None:
    """Cut the session to about its first `steps` steps, as a user would: back to step
    `steps - 1`, then the default of the first open hole (a new step clears the redo stack)."""
    from navigator.auto import get_strategy
    from navigator.actions.fill import fill_hole
    from navigator.workspace import open_workspace
    from harness.tui_apps import SESSION

    workspace = open_workspace(SESSION)
    session = workspace.session
    session.go_to(steps - 1)
    fill_hole(workspace, session.sketch.lowest_hole().id, strategy=get_strategy("default"))   # saves
    assert not session.redo_steps


async def resume(program: str) -> dict:
    """A session filled by default (`navigator fill ?0 --auto default --subtree`, in this
    process), then: opening it again (`resume_open_seconds`, the steps replayed), the first
    paint of a new app on it, its first evaluation (`first_evaluation_seconds`, from the app's
    start to the figures in the Evaluation pane), and `q` to the app's end (`quit_seconds`)."""
    from navigator.cli import main as cli

    with contextlib.redirect_stdout(io.StringIO()):   # stdout is the JSON this script prints
        assert cli(["start", program, "--force"]) == 0
        assert cli(["fill", "?0", "--auto", "default", "--subtree"]) == 0
    return await resume_again()


async def resume_again() -> dict:
    """The session there, resumed in a new app: see `resume`."""
    from navigator.tui.app import NavigatorApp
    from navigator.tui.controller import Navigation
    from harness.tui_apps import SESSION

    start = time.perf_counter()
    with contextlib.ExitStack() as held:
        navigation, _ = Navigation.open_held(SESSION, None, held)
        opened = time.perf_counter()
        return await _resumed(NavigatorApp(navigation, evaluate=True), navigation, start, opened)


async def _resumed(app, navigation, start: float, opened: float) -> dict:
    from navigator.tui.widgets.evaluation_pane import EvaluationPane

    steps = len(navigation.session.steps)
    first_frame = watch_first_paint(app, with_menu=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        painted = first_frame[0]
        pane = app.query_one(EvaluationPane)
        while pane._result is None and time.perf_counter() - painted < 300:
            await pilot.pause(0.05)
        evaluated = time.perf_counter()
        await app.workers.wait_for_complete()
        quitting = time.perf_counter()
        await pilot.press("q")
    ended = time.perf_counter()
    return {"steps": steps, "resume_open_seconds": opened - start, "resume_first_paint_seconds": painted - start,
            "first_evaluation_seconds": evaluated - opened, "quit_seconds": ended - quitting}


def watch_first_paint(app, with_menu: bool = True) -> list[float]:
    """[time of the first frame sent to the terminal with the menu's rows (or, without
    `with_menu`, with the menu at all: a complete sketch's is empty)], once sent."""
    painted: list[float] = []
    display = app._display

    def recorded(screen, renderable) -> None:
        display(screen, renderable)
        if not painted:
            menus = app.query("#menu")
            if menus and (menus.first().row_count > 0 or not with_menu):
                painted.append(time.perf_counter())

    app._display = recorded
    return painted


def watch_frames(app, menu) -> list[tuple[float, int, int]]:
    """Every frame the app sends to its terminal from now on: (time, the menu's cursor row,
    the session's steps) at the moment it is sent."""
    frames: list[tuple[float, int, int]] = []
    display = app._display

    def recorded(screen, renderable) -> None:
        display(screen, renderable)
        frames.append((time.perf_counter(), menu.cursor_row, len(app.navigation.session.steps)))

    app._display = recorded
    return frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default="gcn,transformer12")
    parser.add_argument("--presses", type=int, default=51)
    parser.add_argument("--no-evaluate", action="store_true", help="no evaluation worker after each step")
    parser.add_argument("--no-resume", action="store_true", help="skip resuming a session filled by default")
    args = parser.parse_args()
    here = os.getcwd()
    results = {}
    for program in args.programs.split(","):
        with tempfile.TemporaryDirectory() as work:
            os.chdir(work)
            try:
                results[program] = asyncio.run(measure(program, args.presses, not args.no_evaluate))
                if not args.no_resume:
                    results[program]["resume"] = asyncio.run(resume(program))
                    if results[program]["resume"]["steps"] > RESUMED_STEPS:
                        cut_session(RESUMED_STEPS)
                        results[program]["resume_1000"] = asyncio.run(resume_again())
            finally:
                os.chdir(here)
    emit({"programs": results, "size": list(SIZE), "targets": {"startup_seconds_gcn": 1.5,
          "key_p95_ms": {"gcn": 50, "transformer12": 100}, "resume_first_paint_seconds": 2.0,
          "quit_seconds": 0.5, "first_evaluation_seconds": 5.0},
          "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
