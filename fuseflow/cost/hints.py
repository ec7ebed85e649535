"""Cost hints: the best estimated cost (fuseflow.cost.estimate) reachable beneath a partly chosen schedule.

The estimate of a schedule is a sum over its regions: its roofline cycles are the sum of the
regions' (they run one after another), and so are its bytes and FLOPs. A region's estimate
depends on its ops and its dataflow order only (parallel factors, stream shape and block mode
do not enter the model), so

* the best schedule of one region is the best of its legal orders, and
* the best completion of a fusion state is a min-plus recursion over the fusion steps
  (fuseflow.analysis.fusion_steps, the states the menus offer), memoized per state and per region.

"Best" orders estimates by cycles, then bytes, then FLOPs (`CostHint.key`). Adding the same
estimate to two others keeps their order, so the recursion finds the true minimum.

A hint is *exact* when it is the estimate of the best completion. When a region has more legal
orders than `ORDER_BUDGET`, its orders are not all costed and its hint is a *bound* instead:
every completion beneath it has at least those cycles, bytes and FLOPs (the compulsory traffic:
each operand read once and each result written once, at the memory bandwidth; no FLOPs). A
choice among options some of which are bounds keeps the smallest figure of each kind, so it
stays a bound, figure by figure, of every completion (and so of the best one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from fuseflow.program.binding import Binding
from fuseflow.cost.estimate import RegionCostModel, ScheduleCost, schedule_cost
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.analysis.fusion_steps import FusionState
from fuseflow.cost.hardware import Hardware
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.schedule import default_schedule
from fuseflow.support.numbers import figure

#: Orders costed per region (about 10 µs each); a region with more gets a bound. The bundled
#: programs' largest region (graphsage's 8-variable one) has 6,720.
ORDER_BUDGET = 10_000


@dataclass(frozen=True)
class CostHint:
    """The best completion's estimated cycles, bytes and FLOPs, or, when not `exact`, figures
    that no completion beats (each one separately)."""

    cycles: float
    bytes: float
    flops: float
    exact: bool

    @property
    def key(self) -> tuple[float, float, float]:
        """What "best" minimizes: cycles first, then bytes, then FLOPs."""
        return self.cycles, self.bytes, self.flops

    def plus(self, other: "CostHint") -> "CostHint":
        return CostHint(self.cycles + other.cycles, self.bytes + other.bytes, self.flops + other.flops,
                        self.exact and other.exact)

    def to_dict(self) -> dict:
        return {"cycles": self.cycles, "bytes": self.bytes, "flops": self.flops, "exact": self.exact}

    def describe(self) -> str:
        """`best ~1.2e5 cycles, 3.4e6 bytes, 2e6 FLOPs (exact)`; a bound reads `best >= ...`."""
        figures = f"{figure(self.cycles)} cycles, {figure(self.bytes)} bytes, {figure(self.flops)} FLOPs"
        return f"best ~{figures} (exact)" if self.exact else f"best >= {figures} (bound)"


ZERO = CostHint(0.0, 0.0, 0.0, True)


def best_of(hints: Iterable[CostHint]) -> CostHint | None:
    """The best of several options' hints: the smallest key when all are exact, else the
    smallest figure of each kind (a bound). None when there are no options."""
    hints = list(hints)
    if not hints:
        return None
    if all(h.exact for h in hints):
        return min(hints, key=lambda h: h.key)
    return CostHint(min(h.cycles for h in hints), min(h.bytes for h in hints), min(h.flops for h in hints), False)


def estimate_hint(cost: ScheduleCost) -> CostHint:
    """The hint of a complete schedule: its own estimate, exactly."""
    return CostHint(cost.roofline_cycles, cost.bytes, cost.flops, True)


class CostHints:
    """Best estimated costs beneath partial schedules of one program, memoized per region and
    per fusion state (build one per program and binding, and keep it)."""

    def __init__(self, program: Program, binding: Binding, hw: Hardware, order_budget: int = ORDER_BUDGET):
        self.program, self.binding, self.hw = program, binding, hw
        self.order_budget = order_budget
        self.steps = fusion_steps(program)
        self._models: dict[tuple[str, ...], RegionCostModel] = {}
        self._regions: dict[tuple[tuple[str, ...], tuple[str, ...] | None], CostHint] = {}
        self._states: dict[FusionState, CostHint] = {}
        self._roofline = ScheduleCost([], hw)  # its per-region cycles rule

    # ---- one region

    def _model(self, ops: tuple[str, ...]) -> RegionCostModel:
        model = self._models.get(ops)
        if model is None:
            model = self._models[ops] = RegionCostModel(self.program, self.binding,
                                                        unify_region(self.program, ops), self.hw)
        return model

    def _hint(self, model: RegionCostModel, order: tuple[str, ...]) -> CostHint:
        cost = model.cost(order)
        return CostHint(self._roofline.region_cycles(cost), cost.bytes, cost.flops, True)

    def region(self, ops: Sequence[str], order: Sequence[str] | None = None) -> CostHint:
        """The best estimate of the region `ops` over its legal orders, or under `order`."""
        ops = tuple(ops)
        order = tuple(order) if order is not None else None
        key = (ops, order)
        found = self._regions.get(key)
        if found is not None:
            return found
        model = self._model(ops)
        if order is not None:
            found = self._hint(model, order)
        else:
            space = OrderSpace.of_region(model.region)
            if space.count() <= self.order_budget:
                found = best_of(self._hint(model, o) for o in space.listed())
                assert found is not None, "every legal region has a legal order (fusion.region_problem)"
            else:
                found = self._compulsory(model)
        self._regions[key] = found
        return found

    def _compulsory(self, model: RegionCostModel) -> CostHint:
        """A bound for any order: every operand read once, every result written once."""
        traffic = model.compulsory_bytes
        return CostHint(traffic / self.hw.memory_bytes_per_cycle, traffic, 0.0, False)

    # ---- the fusion

    def from_state(self, state: FusionState) -> CostHint:
        """The best completion of the fusion from `state`: every region still to place, each
        with its best order."""
        if state not in self._states:
            # Ends first, so each state's successors are known (the order FusionSteps.count uses).
            for each in reversed(self.steps._topological()):
                if each in self._states:
                    continue
                if each.done:
                    self._states[each] = ZERO
                    continue
                best = best_of(self.region(step.region).plus(self._states[step.next])
                               for step in self.steps.steps(each))
                assert best is not None, "no reachable fusion state is a dead end (docs/fusion-steps.md)"
                self._states[each] = best
        return self._states[state]

    def start(self) -> FusionState:
        return self.steps.start()

    def state_after(self, regions: Iterable[Sequence[str]]) -> FusionState | None:
        """The fusion state after placing `regions` in this order, None when the steps do not
        place them so."""
        state = self.steps.start()
        for ops in regions:
            step = self.steps.step(state, ops)
            if step is None:
                return None
            state = step.next
        return state

    def partial(self, placed: Sequence[tuple[Sequence[str], Sequence[str] | None]],
                rest: FusionState | Sequence[Sequence[str]] | None = None) -> CostHint:
        """The best completion of a partial schedule: `placed` regions, each with its order when
        chosen (None: any legal order), then `rest`: a fusion state whose remaining regions are
        still free, a list of regions already decided (orders free), or None (nothing more)."""
        total = ZERO
        for ops, order in placed:
            total = total.plus(self.region(ops, order))
        if isinstance(rest, FusionState):
            total = total.plus(self.from_state(rest))
        elif rest is not None:
            for ops in rest:
                total = total.plus(self.region(ops))
        return total

    def best(self) -> CostHint:
        """The best schedule of the program."""
        return self.from_state(self.steps.start())

    def default_schedule(self) -> CostHint:
        """The compiler's default schedule (the `default_schedule` shortcut)."""
        return estimate_hint(schedule_cost(self.program, self.binding, default_schedule(self.program), self.hw))
