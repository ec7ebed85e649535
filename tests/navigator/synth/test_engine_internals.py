"""The engine's evaluation strategies agree with each other and with the reference.

- Plans are interpreted for their first runs, then compiled to Python functions (very deep
  plans are always interpreted). Both must give the reference's menus and counts: here
  every plan is interpreted, or every plan is compiled from its first run.
- Tables are evaluated depth first up to a nesting limit, deeper ones later from a
  worklist: a long recursive chain (deeper than the limit) must give exact counts.
- Recursion through a table being evaluated is resolved by re-evaluation: a cyclic
  library must give exact inhabitation and unbounded counts where the reference does.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import navigator.synth.inhabitation as inhabitation
import navigator.synth.solver as solver
from navigator.lang import parse_facts, parse_library
from navigator.synth import UNBOUNDED, Count, Oracle

from tests.navigator.synth.oracle_checks import as_ref, assert_oracle_matches_reference, load
from tests.navigator.synth.random_problems import problems
from tests.navigator.synth.reference import Reference


@pytest.fixture
def interpreted(monkeypatch):
    monkeypatch.setattr(solver, "_MAX_GENERATED_STEPS", -1)


@pytest.fixture
def generated(monkeypatch):
    monkeypatch.setattr(solver, "_INTERPRETED_RUNS", 0)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=problems())
def test_interpreted_plans_match_the_reference(interpreted, texts):
    assert_oracle_matches_reference(*load(texts), walk_steps=3)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=problems())
def test_generated_plans_match_the_reference(generated, texts):
    assert_oracle_matches_reference(*load(texts), walk_steps=3)


def chain_problem(length: int) -> tuple[str, str]:
    """A list over 0..length (Succ facts) with two choices per element."""
    library = """
[Prop.Succ]
params.n = "Int"
params.next = "Int"
[Prop.Choice]
params.v = "Int"
[Prop.Len]
params.n = "Int"
[Type.Item]
params.v = "Int"
[Type.List]
params.at = "Int"
[Function.item]
params = {}
ret = "Item"
condition = ["Choice { v = ret.v }"]
[Function.cons]
params.head = "Item"
params.tail = "List"
ret = "List"
condition = ["Succ { n = ret.at, next = tail.at }"]
[Function.nil]
params = {}
ret = "List"
condition = ["Len { n = ret.at }"]
"""
    facts = [f'[[Prop]]\nname = "Succ"\nargs = {{ n = {i}, next = {i + 1} }}'
             for i in range(length)]
    facts += ['[[Prop]]\nname = "Choice"\nargs = { v = 0 }',
              '[[Prop]]\nname = "Choice"\nargs = { v = 1 }',
              f'[[Prop]]\nname = "Len"\nargs = {{ n = {length} }}',
              '[Goal]\nname = "List"\nargs = { at = 0 }']
    return library, "\n".join(facts)


def test_a_chain_deeper_than_the_nesting_limit_is_counted_exactly():
    length = 4 * inhabitation._MAX_NESTING + 7
    library_text, facts_text = chain_problem(length)
    library = parse_library(library_text, "chain.hblib.toml")
    facts = parse_facts(facts_text, library, "chain.hb.toml")
    oracle = Oracle(library, facts)
    sketch = oracle.initial_sketch()
    assert oracle.count(sketch) == Count(2 ** length)
    # every List{at=i} is inhabited, with 2^(length - i) programs
    for i in (0, 1, length // 2, length):
        assert oracle.count_programs("List", {"at": i}) == Count(2 ** (length - i))
    # walking down the chain (newest hole: the tail) keeps the total...
    for _ in range(10):
        menus = oracle.menus(sketch)
        sketch = oracle.apply(sketch, menus.holes[-1].options[0])
    assert oracle.count(sketch) == Count(2 ** length)
    # ... and choosing the ten open items divides it by 2 each
    for _ in range(10):
        menus = oracle.menus(sketch)
        item = next(m for m in menus.holes if m.type == "Item")
        assert [o.count for o in item.options] == [Count(oracle.count(sketch).value // 2)] * 2
        sketch = oracle.apply(sketch, item.options[1])
    assert oracle.count(sketch) == Count(2 ** (length - 10))


CYCLIC = """
[Prop.Seed]
params.x = "Int"
[Type.A]
params.x = "Int"
[Type.B]
params.x = "Int"
[Function.seed]
params = {}
ret = "A"
condition = ["Seed { x = ret.x }"]
[Function.a_from_b]
params.b = "B"
ret = "A"
condition = ["ret.x = b.x"]
[Function.b_from_a]
params.a = "A"
ret = "B"
condition = ["ret.x <= a.x"]
[Function.b_zero]
params = {}
ret = "B"
condition = ["ret.x = 0"]
"""


def test_mutual_recursion_through_unfinished_tables():
    facts_text = "\n".join(f'[[Prop]]\nname = "Seed"\nargs = {{ x = {x} }}' for x in (3,))
    facts_text += '\n[Goal]\nname = "A"\nargs = { x = 0 }\n'
    library = parse_library(CYCLIC, "cyclic.hblib.toml")
    facts = parse_facts(facts_text, library, "cyclic.hb.toml")
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    # Ask for the goal first (a partial pattern), so tables start out unfinished.
    assert as_ref(oracle.count(oracle.initial_sketch())) == ref.completions(oracle.initial_sketch())
    assert oracle.count(oracle.initial_sketch()) == UNBOUNDED
    for type_name in library.types:
        assert set(oracle.inhabited[type_name]) == ref.inhabited[type_name]
        for meta in ref.inhabited[type_name]:
            assert as_ref(oracle.counts.value(type_name, meta)) == ref.value_count(type_name, meta)


@pytest.mark.parametrize("fail_at", [1, 5, 30, 45, 80])
def test_an_interrupted_evaluation_leaves_exact_results(monkeypatch, fail_at):
    length = 2 * inhabitation._MAX_NESTING + 3
    library_text, facts_text = chain_problem(length)
    facts_text = facts_text.replace('name = "List"\nargs = { at = 0 }', 'name = "Item"\nargs = {}')
    library = parse_library(library_text, "chain.hblib.toml")
    facts = parse_facts(facts_text, library, "chain.hb.toml")
    oracle = Oracle(library, facts)  # the goal is an Item: the chain is not evaluated yet
    assert oracle.count(oracle.initial_sketch()) == Count(2)
    original = inhabitation.Tables._evaluate
    calls = [0]

    def flaky(self, table):
        calls[0] += 1
        if calls[0] == fail_at:
            raise KeyboardInterrupt
        return original(self, table)

    monkeypatch.setattr(inhabitation.Tables, "_evaluate", flaky)
    with pytest.raises(KeyboardInterrupt):
        oracle.count_programs("List", {"at": 0})
    monkeypatch.setattr(inhabitation.Tables, "_evaluate", original)
    for at in (0, 3, length):
        assert oracle.count_programs("List", {"at": at}) == Count(2 ** (length - at))
    assert sorted(m["at"] for m in oracle.inhabited_metadata("List")) == list(range(length + 1))


def test_a_step_rebuilds_its_ancestors_as_the_dataclass_would():
    """Sketch.fill copies the ancestors of the filled hole without App's __init__
    (sketch._with_arg): the copies must have exactly App's fields, and equal what __init__ builds."""
    from dataclasses import fields

    from navigator.synth.sketch import App, Hole, Sketch, _with_arg

    leaf = Hole(2, "T")
    parent = App("f", "T", (("x", 1),), (("a", Hole(1, "T")), ("b", leaf)))
    copy = _with_arg(parent, (("a", leaf), ("b", leaf)))
    assert set(vars(copy)) == {f.name for f in fields(App)}
    assert copy == App("f", "T", (("x", 1),), (("a", leaf), ("b", leaf)))
    assert hash(copy) == hash(App("f", "T", (("x", 1),), (("a", leaf), ("b", leaf))))
    sketch = Sketch(App("g", "T", (), (("c", parent),)), 3).fill(1, "h", (), ())
    assert sketch.root == App("g", "T", (), (("c", App("f", "T", (("x", 1),), (("a", App("h", "T", (), ())),
                                                                              ("b", leaf)))),))
    assert sketch.holes() == [leaf]
