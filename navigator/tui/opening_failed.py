"""What the TUI shows when the session cannot be opened: the error and its fix, until q."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header, Static

from navigator.tui.safe_text import block
from navigator.tui.terminal_app import TerminalApp


class OpeningFailed(TerminalApp):
    CSS_PATH = "navigator.tcss"
    BINDINGS = [Binding("q", "quit", "quit"), Binding("escape", "quit", "quit", show=False),
                Binding("ctrl+c", "quit", "quit", show=False, priority=True)]

    def __init__(self, message: str):
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        yield Header()
        error = Static(block(self.message), id="error")
        error.border_title = "cannot open the session"
        yield error
        yield Footer()
