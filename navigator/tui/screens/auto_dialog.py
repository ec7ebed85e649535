"""Auto-fill (`a`): a strategy and the scope it fills."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, RadioButton, RadioSet

from navigator.tui.screens.dialog import Dialog


class AutoDialog(Dialog):
    """Pick a strategy and a scope; dismissed with (strategy, scope) or None."""

    STRATEGIES = ("heuristic", "beam", "anneal", "exhaustive", "default")
    # a binding consumes the key (a key_enter handler let it go on to the menu, which chose its
    # highlighted option as well); priority: the radio sets bind enter themselves
    BINDINGS = [Binding("enter", "run", "run", priority=True)]

    def __init__(self, hole: int):
        super().__init__()
        self.hole = hole

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"[b]Auto-fill ?{self.hole}[/b]: strategy and scope (enter runs, escape cancels)")
            with Horizontal():
                with RadioSet(id="strategy"):
                    for number, name in enumerate(self.STRATEGIES):
                        yield RadioButton(name, value=number == 0)
                with RadioSet(id="scope"):
                    yield RadioButton("hole", value=True)
                    yield RadioButton("subtree")
                    yield RadioButton("all")
            with Horizontal():
                yield Button("Run", variant="primary", id="run")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)

    def action_run(self) -> None:
        strategy = self.query_one("#strategy", RadioSet).pressed_index
        scope = self.query_one("#scope", RadioSet).pressed_index
        self.dismiss((self.STRATEGIES[max(strategy, 0)], ("hole", "subtree", "all")[max(scope, 0)]))
