"""A text that repaints only when it changes.

A pane is told what to show after every key, and mostly it is what it shows already; Textual
lays out and repaints the whole screen for any update, so an unchanged text must not ask."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static


class TextBox(Static):
    def __init__(self, text: Text | str = "", *, fixed_size: bool = False, **kwargs: Any) -> None:
        """`fixed_size`: the CSS fixes its height and width, so a new text needs no layout."""
        super().__init__(text, markup=False, **kwargs)
        self._shown: Text | str = text
        self._fixed_size = fixed_size

    @property
    def shown(self) -> Text | str:
        """The text shown, as given (with its styles)."""
        return self._shown

    def set_text(self, text: Text | str) -> bool:
        """Show `text`; whether it differs from what was shown (only then is it repainted)."""
        if type(text) is type(self._shown) and text == self._shown:
            return False
        self._shown = text
        self.update(text, layout=not self._fixed_size)
        return True
