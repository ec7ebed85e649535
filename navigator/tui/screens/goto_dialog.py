"""Go to a hole (`g`): its number, with or without the `?`."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label

from navigator.tui.screens.dialog import Dialog

_HOLE = re.compile(r"\s*\??([0-9]{1,9})\s*")


class GoToDialog(Dialog):
    """Dismissed with the hole number typed, or None (escape, or text that is not one)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Go to hole (its number, e.g. 12 or ?12; enter goes, escape cancels)")
            yield Input(placeholder="?", id="hole")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        match = _HOLE.fullmatch(event.value)
        self.dismiss(int(match.group(1)) if match else -1)
