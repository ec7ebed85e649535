"""The `heuristic` strategy: one greedy pass over the scope that follows the cost model.

Each hole of the scope, lowest first, takes the option with the best cost hint: the fewest
estimated cycles of the best completion found beneath it (fuseflow.cost.hints, whose
estimate predicts the simulator), shortcuts left out, estimates before bounds, the default
breaking a tie. Following the hints, the completion reached is the one the first hint
estimated (each step keeps that completion available), so `heuristic` realizes the hints'
figure. Where no option has an estimate (a region beyond the hints' order budget), rules in
the style of Scorch decide, and a hole no rule speaks for takes its default. The rules, by the
function of the options:

- region (fusion, region by region): among the regions that some legal order runs without
  recomputation (fuseflow.analysis.fusion_shortcuts.runs_without_recomputation), the one that saves the
  most estimated cycles over running its ops alone. A region's cycles are the cost model's
  (fuseflow.cost.estimate, which predicts the simulator) under the order the order rule takes and
  the completion below, so a fusion that leaves a narrow loop innermost or work off the forked
  loop does not happen;
- order: the fewest FLOPs by the cost model's logical figures (fusion must not pay for itself in
  recomputed work), then sparse operands read concordantly with their storage, then compressed
  (filtering) loops outermost; among the orders that tie, the fewest estimated cycles;
- par, vectorize: the completion rule (fuseflow.cost.completion): the largest offered factor
  within the hardware's lanes on the outermost dense level of the region's order, 1 elsewhere;
  the widest offered stream shape;
- block_sparse: whichever the estimate prefers, with the region's choices so far.

Only offered options are ever ranked, so the plan is valid by construction.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

from navigator.auto.base import Plan, PlannedStep, Scope, StrategyContext, StrategyError
from navigator.auto.scope import ScopeWalk, candidate_options, scoring_option
from navigator.auto.scoring import require_space

if TYPE_CHECKING:
    from fuseflow.program.ir import Region
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.synth import HoleMenu, MenuOption, Sketch

#: a candidate region with more legal orders than this is not ranked
ORDERS_RANKED = 1_000
#: orders that tie on the logical figures whose cycles are estimated (the first ones)
TIES_PREDICTED = 4


class HeuristicStrategy:
    name = "heuristic"
    provenance = "strategy:heuristic"

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        from fuseflow.cost.hardware import load_hardware

        space = require_space(context.space, self.name)
        if context.menus.blocked:
            raise StrategyError(f"the sketch cannot be completed: {context.menus.blocked}",
                                fix="undo the step that blocked it (navigator undo)")
        rules = HeuristicRules(space, load_hardware())
        oracle = context.oracle
        walk = ScopeWalk.start(context.sketch, hole, scope)
        steps: list[PlannedStep] = []
        sketches = []
        used: dict[str, int] = {}
        while not walk.done:
            current = min(walk.pending)
            menu = oracle.menus(walk.sketch).for_hole(current)
            option, rule = rules.choose(walk.sketch, menu)
            used[rule] = used.get(rule, 0) + 1
            steps.append(PlannedStep(current, option.id))
            walk = walk.take(oracle, option)
            sketches.append(walk.sketch)
        rationale = "rules: " + "; ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in used.items())
        return Plan(tuple(steps), rationale, cost_model_evaluations=rules.evaluations,
                    compared={"rules": dict(used)}, sketches=tuple(sketches))


class HeuristicRules:
    def __init__(self, space: "ScheduleSpace", hardware):
        self.space = space
        self.hardware = hardware
        self.evaluations = 0
        self._orders: dict[tuple[str, ...], tuple] = {}
        self._models: dict[tuple[str, ...], object] = {}
        self._paced: dict[tuple[str, ...], float | None] = {}
        self._costs = None
        self._by_function: dict[str, Callable[["Sketch", "HoleMenu"], "MenuOption | None"]] = {
            "region": self._fusion, "order": self._order, "par": self._par,
            "vectorize": self._vector, "block_sparse": self._block}

    def choose(self, sketch: "Sketch", menu: "HoleMenu") -> tuple["MenuOption", str]:
        chosen = self._best_hint(sketch, menu)
        if chosen is not None:
            return chosen, BEST_HINT
        options = candidate_options(menu)
        functions = {o.function for o in options}
        for function, rule in self._by_function.items():
            if function in functions:
                chosen = rule(sketch, menu)
                if chosen is not None:
                    return chosen, _RULE_NAMES[function]
        return scoring_option(menu), "default"

    def _best_hint(self, sketch: "Sketch", menu: "HoleMenu") -> "MenuOption | None":
        """The option whose cost hint is the best estimate (shortcuts left out; a bound never
        wins over an estimate; the default, then the first listed, breaks a tie). None when no
        option has an estimate: the rules below decide then."""
        from navigator.synth import Menus

        hints = self.space.hints(sketch, Menus((menu,), None, None))
        options = [o for o in candidate_options(menu) if hints.get((menu.hole, o.id)) is not None
                   and hints[(menu.hole, o.id)].exact]
        if not options:
            return None
        self.evaluations += len(options)
        position = {o.id: index for index, o in enumerate(menu.options)}
        return min(options, key=lambda o: (hints[(menu.hole, o.id)].key, not o.is_default, position[o.id]))

    # ---- one rule per kind of choice, where no option has an estimate

    def _fusion(self, sketch, menu):
        from fuseflow.analysis.fusion_shortcuts import runs_without_recomputation
        from fuseflow.analysis.contexts import DEFAULT_POLICY

        regions = [o for o in candidate_options(menu) if o.function == "region"]
        clean = [o for o in regions
                 if runs_without_recomputation(self.space.program, _ops(o), DEFAULT_POLICY)]
        pool = clean or regions
        # max keeps the first of a tie
        return max(pool, key=lambda o: (self._fusion_saving(_ops(o)), len(_ops(o)))) if pool else None

    def _order(self, sketch, menu):
        orders = [o for o in candidate_options(menu) if o.function == "order"]
        if len(orders) < 2:
            return orders[0] if orders else None
        region = self._region(orders[0])
        best = self._best_of(region, [_order_of(o) for o in orders])
        return next(o for o in orders if _order_of(o) == best)

    def _logical_key(self, region: "Region", order: tuple[str, ...]) -> tuple:
        """Fewest FLOPs, then sparse operands read as stored, then filtering loops outermost."""
        self.evaluations += 1
        cost = self._model(region).cost(order)
        compressed = region.compressed_vars()
        discordant = sum(1 for operand in region.operands if "compressed" in operand.formats
                         and not _concordant(operand.vars, order))
        filters_late = sum(position for position, var in enumerate(order) if var in compressed)
        return cost.flops, discordant, filters_late

    def _best_of(self, region: "Region", orders: list[tuple[str, ...]]) -> tuple[str, ...]:
        """The order rule: the best logical key; among ties (the first TIES_PREDICTED in the order
        itself), the fewest estimated cycles under the completion rule, then the order itself, so
        the region rule predicts the order rule whatever order a menu lists its options in."""
        keys = {order: self._logical_key(region, order) for order in orders}
        least = min(keys.values())
        tied = sorted(order for order, key in keys.items() if key == least)[:TIES_PREDICTED]
        if len(tied) == 1:
            return tied[0]
        return min(tied, key=lambda order: (self._cycles(region, order), order))

    def _model(self, region: "Region"):
        """The region's logical cost model, built once per region (costing an order is then cheap)."""
        from fuseflow.cost.estimate import RegionCostModel

        model = self._models.get(region.ops)
        if model is None:
            model = self._models[region.ops] = RegionCostModel(self.space.program, self.space.binding, region,
                                                               self.hardware)
        return model

    def _cycles(self, region: "Region", order: tuple[str, ...], factors: dict[str, int] | None = None,
                shape: int | None = None, block: bool | None = None) -> float:
        """Estimated cycles of the region under `order` with the completion rule for what is not
        given (block mode: whichever is faster)."""
        from fuseflow.cost.completion import candidates

        options = candidates(region, order, self.space.binding, self.hardware, factors, shape, block, defaults=False)
        return min(self._hints.of_region_schedule(rs).cycles for rs in options)

    @property
    def _hints(self):
        from fuseflow.cost.hints import CostHints

        if self._costs is None:
            self._costs = CostHints(self.space.program, self.space.binding, self.hardware,
                                    stats=self.space.statistics)
        return self._costs

    def _best_order(self, ops: tuple[str, ...]) -> tuple["Region", tuple[str, ...] | None]:
        """The region and its best order by the order rule (None: too many orders to rank)."""
        from fuseflow.analysis.unification import unify_region
        from fuseflow.analysis.orders import OrderSpace

        if ops not in self._orders:
            region = unify_region(self.space.program, ops)
            space = OrderSpace.of_region(region)
            best = None if space.count() > ORDERS_RANKED else \
                self._best_of(region, [tuple(order) for order in space.listed()])
            self._orders[ops] = (region, best)
        return self._orders[ops]

    def _fusion_saving(self, ops: tuple[str, ...]) -> float:
        """Estimated cycles saved by running `ops` as one region rather than each alone."""
        if len(ops) == 1:
            return 0.0
        fused = self._region_cycles(ops)
        if fused is None:
            return -math.inf  # too many orders to rank: no claim that it pays
        alone = [self._region_cycles((op,)) for op in ops]
        return -math.inf if None in alone else sum(alone) - fused

    def _region_cycles(self, ops: tuple[str, ...]) -> float | None:
        """The region's estimated cycles under its best order by the order rule and the
        completion rule. None: too many orders to rank."""
        if ops not in self._paced:
            region, best = self._best_order(ops)
            self._paced[ops] = None if best is None else self._cycles(region, best)
        return self._paced[ops]

    def _par(self, sketch, menu):
        from fuseflow.cost.completion import heuristic_factors

        pars = [o for o in candidate_options(menu) if o.function == "par"]
        if not pars:
            return None
        meta = pars[0].metadata_dict()
        order = _chosen_order(sketch, str(meta["region"]))
        if order is None:
            return None  # the order is not chosen yet: leave the factor at its default
        wanted = heuristic_factors(self._region(pars[0]), order, self.space.binding, self.hardware)[meta["var"]]
        return min(pars, key=lambda o: abs(o.metadata_dict()["factor"] - wanted))

    def _vector(self, sketch, menu):
        from fuseflow.cost.completion import widest_shape

        shapes = [o for o in candidate_options(menu) if o.function == "vectorize"]
        if not shapes:
            return None
        order = _chosen_order(sketch, str(shapes[0].metadata_dict()["region"]))
        wanted = widest_shape(self._region(shapes[0]), order, self.space.binding, self.hardware) \
            if order is not None else max(o.metadata_dict()["shape"] for o in shapes)
        return min(shapes, key=lambda o: abs(o.metadata_dict()["shape"] - wanted))

    def _block(self, sketch, menu):
        blocks = {o.metadata_dict()["enabled"]: o for o in candidate_options(menu) if o.function == "block_sparse"}
        if len(blocks) < 2:
            return next(iter(blocks.values()), None)
        region_name = str(next(iter(blocks.values())).metadata_dict()["region"])
        region = self._region(next(iter(blocks.values())))
        placed = _placed(sketch, region_name)
        if placed is None or placed.order is None:
            return blocks[False]
        shape, _ = placed.vector()
        factors = placed.factors()
        faster = min((False, True), key=lambda on: (self._cycles(region, placed.order, factors, shape, on), on))
        return blocks[faster]

    # ---- helpers

    def _region(self, option: "MenuOption") -> "Region":
        from fuseflow.analysis.unification import unify_region

        return unify_region(self.space.program, _ops(option))


BEST_HINT = "best est. completion"
_RULE_NAMES = {"region": "fusion without recomputation", "order": "fewest FLOPs, then storage order",
               "par": "outer dense level within the lanes", "vectorize": "widest stream shape",
               "block_sparse": "block mode where the estimate prefers it"}


def _ops(option: "MenuOption") -> tuple[str, ...]:
    return tuple(str(option.metadata_dict()["region"]).split("+"))


def _order_of(option: "MenuOption") -> tuple[str, ...]:
    return tuple(str(option.metadata_dict()["order"]).split())


def _concordant(stored: tuple[str, ...], order: tuple[str, ...]) -> bool:
    """The operand's variables come in the loop order as they are stored."""
    positions = [order.index(v) for v in stored if v in order]
    return positions == sorted(positions)


def _chosen_order(sketch: "Sketch", region: str) -> tuple[str, ...] | None:
    for app in sketch.applications():
        if app.function == "order":
            meta = app.metadata_dict()
            if meta.get("region") == region:
                return tuple(str(meta["order"]).split())
    return None


def _placed(sketch: "Sketch", region: str):
    """The placed region named `region` (navigator.fuseflow.sketch_reading), None if not placed."""
    from navigator.fuseflow.sketch_reading import read_sketch

    return next((p for p in read_sketch(sketch.root).placed if p.region_field == region), None)


def complete_with_rules(space: "ScheduleSpace", sketch: "Sketch", hardware,
                        rules: HeuristicRules | None = None) -> "Sketch":
    """`sketch` with every open hole filled by the heuristic's rules, lowest hole first (what
    `fill --auto heuristic` over the whole sketch would choose)."""
    rules = rules or HeuristicRules(space, hardware)
    oracle = space.oracle
    while not sketch.complete:
        menus = oracle.menus(sketch)
        if menus.blocked or not menus.holes:
            raise StrategyError(f"the sketch cannot be completed: {menus.blocked or 'no open hole'}",
                                fix="undo the step that blocked it (navigator undo)")
        menu = menus.for_hole(min(m.hole for m in menus.holes))
        option, _ = rules.choose(sketch, menu)
        sketch = oracle.apply(sketch, option)
    return sketch
