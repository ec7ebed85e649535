"""The TUI's dialogs: help, auto-fill, the model's proposals, export, undo to a step."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from navigator.tui.safe_text import block

if TYPE_CHECKING:
    from navigator.llm.strategy import Proposals

#: every key, once: the help screen, the footer and the command palette read it from here
KEYS: tuple[tuple[str, str, str], ...] = (
    ("enter", "choose", "choose the highlighted option"),
    ("d", "default", "take the hole's default"),
    ("a", "auto", "auto: a strategy (heuristic, beam, anneal, exhaustive) over the hole, its subtree or all"),
    ("l", "model", "ask the model: ranked proposals with rationales and figures; accept one or dismiss"),
    ("u", "undo", "undo the last command"),
    ("r", "redo", "redo"),
    ("e", "export", "export the schedule JSON and the Python program"),
    ("/", "filter", "filter the menu (escape clears)"),
    ("s", "sort", "sort the menu: as listed, by cost hint, by count"),
    ("v", "evaluate", "evaluate the sketch again (open holes at their defaults)"),
    ("x", "cancel", "cancel the running evaluation, strategy or model request"),
    ("h", "history", "go to the history (enter there: undo or redo to that step)"),
    ("tab", "next panel", "move between the sketch, the menu and the history"),
    ("?", "help", "this help"),
    ("q", "quit", "quit, saving the session"),
)


class Dialog(ModalScreen):
    """A modal dialog that escape dismisses (with None); its styles are `Dialog` in navigator.tcss."""

    BINDINGS = [Binding("escape", "dismiss_none", "close")]

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class HelpScreen(Dialog):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("[b]Navigator: keys[/b]  (also in the command palette, ctrl+p)")
            yield Static("\n".join(f"[b]{key:>6}[/b]  {text}" for key, _, text in KEYS))
            yield Label("escape closes")


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


class ProposalsScreen(Dialog):
    """The model's ranked plans; dismissed with the index taken, -1 for the fallback, or None."""

    def __init__(self, proposals: "Proposals"):
        super().__init__()
        self.proposals = proposals

    def compose(self) -> ComposeResult:
        from navigator.llm.present import format_ranked

        with Vertical():
            if self.proposals.fallback is not None:
                yield Label("[b]The model could not help[/b]")
                yield Static(block(self.proposals.fallback.rationale))
                yield Label("enter takes the heuristic's plan instead, escape dismisses")
                yield OptionList(Option("take the heuristic's plan", id="fallback"), id="plans")
                return
            ranked = self.proposals.ranked
            yield Label(f"[b]The model's plans[/b] ({len(ranked)} ranked; enter accepts, escape dismisses)")
            with VerticalScroll():
                yield Static(block(format_ranked(ranked, len(ranked))))
            yield OptionList(*[Option(f"take plan {number}", id=str(number - 1))
                               for number in range(1, len(ranked) + 1)], id="plans")

    def on_mount(self) -> None:
        plans = self.query_one("#plans", OptionList)
        plans.highlighted = 0
        plans.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(-1 if event.option.id == "fallback" else int(event.option.id))


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


class ConfirmDialog(Dialog):
    """A yes/no question; dismissed with True or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "no"), Binding("y", "yes", "yes"), Binding("n", "dismiss_none", "no")]

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(block(self.question))
            yield Label("y: yes, n or escape: no")

    def action_yes(self) -> None:
        self.dismiss(True)
