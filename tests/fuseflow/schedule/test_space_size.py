"""The closed form counts each region's schedules without listing its orders, and shares work
between regions that compute the same thing (a deep model's repeated blocks)."""

import math

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import bundled_program_names, resolve_program
from fuseflow.analysis.fusion_shortcuts import runs_without_recomputation
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.analysis.unification import region_signature, unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.schedule import allowed_stream_shapes, block_sparse_choices, levels
from fuseflow.schedule.space_size import region_space

SMALL = [name for name in bundled_program_names() if name not in ("transformer12", "transformer_block")]


def visited_schedules(program, binding, ops) -> int:
    """The definition: every legal order, each level's factors from the validator's levels."""
    region = unify_region(program, ops)
    blocks = len(block_sparse_choices(region))
    total = 0
    for order in OrderSpace.of_region(region):
        lvls = levels(region, order, binding)
        total += math.prod(len(level.allowed_par_factors) for level in lvls) * len(allowed_stream_shapes(lvls[-1]))
    return total * blocks


@pytest.mark.parametrize("name", SMALL)
def test_counted_region_schedules_equal_the_visited_ones(name):
    program = resolve_program(name)
    binding = bind(program)
    for ops in fusion_steps(program).regions():
        assert region_space(program, binding, ops)["schedules"] == visited_schedules(program, binding, ops), ops


def test_regions_of_repeated_blocks_share_a_signature():
    program = resolve_program("transformer_block", {"blocks": 3})
    regions = fusion_steps(program).regions()
    by_signature: dict = {}
    for ops in regions:
        by_signature.setdefault(region_signature(program, ops), []).append(ops)
    # the same region in each of the three blocks (ops renamed); the two layer norms of a block
    # compute the same thing too
    assert len(by_signature) * 3 <= len(regions)
    for group in by_signature.values():
        first = group[0]
        for other in group[1:]:
            # what the signature promises: the same unification and order space, and the same answer
            a, b = unify_region(program, first), unify_region(program, other)
            assert (a.vars, a.var_dims) == (b.vars, b.var_dims)
            assert OrderSpace.of_region(a) == OrderSpace.of_region(b)
            assert runs_without_recomputation(program, first, "accumulate") == \
                runs_without_recomputation(program, other, "accumulate")


def test_a_signature_tells_different_computations_apart():
    program = resolve_program("gcn")
    signatures = {region_signature(program, ops) for ops in fusion_steps(program).regions()}
    assert len(signatures) == len(fusion_steps(program).regions())


@pytest.mark.parametrize("name", bundled_program_names())
def test_counting_over_the_steps_equals_the_inclusion_exclusion_counter(name):
    from fuseflow.analysis.fusion_count import count_legal_groupings

    program = resolve_program(name)
    assert fusion_steps(program).count() == count_legal_groupings(program)
