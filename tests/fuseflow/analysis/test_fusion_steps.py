"""Fusion chosen region by region (fuseflow.analysis.fusion_steps): every legal grouping has exactly one
derivation, every offered step can be completed, and nothing else is reachable."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseflow.program.bundled import bundled_program_names, resolve_program
from fuseflow.program.frontend import load_program, parse_program
from fuseflow.analysis.fusion import grouping_problem, legal_groupings, region_cannot_grow, region_problem
from fuseflow.analysis.fusion_count import count_legal_groupings
from fuseflow.analysis.fusion_shortcuts import largest_fusion, shortcut_groupings
from fuseflow.analysis.fusion_steps import DONE, FusionSteps
from fuseflow.analysis.unification import UnificationError, unify_grow, unify_region
from fuseflow.support.memory import ResourceError

from tests.bundled import LARGE_PROGRAMS
from tests.dag_programs import dag_programs
from tests.partitions import set_partitions
from tests.paths import PROGRAMS as PROGRAMS_FOLDER

PROGRAMS = sorted(PROGRAMS_FOLDER.glob("*.toml"))


def derivations(steps: FusionSteps) -> list[tuple[tuple[str, ...], ...]]:
    """Every grouping the steps build, in the order a depth-first walk over the menus meets them;
    fails on a state with no step (an offered step that cannot be completed)."""
    found = []
    stack = [(steps.start(), ())]
    while stack:
        state, placed = stack.pop()
        if state.done:
            found.append(placed)
            continue
        offered = steps.steps(state)
        assert offered, f"dead end at {steps.state_id(state)}"
        stack.extend((step.next, placed + (step.region,)) for step in reversed(offered))
    return found


def count_by_steps(steps: FusionSteps) -> int:
    """Completions per state, summed over the derivation graph (a DAG: every step places ops)."""
    memo = {}

    def count(state):
        if state.done:
            return 1
        if state not in memo:
            memo[state] = sum(count(step.next) for step in steps.steps(state))
        return memo[state]
    return count(steps.start())


@settings(max_examples=300, deadline=None)
@given(dag_programs(max_ops=9))
def test_the_steps_build_each_legal_grouping_exactly_once(text):
    program = parse_program(text, "dag.toml")
    built = derivations(FusionSteps(program))
    assert len(built) == len(set(built))  # one derivation per grouping
    assert built == list(legal_groupings(program))  # the same set, in the enumeration's order


@settings(max_examples=100, deadline=None)
@given(dag_programs(max_ops=7))
def test_the_steps_reach_exactly_the_partitions_the_validator_accepts(text):
    program = parse_program(text, "dag.toml")
    names = [op.name for op in program.ops]
    position = program.op_position
    legal = {tuple(sorted((tuple(sorted(group, key=position.get)) for group in partition),
                          key=lambda group: position[group[0]]))
             for partition in set_partitions(names) if grouping_problem(program, partition) is None}
    assert set(derivations(FusionSteps(program))) == legal


@settings(max_examples=200, deadline=None)
@given(dag_programs(max_ops=9))
def test_counting_over_the_steps_equals_the_counter(text):
    program = parse_program(text, "dag.toml")
    steps = FusionSteps(program)
    assert count_by_steps(steps) == count_legal_groupings(program) == len(list(legal_groupings(program)))


@settings(max_examples=200, deadline=None)
@given(dag_programs(max_ops=9), st.data())
def test_every_offered_step_is_completable_and_every_state_reached_has_a_name(text, data):
    program = parse_program(text, "dag.toml")
    steps = FusionSteps(program)
    names = {}
    for state in steps.reachable():
        name = steps.state_id(state)
        assert names.setdefault(name, state) == state  # names are unique
        if not state.done:
            for step in steps.steps(state):
                # the rest as single-op regions is a legal completion
                rest = tuple((program.ops[i].name,) for i in range(len(program.ops)) if step.next.unplaced >> i & 1)
                placed = derivation_prefix(steps, state) + [step.region]
                assert grouping_problem(program, placed + list(rest)) is None
    assert steps.state_id(steps.start()).startswith("from ")
    assert DONE in names


def derivation_prefix(steps: FusionSteps, target) -> list[tuple[str, ...]]:
    """Regions placed on some path from the start to `target`."""
    stack = [(steps.start(), [])]
    seen = set()
    while stack:
        state, placed = stack.pop()
        if state == target:
            return placed
        if state in seen:
            continue
        seen.add(state)
        stack.extend((step.next, placed + [step.region]) for step in steps.steps(state))
    raise AssertionError("state not reachable")


@settings(max_examples=150, deadline=None)
@given(dag_programs(max_ops=8))
def test_largest_fusion_is_the_brute_force_minimum(text):
    program = parse_program(text, "dag.toml")
    best = min(legal_groupings(program),
               key=lambda g: (len(g), [-len(r) for r in sorted(g, key=len, reverse=True)]))
    assert largest_fusion(program) == best


@settings(max_examples=100, deadline=None)
@given(dag_programs(max_ops=8))
def test_every_shortcut_is_a_legal_grouping_the_steps_reach(text):
    program = parse_program(text, "dag.toml")
    steps = FusionSteps(program)
    for name, grouping in shortcut_groupings(program).items():
        assert grouping_problem(program, grouping) is None, name
        assert steps.derivation(grouping) is not None, name


def assert_region_facts_match_the_rules(program):
    """The per-region facts the steps memoize, built from grown unifications, say what the
    region rules say of each region examined, and a unification grown from scratch has the
    Region's loop variables."""
    steps = FusionSteps(program)
    steps.reachable()
    assert steps._facts
    for region, facts in steps._facts.items():
        ops = steps._ops(region)
        assert (facts is None) == region_cannot_grow(program, ops), ops
        if facts is not None:
            assert facts[0] == (region_problem(program, ops) is None), ops
        try:
            expected = len(unify_region(program, ops).vars)
        except UnificationError:
            expected = None
        unification = unify_grow(program, region)
        assert (None if unification is None else unification.count) == expected, ops


@settings(max_examples=200, deadline=None)
@given(dag_programs(max_ops=9))
def test_memoized_region_facts_agree_with_the_region_rules(text):
    assert_region_facts_match_the_rules(parse_program(text, "dag.toml"))


@pytest.mark.parametrize("name", [p.stem for p in PROGRAMS] + ["transformer12"])
def test_memoized_region_facts_agree_with_the_region_rules_on_bundled_programs(name):
    assert_region_facts_match_the_rules(resolve_program(name))


@pytest.mark.parametrize("path", [p for p in PROGRAMS if p.stem not in LARGE_PROGRAMS], ids=lambda p: p.stem)
def test_every_bundled_program_builds_its_enumerated_groupings(path):
    program = load_program(path)
    assert derivations(FusionSteps(program)) == list(legal_groupings(program))


@pytest.mark.parametrize("name", bundled_program_names())
def test_every_bundled_program_counts_the_same_over_its_steps(name):
    """Also the programs whose groupings are too many to list (transformer12: about 4e76)."""
    program = resolve_program(name)
    steps = FusionSteps(program)
    assert count_by_steps(steps) == count_legal_groupings(program)
    for grouping in shortcut_groupings(program).values():
        assert steps.derivation(grouping) is not None and grouping_problem(program, grouping) is None


def test_a_derivation_of_an_illegal_grouping_is_none():
    program = load_program(next(p for p in PROGRAMS if p.stem == "gcn"))
    steps = FusionSteps(program)
    assert steps.derivation([("aggregate1", "activate1"), ("transform1",), ("aggregate2", "transform2", "bias2")]) \
        is None
    legal = next(iter(legal_groupings(program)))
    assert [step.region for _, step in steps.derivation(legal)] == list(legal)


def test_a_placed_region_links_the_ops_around_it():
    """p and q both feed r and s. Once {p, r} is placed, q must run before that region and s
    after it, so {q, s} would close a cycle even though it is connected and convex: the state
    records the link q -> s and the step is not offered."""
    text = """name = "link"
[dims]
N = 3
[tensors]
X = { shape = ["N", "N"], source = "random" }
[[ops]]
name = "p"
expr = "P(i,j) = exp(X(i,j))"
[[ops]]
name = "q"
expr = "Q(i,j) = relu(X(i,j))"
[[ops]]
name = "r"
expr = "R(i,j) = P(i,j) + Q(i,j)"
[[ops]]
name = "s"
expr = "S(i,j) = P(i,j) * Q(i,j)"
"""
    program = parse_program(text, "link.toml")
    steps = FusionSteps(program)
    after = steps.step(steps.start(), ("p", "r")).next
    assert steps.state_id(after) == "from q; placed r; q->s"
    assert [step.region for step in steps.steps(after)] == [("q",)]
    assert grouping_problem(program, [("p", "r"), ("q", "s")]) is not None
    assert derivations(steps) == list(legal_groupings(program))


def test_a_wide_fan_out_runs_out_of_steps_with_a_user_error(monkeypatch):
    from fuseflow.analysis import fusion_steps

    monkeypatch.setattr(fusion_steps, "MAX_STEP_WORK", 5_000)
    text = ('name = "fan"\n[dims]\nN = 4\n[tensors]\nX = { shape = ["N", "N"], source = "random" }\n'
            '[[ops]]\nname = "hub"\nexpr = "H(i,j) = exp(X(i,j))"\n'
            + "".join(f'[[ops]]\nname = "w{k}"\nexpr = "T{k}(i,j) = relu(H(i,j))"\n' for k in range(24)))
    with pytest.raises(ResourceError, match="exploring fusion regions") as info:
        FusionSteps(parse_program(text, "fan.toml")).reachable()
    assert info.value.where == "fan.toml" and "split the program" in info.value.fix
