"""The reference schedules `navigator compare` puts side by side.

* unfused_default_orders: every op in its own region, in its default order: the compiler's
  default schedule (what the TUI's Evaluation panel compares with).
* unfused: every op in its own region, orders tuned as below; the speedups are over it.
* per_layer: each layer (from one op reading a sparse operand to the next) in the fewest
  legal regions that run without recomputation (fuseflow.analysis.fusion_shortcuts.per_layer_grouping).
* fully_fused: all ops in one region; when that is illegal, the legal grouping with the
  fewest regions (fuseflow.analysis.fusion_shortcuts.largest_fusion), with the reason full fusion is
  illegal.

Each region's order: the six with the fewest estimated cycles (`fuseflow.cost.estimate`, the
model of the simulator, under the setting) are simulated and the fastest wins; within 1% of it,
the one that moves fewer bytes. Par factors are 1 and streams scalar unless `parallel`, which
takes the heuristic's factors and stream shape (fuseflow.cost.completion: the outermost dense
level forks over the largest allowed factor up to the hardware's lanes, the innermost level
takes the widest allowed stream shape). Block mode stays off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fuseflow.program.binding import Binding
from fuseflow.cost.bounds import schedule_bound
from fuseflow.cost.estimate import RegionCostModel
from fuseflow.analysis.fusion import fully_fused, region_problem, unfused
from fuseflow.analysis.fusion_shortcuts import largest_fusion, per_layer_grouping
from fuseflow.cost.hardware import Hardware
from fuseflow.program.ir import Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace, default_order
from fuseflow.schedule import RegionSchedule, Schedule

ORDER_LIMIT = 20000     # orders scored per region (the first ones in enumeration order)
#: the settings `navigator compare` runs every baseline under, side by side
SETTINGS = ("defaults", "parallel")
SHORTLIST = 6           # orders per region that are simulated
PREDICTED = 64          # orders per region whose cycles are estimated to pick the shortlist
TIE = 0.01              # cycles within this fraction of the fastest count as a tie


#: the baseline of the compiler's default schedule, by the name every screen gives it
#: (navigator.actions.evaluate_sketch.Evaluation.baseline, tests/navigator/commands/test_simulate_commands.py)
DEFAULT_ORDERS = "unfused_default_orders"


@dataclass
class Baseline:
    name: str
    grouping: tuple[tuple[str, ...], ...]
    note: str
    tuned: bool = True     # False: each region in its default order

def shortlist(program: Program, binding: Binding, region: Region, hw: Hardware, policy: str,
              keep: int | None = SHORTLIST, dense_fixed: bool = False, parallel: bool = False,
              stats=None) -> list[tuple[str, ...]]:
    """The legal orders with the fewest estimated cycles under the setting (fuseflow.cost.estimate,
    which predicts the simulator), best first; ties keep the enumeration order. Orders beyond
    PREDICTED are first ranked by their logical figures (FLOPs, then bytes). `keep=None` keeps
    every legal order (up to ORDER_LIMIT), unranked."""
    from fuseflow.cost.estimate import region_cost

    space = OrderSpace.of_region(region, dense_fixed)
    orders = [tuple(order) for rank, order in zip(range(ORDER_LIMIT), space)]
    if keep is None:
        return orders
    model = RegionCostModel(program, binding, region, hw)
    if len(orders) > PREDICTED:
        logical = {o: model.cost(o, policy) for o in orders}
        orders = sorted(orders, key=lambda o: (logical[o].flops, logical[o].bytes))[:PREDICTED]
    scored = []
    for rank, order in enumerate(orders):
        rs = region_schedule(program, binding, region.ops, order, hw, parallel)
        cost = region_cost(program, binding, rs, hw, policy, stats, model)
        scored.append(((cost.timing.cycles, cost.flops, rank), order))
    scored.sort()
    return [order for _, order in scored[:keep]]


def region_schedule(program: Program, binding: Binding, ops, order, hw: Hardware,
                    parallel: bool = False) -> RegionSchedule:
    """Par factors 1 and scalar streams; with `parallel`, the heuristic's factors and stream
    shape (fuseflow.cost.completion: the outermost dense level forks over the largest allowed
    factor up to the hardware's lanes, the innermost level takes the widest allowed shape)."""
    from fuseflow.cost.completion import heuristic_factors, widest_shape

    region = unify_region(program, tuple(ops))
    order = tuple(order)
    if not parallel:
        return RegionSchedule(region.ops, order, (1,) * len(order), 1, False)
    factors = heuristic_factors(region, order, binding, hw)
    return RegionSchedule(region.ops, order, tuple(factors[v] for v in order),
                          widest_shape(region, order, binding, hw), False)


def describe_setting(setting: str, hw: Hardware) -> str:
    """What a setting does to each region's schedule, in the words `compare` prints."""
    if setting == "defaults":
        return "the compiler's defaults: par factors 1 (no lanes), scalar streams"
    return (f"lanes and vectors: the outermost dense level forks over the largest allowed factor up to "
            f"{hw.lanes} lanes, the innermost level takes the widest allowed stream shape")


def order_choice(orders: int | None = SHORTLIST) -> str:
    which = "of its legal orders" if orders is None else f"of its {orders} best-estimated orders"
    return (f"each region takes the fastest simulated {which} "
            f"(within {TIE:.0%}, the one moving fewer bytes); block mode off")


def baselines(program: Program, policy: str = "accumulate", dense_fixed: bool = False) -> list[Baseline]:
    out = [Baseline("unfused", unfused(program), "every op in its own region, orders tuned"),
           Baseline(DEFAULT_ORDERS, unfused(program),
                    "every op in its own region, in its default order: the compiler's default schedule "
                    "(the TUI's Evaluation panel compares with it)", tuned=False)]
    out.append(Baseline("per_layer", per_layer_grouping(program, policy, dense_fixed),
                        "a layer starts at each op reading a sparse operand; each layer in the fewest legal "
                        "regions that run without recomputation"))
    fused = fully_fused(program)
    if fused is not None:
        out.append(Baseline("fully_fused", fused, "all ops in one region"))
    else:
        reason = region_problem(program, tuple(op.name for op in program.ops))
        grouping = largest_fusion(program)
        out.append(Baseline("fully_fused", grouping,
                            f"full fusion is illegal ({reason}); largest legal fusion: {len(grouping)} regions"))
    return out


def _dependency_order(program: Program, grouping) -> list[tuple[str, ...]]:
    from simulator.order import execution_order

    dummy = Schedule(tuple(RegionSchedule(tuple(g), (), ()) for g in grouping))
    return [rs.ops for rs in execution_order(program, dummy)]


def tune(machine, grouping, parallel: bool = False, dense_fixed: bool = False, tie: float = TIE,
         orders: int | None = SHORTLIST, tuned: bool = True) -> list:
    """Run a grouping region by region; each region takes the fastest simulated order among the
    symbolic shortlist of `orders` (None: every legal order), so a baseline is a sensible
    schedule, not an arbitrary one; orders
    within `tie` (a fraction, 1% by default) of the fastest are told apart by their traffic, so
    `tie=math.inf` picks the shortlisted order that moves the fewest bytes. `tuned=False`: each
    region in its default order."""
    program, binding, hw = machine.program, machine.binding, machine.hw
    results = []
    for ops in _dependency_order(program, grouping):
        region = unify_region(program, tuple(ops))
        from simulator.fast import TooLarge

        candidates, refused = [], None
        choices = shortlist(program, binding, region, hw, machine.policy, orders, dense_fixed, parallel,
                            machine.statistics) if tuned else [default_order(region)]
        for order in choices:
            try:
                candidates.append(machine.simulate(region_schedule(program, binding, ops, order, hw, parallel)))
            except TooLarge as exc:
                refused = exc
        if not candidates:
            raise refused
        fastest = min(r.timing.cycles for r in candidates)
        # Within `tie` of the fastest, prefer the order that moves fewer bytes.
        best = min((r for r in candidates if r.timing.cycles <= fastest * (1 + tie)),
                   key=lambda r: (r.traffic.bytes, r.timing.cycles))
        machine.commit(best)
        results.append(best)
    return results


def totals(results) -> dict:
    """The orders and summed figures of a tuned grouping's region results."""
    return {"orders": [" ".join(r.plan.schedule.order) for r in results],
            "flops": sum(r.flops for r in results), "bytes": sum(r.traffic.bytes for r in results),
            "compulsory_bytes": sum(r.traffic.compulsory_bytes for r in results),
            "logical_bytes": sum(r.traffic.logical_bytes for r in results),
            "spill_bytes": sum(r.traffic.spill_bytes for r in results),
            "cycles": sum(r.timing.cycles for r in results),
            "roofline": schedule_bound((r.timing.roofline, r.timing.cycles) for r in results).roofline}


def compare_baselines(program: Program, binding: Binding, hw: Hardware, policy: str = "accumulate",
                      parallel: bool = False, seed: int | None = None, data=None,
                      dense_fixed: bool = False, orders: int | None = SHORTLIST) -> list[dict]:
    """Simulate every baseline (fast executor, counts only) on the same data; speedups are over
    unfused. Each row carries its schedule (`schedule`, a Schedule) for saving."""
    from simulator.program_data import materialize
    from simulator.evaluate import Machine

    data = data or materialize(program, binding, seed)
    rows = []
    from simulator.fast import TooLarge

    for b in baselines(program, policy, dense_fixed):
        machine = Machine(program, binding, data, hw, policy, numerics=False)
        try:
            results = tune(machine, b.grouping, parallel, dense_fixed, orders=orders, tuned=b.tuned)
        except TooLarge as exc:
            rows.append({"name": b.name, "fusion": [list(g) for g in b.grouping], "note": b.note,
                         "orders": None, "flops": None, "bytes": None, "compulsory_bytes": None, "cycles": None,
                         "roofline": None,
                         "schedule": None, "not_simulated": exc.bare_message})
            continue
        rows.append({"name": b.name, "fusion": [list(r.plan.schedule.ops) for r in results], "note": b.note,
                     **totals(results), "schedule": Schedule(tuple(r.plan.schedule for r in results))})
    unfused_cycles = rows[0]["cycles"]
    for row in rows:
        row["speedup"] = unfused_cycles / row["cycles"] if row["cycles"] and unfused_cycles else None
    return rows
