"""A work budget for the engine: how many candidate rows one operation may look at.

Solving a condition enumerates candidates: rows of facts, inhabited metadata of a parameter
type, domain values of a free return field. On the libraries Navigator is meant for, every
enumeration is narrowed by a fact or an equality first; but a library can leave several
fields free (`ret.a < ret.b` over every Int literal, say) and ask for a product of domains
that no machine finishes. So every enumeration pays for the rows it is about to visit,
and an operation (building the oracle, one menu, a height computation) that runs out
stops with a ResourceError naming the library and the function whose condition was being
solved, instead of running for hours or exhausting memory.

The limit is generous: the bundled FuseFlow library needs about 1.5% of it on its largest
program. It also grows with the facts (WORK_PER_FACT rows each), since work in proportion
to the input is expected; a blow-up is work out of proportion to it. $NAVIGATOR_MAX_WORK
raises (or lowers) the base.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Iterator

from fuseflow.support.memory import ResourceError

MAX_WORK_ENV = "NAVIGATOR_MAX_WORK"
#: steps one automatic fill (a strategy, `export --partial`) or one uniform sample may take:
#: a library can have finitely many programs that are each too large to build step by step
MAX_AUTO_STEPS = 20_000
#: candidate rows one operation may visit (a few seconds of solving, a few GB at most)
DEFAULT_MAX_WORK = 10_000_000
#: and more per fact (the FuseFlow library visits about 8 rows per fact)
WORK_PER_FACT = 50


def max_work() -> int:
    text = os.environ.get(MAX_WORK_ENV, "").strip().replace("_", "")
    if not text:
        return DEFAULT_MAX_WORK
    if not text.isdigit() or int(text) < 1000:
        raise ResourceError(f"cannot use {MAX_WORK_ENV}={os.environ[MAX_WORK_ENV]!r}",
                            where=f"${MAX_WORK_ENV}", fix="give a whole number of at least 1000, e.g. 50000000")
    return int(text)


class WorkBudget:
    """Rows left for the current operation. `left` is read and decremented directly by the
    solver's loops (an attribute, so generated code pays one subtraction per loop)."""

    __slots__ = ("limit", "left", "where", "_depths")

    def __init__(self, limit: int | None = None, where: str | None = None):
        self.limit = max_work() if limit is None else limit
        self.left = self.limit
        #: the library, for messages
        self.where = where
        #: nesting per thread (the TUI asks for menus while a worker plans): a depth shared by
        #: threads could race and stay above 0, and the budget would then never be renewed
        self._depths: dict[int, int] = {}

    @contextmanager
    def operation(self) -> Iterator["WorkBudget"]:
        """A thread's outermost `with budget.operation()` starts with the whole limit; nested
        ones share it."""
        thread = threading.get_ident()
        depth = self._depths.get(thread, 0)
        if depth == 0:
            self.left = self.limit
        self._depths[thread] = depth + 1
        try:
            yield self
        finally:
            if depth == 0:
                del self._depths[thread]
            else:
                self._depths[thread] = depth

    def spend(self, rows: int, function: str) -> None:
        self.left -= rows
        if self.left < 0:
            self.exhausted(function)

    def exhausted(self, function: str) -> None:
        self.left = 0
        raise ResourceError(
            f"solving the condition of {function} needs more than {self.limit:,} lookups: its free "
            "fields and parameters range over too many combinations", where=self.where,
            fix=f"narrow {function}'s condition with facts or equalities (a free Int or Str field ranges "
                f"over every literal of its type) or split it into smaller steps; if the program's space "
                f"is simply that large, raise the limit with {MAX_WORK_ENV}=N")
