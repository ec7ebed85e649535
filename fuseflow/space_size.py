"""The size of a program's schedule space as a product of its factors, from the rules alone.

    |S| = Σ_groupings Π_regions Σ_orders ( Π_levels |par factors(level)| × |stream shapes(innermost)| × |block modes| )

This is the closed form the navigator's count must agree with (docs/fuseflow-library.md).
"""

from __future__ import annotations

import math

from fuseflow.binding import Binding
from fuseflow.fusion import legal_groupings
from fuseflow.ir import Program, unify_region
from fuseflow.orders import OrderSpace
from fuseflow.schedule import allowed_stream_shapes, block_sparse_choices, levels


def region_space(program: Program, binding: Binding, ops) -> dict:
    region = unify_region(program, tuple(ops))
    space = OrderSpace.of_region(region)
    blocks = len(block_sparse_choices(region))
    total = 0
    for order in space:
        lvls = levels(region, order, binding)
        total += math.prod(len(level.allowed_par_factors) for level in lvls) * \
            len(allowed_stream_shapes(lvls[-1])) * blocks
    return {"ops": list(region.ops), "orders": space.count(), "block_modes": blocks, "schedules": total}


def schedule_space_size(program: Program, binding: Binding) -> dict:
    regions: dict[tuple[str, ...], dict] = {}
    groupings = []
    total = 0
    for grouping in legal_groupings(program):
        product = 1
        for ops in grouping:
            if ops not in regions:
                regions[ops] = region_space(program, binding, ops)
            product *= regions[ops]["schedules"]
        groupings.append({"grouping": [list(g) for g in grouping], "schedules": product})
        total += product
    return {"program": program.name, "schedules": total, "groupings": groupings,
            "regions": list(regions.values())}
