"""TUI latency with Textual's Pilot (headless, 100x30): startup to first paint, and a key press
to the repainted menu.

- startup: from `Navigation.open` (building the program's space, as the user waits for it) and
  creating the app to the first `pilot.pause()` returning with the menu filled (its rows on
  screen; the cost hints and the evaluation still come in the background). Target for gcn:
  <= 1.5 s.
- key to menu: `down` (the next option: details repainted), `enter` (choose it: a step, the
  session saved, every panel rebuilt) and `u` (undo it), cycled; each is timed from the press
  to the first frame the app sends to the (headless) terminal that shows its effect (the
  cursor moved, the step taken or undone). Pilot's own waits (it sleeps until the process
  looks idle, tens of ms) are not counted; `pilot_ms` reports press-to-`pause()` with them.
  The hints and evaluation workers are waited for between presses (untimed), as a user reads
  the screen between keys, so each press starts from a quiet app. Targets: p95 <= 50 ms on
  gcn and <= 100 ms on transformer12.

    python benchmarks/tui_latency.py [--programs gcn,transformer12] [--presses 51] [--no-evaluate]

Prints JSON: per program, startup seconds, and per key and overall median/p95/max in
milliseconds. Runs in a temporary directory (a new session there).
"""

from __future__ import annotations

import argparse
import asyncio
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


async def measure(program: str, presses: int, evaluate: bool) -> dict:
    from navigator.workspace import ProgramSpec
    from navigator.tui.app import NavigatorApp
    from navigator.tui.controller import Navigation
    from harness.tui_apps import SESSION, settle

    start = time.perf_counter()
    navigation, note = Navigation.open(SESSION, ProgramSpec.from_user(program, None, {}, None))
    opened = time.perf_counter()
    app = NavigatorApp(navigation, note, evaluate=evaluate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        menu = app.query_one("#menu")
        assert menu.row_count > 0, "the menu is empty at the first paint"
        first_paint = time.perf_counter()
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
    args = parser.parse_args()
    here = os.getcwd()
    results = {}
    for program in args.programs.split(","):
        with tempfile.TemporaryDirectory() as work:
            os.chdir(work)
            try:
                results[program] = asyncio.run(measure(program, args.presses, not args.no_evaluate))
            finally:
                os.chdir(here)
    emit({"programs": results, "size": list(SIZE), "targets": {"startup_seconds_gcn": 1.5,
          "key_p95_ms": {"gcn": 50, "transformer12": 100}},
          "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load": os.getloadavg()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
