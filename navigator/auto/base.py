"""The contract between the driver and a fill-in strategy.

A strategy sees a read-only view of the navigation (`StrategyContext`: the session, the
menus of every open hole, the oracle and an optional cost hook) and answers one question:
which offered option should fill this hole, and why. It never edits the session itself;
the driver applies the choice, so the menus stay the single authority on what is legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from fuseflow.errors import UserError

if TYPE_CHECKING:
    from navigator.session import Session
    from navigator.synth import CostFunction, HoleMenu, Menus, Oracle, Sketch


class StrategyError(UserError):
    """A strategy cannot be used as asked (unknown name, no default at a hole, ...)."""


class StrategyFailure(Exception):
    """A strategy misbehaved (e.g. chose an option that is not offered): the work failed."""


@dataclass(frozen=True)
class Choice:
    """A strategy's answer: the id of an option offered at the hole, and why."""

    option: str
    rationale: str | None = None


@dataclass(frozen=True)
class StrategyContext:
    """What a strategy may look at when it chooses."""

    session: "Session"
    menus: "Menus"
    #: cost hook (lower is better; None when it cannot estimate yet); defaults to the oracle's
    cost: "CostFunction | None" = None

    @property
    def oracle(self) -> "Oracle":
        return self.session.oracle

    @property
    def sketch(self) -> "Sketch":
        return self.session.sketch

    def menu(self, hole: int) -> "HoleMenu":
        return self.menus.for_hole(hole)

    def estimate(self, sketch: "Sketch") -> float | None:
        """The cost hook's estimate for `sketch`, or None without a hook."""
        return self.cost(sketch) if self.cost is not None else None


@runtime_checkable
class Strategy(Protocol):
    """Chooses an option for one open hole."""

    #: registry name, e.g. "default"
    name: str
    #: provenance recorded on the steps it takes: "default" or "strategy:<name>"
    provenance: str

    def choose(self, context: StrategyContext, hole: int) -> Choice:
        """The option to take at `hole` (an open hole of `context.sketch`)."""
        ...
