"""The oracle on hand-made problems whose menus and counts are worked out by hand."""

from __future__ import annotations

import time

from navigator.lang import parse_facts, parse_library
from navigator.synth import UNBOUNDED, Count, Oracle, sketch_from_json

from harness.honeybee_examples import recursive, sched


def ids(menu):
    return [o.id for o in menu.options]


def test_root_menu_and_counts():
    oracle = Oracle(*sched())
    menus = oracle.menus(oracle.initial_sketch())
    (root,) = menus.holes
    assert ids(root) == ["fused_schedule{fused=true}", "unfused_schedule{fused=false}"]
    # fused: region 0 has 3 parallel factors; unfused: 3 (region 0) x 2 (region 1, extent 2)
    assert [o.count for o in root.options] == [Count(3), Count(6)]
    assert menus.total == Count(9)


def test_sibling_conditions_restrict_each_other():
    """`order` and `par0` are linked by region_schedule's condition: an order whose
    level 0 is compressed has no legal Par at level 0, so it must not be offered."""
    oracle = Oracle(*sched())
    sketch = oracle.step(oracle.initial_sketch(), 0, "fused_schedule{fused=true}")
    sketch = oracle.step(sketch, 2, "region_schedule{region=0}")
    menus = oracle.menus(sketch)
    assert ids(menus.for_hole(3)) == ['choose_order{region=0, order="i j"}']
    assert [o.meta[-1] for o in menus.for_hole(4).options] == [1, 2, 4]
    # Choosing the Par first restricts the order the same way.
    sketch = oracle.step(sketch, 4, 'par_level{region=0, order="i j", level=0, extent=64, factor=2}')
    assert ids(oracle.menus(sketch).for_hole(3)) == ['choose_order{region=0, order="i j"}']
    assert oracle.menus(sketch).total == Count(1)


def test_parameter_holes_are_numbered_in_order_from_a_global_counter():
    oracle = Oracle(*sched())
    sketch = oracle.step(oracle.initial_sketch(), 0, "unfused_schedule{fused=false}")
    assert [h.id for h in sketch.holes()] == [1, 2, 3]
    sketch = oracle.step(sketch, 1, 'choose_grouping{groups="0|1", regions=2}')
    sketch = oracle.step(sketch, 3, "region_schedule{region=1}")
    assert [h.id for h in sketch.holes()] == [2, 4, 5]  # 1 is never reused
    assert sketch.next_hole == 6


def test_defaults_follow_the_library_marks():
    oracle = Oracle(*sched())
    sketch = oracle.step(oracle.initial_sketch(), 0, "fused_schedule{fused=true}")
    menus = oracle.menus(sketch)
    assert menus.for_hole(1).default.id == 'choose_grouping{groups="0,1", regions=1}'
    assert menus.for_hole(2).default is None
    sketch = oracle.step(sketch, 2, "region_schedule{region=0}")
    par = oracle.menus(sketch).for_hole(4)
    assert par.default.meta[-1] == 1  # default = [{ factor = 1 }]
    assert sum(o.is_default for o in par.options) == 1


def test_default_choices_in_priority_order():
    library = parse_library('''
[Type.A]
params.x = "Int"
[Function.f]
params = {}
ret = "A"
condition = ["0 <= ret.x", "ret.x <= 3"]
default = [{ x = 7 }, { x = 2 }, {}]
''')
    oracle = Oracle(library, parse_facts('[Goal]\nname = "A"\n', library))
    root = oracle.menus(oracle.initial_sketch()).holes[0]
    assert ids(root) == ["f{x=0}", "f{x=3}"]  # the domain is the literals 0 and 3
    assert root.default.id == "f{x=0}"  # x = 7 is outside the domain; {} matches the first


def test_recursive_library_has_finite_menus_and_unbounded_counts():
    oracle = Oracle(*recursive())
    root = oracle.menus(oracle.initial_sketch()).holes[0]
    # Goal count = 3: es_lt needs a larger child (5), es_eq loops, es_end reads the fact.
    assert ids(root) == ["es_lt{count=3}", "es_eq{count=3}", "es_end{count=3}"]
    assert [str(o.count) for o in root.options] == ["unbounded", "unbounded", "1"]
    sketch = oracle.step(oracle.initial_sketch(), 0, "es_lt{count=3}")
    child = oracle.menus(sketch).for_hole(1)
    assert ids(child) == ["es_eq{count=5}", "es_end{count=5}"]
    assert oracle.count(sketch) == UNBOUNDED


def test_partial_goal_constrains_the_root():
    library, facts = recursive()
    assert facts.goal.args == (("count", 3),)
    oracle = Oracle(library, facts)
    assert all(o.meta == (3,) for o in oracle.menus(oracle.initial_sketch()).options())


def test_huge_counts_are_exact_and_fast():
    """Binary trees with strictly decreasing levels: N(k) = 1 + (N(0)+...+N(k-1))^2."""
    levels = 12
    library = parse_library('''
[Prop.Level]
params.n = "Int"
[Type.T]
params.level = "Int"
[Function.leaf]
params = {}
ret = "T"
condition = ["Level { n = ret.level }"]
[Function.node]
params.a = "T"
params.b = "T"
ret = "T"
condition = ["Level { n = ret.level }", "a.level < ret.level", "b.level < ret.level"]
''')
    facts = parse_facts("\n".join(f'[[Prop]]\nname = "Level"\nargs.n = {i}' for i in range(levels))
                        + f'\n[Goal]\nname = "T"\nargs.level = {levels - 1}\n', library)
    started = time.perf_counter()
    oracle = Oracle(library, facts)
    total = oracle.menus(oracle.initial_sketch()).total
    assert time.perf_counter() - started < 2.0
    expected = []
    for k in range(levels):
        expected.append(1 + sum(expected) ** 2)
    assert total == Count(expected[-1])
    assert len(str(total)) > 500


def test_independent_parameters_do_not_multiply_out():
    """Parameters no condition links are solved separately (no candidate cross product)."""
    n = 60
    library = parse_library('''
[Prop.V]
params.v = "Int"
[Type.A]
params.v = "Int"
[Type.P]
params = {}
[Function.a]
params = {}
ret = "A"
condition = ["V { v = ret.v }"]
[Function.p]
params.x = "A"
params.y = "A"
params.z = "A"
ret = "P"
''')
    facts = parse_facts("\n".join(f'[[Prop]]\nname = "V"\nargs.v = {i}' for i in range(n))
                        + '\n[Goal]\nname = "P"\n', library)
    started = time.perf_counter()
    oracle = Oracle(library, facts)
    assert oracle.menus(oracle.initial_sketch()).total == Count(n ** 3)
    assert time.perf_counter() - started < 1.0


def test_invalid_sketch_from_json_is_blocked_with_a_reason():
    library, facts = sched()
    oracle = Oracle(library, facts)
    bad = sketch_from_json({"App": [
        {"name": "fused_schedule", "metadata": {"fused": True}, "arity": ["grouping", "r0"]},
        {"grouping": {"App": [{"name": "choose_grouping",
                               "metadata": {"groups": "0|1", "regions": 2}, "arity": []}, {}]},
         "r0": {"Hole": 1}}]}, library, facts.goal.type)
    menus = oracle.menus(bad)
    assert not menus.completable and len(menus) == 0
    assert "fused_schedule{fused=true}: its condition cannot hold" in menus.blocked
    assert menus.total == Count(0)


def test_menus_are_cached_per_sketch():
    oracle = Oracle(*sched())
    sketch = oracle.initial_sketch()
    assert oracle.menus(sketch) is oracle.menus(sketch)


def test_menu_serialises_to_json():
    import json
    oracle = Oracle(*sched())
    data = oracle.menus(oracle.initial_sketch()).to_dict()
    assert json.loads(json.dumps(data))["holes"][0]["options"][1]["count"] == 6
