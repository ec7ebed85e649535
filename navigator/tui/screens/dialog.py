"""What every dialog shares: escape dismisses it (with None), and only once (`DismissOnce`);
its styles are `Dialog` in navigator.tcss."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen

from navigator.tui.screens.dismiss_once import DismissOnce


class Dialog(DismissOnce, ModalScreen):
    BINDINGS = [Binding("escape", "dismiss_none", "close")]

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
