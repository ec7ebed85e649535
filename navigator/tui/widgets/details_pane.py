"""The details pane: what the menu's highlighted option means."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from navigator.tui.safe_text import block

if TYPE_CHECKING:
    from navigator.tui.controller import Navigation


class DetailsPane(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def on_mount(self) -> None:
        self.border_title = "Details"

    def show(self, navigation: "Navigation", hole: int | None, option_id: str | None) -> None:
        """The option's details; empty when there is no hole or no option to describe."""
        if hole is None or option_id is None:
            self.update("")
            return
        self.update(block(navigation.details(hole, option_id)))
