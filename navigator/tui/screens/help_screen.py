"""The help: every key and what it does (`?`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Static

from navigator.tui.keys import KEYS
from navigator.tui.screens.dialog import Dialog


#: what the screens' words mean, in a line each
FIGURES = (
    ("hole", "a decision still open in the sketch (?3); its menu offers only steps that can still be "
             "completed into a valid schedule"),
    ("forced step", "a hole with a single option is filled with it at the end of each command; undo takes "
                    "it back with the step that caused it"),
    ("est.", "the cost model's estimate of the simulator, no simulation: a menu option's is the best "
             "completion found beneath it (\">=\": a bound)"),
    ("sim.", "the simulator's figures: the Evaluation panel's cycles (v), and the menu's sim. column (m: each "
             "option with the heuristic for the rest), as `navigator eval` prints them"),
    ("completions", "how many valid complete schedules remain beneath an option"),
    ("unfused_default_orders", "the panel's speedup is over it: each op alone in its default order, "
                               "as `navigator compare` names it (its `unfused` tunes the orders)"),
)


class HelpScreen(Dialog):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("[b]Navigator: keys[/b]  (also in the command palette, ctrl+p)")
            yield Static("\n".join(f"[b]{key:>6}[/b]  {text}" for key, _, text in KEYS))
            yield Label("[b]Words and figures[/b]")
            yield Static("\n".join(f"[b]{name}[/b]  {text}" for name, text in FIGURES), markup=True)
            yield Label("escape closes")
