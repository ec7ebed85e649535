"""Brute force on both sides of the FuseFlow library's equivalence with the validator."""

import itertools

from fuseflow.analysis.fusion import canonical, grouping_problem
from fuseflow.analysis.unification import unify_region
from fuseflow.schedule import PAR_FACTORS, STREAM_SHAPES, RegionSchedule, Schedule, region_problems
from navigator.fuseflow.facts import region_id
from tests.partitions import set_partitions


def validator_groupings(program):
    names = [op.name for op in program.ops]
    return {canonical(program, p) for p in set_partitions(names) if grouping_problem(program, p) is None}


def validator_region_schedules(program, binding, ops, full_product_up_to=3):
    """Raw candidates for one region, filtered by the validator alone.

    Orders (every permutation), stream shapes and block modes are always enumerated in full.
    Parallel factors are enumerated as the full product PAR_FACTORS^levels for regions of up
    to `full_product_up_to` variables; above that, level by level (each raw factor tried with
    the other levels at 1), and then every combination of the per-level survivors is checked
    by the validator again, so nothing accepted here was accepted on one level's say alone.
    """
    region = unify_region(program, ops)
    n = len(region.vars)
    accepted = set()

    def ok(order, factors, shape, block):
        return not region_problems(program, binding, RegionSchedule(tuple(ops), order, factors, shape, block), "r")

    for order in itertools.permutations(region.vars):
        if n <= full_product_up_to:
            factor_choices = itertools.product(PAR_FACTORS, repeat=n)
        else:
            ones = (1,) * n
            per_level = [[f for f in PAR_FACTORS if ok(order, ones[:lv] + (f,) + ones[lv + 1:], 1, False)]
                         for lv in range(n)]
            factor_choices = itertools.product(*per_level)
        for factors in factor_choices:
            for shape in STREAM_SHAPES:
                for block in (False, True):
                    if ok(order, factors, shape, block):
                        accepted.add(RegionSchedule(tuple(ops), order, factors, shape, block))
    return accepted


def validator_schedules(program, binding):
    """Brute force: every grouping × the product of its regions' accepted schedules."""
    accepted = set()
    for grouping in validator_groupings(program):
        per_region = [sorted(validator_region_schedules(program, binding, g), key=repr) for g in grouping]
        for combo in itertools.product(*per_region):
            accepted.add(Schedule(tuple(combo)))
    return accepted


def menu_completions(space, sketch, choose=None):
    """Every complete sketch reachable from `sketch` through offered steps (DFS).

    `choose(sketch, menu)` may return a single option to take instead of branching; holes it
    decides are filled first, then the hole with the fewest options (holes with one option
    before any branching), so the branches do not each redo the same forced steps. Menus are
    exact, so the order in which holes are filled does not change the set reached."""
    if sketch.complete:
        yield sketch
        return
    menus = space.oracle.menus(sketch)
    if choose is not None:
        for hole_menu in menus.holes:
            picked = choose(sketch, hole_menu)
            if picked is not None:
                yield from menu_completions(space, space.oracle.apply(sketch, picked), choose)
                return
    narrowest = min(menus.holes, key=lambda hole_menu: len(hole_menu.options))
    for option in narrowest.options:
        yield from menu_completions(space, space.oracle.apply(sketch, option), choose)


def in_region(sketch, hole_menu, rid):
    """Whether a hole belongs to region `rid`'s subtree."""
    site = next(s for s in sketch.hole_sites() if s.hole.id == hole_menu.hole)
    if site.parent is not None and site.parent.metadata_dict().get("region") == rid:
        return True
    return any(o.metadata_dict().get("region") == rid for o in hole_menu.options)


def region_id_of(ops):
    return region_id(ops)


def prefill_randomly(session, data, most: int = 12) -> None:
    """Take up to `most` random offered steps (hypothesis `data` draws the holes and options)."""
    from hypothesis import strategies as st

    for _ in range(data.draw(st.integers(0, most), label="pre-filled")):
        if session.complete:
            break
        menu = data.draw(st.sampled_from(session.menus().holes), label="hole")
        session.apply(menu.hole, data.draw(st.sampled_from(menu.options), label="option").id)
