"""The size of a program's schedule space as a product of its factors, from the rules alone.

    |S| = Σ_groupings Π_regions Σ_orders ( Π_levels |par factors(level)| × |stream shapes(innermost)| × |block modes| )

This is the closed form the navigator's count must agree with (docs/fuseflow-library.md).
The sum over groupings is the fusion-grouping count with each region weighted by its
schedules (fuseflow.fusion_count), so no grouping is listed. It visits every legal order of
every region that some legal grouping has, so the orders it visits are bounded by
MAX_VISITED_ORDERS.
"""

from __future__ import annotations

import math

from fuseflow.binding import Binding
from fuseflow.budget import StepBudget
from fuseflow.fusion_count import count_legal_groupings
from fuseflow.ir import Program, unify_region
from fuseflow.orders import OrderSpace
from fuseflow.schedule import allowed_stream_shapes, block_sparse_choices, levels


#: Orders visited across all regions of one program (graphsage has 14,859, a 64-layer residual GCN
#: 16,925).
MAX_VISITED_ORDERS = 200_000


def _order_budget(program: Program) -> StepBudget:
    return StepBudget(MAX_VISITED_ORDERS, "dataflow orders to visit for the closed-form count",
                      program.path or program.name,
                      "split the program into smaller programs: a region's orders grow factorially with "
                      "the loop variables no sparse operand orders")


def region_space(program: Program, binding: Binding, ops, budget: StepBudget | None = None) -> dict:
    region = unify_region(program, tuple(ops))
    space = OrderSpace.of_region(region)
    blocks = len(block_sparse_choices(region))
    budget = budget or _order_budget(program)
    budget.spend(space.count())  # before visiting any: counting is cheap, visiting is not
    total = 0
    for order in space:
        lvls = levels(region, order, binding)
        total += math.prod(len(level.allowed_par_factors) for level in lvls) * \
            len(allowed_stream_shapes(lvls[-1])) * blocks
    return {"ops": list(region.ops), "orders": space.count(), "block_modes": blocks, "schedules": total}


def schedule_space_size(program: Program, binding: Binding) -> dict:
    """The closed form: {"schedules", "groupings" (how many), "regions" (each region some legal
    grouping has, in program order of their ops, with its orders and schedules)}."""
    regions: dict[tuple[str, ...], dict] = {}
    budget = _order_budget(program)

    def schedules(ops: tuple[str, ...]) -> int:
        if ops not in regions:
            regions[ops] = region_space(program, binding, ops, budget)
        return regions[ops]["schedules"]

    total = count_legal_groupings(program, schedules)
    position = program.op_position
    ordered = sorted(regions, key=lambda ops: (position[ops[0]], len(ops), [position[o] for o in ops]))
    return {"program": program.name, "schedules": total, "groupings": count_legal_groupings(program),
            "regions": [regions[ops] for ops in ordered]}
