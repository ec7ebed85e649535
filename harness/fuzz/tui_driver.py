"""The TUI driven by seeded key mashing, in a fuzz case's forked child (the `tui` driver).

    argv = [PROGRAM, "--evaluate"?, GROUP, GROUP, ...]

A new session for PROGRAM is started in the case's folder (harness/tui_apps.py, at
.navigator/session.json) and opened in Textual's Pilot (`App.run_test()`). Each GROUP is a
few keys separated by spaces, pressed one after the other without waiting for the workers
(Pilot lets the app handle each key before the next); `+` before a group sends its keys all
at once, before the app handles the first (`+enter escape` in a dialog: both before it
answers); `@settle` waits until every worker is done. After the last group the app is settled
and left (its shutdown saves).

Checks (what the judge reads, harness/fuzz/harness.py):
- an exception that escapes the app: run_test re-raises it; the fork runner prints it as a
  traceback (exit 70);
- the session file on disk must load (`session-unreadable`), and hold what the app shows: the
  same steps and undone steps (`session-mismatch`). Findings are printed on stderr as
  `navigator-fuzz-check: NAME: DETAIL` lines.
"""

from __future__ import annotations

import asyncio
import sys

CHECK_PREFIX = "navigator-fuzz-check:"
SIZE = (100, 30)
#: the keys the mashing draws from: the app's keys but quit, moving keys, and the dialogs' keys
KEYS = ("enter", "enter", "d", "d", "a", "u", "r", "e", "/", "s", "v", "x", "h", "tab", "?", "l",
        "escape", "escape", "up", "down", "down", "pageup", "pagedown", "home", "end", "left", "right",
        "space", "ctrl+p", "1", "2", "backspace", "shift+tab")


def report(name: str, detail: str) -> None:
    print(f"{CHECK_PREFIX} {name}: {detail}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    program, *rest = argv
    evaluate = "--evaluate" in rest
    groups = [group for group in rest if group != "--evaluate"]
    shown = asyncio.run(_drive(program, evaluate, groups))
    _check_disk(shown)
    return 0


def _steps(session) -> tuple[list, list]:
    return ([(s.hole, s.option) for s in session.steps], [(s.hole, s.option) for s in session.redo_steps])


async def _drive(program: str, evaluate: bool, groups: list[str]):
    from harness.tui_apps import app as make_app
    from harness.tui_apps import settle

    app = make_app(program, evaluate=evaluate)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for group in groups:
            if group == "@settle":
                await settle(pilot)
            elif group.startswith("+"):
                await _together(app, group[1:].split())
            else:
                await pilot.press(*group.split())
        await settle(pilot)
        shown = _steps(app.navigation.session)
    if app.return_code not in (None, 0):
        report("tui-exit", f"the app ended with return code {app.return_code}")
    return shown


async def _together(app, keys: list[str]) -> None:
    """Send the key events at once, as a fast typist or a pasted sequence would (Pilot's press
    waits for the app to be idle between keys: textual.app.App._press_keys)."""
    import unicodedata

    from textual import events
    from textual._wait import wait_for_idle
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await wait_for_idle(0)
    await app._animator.wait_until_complete()
    await wait_for_idle(0)


def _check_disk(shown: tuple[list, list]) -> None:
    from fuseflow.support.errors import UserError
    from harness.tui_apps import SESSION
    from navigator.workspace import open_workspace

    try:
        saved = _steps(open_workspace(SESSION).session)
    except UserError as exc:
        report("session-unreadable", str(exc))
        return
    if saved != shown:
        report("session-mismatch", f"the app shows {len(shown[0])} steps ({len(shown[1])} undone), "
                                   f"the file holds {len(saved[0])} ({len(saved[1])} undone); first difference "
                                   f"{_first_difference(shown, saved)}")


def _first_difference(shown, saved) -> str:
    for label, a, b in (("step", shown[0], saved[0]), ("undone step", shown[1], saved[1])):
        for index, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"{label} {index + 1}: {x} on screen, {y} on disk"
        if len(a) != len(b):
            return f"{label} {min(len(a), len(b)) + 1}"
    return "none"
