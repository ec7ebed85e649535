"""The `heuristic` strategy: rules in the style of Scorch, one greedy pass over the scope.

Each hole of the scope, lowest first, takes the offered option its rule ranks first; a hole
no rule speaks for takes its default. The rules, by the function of the options:

- region (fusion, region by region): among the regions that some legal order runs without
  recomputation (fuseflow.analysis.fusion_shortcuts.runs_without_recomputation), the one that saves the
  most estimated cycles over running its ops alone. The estimate (`_paced_cycles`) reads a
  region as a pipeline under the order the order rule will take: its slowest op (a token per
  body execution, over the lanes when it runs under the forked loop, in tiles of the stream
  width when it runs under the innermost loop), but no less than its traffic as the simulator
  streams it, nor its body executions at peak. So a memory-bound aggregation takes its dense
  transform along (OGB-Collab's 128 features), and a fusion that leaves a narrow loop innermost
  or work off the forked loop does not happen;
- order: the fewest FLOPs by the cost model (fusion must not pay for itself in recomputed
  work), then sparse operands read concordantly with their storage, then compressed
  (filtering) loops outermost, then the fewest paced cycles, then the order itself;
- par: the largest offered factor within the hardware's lanes on the outermost dense level
  of the region's order (dense levels split evenly; compressed ones would not), 1 elsewhere;
- vectorize: the widest offered stream shape;
- block_sparse: on only where the expected block occupancy of the region's sparse operands
  (independent sparsity, the cost model's assumption) is at least BLOCK_OCCUPANCY_PAYS.

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

#: block mode streams whole blocks; below this share of stored entries per block it streams
#: more zeros than it saves in per-scalar overhead
BLOCK_OCCUPANCY_PAYS = 0.5
#: a candidate region with more legal orders than this is not ranked for its stream width
ORDERS_RANKED = 1_000


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
        used: dict[str, int] = {}
        while not walk.done:
            current = min(walk.pending)
            menu = oracle.menus(walk.sketch).for_hole(current)
            option, rule = rules.choose(walk.sketch, menu)
            used[rule] = used.get(rule, 0) + 1
            steps.append(PlannedStep(current, option.id))
            walk = walk.take(oracle, option)
        rationale = "rules: " + "; ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in used.items())
        return Plan(tuple(steps), rationale, cost_model_evaluations=rules.evaluations,
                    compared={"rules": dict(used)})


class HeuristicRules:
    def __init__(self, space: "ScheduleSpace", hardware):
        self.space = space
        self.hardware = hardware
        self.evaluations = 0
        self._orders: dict[tuple[str, ...], tuple] = {}
        self._models: dict[tuple[str, ...], object] = {}
        self._paced: dict[tuple[str, ...], float | None] = {}
        self._by_function: dict[str, Callable[["Sketch", "HoleMenu"], "MenuOption | None"]] = {
            "region": self._fusion, "order": self._order, "par": self._par,
            "vectorize": self._vector, "block_sparse": self._block}

    def choose(self, sketch: "Sketch", menu: "HoleMenu") -> tuple["MenuOption", str]:
        options = candidate_options(menu)
        functions = {o.function for o in options}
        for function, rule in self._by_function.items():
            if function in functions:
                chosen = rule(sketch, menu)
                if chosen is not None:
                    return chosen, _RULE_NAMES[function]
        return scoring_option(menu), "default"

    # ---- one rule per kind of choice

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
        return min(orders, key=lambda o: self._order_key(region, _order_of(o)))

    def _order_key(self, region: "Region", order: tuple[str, ...]) -> tuple:
        """Fewest FLOPs, then sparse operands read as stored, then filtering loops outermost,
        then the fewest paced cycles (which orders let the forked level and the vector width
        reach the most work); the order itself breaks what ties remain, so the region rule
        predicts the order rule whatever order a menu lists its options in."""
        self.evaluations += 1
        cost = self._model(region).cost(order)
        compressed = _compressed_vars(region)
        discordant = sum(1 for operand in region.operands if "compressed" in operand.formats
                         and not _concordant(operand.vars, order))
        filters_late = sum(position for position, var in enumerate(order) if var in compressed)
        return cost.flops, discordant, filters_late, self._pace(region, order, cost), order

    def _model(self, region: "Region"):
        """The region's cost model, built once per region (costing an order is then cheap)."""
        from fuseflow.cost.estimate import RegionCostModel

        model = self._models.get(region.ops)
        if model is None:
            model = self._models[region.ops] = RegionCostModel(self.space.program, self.space.binding, region,
                                                               self.hardware)
        return model

    def _best_order(self, ops: tuple[str, ...]) -> tuple["Region", tuple[str, ...] | None]:
        """The region and its best order by the order rule (None: too many orders to rank)."""
        from fuseflow.analysis.unification import unify_region
        from fuseflow.analysis.orders import OrderSpace

        if ops not in self._orders:
            region = unify_region(self.space.program, ops)
            space = OrderSpace.of_region(region)
            best = None if space.count() > ORDERS_RANKED else \
                min((tuple(order) for order in space.listed()), key=lambda order: self._order_key(region, order))
            self._orders[ops] = (region, best)
        return self._orders[ops]

    def _stream_width(self, region: "Region", order: tuple[str, ...]) -> int:
        """The widest stream shape within the lanes under `order`: its innermost loop is dense
        and wide enough to vectorize, or not."""
        from fuseflow.schedule import STREAM_SHAPES

        innermost = order[-1]
        if innermost in _compressed_vars(region):
            return 1
        extent = self.space.binding.extent(region.var_dims[innermost])
        return max((s for s in STREAM_SHAPES if s <= min(extent, self.hardware.lanes)), default=1)

    def _pace(self, region: "Region", order: tuple[str, ...], cost) -> float:
        """The cycles of the region's slowest op as these rules schedule it: a token per
        execution of its body, over the lanes when it runs under the forked level (the par
        rule's), in tiles of the stream width when it runs under the innermost loop."""
        from fuseflow.cost.estimate import op_contexts

        width = self._stream_width(region, order)
        forked = _outer_dense(region, order, self.space.binding)
        contexts = op_contexts(self.space.program, region, order)
        lanes = self.hardware.lanes
        return max((c.points / ((lanes if forked in contexts[c.op] else 1) * (width if order[-1] in contexts[c.op] else 1))
                    for c in cost.op_costs), default=0.0)

    def _fusion_saving(self, ops: tuple[str, ...]) -> float:
        """Estimated cycles saved by running `ops` as one region rather than each alone."""
        if len(ops) == 1:
            return 0.0
        fused = self._paced_cycles(ops)
        if fused is None:
            return -math.inf  # too many orders to rank: no claim that it pays
        alone = [self._paced_cycles((op,)) for op in ops]
        return -math.inf if None in alone else sum(alone) - fused

    def _paced_cycles(self, ops: tuple[str, ...]) -> float | None:
        """The region's cycles under its best order by the order rule, as a pipeline: its
        slowest op (`_pace`), but no less than its traffic at the bandwidth (as the simulator
        streams it) nor its body executions at the peak rate. None: too many orders to rank."""
        if ops not in self._paced:
            region, best = self._best_order(ops)
            paced = None
            if best is not None:
                model, hw = self._model(region), self.hardware
                cost = model.cost(best)
                executions = sum(c.points for c in cost.op_costs)  # an ALU retires a body (a multiply-add) per op
                paced = max(self._pace(region, best, cost), model.streamed_bytes(best) / hw.memory_bytes_per_cycle,
                            executions / hw.peak_ops_per_cycle)
            self._paced[ops] = paced
        return self._paced[ops]

    def _par(self, sketch, menu):
        pars = [o for o in candidate_options(menu) if o.function == "par"]
        if not pars:
            return None
        meta = pars[0].metadata_dict()
        order = _chosen_order(sketch, str(meta["region"]))
        if order is None:
            return None  # the order is not chosen yet: leave the factor at its default
        if meta["var"] != _outer_dense(self._region(pars[0]), order, self.space.binding):
            return min(pars, key=lambda o: o.metadata_dict()["factor"])
        within = [o for o in pars if o.metadata_dict()["factor"] <= self.hardware.lanes]
        return max(within or pars, key=lambda o: o.metadata_dict()["factor"])

    def _vector(self, sketch, menu):
        shapes = [o for o in candidate_options(menu) if o.function == "vectorize"]
        return max(shapes, key=lambda o: o.metadata_dict()["shape"]) if shapes else None

    def _block(self, sketch, menu):
        blocks = {o.metadata_dict()["enabled"]: o for o in candidate_options(menu) if o.function == "block_sparse"}
        if not blocks:
            return None
        region = self._region(next(iter(blocks.values())))
        pays = self._block_occupancy(region) >= BLOCK_OCCUPANCY_PAYS
        return blocks.get(pays) or next(iter(blocks.values()))

    # ---- helpers

    def _region(self, option: "MenuOption") -> "Region":
        from fuseflow.analysis.unification import unify_region

        return unify_region(self.space.program, _ops(option))

    def _block_occupancy(self, region: "Region") -> float:
        """The least expected share of stored entries in a stored block, over the region's
        sparse operands, if their entries are spread independently at their density."""
        side = self.hardware.block_size
        cells = side * side
        shares = []
        for operand in region.operands:
            if "compressed" not in operand.formats:
                continue
            density = self.space.binding.stats[operand.tensor].value_density
            stored_block = 1.0 - (1.0 - density) ** cells if density < 1 else 1.0
            shares.append(density / stored_block if stored_block > 0 else 0.0)
        return min(shares, default=0.0)


_RULE_NAMES = {"region": "fusion without recomputation", "order": "fewest FLOPs, then storage order",
               "par": "outer dense level within the lanes", "vectorize": "widest stream shape",
               "block_sparse": "block mode where occupancy pays"}


def _ops(option: "MenuOption") -> tuple[str, ...]:
    return tuple(str(option.metadata_dict()["region"]).split("+"))


def _compressed_vars(region: "Region") -> set[str]:
    return {var for operand in region.operands for var, fmt in zip(operand.vars, operand.formats)
            if fmt == "compressed"}


def _outer_dense(region: "Region", order: tuple[str, ...], binding) -> str | None:
    """The outermost dense loop of more than one coordinate: the level the par rule forks."""
    compressed = _compressed_vars(region)
    return next((v for v in order if v not in compressed and binding.extent(region.var_dims[v]) > 1), None)


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
