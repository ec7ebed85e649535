"""What every dialog shares: escape dismisses it (with None); its styles are `Dialog` in navigator.tcss."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen


class Dialog(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss_none", "close")]

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
