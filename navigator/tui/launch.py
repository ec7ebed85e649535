"""Opening the TUI: `navigator` on a terminal, and `navigator tui PROGRAM`."""

from __future__ import annotations

import sys
from pathlib import Path

#: what bare `navigator` opens on a terminal when there is no session to resume
DEFAULT_PROGRAM = "gcn"


def run_tui(path: Path, spec=None) -> int:
    """Open the session at `path` (or start one for `spec` there) and run the UI until q.

    The UI holds the session's lock while it runs, so a CLI command that would change the
    session meanwhile is told that it is open in the TUI; commands that only read it work."""
    from contextlib import ExitStack

    from fuseflow.support.errors import UserError
    from navigator.process.console import say
    from navigator.tui.app import NavigatorApp
    from navigator.tui.opening_failed import OpeningFailed
    from navigator.tui.controller import Navigation

    with ExitStack() as held:
        try:
            # read under the lock, so a CLI command that holds it first has saved its steps
            navigation, note = Navigation.open_held(path, spec, held, on_wait=lambda text: say(f"navigator: {text}"))
        except UserError as exc:  # shown in the interface, then the usual one line and exit 2
            OpeningFailed(str(exc)).run()
            raise
        NavigatorApp(navigation, note).run()
    return 0


def is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
