"""The FuseFlow library's menus reach exactly the schedules the independent validator accepts.

Small programs: the whole space, by brute force on both sides. Larger programs: every legal
grouping (built region by region through the menus), and for every region every region
schedule, with the other regions at defaults; then `navigator count` equals the brute-force
count assembled from those sets.

graphsage has 50 regions with up to 8 variables (14,859 legal orders in all); the brute
force over all of them takes about two minutes, so CI checks its 45 regions of up to six
variables (about 25 s) and `pytest --slow` checks all 50 and the assembled count.
"""

import math

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.analysis.fusion_shortcuts import offered_shortcuts
from fuseflow.analysis.unification import unify_region
from navigator.fuseflow.schedule_space import ScheduleSpace

from tests.navigator.fuseflow.space_helpers import (in_region, menu_completions, region_id_of, validator_groupings,
                            validator_region_schedules, validator_schedules)

WHOLE = {"spmm": {"N": 2, "J": 2}, "sddmm": {"N": 2, "K": 2}, "nested_matmul": {"I": 2, "J": 2, "K": 1, "L": 2}}
# Extents of 1 keep every region's schedules to orders × block modes; the whole-space
# programs above exercise factors and shapes.
GNN_DIMS = {"N": 1, "F": 1, "H": 1, "C": 1}
BY_REGION = {"gcn": GNN_DIMS, "sparse_autoencoder": {"B": 1, "D": 2, "Hd": 1}, "block_attention": {"L": 1, "Dk": 1},
             "gcn_logsoftmax": GNN_DIMS, "deep_gcn": {"N": 1, "H": 1, "layers": 2}}
#: regions of graphsage checked in CI: up to this many variables (its count is also checked
#: against the closed form in test_navigation_commands.py)
GRAPHSAGE_CI_VARS = 6


def space_for(name, dims):
    program = resolve_program(name, dims)
    binding = bind(program, dims=dims)
    return program, binding, ScheduleSpace.build(program, binding)


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_whole_space_equals_validator(name):
    program, binding, space = space_for(name, WHOLE[name])
    reached = {}
    for sketch in menu_completions(space, space.initial_sketch()):
        reached.setdefault(space.schedule_of(sketch), []).append(sketch)
    expected = validator_schedules(program, binding)
    assert set(reached) == expected
    # Without the shortcuts (aliases), each schedule is reached exactly once, and counted once.
    direct = [schedule for schedule, sketches in reached.items() for sketch in sketches if not via_shortcut(sketch)]
    assert sorted(direct, key=repr) == sorted(expected, key=repr)
    assert space.oracle.count(space.initial_sketch()).value == len(expected)
    root = space.oracle.menus(space.initial_sketch()).holes[0]
    assert [o.function for o in root.options if o.alias] == ["default_schedule"]


def via_shortcut(sketch):
    """Built through an alias (a shortcut) at the root or at the fusion."""
    return sketch.root.function == "default_schedule" or sketch.root.arg("fusion").function != "fuse"


def regions_hole(menus):
    return next((hole for hole in menus.holes if hole.type == "Regions"), None)


def groupings_through_menus(space, sketch):
    """{grouping: sketch with it placed}, every grouping the Regions menus build from `sketch`
    (the Fusion hole filled with `fuse`), depth first; the other holes stay open."""
    found = {}
    stack = [(sketch, ())]
    while stack:
        current, placed = stack.pop()
        hole = regions_hole(space.oracle.menus(current))
        if hole is None:
            assert placed not in found, f"{placed} built twice"
            found[placed] = current
            continue
        for option in hole.options:
            region = option.metadata_dict()["region"]
            stack.append((space.oracle.apply(current, option), placed + ((tuple(region.split("+")),) if region else ())))
    return found


@pytest.mark.parametrize("name", sorted(BY_REGION))
def test_groupings_regions_and_count_equal_validator(name):
    check_by_region(name, BY_REGION[name])


def test_graphsage_groupings_and_small_regions_equal_validator():
    check_by_region("graphsage", GNN_DIMS, max_region_vars=GRAPHSAGE_CI_VARS)


@pytest.mark.slow
def test_graphsage_every_region_and_count_equal_validator():
    check_by_region("graphsage", GNN_DIMS)


def check_by_region(name, dims, max_region_vars=None):
    """Groupings, then every region's schedules (other regions at defaults), then the count
    assembled from them; regions with more than `max_region_vars` variables are left out,
    and the count with them."""
    program, binding, space = space_for(name, dims)
    start = space.initial_sketch()
    sketch = space.oracle.apply(start, space.oracle.menus(start).holes[0].options[0])  # `schedule`
    fusion_menu = space.oracle.menus(sketch).holes[0]
    assert [o.function for o in fusion_menu.options] == ["fuse", *offered_shortcuts(program)]
    fused = space.oracle.apply(sketch, fusion_menu.options[0])
    built = groupings_through_menus(space, fused)
    groupings = validator_groupings(program)
    assert set(built) == groupings

    per_region = {}
    for grouping, with_grouping in built.items():
        for ops in grouping:
            if ops in per_region:
                continue
            if max_region_vars is not None and len(unify_region(program, ops).vars) > max_region_vars:
                per_region[ops] = None
                continue
            rid = region_id_of(ops)

            def default_elsewhere(current, hole_menu, rid=rid):
                return None if in_region(current, hole_menu, rid) else (hole_menu.default or hole_menu.options[0])

            reached = set()
            for complete in menu_completions(space, with_grouping, default_elsewhere):
                schedule = space.schedule_of(complete)
                reached |= {rs for rs in schedule.regions if rs.ops == ops}
            accepted = validator_region_schedules(program, binding, ops)
            assert reached == accepted, ops
            per_region[ops] = len(accepted)

    assert len(list(legal_groupings(program))) == len(groupings)
    if None in per_region.values():
        return
    brute_count = sum(math.prod(per_region[ops] for ops in grouping) for grouping in groupings)
    assert space.oracle.count(start).value == brute_count  # shortcuts are aliases: not counted again


def test_transformer_block_regions_equal_validator():
    """transformer_block has 1,679,616 groupings (23 ops: the set partitions are far too many to
    filter by brute force), so each of its regions is checked on its own: placed region by region
    through the menus with every other op alone, its schedules reached (other regions at
    defaults) equal those the validator accepts (extents of 1: orders and block modes). CI takes
    the 74 regions of up to four loop variables, `pytest --slow` all 96; the whole count equals
    the closed form in tests/navigator/commands/test_navigation_commands.py."""
    check_regions_one_by_one("transformer_block", max_vars=4, at_least=70)


@pytest.mark.slow
def test_every_transformer_block_region_equals_validator():
    check_regions_one_by_one("transformer_block", max_vars=None, at_least=96)


def check_regions_one_by_one(name, max_vars, at_least):
    dims = {"T": 1, "D": 1, "F": 1}
    program, binding, space = space_for(name, dims)
    start = space.initial_sketch()
    sketch = space.oracle.apply(start, space.oracle.menus(start).holes[0].options[0])  # `schedule`
    fusion = space.oracle.menus(sketch).holes[0]
    fused = space.oracle.apply(sketch, next(o for o in fusion.options if o.function == "fuse"))
    from fuseflow.analysis.fusion_steps import fusion_steps

    checked = 0
    for ops in fusion_steps(program).regions():
        if max_vars is not None and len(unify_region(program, ops).vars) > max_vars:
            continue
        grouping = [ops] + [(op.name,) for op in program.ops if op.name not in ops]
        group_of = {op: tuple(group) for group in grouping for op in group}
        current = fused
        while True:
            hole = regions_hole(space.oracle.menus(current))
            if hole is None:
                break
            state_first = hole.options[0].metadata_dict()["region"].split("+")[0]
            want = "+".join(group_of[state_first]) if state_first else ""
            option = next(o for o in hole.options if o.metadata_dict()["region"] == want)
            current = space.oracle.apply(current, option)
        rid = region_id_of(ops)

        def default_elsewhere(sk, hole_menu, rid=rid):
            return None if in_region(sk, hole_menu, rid) else (hole_menu.default or hole_menu.options[0])

        reached = {rs for complete in menu_completions(space, current, default_elsewhere)
                   for rs in space.schedule_of(complete).regions if rs.ops == ops}
        assert reached == validator_region_schedules(program, binding, ops), ops
        checked += 1
    assert checked >= at_least
