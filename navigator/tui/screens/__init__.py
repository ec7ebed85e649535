"""The TUI's dialogs, each a modal screen over the main one that escape dismisses."""

from navigator.tui.screens.auto_dialog import AutoDialog
from navigator.tui.screens.confirm_dialog import ConfirmDialog
from navigator.tui.screens.export_dialog import ExportDialog
from navigator.tui.screens.goto_dialog import GoToDialog
from navigator.tui.screens.help_screen import HelpScreen
from navigator.tui.screens.proposals_screen import ProposalsScreen

__all__ = ["AutoDialog", "ConfirmDialog", "ExportDialog", "GoToDialog", "HelpScreen", "ProposalsScreen"]
