"""The search strategies (`beam`, `anneal`): candidates replay as decisions, the simulator's
cycles decompose by region, budgets hold, the chosen schedule is one the simulator ran, and an
interrupted search leaves the session as it was."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.schedule import check_schedule
from navigator.auto import Scope, StrategyError, fill, get_strategy
from navigator.auto.decisions import decision_of, realize
from navigator.auto.scope import ScopeWalk, candidate_options
from navigator.auto.simulation import SimulatorEvaluator
from navigator.evaluation.tasks import EvalConfig, load_inputs, simulate
from tests.navigator.auto.test_strategies import SMALL, evaluation_of, new_session, space_of


def simulated_cycles(name: str, sketch) -> float:
    space, config = space_of(name), evaluation_of(name)
    inputs = load_inputs(config.spec, None, None)
    return simulate(inputs, space.schedule_of(sketch), EvalConfig(config.spec, check=True))["cycles"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["spmm", "sddmm", "gcn"]), data=st.data())
def test_a_candidates_choices_replay_it(name, data):
    """Walking a scope with random choices, then replaying the decisions it met (with a policy
    that would choose otherwise) gives the same steps: decisions name choices, not holes."""
    space = space_of(name)
    start = ScopeWalk.start(new_session(space).sketch, 0, Scope.ALL)

    def random_policy(sketch, menu):
        return data.draw(st.sampled_from(candidate_options(menu)))

    def last_policy(sketch, menu):
        return candidate_options(menu)[-1]

    candidate = realize(space.oracle, start, {}, random_policy)
    again = realize(space.oracle, start, candidate.choices, last_policy)
    assert again.steps == candidate.steps and again.sketch == candidate.sketch
    assert len({m.decision for m in candidate.met}) == len(candidate.met)  # one hole per decision


def test_decisions_name_what_the_options_share():
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.fuseflow.schedule_space import ScheduleSpace

    dims = {"N": 4, "F": 4, "H": 4, "C": 4}  # wide enough for par factors and stream shapes
    program = resolve_program("gcn", dims)
    space = ScheduleSpace.build(program, bind(program, dims=dims))
    session = new_session(space)
    fill(session, 0, get_strategy("default"), Scope.ALL, space=space)
    seen = {}
    replay = new_session(space)
    for step in session.steps:
        menu = replay.menus().for_hole(step.hole)
        if len(candidate_options(menu)) > 1:
            kind, param, functions, shared = decision_of(menu)
            seen[functions] = dict(shared)
        replay.apply(step.hole, step.option)
    assert set(seen[("par",)]) == {"region", "var"}
    assert "region" in seen[("order",)] and "order" not in seen[("order",)]


@pytest.mark.parametrize("name", ["spmm", "gcn"])
def test_simulated_cycles_are_the_sum_of_the_regions(name):
    space = space_of(name)
    session = new_session(space)
    fill(session, 0, get_strategy("heuristic"), Scope.ALL, space=space)
    with SimulatorEvaluator(space, evaluation_of(name), budget=2) as evaluator:
        (result,) = evaluator.evaluate([session.sketch])
        assert evaluator.evaluate([session.sketch]) == [result] and evaluator.evaluations == 1  # from memory
    assert result.ok and math.isclose(sum(result.regions.values()), result.cycles)
    assert set(result.regions) == {"+".join(rs.ops) for rs in space.schedule_of(session.sketch).regions}


def test_the_budget_caps_simulations():
    space = space_of("gcn")
    sketches = []
    for strategy in ("default", "heuristic"):
        session = new_session(space)
        fill(session, 0, get_strategy(strategy), Scope.ALL, space=space)
        sketches.append(session.sketch)
    with SimulatorEvaluator(space, evaluation_of("gcn"), budget=1) as evaluator:
        first, second = evaluator.evaluate(sketches)
    assert first is not None and second is None and evaluator.evaluations == 1


@pytest.mark.parametrize("strategy", ["beam", "anneal"])
@pytest.mark.parametrize("name", ["spmm", "gcn"])
def test_search_returns_its_best_simulated_schedule(name, strategy):
    space = space_of(name)
    session = new_session(space)
    records = fill(session, 0, get_strategy(strategy, budget=6), Scope.ALL, space=space,
                   evaluation=evaluation_of(name))
    assert session.complete
    check_schedule(space.program, space.binding, space.schedule_of(session.sketch))
    figures = records[0].figures
    assert 1 <= figures["evaluated"]["simulator"] <= 6
    assert figures["evaluated"]["cost_model"] >= 1
    # the schedule taken is the one the simulator ran and reported as the best
    assert simulated_cycles(name, session.sketch) == figures["compared"]["best_simulated_cycles"]
    assert all(r.by == f"strategy:{strategy}" for r in records)


def test_beam_is_at_least_as_good_as_the_heuristic_it_starts_from():
    """The beam simulates the cost model's best structures with the heuristic's other choices
    and only ever keeps a faster one: with enough budget it is never slower than the
    heuristic's schedule when their structures agree, and on gcn it is faster."""
    space = space_of("gcn")
    heuristic = new_session(space)
    fill(heuristic, 0, get_strategy("heuristic"), Scope.ALL, space=space)
    beam = new_session(space)
    fill(beam, 0, get_strategy("beam", budget=36), Scope.ALL, space=space, evaluation=evaluation_of("gcn"))
    assert simulated_cycles("gcn", beam.sketch) <= simulated_cycles("gcn", heuristic.sketch)


def test_holes_the_user_filled_stay(monkeypatch):
    space = space_of("gcn")
    session = new_session(space)
    for _ in range(4):  # the user's own choices: the last plain option each time
        menu = session.menus().holes[0]
        session.apply(menu.hole, candidate_options(menu)[-1].id)
    assert not session.complete
    before = session.steps
    fill(session, session.sketch.lowest_hole().id, get_strategy("beam", budget=3), Scope.ALL, space=space,
         evaluation=evaluation_of("gcn"))
    assert session.steps[:len(before)] == before


def test_search_needs_a_way_to_simulate():
    space = space_of("spmm")
    with pytest.raises(StrategyError, match="confirms its candidates with the simulator"):
        fill(new_session(space), 0, get_strategy("beam"), Scope.ALL, space=space)


@pytest.mark.parametrize("options, message", [
    ({"budget": 0}, "--budget must be a whole number of at least 1"),
    ({"budget": -2}, "--budget must be a whole number of at least 1"),
    ({"limit": 5}, "--limit does not apply to the beam strategy"),
    ({"scheduler": "tcp://127.0.0.1:1"}, "--scheduler is for --engine dask"),
])
def test_bad_search_options(options, message):
    space = space_of("spmm")
    with pytest.raises(StrategyError, match=message):
        fill(new_session(space), 0, get_strategy("beam", **options), Scope.ALL, space=space,
             evaluation=evaluation_of("spmm"))


@pytest.mark.parametrize("strategy", ["beam", "anneal"])
def test_ctrl_c_during_a_simulation_keeps_the_session(monkeypatch, strategy):
    import navigator.evaluation.tasks as evaluation

    space = space_of("gcn")
    session = new_session(space)
    session.apply(0, session.menus().for_hole(0).options[0].id)
    before = (session.sketch, session.steps, session.redo_steps)
    calls = []

    def interrupted(task):
        calls.append(task)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(task)

    real = evaluation.run_task
    monkeypatch.setattr(evaluation, "run_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fill(session, session.sketch.lowest_hole().id, get_strategy(strategy, budget=10), Scope.ALL, space=space,
             evaluation=evaluation_of("gcn"))
    assert len(calls) == 3 and (session.sketch, session.steps, session.redo_steps) == before


def test_candidates_run_without_numerics_and_only_the_choice_is_checked(monkeypatch):
    """A search's candidates are simulated without values (no check, the same cycles); the
    schedule it chooses is simulated once more with the check, and a failing check there is
    the search's error, with the session left as it was."""
    import simulator.evaluate as evaluate_module
    from simulator.evaluate import Check

    space = space_of("spmm")
    session = new_session(space)
    fill(session, 0, get_strategy("heuristic"), Scope.ALL, space=space)
    with SimulatorEvaluator(space, evaluation_of("spmm"), budget=2, numerics=False) as blind, \
            SimulatorEvaluator(space, evaluation_of("spmm"), budget=2) as checked:
        assert blind.evaluate([session.sketch]) == checked.evaluate([session.sketch])
        assert blind.candidate_config.check is False and checked.candidate_config.check is True

    checks = []
    real_compare = evaluate_module.compare

    def counting(*args, **kwargs):
        checks.append(1)
        return real_compare(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "compare", counting)
    searched = new_session(space)
    records = fill(searched, 0, get_strategy("beam", budget=4), Scope.ALL, space=space,
                   evaluation=evaluation_of("spmm"))
    assert records[0].figures["compared"]["choice_checked"] is True
    assert len(checks) == 1 and records[0].figures["evaluated"]["simulator"] >= 2

    monkeypatch.setattr(evaluate_module, "compare", lambda *a, **k: Check(False, 1.0))
    failing = new_session(space)
    with pytest.raises(StrategyError, match="fails when simulated with values"):
        fill(failing, 0, get_strategy("beam", budget=4), Scope.ALL, space=space, evaluation=evaluation_of("spmm"))
    assert not failing.steps
