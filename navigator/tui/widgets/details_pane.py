"""The details pane: what the menu's highlighted option means (an order's whole loop nest
too); focusable and scrollable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll

from navigator.tui.safe_text import block
from navigator.tui.keys import pane_bindings
from navigator.tui.widgets.text_box import TextBox

if TYPE_CHECKING:
    from navigator.tui.controller import Navigation


class DetailsPane(VerticalScroll, can_focus=True):
    ALLOW_MAXIMIZE = True
    BINDINGS = pane_bindings("details")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._text = TextBox(id="details-text")

    def compose(self) -> ComposeResult:
        yield self._text

    def on_mount(self) -> None:
        self.border_title = "Details"

    @property
    def text(self) -> str:
        return str(self._text.render())

    def show(self, navigation: "Navigation", hole: int | None, option_id: str | None) -> None:
        """The option's details; empty when there is no hole or no option to describe."""
        if hole is None or option_id is None:
            self._text.set_text("")
            return
        if self._text.set_text(block(navigation.details(hole, option_id))):   # the same option keeps its scroll
            self.scroll_home(animate=False)
