"""The size of a program's schedule space as a product of its factors, from the rules alone.

    |S| = Σ_groupings Π_regions Σ_orders ( Π_levels |par factors(level)| × |stream shapes(innermost)| × |block modes| )

This is the closed form the navigator's count must agree with (docs/fuseflow-library.md).
A level's parallel factors depend only on its variable (its extent, and whether an operand
stores it compressed), and the stream shapes only on the innermost variable, so a region's
sum over orders is Π_vars |factors(v)| × |block modes| × Σ_v (orders ending with v) ×
|shapes(v)|, with the orders counted, never listed. The sum over groupings is the fusion
grouping count over the region-by-region fusion states (fuseflow.analysis.fusion_steps) with each
region weighted by its schedules, so no grouping is listed either. (The engine reaches the
same number through the library's facts and menus; the tests also hold it equal to
fuseflow.analysis.fusion_count's inclusion-exclusion with the same weights.)
"""

from __future__ import annotations

import math

from fuseflow.program.binding import Binding
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.schedule.rules import Level, allowed_par_factors, allowed_stream_shapes, block_sparse_choices


def region_space(program: Program, binding: Binding, ops) -> dict:
    region = unify_region(program, tuple(ops))
    space = OrderSpace.of_region(region)
    blocks = len(block_sparse_choices(region))
    compressed = region.compressed_vars()
    level = {v: Level(0, v, binding.extent(region.var_dims[v]), v in compressed) for v in region.vars}
    factors = math.prod(len(allowed_par_factors(lv.extent, lv.compressed)) for lv in level.values())
    innermost = sum(space.count_ending_with(v) * len(allowed_stream_shapes(lv)) for v, lv in level.items())
    return {"ops": list(region.ops), "orders": space.count(), "block_modes": blocks,
            "schedules": factors * innermost * blocks}


def schedule_space_size(program: Program, binding: Binding) -> dict:
    """The closed form: {"schedules", "groupings" (how many), "regions" (each region some legal
    grouping has, in program order of their ops, with its orders and schedules)}."""
    regions: dict[tuple[str, ...], dict] = {}

    def schedules(ops: tuple[str, ...]) -> int:
        if ops not in regions:
            regions[ops] = region_space(program, binding, ops)
        return regions[ops]["schedules"]

    steps = fusion_steps(program)
    total = steps.count(schedules)
    position = program.op_position
    ordered = sorted(regions, key=lambda ops: (position[ops[0]], len(ops), [position[o] for o in ops]))
    return {"program": program.name, "schedules": total, "groupings": steps.count(),
            "regions": [regions[ops] for ops in ordered]}
