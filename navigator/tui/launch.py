"""Opening the TUI: `navigator` on a terminal, and `navigator tui PROGRAM`."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

#: what bare `navigator` opens on a terminal when there is no session to resume
DEFAULT_PROGRAM = "gcn"


def run_tui(path: Path, spec=None) -> int:
    """Open the session at `path` (or start one for `spec` there) and run the UI until q.

    The UI holds the session's lock while it runs, so a CLI command that would change the
    session meanwhile is told that it is open in the TUI; commands that only read it work.
    A signal ends it with the terminal restored, one line and 128 + the signal; an exception
    that escaped the interface is raised once the terminal is restored and the lock released,
    for the command line's crash report (navigator/tui/terminal_app.py)."""
    from contextlib import ExitStack

    from fuseflow.support.errors import UserError
    from navigator.process.console import say
    from navigator.tui.app import NavigatorApp
    from navigator.tui.opening_failed import OpeningFailed
    from navigator.tui.controller import Navigation

    with ExitStack() as held:
        try:
            # read under the lock, so a CLI command that holds it first has saved its steps
            with opening_progress() as progress:
                navigation, note = Navigation.open_held(path, spec, held, on_wait=lambda text: say(f"navigator: {text}"),
                                                        progress=progress)
        except UserError as exc:  # shown in the interface, then the usual one line and exit 2
            code = OpeningFailed(str(exc)).run_in_terminal()
            if code:
                return _stopped(code)
            raise
        code = NavigatorApp(navigation, note).run_in_terminal()
    return _stopped(code) if code else 0


@contextmanager
def opening_progress() -> Iterator[Callable[[str, int, int | None], None] | None]:
    """While a session opens (a long one replays thousands of steps), a progress bar on the
    terminal's stderr, gone once the interface draws: the screen is never blank. None (no
    bar) when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("navigator: {task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("opening the session", total=None)

        def progress(what: str, done: int, total: int | None) -> None:
            bar.update(task, description=what, completed=done, total=total)

        yield progress


def _stopped(code: int) -> int:
    """Say which signal ended the UI (the terminal is restored by now); its exit code."""
    from navigator.process.console import say
    from navigator.process.signals import stopped_line

    try:
        say(stopped_line(code - 128))
    except (OSError, ValueError):  # the terminal is gone (SIGHUP)
        pass
    return code


def is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
