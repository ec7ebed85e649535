"""The help: every key and what it does (`?`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Static

from navigator.tui.keys import KEYS
from navigator.tui.screens.dialog import Dialog


class HelpScreen(Dialog):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("[b]Navigator: keys[/b]  (also in the command palette, ctrl+p)")
            yield Static("\n".join(f"[b]{key:>6}[/b]  {text}" for key, _, text in KEYS))
            yield Label("escape closes")
