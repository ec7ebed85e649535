"""The FuseFlow library chooses parallel factors per region variable, not per level of an
order (docs/fuseflow-library.md). That describes the same schedules only because every legal
order is a permutation of the region's variables and the validator's factor rules for a level
depend on its variable alone; both are checked here on every region of every bundled program."""

import itertools

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.schedule import levels
from fuseflow.program.bundled import bundled_program_names

ORDERS_PER_REGION = 200  # the first ones; graphsage's largest region has thousands


# transformer12 repeats transformer_block's regions twelve times over
@pytest.mark.parametrize("name", [n for n in bundled_program_names() if n != "transformer12"])
def test_orders_permute_the_region_variables_and_levels_depend_on_their_variable(name):
    program = resolve_program(name)
    binding = bind(program)
    regions = fusion_steps(program).regions()  # every region some legal grouping has
    for ops in regions:
        region = unify_region(program, ops)
        seen = {}
        for order in itertools.islice(OrderSpace.of_region(region), ORDERS_PER_REGION):
            assert sorted(order) == sorted(region.vars), (ops, order)
            for level in levels(region, order, binding):
                rules = (level.extent, level.compressed, level.allowed_par_factors)
                assert seen.setdefault(level.var, rules) == rules, (ops, order, level.var)
