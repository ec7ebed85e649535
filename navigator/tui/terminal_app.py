"""What every app of the TUI promises about how it ends: the CLI's contract.

Textual meets an exception that escapes a handler by printing its own traceback (with the
locals) on the terminal after the app, and `App.run` then returns normally: the command
exited 0 with a traceback on the screen. Here the app keeps the exception (`crash`) and
exits through its own loop, which restores the terminal; `run_in_terminal` then raises it,
once the terminal is back, for the command line's last resort (navigator.cli: one line, a
crash file, exit 1). A signal ends the app the same orderly way (navigator/tui/signals.py).
"""

from __future__ import annotations

import io

from textual.app import App
from textual.command import CommandPalette

from navigator.tui.palette import NavigatorPalette
from navigator.tui.signals import TerminalSignals
from navigator.process.signals import exit_code


class TerminalFault(RuntimeError):
    """A failure Textual reports as a rendered traceback rather than as an exception (its
    input thread's); the text is in the exception's notes, for the crash file."""


class TerminalApp(App):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.crash: BaseException | None = None
        self._signals: TerminalSignals | None = None

    def run_in_terminal(self) -> int:
        """Run until the app exits; 0, or 128 + the signal that ended it. An exception that
        escaped a handler is raised here, after the terminal is restored."""
        with TerminalSignals(self) as signals:
            self._signals = signals
            self.run()
        if self.crash is not None:
            raise self.crash
        return exit_code(signals.received) if signals.received is not None else 0

    def _on_mount(self, event) -> None:
        if self._signals is not None and not self.is_headless:
            self._signals.attach()

    # ---- Textual's unhandled errors end the app; nothing is printed over the terminal

    def _handle_exception(self, error: Exception) -> None:
        self._keep(error)

    def panic(self, *renderables) -> None:
        text = io.StringIO()
        from rich.console import Console

        console = Console(file=text, width=120, color_system=None, force_terminal=False)
        for renderable in renderables:
            console.print(renderable)
        fault = TerminalFault(_last_line(text.getvalue()) or "the terminal interface failed")
        fault.add_note(text.getvalue())
        self._keep(fault)

    def _keep(self, error: BaseException) -> None:
        if self.crash is None:
            self.crash = error
        self._return_code = 1
        if self._exception is None:  # Textual's run_test raises it when the test ends: a Pilot test sees it
            self._exception = error
            self._exception_event.set()
        self._close_messages_no_wait()

    # ---- the command palette (ctrl+p), ours

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(NavigatorPalette(id="--command-palette"))


def _last_line(text: str) -> str:
    lines = [line.strip(" │╰─╯╭╮") for line in text.splitlines()]
    return next((line for line in reversed(lines) if line), "")
