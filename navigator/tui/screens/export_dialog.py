"""Export (`e`): where to write the schedule JSON and the Python program."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label

from navigator.tui.screens.dialog import Dialog


class ExportDialog(Dialog):
    """Paths and whether to fill the rest with defaults; dismissed with (json, python, fill) or None."""

    def __init__(self, complete: bool, json_path: str, python_path: str):
        super().__init__()
        self.complete, self.json_path, self.python_path = complete, json_path, python_path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("[b]Export[/b] (empty path: not written; enter writes, escape cancels)")
            yield Label("schedule JSON")
            yield Input(self.json_path, id="json")
            yield Label("Python program")
            yield Input(self.python_path, id="python")
            if not self.complete:
                yield Checkbox("the sketch has open holes: fill them with their defaults in the export",
                               id="fill")
            with Horizontal():
                yield Button("Write", variant="primary", id="write")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "write":
            self._write()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._write()

    def _write(self) -> None:
        fill = self.complete or (self.query("#fill") and self.query_one("#fill", Checkbox).value)
        self.dismiss((self.query_one("#json", Input).value.strip() or None,
                      self.query_one("#python", Input).value.strip() or None, bool(fill)))
