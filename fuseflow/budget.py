"""Work budgets: computations that can grow exponentially with a program stop with a clear
message instead of running for hours.

Fusion groupings and the orders listed in fact files are enumerated, and their number can
double with every op or loop variable a user adds. Each such loop spends from a StepBudget
(the engine has its own, navigator.synth.budget.WorkBudget, for the rows its solver visits);
past its limit the budget raises ResourceError (a UserError: exit code 2) naming the
program, what ran out and the fix. The limits are documented in docs/program-format.md.
"""

from __future__ import annotations

from fuseflow.memory import ResourceError


class StepBudget:
    """Counts the steps of one computation and stops it past `limit`."""

    def __init__(self, limit: int, what: str, where: str, fix: str):
        self.limit = limit
        self.what = what          # e.g. "legal fusion groupings"
        self.where = where
        self.fix = fix
        self.used = 0

    def spend(self, steps: int = 1) -> None:
        self.used += steps
        if self.used > self.limit:
            raise ResourceError(f"more than {self.limit:,} {self.what}, the most Navigator works through",
                                where=self.where, fix=self.fix)
