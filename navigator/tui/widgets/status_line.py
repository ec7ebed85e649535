"""The status line: the selected hole, the session's state, the menu's sort and filter, and the
work running in the background."""

from __future__ import annotations

from typing import Any, Iterable

from textual.widgets import Static
from textual.worker import Worker

from navigator.tui.safe_text import plain

#: what each group of the app's workers is called here
_WORK_NAMES = {"hints": "cost hints", "evaluation": "evaluating", "simulation": "simulating options", "strategy": "strategy",
               "model": "asking the model"}


class StatusLine(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def show(self, hole: int | None, state: str, sorted_by: str | None, filter_text: str,
             workers: Iterable[Worker]) -> None:
        """`state`: the controller's one line on the session."""
        selected = f"?{hole} selected · " if hole is not None else ""
        sort = f" · sorted {sorted_by}" if sorted_by else ""
        shown = f" · filter '{filter_text}'" if filter_text else ""
        busy = sorted({_WORK_NAMES[w.group] for w in workers if w.group in _WORK_NAMES and not w.is_finished})
        working = f" · working: {', '.join(busy)}… (x cancels)" if busy else ""
        self.update(plain(f"{selected}{state}{sort}{shown}{working}"))
