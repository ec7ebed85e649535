"""The status line: the selected hole, the session's state, the menu's sort and filter, and the
work running in the background."""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from textual.worker import Worker

from navigator.tui.safe_text import plain
from navigator.tui.widgets.text_box import TextBox

#: what each group of the app's workers is called here
#: the frames of the spinner beside a strategy's or the model's elapsed time
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_WORK_NAMES = {"hints": "cost hints", "evaluation": "evaluating", "simulation": "simulating options", "strategy": "running",
               "model": "asking the model"}


class StatusLine(TextBox):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", fixed_size=True, **kwargs)   # one line across the screen (navigator.tcss)

    def show(self, hole: int | None, state: str, sorted_by: str | None, filter_text: str,
             workers: Iterable[Worker], running: Mapping[str, tuple[str, float, str]] | None = None) -> None:
        """`state`: the controller's one line on the session; `running`: worker group -> (what
        runs, when it started, its progress note), said with the time it has taken and a spinner."""
        selected = f"?{hole} selected · " if hole is not None else ""
        sort = f" · sorted {sorted_by}" if sorted_by else ""
        shown = f" · filter '{filter_text}'" if filter_text else ""
        running = running or {}
        busy = []
        for group in sorted({w.group for w in workers if w.group in _WORK_NAMES and not w.is_finished}):
            if group in running:
                what, started, note = running[group]
                elapsed = time.monotonic() - started
                spinner = SPINNER[int(elapsed * 4) % len(SPINNER)]
                busy.append(f"{_WORK_NAMES[group]} {what}" + (f" ({note})" if note else "") + f" {elapsed:.1f} s {spinner}")
            else:
                busy.append(_WORK_NAMES[group] + "…")
        working = f" · working: {', '.join(busy)} (x cancels)" if busy else ""
        self.set_text(plain(f"{selected}{state}{sort}{shown}{working}"))
