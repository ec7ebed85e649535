"""The command palette (ctrl+p): Textual's, dismissed once, and with its page keys guarded;
its entries are the keys, so every command is found by its name as well as by its key.

Textual's own `SystemCommandsProvider` serves the entries: it lists what
`App.get_system_commands` yields, and the app yields these after Textual's.

PageUp and PageDown: Textual's palette fills its command list and highlights the first
command in one go, but the list learns which line shows which command only when it is next
laid out (`OptionList._update_lines` does nothing while the list has no size). A page key that
arrives in between looked the highlighted command up in an empty line map: a KeyError, the
app ended. A page of a list that is not laid out yet is no move at all, so it is ignored.
"""

from __future__ import annotations

from typing import Iterator

from textual.app import App, SystemCommand
from textual.command import CommandList, CommandPalette

from navigator.tui.keys import KEYS, action_name
from navigator.tui.screens.dismiss_once import DismissOnce

#: the command list's actions that read its line map
_PAGE_ACTIONS = ("page_up", "page_down")


class NavigatorPalette(DismissOnce, CommandPalette):
    def _action_command_list(self, action: str) -> None:
        if action in _PAGE_ACTIONS and not self.query_one(CommandList).scrollable_content_region:
            return  # not laid out yet: nothing to page through
        super()._action_command_list(action)


def key_commands(app: App) -> Iterator[SystemCommand]:
    """One entry per key, once each: the app's, then enter's (choose: the menu binds it, the
    app runs it) and tab's (the next pane: Textual's focus chain)."""
    for key, command, text in KEYS:
        action = getattr(app, f"action_{action_name(command)}", None) if key != "tab" else app.action_focus_next
        if action is not None:
            yield SystemCommand(f"{command.capitalize()} ({key})", text, action)
