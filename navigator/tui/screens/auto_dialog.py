"""Auto-fill (`a`): a strategy (the model's too) and the scope it fills, with the options the
CLI's `fill --auto` takes (budget, limit, jobs) at the CLI's defaults."""

from __future__ import annotations

import re

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from navigator.tui.screens.dialog import Dialog

#: the strategies offered, and what each is called here
STRATEGIES = ("heuristic", "beam", "anneal", "exhaustive", "default", "llm")
LABELS = {"llm": "the model (llm)"}
SCOPES = ("hole", "subtree", "all")
#: the options each strategy takes (the CLI's flags of the same names)
TAKES = {"beam": ("budget", "jobs"), "anneal": ("budget", "jobs"), "exhaustive": ("limit",), "llm": ("budget", "jobs")}
_WHOLE = re.compile(r"[0-9]{1,9}")


def defaults() -> dict[str, dict[str, int]]:
    """Each strategy's defaults for its options, as the CLI has them."""
    from navigator.auto.anneal import DEFAULT_BUDGET as ANNEAL_BUDGET
    from navigator.auto.exhaustive import DEFAULT_LIMIT
    from navigator.auto.simulation import DEFAULT_BUDGET

    return {"beam": {"budget": DEFAULT_BUDGET, "jobs": 1}, "anneal": {"budget": ANNEAL_BUDGET, "jobs": 1},
            "exhaustive": {"limit": DEFAULT_LIMIT}, "llm": {"budget": DEFAULT_BUDGET, "jobs": 1}}


class AutoDialog(Dialog):
    """Pick a strategy, a scope and the strategy's options; dismissed with (strategy, scope,
    options) or None."""

    # a binding consumes the key (a key_enter handler let it go on to the menu, which chose its
    # highlighted option as well); priority: the radio sets bind enter themselves
    BINDINGS = [Binding("enter", "run", "run", priority=True)]

    def __init__(self, hole: int):
        super().__init__()
        self.hole = hole
        self.defaults = defaults()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"[b]Auto-fill ?{self.hole}[/b]: strategy, scope and options (enter runs, escape cancels)")
            with Horizontal():
                with RadioSet(id="strategy"):
                    for number, name in enumerate(STRATEGIES):
                        yield RadioButton(LABELS.get(name, name), value=number == 0)
                with RadioSet(id="scope"):
                    for number, name in enumerate(SCOPES):
                        yield RadioButton(name, value=number == 0)
            with Horizontal(id="options"):
                for name, what in (("budget", "budget: simulations"), ("limit", "limit: completions"),
                                   ("jobs", "jobs: processes")):
                    with Vertical(classes="option"):
                        yield Label(what)
                        yield Input(id=name, restrict=r"[0-9]*", max_length=9)
            yield Label("", id="problem")
            with Horizontal():
                yield Button("Run", variant="primary", id="run")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._show_options()

    @property
    def strategy(self) -> str:
        return STRATEGIES[max(self.query_one("#strategy", RadioSet).pressed_index, 0)]

    @on(RadioSet.Changed, "#strategy")
    def _strategy_changed(self) -> None:
        self._show_options()

    def _show_options(self) -> None:
        """The option fields the strategy takes, at its defaults; the others disabled."""
        takes = TAKES.get(self.strategy, ())
        for name in ("budget", "limit", "jobs"):
            field = self.query_one(f"#{name}", Input)
            field.disabled = name not in takes
            field.value = str(self.defaults.get(self.strategy, {}).get(name, "")) if name in takes else ""
        self.query_one("#problem", Label).update("")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.dismiss(None)

    def action_run(self) -> None:
        strategy = self.strategy
        options: dict[str, int] = {}
        for name in TAKES.get(strategy, ()):
            text = self.query_one(f"#{name}", Input).value.strip()
            if not _WHOLE.fullmatch(text) or int(text) < 1:
                self.query_one("#problem", Label).update(f"[b]{name}[/b] must be a whole number of at least 1")
                self.query_one(f"#{name}", Input).focus()
                return
            options[name] = int(text)
        scope = SCOPES[max(self.query_one("#scope", RadioSet).pressed_index, 0)]
        self.dismiss((strategy, scope, options))
