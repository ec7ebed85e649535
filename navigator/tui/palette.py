"""The command palette's entries (ctrl+p) for the keys, so every command is found by its name
as well as by its key.

Textual's own `SystemCommandsProvider` serves them: it lists what `App.get_system_commands`
yields, and the app yields these after Textual's."""

from __future__ import annotations

from typing import Iterator

from textual.app import App, SystemCommand

from navigator.tui.keys import APP_KEYS, KEYS, action_name


def key_commands(app: App) -> Iterator[SystemCommand]:
    """One entry per key the app binds, then enter's (choose: the menu binds it, the app runs it)."""
    choose = [entry for entry in KEYS if entry[0] == "enter"]
    for key, command, text in (*APP_KEYS, *choose):
        yield SystemCommand(f"{command.capitalize()} ({key})", text, getattr(app, f"action_{action_name(command)}"))
