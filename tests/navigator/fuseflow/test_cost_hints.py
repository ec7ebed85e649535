"""Cost hints against brute force: where it claims to be exact, every option's hint is the
estimate of a complete schedule beneath it; where it claims to be a bound, it bounds each
figure of every completion (docs/cost-model.md#cost-hints)."""

import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.cost.estimate import schedule_cost
from fuseflow.cost.hints import CostHint, CostHints, best_of
from fuseflow.cost.hardware import load_hardware
from navigator.fuseflow.sketch_hints import SketchHints
from navigator.fuseflow.schedule_space import ScheduleSpace

from tests.navigator.fuseflow.space_helpers import menu_completions

SMALL = {"spmm": {"N": 2, "J": 2}, "sddmm": {"N": 2, "K": 2}, "nested_matmul": {"I": 2, "J": 2, "K": 1, "L": 2}}
#: orders cost differently here (recomputation, and operands re-read: the buffer holds 8 values)
GCN_DIMS = {"N": 4, "F": 2, "H": 2, "C": 2}
MATMUL_DIMS = {"I": 4, "J": 3, "K": 2, "L": 2}
HW = replace(load_hardware(), onchip_buffer_bytes=64)
REL = 1e-9   # the hints add region costs in another order than schedule_cost does


def space_for(name, dims, order_budget=None):
    """The space, its hints on the small-buffer hardware HW (optionally with another order budget)."""
    program = resolve_program(name, dims)
    binding = bind(program, dims=dims)
    space = ScheduleSpace.build(program, binding)
    space._hints = SketchHints(space, HW)
    if order_budget is not None:
        space._hints.costs = CostHints(program, binding, HW, order_budget=order_budget, stats=space.statistics)
    return space


def estimates_beneath(space, sketch, choose=None):
    """(cycles, bytes, FLOPs) of every complete schedule extending `sketch`, through the menus."""
    found = set()
    for complete in menu_completions(space, sketch, choose):
        cost = schedule_cost(space.program, space.binding, space.schedule_of(complete), HW, stats=space.statistics)
        found.add((cost.cycles, cost.bytes, cost.flops))
    return found


def close(a, b):
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-9)


def check_hint(hint: CostHint, figures, every: bool = True):
    """The rule a hint states about the figures of the completions beneath its option (`every`:
    all of them; else those with the defaults inside regions)."""
    assert hint is not None and figures
    if hint.exact and every:
        # the estimate of one completion beneath the option (the best the completion rule finds)
        assert any(all(close(a, b) for a, b in zip(hint.key, f)) for f in figures), (hint, sorted(figures)[:5])
    elif hint.exact:
        # an estimate of some completion (perhaps not one of those enumerated): a positive figure
        assert 0 < hint.cycles < math.inf
    else:
        for index in range(3):
            least = min(f[index] for f in figures)
            assert hint.key[index] <= least * (1 + REL) + 1e-9


def check_every_option(space, sketch, choose=None):
    menus = space.oracle.menus(sketch)
    hints = space.hints(sketch, menus)
    assert set(hints) == {(o.hole, o.id) for o in menus.options()}
    for option in menus.options():
        check_hint(hints[(option.hole, option.id)], estimates_beneath(space, space.oracle.apply(sketch, option), choose),
                   every=choose is None)
    return menus


def walk(space, picks):
    """The sketch reached by taking, at the first open hole, option number `pick % options`."""
    sketch = space.initial_sketch()
    for pick in picks:
        menus = space.oracle.menus(sketch)
        if sketch.complete or not menus.holes:
            break
        options = menus.holes[0].options
        sketch = space.oracle.apply(sketch, options[pick % len(options)])
    return sketch


@pytest.mark.parametrize("name", sorted(SMALL))
def test_hints_of_the_first_holes_equal_brute_force(name):
    space = space_for(name, SMALL[name])
    sketch = space.initial_sketch()
    # The root, the fusion, then the first hole of each sketch along the defaults.
    for _ in range(6):
        menus = check_every_option(space, sketch)
        if sketch.complete or not menus.holes:
            break
        sketch = space.oracle.apply(sketch, menus.holes[0].default or menus.holes[0].options[0])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SMALL)), picks=st.lists(st.integers(0, 7), max_size=8))
def test_hints_of_random_partial_sketches_equal_brute_force(name, picks):
    space = space_for(name, SMALL[name])
    check_every_option(space, walk(space, picks))


def defaults_inside_regions(sketch, menu):
    """Take the default factor, stream shape and block mode (they would multiply the brute
    force; the small programs above enumerate them all)."""
    if menu.type in ("Par", "Vector", "Block"):
        return menu.default or menu.options[0]
    return None


@pytest.mark.parametrize("name, dims", [("gcn", GCN_DIMS), ("nested_matmul", MATMUL_DIMS)])
@pytest.mark.parametrize("picks", [(0, 0, 3), (0, 2, 0, 1, 1, 1)])
def test_hints_where_orders_differ_equal_brute_force(name, dims, picks):
    """Orders that cost differently; the walk opens the fusion, a shortcut, regions and orders."""
    space = space_for(name, dims)
    check_every_option(space, walk(space, picks), defaults_inside_regions)


@pytest.mark.parametrize("name, dims", [("sddmm", SMALL["sddmm"]), ("nested_matmul", MATMUL_DIMS)])
def test_bounds_bound_brute_force(name, dims):
    """With an order budget of 1, regions with several orders are bounds, and bounds hold."""
    space = space_for(name, dims, order_budget=1)
    sketch = walk(space, (0, 0, 1))   # the schedule, fused region by region, a two-op region first
    seen_bound = False
    for _ in range(3):
        menus = check_every_option(space, sketch, defaults_inside_regions)
        seen_bound |= any(h is not None and not h.exact for h in space.hints(sketch, menus).values())
        if sketch.complete or not menus.holes:
            break
        sketch = space.oracle.apply(sketch, menus.holes[0].default or menus.holes[0].options[0])
    assert seen_bound


def test_best_of_exact_takes_the_smallest_key_and_bounds_take_each_figure():
    a, b = CostHint(10, 100, 5, True), CostHint(12, 50, 1, True)
    assert best_of([a, b]) == a
    assert best_of([a, CostHint(12, 50, 1, False)]) == CostHint(10, 50, 1, False)
    assert best_of([]) is None


def test_a_complete_sketch_hint_is_its_estimate():
    space = space_for("spmm", SMALL["spmm"])
    complete = next(menu_completions(space, space.initial_sketch()))
    cost = schedule_cost(space.program, space.binding, space.schedule_of(complete), HW, stats=space.statistics)
    assert space.best_hint(complete) == CostHint(cost.cycles, cost.bytes, cost.flops, True)


def test_honeybee_style_sketch_it_cannot_read_gets_no_hint():
    """A sketch whose regions list says nothing of its regions: no hint, not an error."""
    from navigator.synth import App, Hole, Sketch

    space = space_for("spmm", SMALL["spmm"])
    odd = App("mystery", "Regions", (), (("schedule", Hole(5, "RegionSchedule")), ("rest", Hole(6, "Regions"))))
    root = App("schedule", "Schedule", (("program", "spmm"),),
               (("fusion", App("fuse", "Fusion", (("program", "spmm"),), (("regions", odd),))),))
    assert space.best_hint(Sketch(root, 7)) is None
