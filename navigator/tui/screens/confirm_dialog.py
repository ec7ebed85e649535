"""A yes/no question (undo or redo to a step of the history)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Static

from navigator.tui.safe_text import block
from navigator.tui.screens.dialog import Dialog


class ConfirmDialog(Dialog):
    """A yes/no question; dismissed with True or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "no"), Binding("y", "yes", "yes"), Binding("n", "dismiss_none", "no")]

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(block(self.question), id="question")
            yield Label("y: yes, n or escape: no")

    def action_yes(self) -> None:
        self.dismiss(True)
