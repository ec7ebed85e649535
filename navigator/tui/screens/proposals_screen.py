"""The model's proposals (`l`): its ranked plans with their rationales and figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from navigator.tui.safe_text import block
from navigator.tui.screens.dialog import Dialog

if TYPE_CHECKING:
    from navigator.llm.strategy import Proposals


class ProposalsScreen(Dialog):
    """The model's ranked plans; dismissed with the index taken, -1 for the fallback, or None."""

    def __init__(self, proposals: "Proposals", preview: str | None = None):
        super().__init__()
        self.proposals = proposals
        #: the fallback plan, its steps and figures (Navigation.fallback_preview)
        self.preview = preview

    def compose(self) -> ComposeResult:
        from navigator.llm.ranked_plans import format_ranked

        with Vertical():
            if self.proposals.fallback is not None:
                yield Label("[b]The model could not help[/b]")
                yield Static(block(self.proposals.fallback.rationale))
                if self.preview:
                    yield Static(block(self.preview), id="preview")
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
