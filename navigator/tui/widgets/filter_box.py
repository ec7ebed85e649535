"""A filter box above a pane (the menu's `/`, the sketch's `f`): hidden until opened, and
escape clears and closes it."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input


class FilterBox(Input):
    """Shown while it has the class `shown` (navigator.tcss)."""

    def __init__(self, placeholder: str, **kwargs: Any) -> None:
        super().__init__(placeholder=placeholder, **kwargs)

    @property
    def is_open(self) -> bool:
        return self.has_class("shown")

    def open(self) -> None:
        self.add_class("shown")
        self.focus()

    def close(self) -> None:
        self.value = ""
        self.remove_class("shown")
