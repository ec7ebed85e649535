"""Work budgets: computations that can grow exponentially with a program stop with a clear
message instead of running for hours.

Fusion groupings and the orders listed in fact files are enumerated, and their number can
double with every op or loop variable a user adds. Each such loop spends from a StepBudget
(the engine has its own, navigator.synth.lookup_budget.WorkBudget, for the rows its solver visits);
past its limit the budget raises ResourceError (a UserError: exit code 2) naming the
program, what ran out and the fix. The limits are documented in docs/program-format.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fuseflow.support.memory import ResourceError

#: Called now and then while a budgeted computation runs long: (what, where, fraction of the
#: budget used). The CLI installs one that prints a line on stderr, so that long work is never
#: silent; library users may install their own (set_progress_hook).
_progress_hook: Callable[[str, str, float], None] | None = None
#: seconds of work before the first report, and between reports
PROGRESS_AFTER = 2.0


def set_progress_hook(hook: Callable[[str, str, float], None] | None) -> None:
    global _progress_hook
    _progress_hook = hook


class StepBudget:
    """Counts the steps of one computation and stops it past `limit`."""

    def __init__(self, limit: int, what: str, where: str, fix: str):
        self.limit = limit
        self.what = what          # e.g. "legal fusion groupings"
        self.where = where
        self.fix = fix
        self.used = 0
        self._started = time.monotonic()
        self._next_report = self._started + PROGRESS_AFTER
        self._next_check = 1000   # steps; reading the clock on every step would cost more than the step

    def spend(self, steps: int = 1) -> None:
        self.used += steps
        if self.used >= self._next_check:
            self._next_check = self.used + 1000
            now = time.monotonic()
            if now >= self._next_report and _progress_hook is not None:
                self._next_report = now + PROGRESS_AFTER
                _progress_hook(self.what, self.where, min(self.used / self.limit, 1.0))
        if self.used > self.limit:
            raise ResourceError(f"more than {self.limit:,} {self.what}, the most Navigator works through",
                                where=self.where, fix=self.fix)
