"""The batch progress bar (rich, on stderr).

The bar is a convenience: if it fails (stderr closed or broken, a terminal that went away),
it turns itself off and the batch goes on; the summary and the results file are what count.
"""

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
        try:
            self._start()
        except Exception:  # noqa: BLE001 - see the module docstring
            self._stop()
        return self

    def _start(self) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                                  TextColumn("eta"), TimeRemainingColumn(),
                                  console=_stderr_console(), transient=False)
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=self.total, completed=self.done, failed=0)

    def record(self, record: dict[str, Any]) -> None:
        if record.get("status") != "ok":
            self.failed += 1
        if self._progress is not None:
            try:
                self._progress.update(self._task, advance=1, failed=self.failed)
            except Exception:  # noqa: BLE001 - see the module docstring
                self._stop()

    def _stop(self) -> None:
        progress, self._progress = self._progress, None
        if progress is not None:
            try:
                progress.stop()
            except Exception:  # noqa: BLE001 - already failing; nothing more to show
                pass

    def __exit__(self, *exc) -> None:
        self._stop()


def _stderr_console():
    from rich.console import Console

    class StderrConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich's default points *stdout* at /dev/null and exits, losing the --json summary
            self.quiet = True

    return StderrConsole(stderr=True)
