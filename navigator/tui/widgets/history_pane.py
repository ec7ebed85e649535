"""The history pane: the steps taken, why, and the alternatives not taken; the undone steps
after them, dimmed. Enter on a step asks to undo or redo to it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from navigator.tui.safe_text import block
from navigator.tui.keys import pane_bindings

if TYPE_CHECKING:
    from navigator.tui.controller import HistoryRow


#: rows that changed past which the history is drawn again from scratch rather than row by row
_REBUILT_FROM = 64


class HistoryPane(OptionList):
    ALLOW_MAXIMIZE = True
    BINDINGS = pane_bindings("history")

    class StepSelected(Message):
        """Enter on a step (`row`, as shown): make it the last step taken (undo or redo to it)."""

        def __init__(self, row: "HistoryRow") -> None:
            super().__init__()
            self.row = row

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[list, list] = ([], [])  # the ids and texts of the options shown
        self._rows: dict[str, "HistoryRow"] = {}  # the rows shown, by option id

    def on_mount(self) -> None:
        self.border_title = "History (enter: undo to here)"

    def show(self, rows: list["HistoryRow"]) -> None:
        """The steps, the last one taken highlighted."""
        options: list[Option] = []
        last = 0
        for row in rows:
            if row.undone:
                text = block(f"{row.number}. (undone) ?{row.hole} := {row.choice}  [{row.by}]")
                text.stylize("dim")
                options.append(Option(text, id=str(row.number)))
                continue
            last = len(options)
            lines = [f"{row.number}. ?{row.hole} := {row.choice}  [{row.by}]"]
            if row.rationale:
                lines.append(f"   why: {row.rationale}")
            if row.alternatives:
                shown = ", ".join(f"{label} ({count})" for label, count in row.alternatives[:4])
                more = len(row.alternatives) - 4
                lines.append(f"   not taken: {shown}" + (f" and {more} more" if more > 0 else ""))
            options.append(Option(block("\n".join(lines)), id=str(row.number)))
        now = [option.id for option in options], [str(option.prompt) for option in options]
        shown_ids, shown_texts = self._shown
        same = 0  # the options already shown as they are (a step taken only appends)
        while same < min(len(shown_ids), len(now[0])) and shown_texts[same] == now[1][same]:
            same += 1
        if same < len(shown_ids):
            if len(shown_ids) - same > _REBUILT_FROM:
                self.clear_options()
                same = 0
            else:   # an undo changes the last few rows: those are replaced, the rest stay
                for index in reversed(range(same, len(shown_ids))):
                    self.remove_option_at_index(index)
        self.add_options(options[same:])
        self._shown = now
        self._rows = {str(row.number): row for row in rows}
        if options:
            self.highlighted = last

    @on(OptionList.OptionSelected)
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self._rows.get(event.option.id)
        if row is not None:
            self.post_message(self.StepSelected(row))
