"""The contract between the driver and a fill-in strategy.

A strategy sees a read-only view of the navigation (`StrategyContext`: the session, the
menus of every open hole, the oracle, the schedule space when there is one, and an optional
cost hook). It answers in one of two ways:

- `choose(context, hole) -> Choice`: one offered option for one hole, and why (`default`);
- `plan(context, hole, scope) -> Plan`: every step for the holes of a scope (that hole, its
  subtree, or every open hole) at once, with a rationale and the figures it weighed
  (`heuristic`, `exhaustive`; the interface `beam`, `anneal` and an LLM strategy will share).

It never edits the session itself; the driver applies the answer, so the menus stay the
single authority on what is legal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fuseflow.support.errors import UserError

if TYPE_CHECKING:
    from navigator.evaluation.tasks import EvalConfig
    from navigator.navigation.session import Session
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.synth import HoleMenu, Menus, Oracle, Sketch


class StrategyError(UserError):
    """A strategy cannot be used as asked (unknown name, no default at a hole, ...)."""


class StrategyFailure(Exception):
    """A strategy misbehaved (e.g. chose an option that is not offered): the work failed."""


@dataclass(frozen=True)
class Choice:
    """A strategy's answer: the id of an option offered at the hole, and why."""

    option: str
    rationale: str | None = None


class Scope(str, Enum):
    """Which holes a fill covers: the hole alone, it and every hole opened beneath it, or
    every open hole of the sketch (and the holes they open)."""

    HOLE = "hole"
    SUBTREE = "subtree"
    ALL = "all"


@dataclass(frozen=True)
class PlannedStep:
    """One step of a plan: fill `hole` with the offered option whose id is `option`."""

    hole: int
    option: str


@dataclass(frozen=True)
class Plan:
    """A strategy's answer for a whole scope. Holes are numbered as they will be when the
    steps are taken in order (hole numbers come from a counter, so a plan made on a copy of
    the sketch replays on the session)."""

    steps: tuple[PlannedStep, ...]
    rationale: str
    #: candidates scored by the cost model and by the simulator
    cost_model_evaluations: int = 0
    simulator_evaluations: int = 0
    #: the figures the strategy compared, e.g. {"best_cycles": ..., "runner_up_cycles": ...}
    compared: dict[str, Any] = field(default_factory=dict)
    #: who the steps are recorded as, when not the strategy itself (a fallback: "strategy:heuristic")
    provenance: str | None = None
    #: the sketch after each step, as the strategy reached it (empty: not kept); the session takes
    #: these objects when its own steps build the same trees, so the menus computed while
    #: planning are not computed again
    sketches: tuple[Any, ...] = ()

    @property
    def figures(self) -> dict[str, Any]:
        """What each step records as its provenance (StepRecord.figures)."""
        return {"evaluated": {"cost_model": self.cost_model_evaluations,
                              "simulator": self.simulator_evaluations},
                "compared": dict(self.compared)}


@dataclass(frozen=True)
class StrategyContext:
    """What a strategy may look at when it chooses."""

    session: "Session"
    menus: "Menus"
    #: the tensor program's schedule space (cost model, schedules); None for a Honeybee problem
    space: "ScheduleSpace | None" = None
    #: how the simulator runs this program (its spec, hardware, policy); None when it cannot
    evaluation: "EvalConfig | None" = None
    #: the sketch this view looks at, when not the session's (a plan part-way through: `at`)
    viewed: "Sketch | None" = None

    @classmethod
    def of(cls, session: "Session", space: "ScheduleSpace | None" = None, evaluation: "EvalConfig | None" = None,
           viewed: "Sketch | None" = None) -> "StrategyContext":
        """The context at `viewed` (default: the session's sketch), with that sketch's menus."""
        menus = session.menus() if viewed is None else session.oracle.menus(viewed)
        return cls(session, menus, space, evaluation, viewed)

    @property
    def oracle(self) -> "Oracle":
        return self.session.oracle

    @property
    def sketch(self) -> "Sketch":
        return self.viewed if self.viewed is not None else self.session.sketch

    def at(self, sketch: "Sketch") -> "StrategyContext":
        """The same view at `sketch` (reached from the session's by offered steps), with its menus."""
        from dataclasses import replace

        return replace(self, menus=self.oracle.menus(sketch), viewed=sketch)

    def menu(self, hole: int) -> "HoleMenu":
        return self.menus.for_hole(hole)


@runtime_checkable
class Strategy(Protocol):
    """Chooses an option for one open hole (a `PlanningStrategy` plans a scope instead)."""

    #: registry name, e.g. "default"
    name: str
    #: provenance recorded on the steps it takes: "default" or "strategy:<name>"
    provenance: str

    def choose(self, context: StrategyContext, hole: int) -> Choice:
        """The option to take at `hole` (an open hole of `context.sketch`)."""
        ...


@runtime_checkable
class PlanningStrategy(Protocol):
    """Plans every step of a scope at once."""

    name: str
    provenance: str

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        """The steps for `hole` and, by `scope`, the holes beneath it or every open hole."""
        ...
