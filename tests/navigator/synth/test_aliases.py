"""Alias (shortcut) functions: `alias = true` on a function leaves its derivations out of the
counts, so every program is counted once and the other options of a hole partition its
completions, while the alias stays on the menus with its own counts.

Worked examples first, then the engine against the brute-force reference on random libraries
with aliases (counts, menus, explicit enumeration), then the sampler and defaults.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.auto import fill_open_holes, get_strategy
from navigator.lang import LibraryError, parse_facts, parse_library
from navigator.navigation.sampling import SamplingError, UniformSampler
from navigator.navigation.session import Session
from navigator.synth import UNBOUNDED, Count, Oracle
from navigator.synth.count import total

from tests.navigator.synth.oracle_checks import as_ref, load
from tests.navigator.synth.random_problems import problems
from tests.navigator.synth.reference import INF, Reference
from tests.navigator.lang.test_hostile_libraries import with_marks
from tests.navigator.synth.test_oracle_properties import fill, max_size

# A plan of two parts, each one of three picks: 9 programs. `quick` is a shortcut to one of
# them; `preset` builds a Part{v=7} that nothing else builds.
SHORTCUT = '''
[Prop.Pick]
params.v = "Int"
[Type.Plan]
params.size = "Int"
[Type.Part]
params.v = "Int"
[Function.quick]
ret = "Plan"
condition = ["ret.size = 2"]
alias = true
info.title = "Two default parts"
[Function.plan]
params.a = "Part"
params.b = "Part"
ret = "Plan"
condition = ["ret.size = 2", "a.v != 7"]
[Function.part]
ret = "Part"
condition = ["Pick { v = ret.v }"]
[Function.preset]
ret = "Part"
condition = ["ret.v = 7"]
alias = true
'''
PICKS = "".join(f'[[Prop]]\nname = "Pick"\nargs.v = {v}\n' for v in (1, 2, 3))
SHORTCUT_FACTS = PICKS + '[Goal]\nname = "Plan"\n'


def shortcut(extra: str = "", library: str = SHORTCUT):
    lib = parse_library(library + extra, "shortcut.hblib.toml")
    return lib, parse_facts(SHORTCUT_FACTS, lib, "shortcut.hb.toml")


def by_id(menu):
    return {o.id: o for o in menu.options}


def examples(n):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------- loading


def test_alias_loads_as_a_boolean_and_defaults_to_false():
    library, _ = shortcut()
    assert library.functions["quick"].alias is True
    assert library.functions["plan"].alias is False
    assert not library.warnings  # a known key


@pytest.mark.parametrize("value, shown", [('"yes"', 'Str "yes"'), ("1", "Int 1"), ("[true]", "an array"),
                                          ("{ x = 1 }", "a table")])
def test_an_alias_that_is_not_a_boolean_is_a_load_error(value, shown):
    text = SHORTCUT.replace("alias = true\ninfo.title", f"alias = {value}\ninfo.title")
    with pytest.raises(LibraryError) as info:
        parse_library(text, "bad.hblib.toml")
    message = str(info.value)
    assert "\n" not in message
    assert info.value.where == "bad.hblib.toml: Function.quick.alias"
    assert f"alias must be true or false, got {shown}" in message
    assert info.value.fix and "alias = true" in info.value.fix


# ---------------------------------------------------------------- worked examples


def test_an_alias_is_offered_but_left_out_of_the_total():
    oracle = Oracle(*shortcut())
    menus = oracle.menus(oracle.initial_sketch())
    options = by_id(menus.holes[0])
    assert list(options) == ["quick{size=2}", "plan{size=2}"]
    quick, plan = options.values()
    # plan: a in {1, 2, 3} (a.v != 7) times b in {1, 2, 3}; b = preset{v=7} only by the alias
    assert plan.count == Count(9) and plan.subtree_count == Count(9) and not plan.alias
    assert quick.count == Count(1) and quick.subtree_count == Count(1) and quick.alias
    assert menus.total == Count(9)  # quick's program is also one of plan's
    assert menus.to_dict()["holes"][0]["options"][0]["alias"] is True
    assert oracle.counts.raw_with_aliases("Plan", (2,)) == 1 + 3 * 4  # every program, aliases too


def test_a_pair_only_an_alias_builds_counts_zero_yet_its_alias_shows_its_real_counts():
    oracle = Oracle(*shortcut())
    assert oracle.count_programs("Part", {"v": 7}) == Count(0)
    assert oracle.inhabited_metadata("Part") == [{"v": 1}, {"v": 2}, {"v": 3}, {"v": 7}]
    preset = next(i for i, cf in enumerate(oracle.functions) if cf.name == "preset")
    assert oracle.counts.function(preset, (7,)) == Count(1)
    sketch = oracle.step(oracle.initial_sketch(), 0, "plan{size=2}")
    menus = oracle.menus(sketch)
    b = by_id(menus.for_hole(2))
    assert list(b) == ["part{v=1}", "part{v=2}", "part{v=3}", "preset{v=7}"]
    # after preset at b, the three choices of a complete the program
    assert b["preset{v=7}"].count == Count(3) and b["preset{v=7}"].alias
    assert [o.count for o in b.values() if not o.alias] == [Count(3)] * 3
    assert total(o.count for o in b.values() if not o.alias) == menus.total == Count(9)
    after = oracle.step(sketch, 2, "preset{v=7}")
    assert oracle.menus(after).total == Count(3) and oracle.menus(after).completable


def test_a_sketch_only_aliases_complete_has_no_count_but_is_not_blocked():
    library, _ = shortcut()
    facts = parse_facts('[Goal]\nname = "Plan"\n', library)  # no Pick: only the aliases build
    oracle = Oracle(library, facts)
    menus = oracle.menus(oracle.initial_sketch())
    assert menus.blocked is None and menus.total == Count(0)
    assert [(o.id, o.count) for o in menus.holes[0].options] == [("quick{size=2}", Count(1))]
    with pytest.raises(SamplingError, match="offers nothing to sample"):
        UniformSampler(oracle).sample(random.Random(0))


WRAP = '''
[Function.wrap]
params.inner = "Plan"
ret = "Plan"
condition = ["ret.size = inner.size"]
alias = true
'''


def test_an_alias_on_a_cycle_keeps_the_counts_finite():
    oracle = Oracle(*shortcut(WRAP))
    menus = oracle.menus(oracle.initial_sketch())
    options = by_id(menus.holes[0])
    assert menus.total == Count(9)
    # wrap's programs: the alias around any plan built without aliases
    assert options["wrap{size=2}"].count == Count(9) and options["wrap{size=2}"].alias
    assert oracle.counts.raw_with_aliases("Plan", (2,)) is None  # with aliases: wrap(wrap(...))
    sketch = oracle.step(oracle.initial_sketch(), 0, "wrap{size=2}")
    assert oracle.menus(sketch).total == Count(9)


LIST = '''
[Type.List]
params = {}
[Function.nil]
ret = "List"
[Function.cons]
params.tail = "List"
ret = "List"
[Function.many]
params.parts = "List"
ret = "Plan"
condition = ["ret.size = 2"]
alias = true
'''


def test_an_alias_whose_children_are_unbounded_has_an_unbounded_count_and_the_total_stays_finite():
    oracle = Oracle(*shortcut(LIST))
    menus = oracle.menus(oracle.initial_sketch())
    many = by_id(menus.holes[0])["many{size=2}"]
    assert many.count == UNBOUNDED and many.subtree_count == UNBOUNDED and many.alias
    assert menus.total == Count(9)
    sampler = UniformSampler(oracle)
    assert sampler.size() == 9
    assert all(sampler.sample(random.Random(seed)).root.function == "plan" for seed in range(20))


PAIR = '''
[Function.pair]
params.x = "Part"
params.rest = "List"
ret = "Plan"
condition = ["ret.size = 2", "x.v = 7"]
'''


def test_no_completion_wins_over_unboundedly_many():
    """pair's x can only be preset's Part{v=7} (an alias) and its rest is any list: no program
    without aliases goes through pair, however many lists there are."""
    oracle = Oracle(*shortcut(LIST + PAIR))
    menus = oracle.menus(oracle.initial_sketch())
    pair = by_id(menus.holes[0])["pair{size=2}"]
    assert pair.count == Count(0) == pair.subtree_count and not pair.alias
    assert menus.total == Count(9)
    sketch = oracle.step(oracle.initial_sketch(), 0, "pair{size=2}")
    menus = oracle.menus(sketch)
    assert menus.total == Count(0) and menus.completable
    assert [(o.id, o.count) for o in menus.for_hole(1).options] == [("preset{v=7}", UNBOUNDED)]
    assert [(o.id, o.count) for o in menus.for_hole(2).options] == [("nil", Count(0)), ("cons", Count(0))]


MUTUAL = '''
[Type.Loop]
params.n = "Int"
[Function.looped]
params.back = "Loop"
ret = "Plan"
condition = ["ret.size = 2", "back.n = 2"]
[Function.around]
params.plan = "Plan"
ret = "Loop"
condition = ["ret.n = plan.size"]
[Function.jump]
ret = "Loop"
condition = ["ret.n = 2"]
alias = true
'''


def test_a_cycle_through_a_pair_only_an_alias_completes():
    """Plan -> Loop -> Plan is a cycle, and Loop's only base case is an alias: without aliases
    the cycle is still productive (Loop is built by `around` over a plan), so Plan is
    unbounded; a cycle whose way out is only the alias is not."""
    oracle = Oracle(*shortcut(MUTUAL))
    ref = Reference(oracle.library, oracle.facts)
    assert oracle.count(oracle.initial_sketch()) == UNBOUNDED == Count(ref.completions(oracle.initial_sketch()))
    no_picks = parse_facts('[Goal]\nname = "Plan"\n', oracle.library)
    oracle = Oracle(oracle.library, no_picks)
    menus = oracle.menus(oracle.initial_sketch())
    # plan needs a Part other than preset's: every plan left is quick, or looped over jump or
    # over around(a plan), so every one uses an alias
    assert menus.total == Count(0) and menus.blocked is None
    assert by_id(menus.holes[0])["looped{size=2}"].count == Count(0)
    assert oracle.counts.raw_with_aliases("Plan", (2,)) is None


# ---------------------------------------------------------------- against the reference


def assert_counts_match(library, facts, oracle, ref):
    for type_name in library.types:
        assert set(oracle.inhabited[type_name]) == ref.inhabited[type_name]
        for meta in ref.inhabited[type_name]:
            assert as_ref(oracle.counts.value(type_name, meta)) == ref.value_count(type_name, meta), (type_name, meta)
            assert oracle.counts.raw_with_aliases(type_name, meta) == ref.value_count_all(type_name, meta)


@examples(400)
@given(texts=problems(aliases=True), data=st.data())
def test_counts_and_menus_equal_the_reference_with_aliases(texts, data):
    """Every pair's count (without aliases, and with them), then along a random walk: the
    menus are exactly the completable steps (aliases allowed), each option's count, subtree
    count and alias flag are the reference's, and the non-alias options partition the total."""
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    assert_counts_match(library, facts, oracle, ref)
    sketch = oracle.initial_sketch()
    for _ in range(5):
        menus = oracle.menus(sketch)
        assert as_ref(menus.total) == ref.completions(sketch)
        assert menus.completable == ref.completable(sketch)
        for hole in sketch.holes():
            expected = {}
            for decl in library.functions_returning(hole.type):
                for meta in ref.metas[decl.ret]:
                    after = fill(library, sketch, hole.id, decl.name, meta)
                    if ref.completable(after):
                        expected[(decl.name, meta)] = ref.completions(after)
            menu = menus.for_hole(hole.id)
            offered = {(o.function, o.meta): o for o in menu.options}
            assert set(offered) == set(expected), f"at ?{hole.id}"
            for key, option in offered.items():
                assert as_ref(option.count) == expected[key], key
                assert as_ref(option.subtree_count) == ref.subtree_count(*key), key
                assert option.alias == (option.function in ref.aliases)
            assert total(o.count for o in menu.options if not o.alias) == menus.total, f"at ?{hole.id}"
        options = list(menus.options())
        if not options or len(sketch.holes()) > 4:
            break
        sketch = oracle.apply(sketch, data.draw(st.sampled_from(options)))


def uses_alias(program, aliases) -> bool:
    stack = [program]
    while stack:
        node = stack.pop()
        if node.function in aliases:
            return True
        stack.extend(child for _, child in node.args)
    return False


@examples(200)
@given(texts=problems(aliases=True))
def test_counts_equal_the_distinct_programs_enumerated(texts):
    """Programs enumerated one by one up to a size: a root option counts the programs with it
    at the root and no alias below; the total counts the programs with no alias at all."""
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    bound = 6
    programs, exhaustive = ref.goal_programs(bound)
    if not exhaustive:
        return
    without = [p for p, _ in programs if not uses_alias(p, ref.aliases)]
    assert len(set(without)) == len(without)
    menus = oracle.menus(oracle.initial_sketch())
    if not menus.completable:
        return
    whole = [o for o in menus.holes[0].options
             if ref.subtree_count_all(o.function, o.meta) is not INF and max_size(ref, o.function, o.meta) <= bound]
    for option in whole:
        found = [p for p, _ in programs if p.function == option.function and p.meta == option.meta
                 and not any(uses_alias(child, ref.aliases) for _, child in p.args)]
        assert option.count == Count(len(found)), option.id
    if len(whole) == len(menus.holes[0].options):
        assert menus.total == Count(len(without))


# ---------------------------------------------------------------- sampling


class Scripted:
    """A stand-in for random.Random whose draws follow a script (then 0), and which records
    the range of every draw: enumerating scripts walks every path the sampler can take."""

    def __init__(self, script):
        self.script = script
        self.ranges = []

    def randrange(self, n):
        i = len(self.ranges)
        self.ranges.append(n)
        return self.script[i] if i < len(self.script) else 0


def sampler_distribution(sampler, limit=50_000):
    """The exact probability of every program `sampler.sample` returns, over every sequence
    of draws (None if there are more than `limit` sequences)."""
    found: dict = {}
    pending = [[]]
    runs = 0
    while pending:
        script = pending.pop()
        runs += 1
        if runs > limit:
            return None
        rng = Scripted(script)
        program = sampler.sample(rng).root
        probability = Fraction(1)
        for n in rng.ranges:
            probability /= n
        found[program] = found.get(program, 0) + probability
        for position in range(len(script), len(rng.ranges)):
            prefix = script + [0] * (position - len(script))
            pending.extend(prefix + [value] for value in range(1, rng.ranges[position]))
    return found


def test_the_sampler_never_draws_an_alias_and_is_exactly_uniform():
    oracle = Oracle(*shortcut(WRAP))
    distribution = sampler_distribution(UniformSampler(oracle))
    ref = Reference(oracle.library, oracle.facts)
    programs, _ = ref.goal_programs(3)
    expected = {p for p, _ in programs if not uses_alias(p, ref.aliases)}
    assert len(expected) == 9
    assert distribution == {p: Fraction(1, 9) for p in expected}


@examples(150)
@given(texts=problems(aliases=True))
def test_the_sampler_is_exactly_uniform_over_programs_without_aliases(texts):
    """The sampler's choice at each hole, followed over every path: each program without an
    alias has probability 1 / total, and nothing else is drawn."""
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    menus = oracle.menus(oracle.initial_sketch())
    sampler = UniformSampler(oracle)
    if not menus.completable or menus.total.unbounded or menus.total.value == 0:
        if menus.completable:
            with pytest.raises(SamplingError):
                sampler.sample(random.Random(0))
        return
    if menus.total.value > 12:
        return
    distribution = sampler_distribution(sampler, limit=20_000)
    if distribution is None:
        return
    ref = Reference(library, facts)
    assert all(not uses_alias(program, ref.aliases) for program in distribution)
    assert set(distribution.values()) == {Fraction(1, menus.total.value)}
    assert len(distribution) == menus.total.value


# ---------------------------------------------------------------- defaults


def test_an_alias_marked_default_on_a_cycle_does_not_loop():
    """wrap is a marked default declared first, and its count without aliases is finite (9):
    defaults must still see that, aliases included, wrap builds without end."""
    oracle_library = SHORTCUT.replace("[Function.quick]", WRAP + "default = true\n[Function.quick]", 1)
    library, facts = shortcut(library=oracle_library)
    session = Session(library, facts)
    fill_open_holes(session, get_strategy("default"), max_steps=100)
    assert session.complete
    functions = [s.function for s in session.steps]
    assert functions[0] == "wrap" and functions.count("wrap") == 1


def test_an_alias_marked_default_is_still_the_default():
    library, facts = shortcut(library=SHORTCUT.replace("alias = true\ninfo.title", "alias = true\ndefault = true\n"
                                                                                    "info.title"))
    session = Session(library, facts)
    fill_open_holes(session, get_strategy("default"))
    assert [s.option for s in session.steps] == ["quick{size=2}"]


def _depth(node) -> int:
    from navigator.synth.sketch import depth_of
    return depth_of(node)


@examples(150)
@given(texts=problems(aliases=True), data=st.data())
def test_following_defaults_terminates_with_aliases(texts, data):
    library_text = with_marks(texts[0], data.draw(st.lists(st.booleans(), min_size=10, max_size=10)))
    library, facts = load((library_text, texts[1]))
    oracle = Oracle(library, facts)
    sketch = oracle.initial_sketch()
    bound = sum(len(oracle.inhabited[t]) for t in library.types) + 1
    for _ in range(300):
        menus = oracle.menus(sketch)
        if sketch.complete or menus.blocked:
            break
        menu = menus.for_hole(sketch.lowest_hole().id)
        if menu.default is None:
            break
        sketch = oracle.apply(sketch, menu.default)
        assert _depth(sketch.root) <= bound
    else:
        pytest.fail("defaults did not stop")
