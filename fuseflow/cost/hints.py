"""Cost hints: the best estimated completion beneath a partly chosen schedule.

The estimate of a schedule (fuseflow.cost.estimate) is a sum over its regions: its cycles are
the sum of the regions' (they run one after another), and so are its bytes and FLOPs. A
region's estimate depends on its ops, its order, its parallel factors, its stream shape and its
block mode, and on nothing outside it, so

* the best completion of one region is the best of its completions (fuseflow.cost.completion:
  the choices made so far, the heuristic's rule for the rest, and the compiler's defaults),
  over its legal orders when the order is free, and
* the best completion of a fusion state is a min-plus recursion over the fusion steps
  (fuseflow.analysis.fusion_steps, the states the menus offer), memoized per state and per region.

So an option's hint responds to every decision: a parallel factor, a stream shape or a block
mode changes the region's predicted cycles, and so its hint.

"Best" orders estimates by cycles, then bytes, then FLOPs (`CostHint.key`). Adding the same
estimate to two others keeps their order, so the recursion finds the minimum over the
completions it costs. A region with more legal orders than `ORDERS_PREDICTED` is costed on the
orders its logical figures (fewest FLOPs, then bytes: `RegionCostModel`) rank first; another of
its orders, taken with nothing below it chosen yet, gets a bound (its FLOPs at the peak rate),
and an estimate once a factor, shape or block mode is chosen under it.

A hint is *exact* when it is the estimate of a completion. When a region has more legal
orders than `ORDER_BUDGET`, its orders are not all ranked and its hint is a *bound* instead:
every completion beneath it has at least those cycles, bytes and FLOPs (the compulsory traffic:
each operand read once and each result written once, at the memory bandwidth; no FLOPs). A
choice among options some of which are bounds keeps the smallest figure of each kind, so it
stays a bound, figure by figure, of every completion (and so of the best one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from fuseflow.program.binding import Binding
from fuseflow.cost.completion import candidates
from fuseflow.cost.estimate import RegionCost, RegionCostModel, ScheduleCost, region_cost
from fuseflow.cost.signature import region_signature
from fuseflow.cost.statistics import DataStatistics
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.analysis.fusion_steps import FusionState
from fuseflow.cost.hardware import Hardware
from fuseflow.program.ir import Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.schedule import RegionSchedule, default_schedule
from fuseflow.support.numbers import figure

#: Orders ranked per region by their logical figures (about 10 µs each); a region with more gets
#: a bound. The bundled programs' largest region (graphsage's 8-variable one) has 6,720.
ORDER_BUDGET = 10_000
#: Orders predicted per region when its order is free (about 2 ms each): the first by the ranking
ORDERS_PREDICTED = 32
#: of those, the best under the rule's completion that are also costed with the defaults
ORDERS_REFINED = 3
#: fusion states kept per list of placed regions (`state_after`)
AFTER_KEPT = 10_000


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
        """`est. 1.2e5 cycles, 3.4e6 bytes, 2e6 FLOPs (best completion)`; a bound reads `est. >= ... (bound)`."""
        figures = f"{figure(self.cycles)} cycles, {figure(self.bytes)} bytes, {figure(self.flops)} FLOPs"
        return f"est. {figures} (best completion)" if self.exact else f"est. >= {figures} (bound)"


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
    return CostHint(cost.cycles, cost.bytes, cost.flops, True)


def region_hint(cost: RegionCost) -> CostHint:
    return CostHint(cost.timing.cycles, cost.bytes, cost.flops, True)


@dataclass(frozen=True)
class Choices:
    """What is chosen so far of one region: its order, factors per loop variable, stream shape
    and block mode (None or missing: free)."""

    order: tuple[str, ...] | None = None
    factors: tuple[tuple[str, int], ...] = ()
    shape: int | None = None
    block: bool | None = None

    @classmethod
    def of(cls, order=None, factors: dict[str, int] | None = None, shape: int | None = None,
           block: bool | None = None) -> "Choices":
        return cls(tuple(order) if order is not None else None, tuple(sorted((factors or {}).items())), shape,
                   block)


class CostHints:
    """Best estimated costs beneath partial schedules of one program, memoized per region and
    per fusion state (build one per program, binding and data, and keep it)."""

    def __init__(self, program: Program, binding: Binding, hw: Hardware, order_budget: int = ORDER_BUDGET,
                 stats: DataStatistics | None = None):
        self.program, self.binding, self.hw = program, binding, hw
        self.order_budget = order_budget
        self.stats = stats or DataStatistics(program, binding)
        self.steps = fusion_steps(program)
        self._models: dict[tuple[str, ...], RegionCostModel] = {}
        # The estimates, keyed by region signature (fuseflow.cost.signature): regions alike share them.
        self._regions: dict[tuple[str, Choices], CostHint] = {}
        self._schedules: dict[tuple, CostHint] = {}
        self._shortlists: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._states: dict[FusionState, CostHint] = {}
        self._signatures: dict[tuple[str, ...], str] = {}
        self._after: dict[tuple, FusionState | None] = {}

    # ---- one region

    def _model(self, ops: tuple[str, ...]) -> RegionCostModel:
        model = self._models.get(ops)
        if model is None:
            model = self._models[ops] = RegionCostModel(self.program, self.binding,
                                                        unify_region(self.program, ops), self.hw)
        return model

    def signature(self, ops: tuple[str, ...]) -> str:
        found = self._signatures.get(ops)
        if found is None:
            found = self._signatures[ops] = region_signature(self.program, self.binding, ops)
        return found

    def of_region_schedule(self, rs: RegionSchedule) -> CostHint:
        """The estimate of one completely chosen region."""
        key = (self.signature(rs.ops), rs.order, rs.par_factors, rs.stream_shape, rs.block_sparse)
        found = self._schedules.get(key)
        if found is None:
            found = self._schedules[key] = region_hint(
                region_cost(self.program, self.binding, rs, self.hw, stats=self.stats, model=self._model(rs.ops)))
        return found

    def _under(self, region: Region, order: tuple[str, ...], choices: Choices, defaults: bool) -> CostHint:
        """The best of the completions under `order`: all of `candidates` with `defaults`, else
        the rule's alone, block mode as chosen or off (the quick ranking of orders)."""
        block = choices.block if defaults or choices.block is not None else False
        options = candidates(region, order, self.binding, self.hw, dict(choices.factors), choices.shape,
                             block, defaults)
        return min((self.of_region_schedule(rs) for rs in options), key=lambda h: h.key)

    def region(self, ops: Sequence[str], order: Sequence[str] | None = None,
               choices: Choices | None = None) -> CostHint:
        """The best estimate of the region `ops` over its completions: under `order` (or
        `choices.order`) when chosen, else over its legal orders."""
        ops = tuple(ops)
        choices = choices or Choices()
        if order is not None:
            choices = Choices(tuple(order), choices.factors, choices.shape, choices.block)
        key = (self.signature(ops), choices)
        found = self._regions.get(key)
        if found is not None:
            return found
        region = unify_region(self.program, ops)
        # an order beyond the shortlist with nothing chosen under it (factors of 1 are forced on
        # compressed levels) gets a bound: a menu of thousands of orders is not predicted one by one
        if choices.order is not None and all(f == 1 for _, f in choices.factors) and choices.shape is None \
                and choices.block is None and choices.order not in self._shortlist(ops):
            found = self._arithmetic_bound(self._model(ops), choices.order)
        elif choices.order is not None:
            found = self._under(region, choices.order, choices, True)
        else:
            space = OrderSpace.of_region(region)
            if space.count() <= self.order_budget:
                # every order under the rule's completion, then the few best with the defaults too
                quick = {o: self._under(region, o, choices, False) for o in self._shortlist(ops)}
                refined = sorted(quick, key=lambda o: quick[o].key)[:ORDERS_REFINED]
                found = best_of(list(quick.values()) + [self._under(region, o, choices, True) for o in refined])
                assert found is not None, "every legal region has a legal order (fusion.region_problem)"
            else:
                found = self._compulsory(self._model(ops))
        self._regions[key] = found
        return found

    def _shortlist(self, ops: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        """The orders whose completions are estimated: all, or the ORDERS_PREDICTED its logical
        figures rank first (a region with more than ORDER_BUDGET: none)."""
        key = self.signature(ops)
        found = self._shortlists.get(key)
        if found is None:
            model = self._model(ops)
            space = OrderSpace.of_region(model.region)
            orders = [tuple(o) for o in space.listed()] if space.count() <= self.order_budget else []
            if len(orders) > ORDERS_PREDICTED:
                orders = sorted(orders, key=lambda o: _logical_key(model.cost(o)))[:ORDERS_PREDICTED]
            found = self._shortlists[key] = tuple(orders)
        return found

    def _arithmetic_bound(self, model: RegionCostModel, order: tuple[str, ...]) -> CostHint:
        """A bound for an order the hints do not estimate (beyond the shortlist): its FLOPs at
        the peak rate, which no completion under it beats (the simulator executes at least them)."""
        flops = model.cost(order).flops
        return CostHint(flops / self.hw.peak_ops_per_cycle, 0.0, 0.0, False)

    def _compulsory(self, model: RegionCostModel) -> CostHint:
        """A bound for any order: every operand read once, every result written once."""
        traffic = model.compulsory_bytes
        return CostHint(traffic / self.hw.memory_bytes_per_cycle, traffic, 0.0, False)

    # ---- what a later process can reuse

    @property
    def estimated(self) -> int:
        """How many region estimates the memo holds."""
        return len(self._schedules)

    def export(self) -> dict:
        """The region estimates and order shortlists as JSON data (`absorb` reads them back):
        everything else the hints compute is cheap given these."""
        return {"estimates": [[sig, list(order), list(par), shape, block, h.cycles, h.bytes, h.flops]
                              for (sig, order, par, shape, block), h in sorted(self._schedules.items())],
                "shortlists": {sig: [list(o) for o in orders] for sig, orders in sorted(self._shortlists.items())}}

    def absorb(self, data: object) -> int:
        """Take the estimates of `export`'s data, computed for this program, binding, hardware
        and code; anything not of that shape is ignored. Returns how many were taken."""
        if not isinstance(data, dict):
            return 0
        taken = 0
        for row in data.get("estimates") or ():
            try:
                sig, order, par, shape, block, cycles, bytes_, flops = row
                key = (str(sig), tuple(map(str, order)), tuple(map(int, par)), int(shape), bool(block))
                hint = CostHint(float(cycles), float(bytes_), float(flops), True)
            except (TypeError, ValueError):
                continue
            self._schedules.setdefault(key, hint)
            taken += 1
        shortlists = data.get("shortlists")
        for sig, orders in (shortlists.items() if isinstance(shortlists, dict) else ()):
            if isinstance(orders, list) and all(isinstance(o, list) for o in orders):
                self._shortlists.setdefault(str(sig), tuple(tuple(map(str, o)) for o in orders))
        return taken

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
        regions = tuple(tuple(ops) for ops in regions)
        if regions in self._after:   # the options of one hole place the same regions
            return self._after[regions]
        state: FusionState | None = self.steps.start()
        for ops in regions:
            step = self.steps.step(state, ops)
            if step is None:
                state = None
                break
            state = step.next
        if len(self._after) > AFTER_KEPT:
            self._after.clear()
        self._after[regions] = state
        return state

    def partial(self, placed: Sequence[tuple[Sequence[str], Choices | Sequence[str] | None]],
                rest: FusionState | Sequence[Sequence[str]] | None = None) -> CostHint:
        """The best completion of a partial schedule: `placed` regions, each with what is chosen
        of it (`Choices`, or just its order; None: nothing), then `rest`: a fusion state whose
        remaining regions are still free, a list of regions already decided (orders free), or
        None (nothing more)."""
        total = ZERO
        for ops, chosen in placed:
            choices = chosen if isinstance(chosen, Choices) else Choices.of(chosen)
            total = total.plus(self.region(ops, choices=choices))
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
        """The compiler's default schedule (the `default_schedule` shortcut): its estimate, the
        sum of its regions' (as `schedule_cost` sums them)."""
        total = ZERO
        for rs in default_schedule(self.program).regions:
            total = total.plus(self.of_region_schedule(rs))
        return total


def _logical_key(cost: RegionCost) -> tuple[float, float]:
    return cost.flops, cost.bytes
