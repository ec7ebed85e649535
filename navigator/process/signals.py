"""The signals that end a process, their exit codes, and the line that says which one came.

A command stopped by a signal exits as shells report it, 128 + the signal's number (SIGINT
130, SIGTERM 143, SIGHUP 129, SIGQUIT 131), after one line on stderr. The TUI turns each of
them into an orderly exit that restores the terminal (navigator/tui/signals.py); SIGPIPE is
ignored, as Python ignores it, so a closed output is an OSError where it is written.
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Callable, Iterator

#: the signals a terminal program receives to end: kill, a closed terminal, Ctrl-C and Ctrl-\ sent from outside
TERMINATING: tuple[int, ...] = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT")
                                     if hasattr(signal, name))


def exit_code(signum: int) -> int:
    """128 + the signal's number, as a shell reports a process the signal ended."""
    return 128 + int(signum)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def stopped_line(signum: int) -> str:
    """What the command says on stderr when a signal ended it (a Ctrl-C as the CLI says it)."""
    if signum == signal.SIGINT:
        return "navigator: interrupted"
    return f"navigator: stopped by {signal_name(signum)}"


@contextmanager
def handlers(installed: dict[int, Callable]) -> Iterator[None]:
    """Install a handler per signal for the block, then put back the ones that were there
    (outside the main thread, where Python allows no handler, nothing is installed)."""
    previous: dict[int, object] = {}
    try:
        for signum, handler in installed.items():
            try:
                previous[signum] = signal.signal(signum, handler)
            except (ValueError, OSError):
                pass
        yield
    finally:
        for signum, handler in previous.items():
            try:
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
            except (ValueError, OSError, TypeError):
                pass
