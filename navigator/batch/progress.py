"""The batch progress bar (rich, on stderr)."""

from __future__ import annotations

from typing import Any


class BatchProgress:
    """`with BatchProgress(total, done) as bar: bar.record(record)`; a no-op when disabled."""

    def __init__(self, total: int, done: int = 0, *, enabled: bool = True, label: str = "evaluating"):
        self.total, self.done, self.enabled, self.label = total, done, enabled, label
        self.failed = 0
        self._progress = None
        self._task = None

    def __enter__(self) -> "BatchProgress":
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                                  TextColumn("eta"), TimeRemainingColumn(),
                                  console=Console(stderr=True), transient=False)
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=self.total, completed=self.done, failed=0)
        return self

    def record(self, record: dict[str, Any]) -> None:
        if record.get("status") != "ok":
            self.failed += 1
        if self._progress is not None:
            self._progress.update(self._task, advance=1, failed=self.failed)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
