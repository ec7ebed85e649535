"""Signals while the TUI holds the terminal: whatever ends it, the terminal is given back.

Textual restores the terminal (raw mode, the alternate screen, the hidden cursor, mouse
tracking) only when the app exits through its own loop, and installs handlers for SIGTSTP
and SIGCONT that restart the application mode on *every* SIGCONT, so a SIGCONT to a running
app started a second input thread over the first and took raw mode for the state to restore.

Here, while an app runs in a terminal:
- SIGTERM, SIGHUP, SIGINT and SIGQUIT ask the app to exit on its own loop (the terminal is
  restored there, the session was saved after the last step, the caller releases the lock),
  with 128 + the signal as exit code. A second one, or an exit that has not happened
  GRACE seconds later (a terminal that is gone blocks Textual's writer), restores the terminal
  attributes directly and ends the process at once: files are only ever replaced whole, and
  the session's lock is an OS lock that the exit releases.
- SIGTSTP suspends the app properly: the terminal is given back, the process stops, and on
  SIGCONT the app takes the terminal again and repaints.
- A SIGCONT that does not end such a suspension (a `kill -STOP` from outside, then `-CONT`)
  only repaints.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import termios
import threading
from contextlib import ExitStack
from typing import TYPE_CHECKING

from navigator.process.signals import TERMINATING, exit_code, handlers, stopped_line

if TYPE_CHECKING:
    from textual.app import App

#: seconds an orderly exit may take after a terminating signal before the process ends anyway
GRACE = 10.0
#: what Textual's driver writes when it leaves the application mode, written directly on a forced exit
RESTORE = ("\x1b[<u"                                          # the kitty keyboard protocol off
           "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l"  # mouse tracking off
           "\x1b[?2004l\x1b[?1004l\x1b[?7h"                  # bracketed paste, focus events off; line wrap on
           "\x1b[?1049l\x1b[?25h")                            # the main screen, the cursor shown


class TerminalSignals:
    """Install with `with`, around `app.run()`; the app calls `attach` once its loop runs."""

    def __init__(self, app: "App"):
        self.app = app
        self.received: int | None = None     # the terminating signal that came, if one did
        self._loop: asyncio.AbstractEventLoop | None = None
        self._suspending = False
        self._watchdog: threading.Timer | None = None
        self._held = ExitStack()

    def __enter__(self) -> "TerminalSignals":
        self._held.enter_context(handlers({signum: self._terminate for signum in TERMINATING}))
        # Textual's driver installs its own on start: keep what was there before to put it back
        self._held.enter_context(handlers({signal.SIGTSTP: signal.getsignal(signal.SIGTSTP),
                                           signal.SIGCONT: signal.getsignal(signal.SIGCONT)}))
        return self

    def __exit__(self, *exc) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        self._loop = None
        self._held.close()

    def attach(self) -> None:
        """Called on the app's loop once its driver holds the terminal: take over SIGTSTP and
        SIGCONT from the driver, and act on a signal that came during the start."""
        self._loop = asyncio.get_running_loop()
        signal.signal(signal.SIGTSTP, self._on_suspend)
        signal.signal(signal.SIGCONT, self._on_continue)
        if self.received is not None:
            self._exit()

    # ---- the handlers (they run on the main thread between two bytecodes: they only schedule)

    def _terminate(self, signum, frame) -> None:
        if self.received is not None:  # a second one: do not wait for the first to finish
            self._forced_exit()
        self.received = signum
        self._watchdog = threading.Timer(GRACE, self._forced_exit)
        self._watchdog.daemon = True
        self._watchdog.start()
        self._soon(self._exit)

    def _on_suspend(self, signum, frame) -> None:
        self._soon(self._suspend)

    def _on_continue(self, signum, frame) -> None:
        if not self._suspending:
            self._soon(lambda: self.app.refresh(layout=True))

    def _soon(self, callback) -> None:
        loop = self._loop
        if loop is None:  # not started yet (attach acts on `received`) or already finished
            return
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop has closed meanwhile
            pass

    # ---- on the app's loop

    def _exit(self) -> None:
        if self.received is not None:
            self.app.exit(return_code=exit_code(self.received))

    def _suspend(self) -> None:
        driver = self.app._driver
        if self._suspending or driver is None or not driver.can_suspend:
            return
        self._suspending = True
        try:
            with self.app.suspend():  # the terminal as it was; given back and repainted after
                os.kill(os.getpid(), signal.SIGSTOP)
        finally:
            self._suspending = False

    # ---- the last resort

    def _forced_exit(self) -> None:
        code = exit_code(self.received or signal.SIGTERM)
        restore_terminal(self.app)
        try:
            os.write(sys.__stderr__.fileno(), (stopped_line(self.received or signal.SIGTERM) + "\n").encode())
        except (OSError, AttributeError, ValueError):
            pass
        os._exit(code)


def restore_terminal(app: "App") -> None:
    """Put back the terminal attributes the driver found and leave its modes, without its
    threads (best effort: the terminal may be gone)."""
    driver = getattr(app, "_driver", None)
    attributes = getattr(driver, "attrs_before", None)
    fileno = getattr(driver, "fileno", None)
    if attributes is not None and isinstance(fileno, int):
        try:
            termios.tcsetattr(fileno, termios.TCSANOW, attributes)
        except (termios.error, OSError):
            pass
    try:
        os.write(sys.__stderr__.fileno(), RESTORE.encode())
    except (OSError, AttributeError, ValueError):
        pass
