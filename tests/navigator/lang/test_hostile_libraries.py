"""Hostile libraries and fact programs (issue 9): every one gives a clean UserError, or works.

Each test names the defect it reproduces; before the fix each raised a ValueError,
RecursionError or KeyError, or ran without end.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.support.errors import UserError
from fuseflow.support.memory import ResourceError
from navigator.auto import fill_open_holes, get_strategy
from navigator.lang import FactError, LibraryError, parse_facts, parse_library
from navigator.navigation.replay import replay
from navigator.navigation.sampling import SamplingError, UniformSampler
from navigator.navigation.session import Session
from navigator.synth import App, Hole, Oracle, Sketch, format_sketch, node_to_json, sketch_from_json
from fuseflow.support.readers import dumps_deep, recursion_room
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING, SketchTooDeep

from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems

SUCC = '[Prop.Succ]\nparams.n = "Int"\nparams.next = "Int"\n'


def succ_facts(n: int, goal: str) -> str:
    facts = "".join(f'[[Prop]]\nname = "Succ"\nargs = {{ n = {i}, next = {i + 1} }}\n' for i in range(n))
    return facts + goal


def one_line(error: Exception) -> str:
    text = str(error)
    assert "\n" not in text, text
    return text


# ---------------------------------------------------------------- literals and values


def test_a_literal_of_5000_digits_in_a_condition_is_a_library_error():
    text = '[Type.A]\nparams.x = "Int"\n[Function.f]\nparams = {}\nret = "A"\n' \
           f'condition = ["ret.x = {"9" * 5000}"]\n'
    with pytest.raises(LibraryError) as info:
        parse_library(text, "big.hblib.toml")
    message = one_line(info.value)
    assert "Function.f.condition[0]" in message and "64-bit range" in message
    assert len(message) < 400  # the literal is not repeated in full


@pytest.mark.parametrize("literal", ["9223372036854775808", "-9223372036854775809", "99999999999999999999"])
def test_formula_literals_outside_64_bits_are_refused(literal):
    with pytest.raises(LibraryError, match="64-bit range"):
        parse_library(f'[Type.A]\nparams.x = "Int"\n[Function.f]\nret = "A"\ncondition = ["ret.x < {literal}"]\n')


def test_64_bit_literals_still_load():
    library = parse_library('[Type.A]\nparams.x = "Int"\n[Function.f]\nret = "A"\n'
                            'condition = ["-9223372036854775808 < ret.x", "ret.x < 9223372036854775807"]\n')
    assert library.functions["f"].condition


FACTS_LIBRARY = '[Prop.P]\nparams.x = "Int"\n[Type.A]\nparams.x = "Int"\n' \
                '[Function.f]\nret = "A"\ncondition = ["P { x = ret.x }"]\n'


@pytest.mark.parametrize("value, expected", [
    ("9" * 5000, "thousands of digits"),      # the fast TOML path used to raise ValueError
    ("99999999999999999999", "64-bit range"),
    ("-" + "9" * 30, "64-bit range"),
])
def test_huge_integers_in_facts_are_fact_errors(value, expected):
    library = parse_library(FACTS_LIBRARY)
    with pytest.raises(FactError, match=expected):
        parse_facts(f'[[Prop]]\nname = "P"\nargs = {{ x = {value} }}\n[Goal]\nname = "A"\n', library, "f.hb.toml")


def test_deep_dotted_keys_in_facts_are_refused_by_the_bounded_reader():
    library = parse_library(FACTS_LIBRARY)
    deep = ".".join(["a"] * 300)
    with pytest.raises(FactError, match="more than 64 levels"):
        parse_facts(f'[[Prop]]\nname = "P"\nargs.{deep} = 1\n[Goal]\nname = "A"\n', library, "f.hb.toml")


@pytest.mark.parametrize("config", ["x." * 300 + "y = 1", "x = " + "[" * 300 + "]" * 300])
def test_a_deeply_nested_config_is_a_library_error(config):
    with pytest.raises(LibraryError, match="more than 64 levels deep") as info:
        parse_library(f"[Config]\n{config}\n", "deep.hblib.toml")
    assert "a scheduling library never nests that deeply" in one_line(info.value)


def test_a_default_mark_outside_64_bits_is_refused():
    with pytest.raises(LibraryError, match="64-bit range"):
        parse_library('[Type.A]\nparams.x = "Int"\n[Function.f]\nret = "A"\n'
                      f'default = {{ x = {2 ** 70} }}\n')


def test_a_key_with_a_newline_keeps_the_error_on_one_line():
    library = parse_library(FACTS_LIBRARY)
    with pytest.raises(FactError) as info:
        parse_facts('[[Prop]]\nname = "P"\nargs = { x = 1, "a\\nb" = 2 }\n[Goal]\nname = "A"\n', library)
    assert 'args."a\\nb"' in one_line(info.value)


@pytest.mark.parametrize("text, fragment", [
    ('[Type."a b"]\nparams = {}\n', "Type"),
    ('[Type.A]\nparams."x.y" = "Int"\n', "Type.A.params"),
    ('[Type.A]\nparams = {}\n[Function."f\\ng"]\nret = "A"\n', "Function"),
])
def test_names_formulas_cannot_write_are_refused(text, fragment):
    with pytest.raises(LibraryError) as info:
        parse_library(text, "lib.hblib.toml")
    assert "is not a usable name" in one_line(info.value) and fragment in info.value.where


def test_every_load_error_says_how_to_fix_it():
    for text in ['[Type.A]\nparams.x = "Integer"\n', '[Config]\n', '[Type.A]\n[Function.f]\nret = 3\n',
                 '[Type.A]\nparams.x = "Int"\n[Function.f]\nret = "A"\ndefault = { x = "s" }\n',
                 '[Type.A]\nparams = {}\n[Function.f]\nret = "A"\ncondition = ["ret.x <"]\n']:
        try:
            parse_library(text.replace("[Config]\n", "Config = 3\n"), "lib.hblib.toml")
        except LibraryError as exc:
            assert exc.fix, str(exc)
            one_line(exc)
        else:
            pytest.fail(f"loaded: {text!r}")


# ---------------------------------------------------------------- size and depth


def test_a_function_of_1000_parameters_is_refused_at_load():
    params = "".join(f'params.p{i} = "B"\n' for i in range(1000))
    with pytest.raises(LibraryError) as info:
        parse_library(f'[Type.B]\nparams.v = "Bool"\n[Type.G]\nparams = {{}}\n[Function.g]\n{params}ret = "G"\n',
                      "many.hblib.toml")
    assert "1000 parameters" in one_line(info.value) and info.value.where.endswith("Function.g.params")


def test_wide_types_and_long_conditions_are_refused_at_load():
    fields = "".join(f'params.f{i} = "Int"\n' for i in range(257))
    with pytest.raises(LibraryError, match="257 fields; a Type has at most 256"):
        parse_library(f"[Type.A]\n{fields}")
    conditions = ", ".join(['"ret.x = 1"'] * 1025)
    with pytest.raises(LibraryError, match="1025 formulas"):
        parse_library(f'[Type.A]\nparams.x = "Int"\n[Function.f]\nret = "A"\ncondition = [{conditions}]\n')


def chain_library(length: int) -> str:
    lines = ['[Type.G]\nparams = {}\n[Function.top]\nparams.t = "T0"\nret = "G"\ndefault = true\n']
    for i in range(length):
        lines.append(f"[Type.T{i}]\nparams = {{}}\n")
        params = f'params.t = "T{i + 1}"' if i + 1 < length else "params = {}"
        lines.append(f'[Function.f{i}]\n{params}\nret = "T{i}"\ndefault = true\n')
    return "".join(lines)


def test_a_chain_of_2000_types_is_refused_up_front():
    """Was: RecursionError in `sample` (with 1,000 types, when sketches nested at most 256 deep)."""
    library = parse_library(chain_library(2000), "chain.hblib.toml")
    facts = parse_facts('[Goal]\nname = "G"\n', library)
    with pytest.raises(LibraryError) as info:
        Oracle(library, facts)
    assert "nests at least 2001 applications deep" in one_line(info.value)
    assert "G <- T0 <- T1" in str(info.value) and info.value.where == "chain.hblib.toml"


def test_a_chain_within_the_depth_limit_navigates_prints_and_round_trips():
    library = parse_library(chain_library(MAX_SKETCH_DEPTH - 1), "chain.hblib.toml")
    facts = parse_facts('[Goal]\nname = "G"\n', library)
    session = Session(library, facts)
    fill_open_holes(session, get_strategy("default"))
    sketch = session.sketch
    assert sketch.complete and UniformSampler(session.oracle).sample(random.Random(0)) == sketch
    text = dumps_deep(node_to_json(sketch.root), SKETCH_JSON_NESTING, indent=2)  # the session file's writer
    with recursion_room(SKETCH_JSON_NESTING):
        target = json.loads(text)
    again = sketch_from_json(target, library, "G")
    assert again.root == sketch.root and hash(again.root) == hash(sketch.root)
    assert format_sketch(sketch).count("\n") > MAX_SKETCH_DEPTH
    assert replay(library, facts, target, oracle=session.oracle).reached


def deep_node(depth: int, leaf: int = 0):
    node = Hole(leaf, "T")
    for _ in range(depth):
        node = App("f", "T", (("x", 1),), (("a", node),))
    return node


def test_sketch_walkers_do_not_recurse():
    """Hashing, comparing, printing and the JSON form work on trees of any depth."""
    a, b, c = deep_node(5000), deep_node(5000), deep_node(5000, leaf=1)
    assert a == b and hash(a) == hash(b) and a != c
    assert Sketch(a, 1) == Sketch(b, 1) and len({Sketch(a, 1), Sketch(b, 1)}) == 1
    assert format_sketch(a, width=40).count("\n") == 2 * 5000  # a head and a closer per level, and ?0
    data = node_to_json(a)
    with pytest.raises(UserError, match=f"more than {MAX_SKETCH_DEPTH} applications deep"):
        library = parse_library('[Type.T]\nparams.x = "Int"\n[Function.f]\nparams.a = "T"\nret = "T"\n')
        sketch_from_json(data, library, "T")


def test_a_deep_replay_target_is_an_expression_error():
    library = parse_library('[Type.T]\nparams.x = "Int"\n[Function.f]\nparams.a = "T"\nret = "T"\n')
    facts = parse_facts('[Goal]\nname = "T"\n', library)
    with pytest.raises(UserError, match=f"nests more than {MAX_SKETCH_DEPTH}"):
        replay(library, facts, node_to_json(deep_node(MAX_SKETCH_DEPTH + 1000)))


def test_a_step_past_the_depth_limit_is_a_resource_error():
    library = parse_library('[Type.T]\nparams = {}\n[Function.wrap]\nparams.t = "T"\nret = "T"\n'
                            '[Function.leaf]\nret = "T"\n')
    oracle = Oracle(library, parse_facts('[Goal]\nname = "T"\n', library))
    sketch = oracle.initial_sketch()
    for _ in range(MAX_SKETCH_DEPTH - 1):
        sketch = oracle.apply(sketch, oracle.menus(sketch).option(sketch.lowest_hole().id, "wrap"))
    with pytest.raises(SketchTooDeep, match=f"wrap would nest the sketch {MAX_SKETCH_DEPTH} applications deep"):
        oracle.apply(sketch, oracle.menus(sketch).option(sketch.lowest_hole().id, "wrap"))
    assert oracle.apply(sketch, oracle.menus(sketch).option(sketch.lowest_hole().id, "leaf")).complete


def test_a_condition_of_a_thousand_patterns_is_solved_without_recursion():
    """Was: RecursionError in the interpreted solver (one level per step)."""
    conditions = ", ".join(['"P { x = ret.x }"'] * 1000)
    library = parse_library(f'{FACTS_LIBRARY}[Function.g]\nret = "A"\ncondition = [{conditions}]\n')
    facts = parse_facts('[[Prop]]\nname = "P"\nargs.x = 3\n[Goal]\nname = "A"\n', library)
    assert Oracle(library, facts).count(Sketch.initial("A")).value == 2


# ---------------------------------------------------------------- work and step budgets

BLOW_UP = '''
[Prop.N]
params.v = "Int"
[Type.A]
params.a = "Int"
params.b = "Int"
params.c = "Int"
[Type.G]
params = {}
[Function.cycle]
ret = "A"
condition = ["ret.a < ret.b", "ret.b < ret.c", "ret.c < ret.a"]
[Function.goal]
params.x = "A"
ret = "G"
'''


def test_an_unsatisfiable_search_over_huge_domains_stops_with_a_resource_error():
    library = parse_library(BLOW_UP, "blow.hblib.toml")
    facts = parse_facts(succ_facts(0, "") + "".join(f'[[Prop]]\nname = "N"\nargs.v = {i}\n' for i in range(200))
                        + '[Goal]\nname = "G"\n', library)
    with pytest.raises(ResourceError) as info:
        Oracle(library, facts, work_limit=200_000)
    message = one_line(info.value)
    assert "condition of cycle" in message and "blow.hblib.toml" in message and "NAVIGATOR_MAX_WORK" in message


def test_a_product_of_free_fields_is_refused_before_it_is_built():
    fields = "".join(f'params.f{i} = "Int"\n' for i in range(6))
    library = parse_library(f'[Prop.N]\nparams.v = "Int"\n[Type.A]\n{fields}[Function.any]\nret = "A"\n')
    facts = parse_facts("".join(f'[[Prop]]\nname = "N"\nargs.v = {i}\n' for i in range(40))
                        + '[Goal]\nname = "A"\n', library)
    with pytest.raises(ResourceError, match="condition of any"):
        Oracle(library, facts, work_limit=100_000)


def test_the_work_budget_is_per_operation(monkeypatch):
    monkeypatch.setenv("NAVIGATOR_MAX_WORK", "not a number")
    library = parse_library(BLOW_UP)
    with pytest.raises(ResourceError, match="NAVIGATOR_MAX_WORK"):
        Oracle(library, parse_facts('[Goal]\nname = "G"\n', library))


TREE = SUCC + '''
[Type.T]
params.d = "Int"
[Function.leaf]
ret = "T"
condition = ["ret.d = 0"]
default = true
[Function.node]
params.l = "T"
params.r = "T"
ret = "T"
condition = ["Succ { n = l.d, next = ret.d }", "l.d = r.d"]
default = true
'''


def test_defaults_and_samples_of_huge_finite_programs_stop_at_the_step_budget():
    library = parse_library(TREE, "tree.hblib.toml")
    facts = parse_facts(succ_facts(20, '[Goal]\nname = "T"\nargs = { d = 20 }\n'), library)
    session = Session(library, facts)
    with pytest.raises(ResourceError, match="took 50 steps") as info:
        fill_open_holes(session, get_strategy("default"), max_steps=50)
    assert info.value.where == "tree.hblib.toml"
    with pytest.raises(ResourceError, match="more than 50 steps"):
        UniformSampler(session.oracle, max_steps=50).sample(random.Random(0))


def test_counts_beyond_4000_digits_are_refused():
    doubling = TREE.replace("default = true\n", "") + '[Function.leaf2]\nret = "T"\ncondition = ["ret.d = 0"]\n'
    library = parse_library(doubling, "doubling.hblib.toml")
    small = parse_facts(succ_facts(13, '[Goal]\nname = "T"\nargs = { d = 13 }\n'), library)
    assert len(str(Oracle(library, small).count(Sketch.initial("T")))) == 2467  # 2^(2^13)
    large = parse_facts(succ_facts(30, '[Goal]\nname = "T"\nargs = { d = 30 }\n'), library)
    with pytest.raises(ResourceError, match=r"more than 10\^4000 complete programs"):
        Oracle(library, large)


# ---------------------------------------------------------------- defaults that terminate

WRAPPED = '''
[Prop.Ok]
params.x = "Int"
[Type.S]
params.x = "Int"
[Function.wrap]
params.s = "S"
ret = "S"
default = true
[Function.base]
ret = "S"
condition = ["Ok { x = ret.x }"]
default = true
[Function.other]
ret = "S"
condition = ["Ok { x = ret.x }"]
'''
WRAPPED_FACTS = '[[Prop]]\nname = "Ok"\nargs.x = 1\n[Goal]\nname = "S"\n'


def default_fill(library_text: str, facts_text: str) -> Session:
    library = parse_library(library_text, "lib.hblib.toml")
    session = Session(library, parse_facts(facts_text, library))
    fill_open_holes(session, get_strategy("default"), max_steps=100)
    return session


def test_a_recursive_default_declared_first_does_not_loop():
    """Was: `fill --auto default --subtree` and `export --partial` ran forever."""
    session = default_fill(WRAPPED, WRAPPED_FACTS)
    assert [s.option for s in session.steps] == ["base{x=1}"]  # the finite marked option


def test_when_every_marked_option_recurses_heights_descend_to_the_smallest_completion():
    session = default_fill(WRAPPED.replace("default = true\n[Function.other]", "[Function.other]")
                           .replace('[Function.base]\nret = "S"\ncondition = ["Ok { x = ret.x }"]\ndefault = true',
                                    '[Function.base]\nret = "S"\ncondition = ["Ok { x = ret.x }"]'),
                           WRAPPED_FACTS)
    # wrap alone is marked: it is taken at the root (nothing bounds it there), then its child
    # must complete lower than wrap itself, which only the (unmarked) base does.
    assert [s.option for s in session.steps] == ["wrap{x=1}", "base{x=1}"]


def with_marks(library_text: str, marks: list[bool]) -> str:
    """Mark more functions default (the random problems mark one in five)."""
    blocks = re.split(r"(?=\[Function\.)", library_text)
    return "".join(block + "default = true\n" if mark and block.startswith("[Function.")
                   and "default = true" not in block else block
                   for block, mark in zip(blocks, marks + [False] * len(blocks)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=problems(), data=st.data())
def test_following_defaults_terminates_from_any_sketch(texts, data):
    """From a random reachable sketch, taking the lowest hole's default again and again
    stops (complete, or a hole without a default) with every path descending in height:
    no deeper than the start plus the number of inhabited pairs."""
    library_text = with_marks(texts[0], data.draw(st.lists(st.booleans(), min_size=10, max_size=10)))
    library, facts = load((library_text, texts[1]))
    oracle = Oracle(library, facts)
    sketch = oracle.initial_sketch()
    for _ in range(data.draw(st.integers(0, 3))):
        options = list(oracle.menus(sketch).options())
        if not options:
            break
        sketch = oracle.apply(sketch, data.draw(st.sampled_from(options)))
    bound = _depth(sketch.root) + sum(len(oracle.inhabited[t]) for t in library.types) + 1
    for _ in range(300):
        menus = oracle.menus(sketch)
        if sketch.complete or menus.blocked:
            break
        menu = menus.for_hole(sketch.lowest_hole().id)
        if menu.default is None:
            break
        if menus.total.finite:
            # In a finite space the library's marks decide, as they always did.
            marked = [o for o in menu.options if _old_rule_rank(library, o) is not None]
            assert menu.default == min(marked, key=lambda o: _old_rule_rank(library, o))
        sketch = oracle.apply(sketch, menu.default)
        assert _depth(sketch.root) <= bound


def _old_rule_rank(library, option):
    functions = [name for name, decl in library.functions.items() if decl.default is not None]
    if option.function not in functions:
        return None
    choice = library.functions[option.function].default.matches(option.metadata_dict())
    return None if choice is None else (functions.index(option.function), choice)


def _depth(node) -> int:
    from navigator.synth.sketch import depth_of
    return depth_of(node)


# ---------------------------------------------------------------- empty spaces


def test_an_empty_space_says_why_to_the_default_strategy_and_the_sampler():
    library = parse_library('[Type.G]\nparams = {}\n[Type.R]\nparams = {}\n[Function.g]\nparams.r = "R"\n'
                            'ret = "G"\ndefault = true\n[Function.r]\nparams.r = "R"\nret = "R"\n', "loop.hblib.toml")
    session = Session(library, parse_facts('[Goal]\nname = "G"\n', library))
    assert "recursion with no base case" in session.menus().blocked
    with pytest.raises(UserError, match="recursion with no base case"):
        fill_open_holes(session, get_strategy("default"))
    with pytest.raises(SamplingError, match="the space is empty") as info:
        UniformSampler(session.oracle).sample(random.Random(0))
    assert info.value.where == "loop.hblib.toml"
