"""navigator.auto's planning strategies: validity, untouched filled holes, exhaustive against
brute force, provenance through save/load/replay, and all-or-nothing fills."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import check_schedule
from navigator.auto import Plan, PlannedStep, Scope, StrategyError, fill, get_strategy
from navigator.auto.exhaustive import scope_count
from navigator.auto.base import StrategyContext
from navigator.auto.scope import complete_for_scoring
from navigator.auto.scoring import CostModelScorer
from navigator.navigation.roundtrip import verify_session_roundtrip
from navigator.navigation.session import Session
from navigator.navigation.session_format import load_session, save_session
from navigator.fuseflow.schedule_space import ScheduleSpace
from tests.navigator.fuseflow.space_helpers import menu_completions, prefill_randomly

SMALL = {"spmm": {"N": 2, "J": 2}, "sddmm": {"N": 2, "K": 2}, "gcn": {"N": 1, "F": 1, "H": 1, "C": 1}}
STRATEGIES = ("default", "heuristic", "exhaustive", "beam", "anneal")
#: options that keep each strategy quick on the small programs
QUICK = {"exhaustive": {"limit": 2000}, "beam": {"budget": 4}, "anneal": {"budget": 4, "steps": 8}}


@functools.lru_cache(maxsize=None)
def space_of(name: str) -> ScheduleSpace:
    program = resolve_program(name, SMALL[name])
    return ScheduleSpace.build(program, bind(program, dims=SMALL[name]))


@functools.lru_cache(maxsize=None)
def evaluation_of(name: str):
    """How the simulator runs the small program (its spec: bundled name and dims)."""
    from navigator.evaluation.tasks import EvalConfig
    from navigator.workspace.spec import ProgramSpec

    return EvalConfig(ProgramSpec.from_user(name, None, SMALL[name]))


def new_session(space: ScheduleSpace) -> Session:
    return Session(space.library, space.facts, oracle=space.oracle)


def brute_force_best(space: ScheduleSpace, sketch):
    """The least (cycles, bytes) over every completion the menus reach (shortcuts included),
    and how many distinct schedules they are."""
    scorer = CostModelScorer(space)
    completions = list(menu_completions(space, sketch))
    return min(scorer.score(done) for done in completions), len({space.schedule_of(d) for d in completions})


@pytest.mark.parametrize("name", ["spmm", "sddmm"])
def test_exhaustive_finds_the_brute_force_minimum(name):
    space = space_of(name)
    session = new_session(space)
    best, how_many = brute_force_best(space, session.sketch)
    records = fill(session, 0, get_strategy("exhaustive"), Scope.ALL, space=space)
    assert session.complete
    assert CostModelScorer(space).score(session.sketch) == best
    figures = records[0].figures
    assert figures["evaluated"] == {"cost_model": how_many, "simulator": 0}
    assert figures["compared"]["best_cycles"] == best[0] and figures["compared"]["best_bytes"] == best[1]


@pytest.mark.parametrize("name", ["spmm", "gcn"])
def test_scope_counts_match_what_is_enumerated(name):
    """The count exhaustive checks against --limit is the number of candidates it scores."""
    space = space_of(name)
    session = new_session(space)
    session.apply(0, session.menus().for_hole(0).default.id)  # past the root: a subtree to count
    for hole in [h.id for h in session.sketch.holes()]:
        context = StrategyContext.of(session, space)
        for scope in (Scope.HOLE, Scope.SUBTREE):
            expected = scope_count(context, hole, scope).value
            if expected is None or expected > 3000:
                continue
            plan = get_strategy("exhaustive", limit=3000).plan(context, hole, scope)
            assert plan.cost_model_evaluations == expected, (hole, scope)


def test_exhaustive_refuses_above_the_limit_with_the_count():
    space = space_of("gcn")
    session = new_session(space)
    total = session.menus().total.value
    with pytest.raises(StrategyError, match=f"exhaustive would evaluate {total:,} completions .* --limit 10,000"):
        fill(session, 0, get_strategy("exhaustive"), Scope.ALL, space=space)
    assert session.steps == ()


def test_strategies_that_score_need_a_cost_model():
    space = space_of("spmm")
    session = new_session(space)
    for name in ("heuristic", "exhaustive"):
        with pytest.raises(StrategyError, match="cost model, and a Honeybee problem has none"):
            fill(session, 0, get_strategy(name), Scope.ALL, space=None)


def test_options_a_strategy_does_not_take_are_refused():
    with pytest.raises(StrategyError, match="--budget does not apply to the heuristic strategy"):
        get_strategy("heuristic", budget=3)
    assert get_strategy("exhaustive", limit=5, budget=None).limit == 5


class Interrupted:
    """Plans every option of the first step, then is interrupted while the plan is applied."""

    name = "interrupted"
    provenance = "strategy:interrupted"

    def plan(self, context, hole, scope):
        option = context.menu(hole).options[0]
        return Plan((PlannedStep(hole, option.id), PlannedStep(10_000, "nowhere")), "test")


def test_a_failed_or_interrupted_fill_leaves_the_session_as_it_was(monkeypatch):
    space = space_of("spmm")
    session = new_session(space)
    session.apply(0, session.menus().for_hole(0).default.id)
    session.apply(1, session.menus().for_hole(1).default.id)
    session.undo()
    before = (session.sketch, session.steps, session.redo_steps)
    from navigator.auto import StrategyFailure

    with pytest.raises(StrategyFailure):
        fill(session, 1, Interrupted(), Scope.HOLE, space=space)
    assert (session.sketch, session.steps, session.redo_steps) == before

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(CostModelScorer, "score", interrupt)
    with pytest.raises(KeyboardInterrupt):
        fill(session, 1, get_strategy("exhaustive"), Scope.SUBTREE, space=space)
    assert (session.sketch, session.steps, session.redo_steps) == before


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SMALL)), strategy=st.sampled_from(STRATEGIES),
       scope=st.sampled_from(list(Scope)), data=st.data())
def test_random_sessions_every_strategy(tmp_path_factory, name, strategy, scope, data):
    """Random pre-filled holes, then a strategy on a random open hole: the schedule validates,
    the steps taken before are untouched, and the provenance survives save, load and replay."""
    space = space_of(name)
    session = new_session(space)
    prefill_randomly(session, data)
    if session.complete:
        return
    before_steps, before_sketch = session.steps, session.sketch
    hole = data.draw(st.sampled_from([h.id for h in session.sketch.holes()]), label="hole to fill")
    try:
        fill(session, hole, get_strategy(strategy, **QUICK.get(strategy, {})), scope, space=space,
             evaluation=evaluation_of(name))
    except StrategyError as exc:
        assert "more than --limit" in str(exc)  # the only refusal here: a space too large
        assert (session.steps, session.sketch) == (before_steps, before_sketch)
        return
    assert session.steps[:len(before_steps)] == before_steps
    assert not session.sketch.has_hole(hole)
    assert all(r.by == get_strategy(strategy).provenance for r in session.steps[len(before_steps):])
    # the earlier steps' applications are all still in the sketch
    assert Session.from_steps(space.library, space.facts, before_steps, oracle=space.oracle).sketch == before_sketch
    schedule = space.schedule_of(complete_for_scoring(space.oracle, session.sketch))
    check_schedule(space.program, space.binding, schedule)
    path = tmp_path_factory.mktemp("session") / "session.json"
    save_session(session, path)
    loaded = load_session(path, space.library, space.facts, oracle=space.oracle)
    assert loaded.steps == session.steps
    assert [r.figures for r in loaded.steps] == [r.figures for r in session.steps]
    replayed = Session.from_steps(space.library, space.facts, loaded.steps, oracle=space.oracle)
    assert replayed.sketch == session.sketch and replayed.steps == session.steps
    verify_session_roundtrip(session)


def test_heuristic_follows_its_rules_on_gcn():
    space = space_of("gcn")
    session = new_session(space)
    fill(session, 0, get_strategy("heuristic"), Scope.ALL, space=space)
    schedule = space.schedule_of(session.sketch)
    check_schedule(space.program, space.binding, schedule)
    from fuseflow.analysis.fusion_shortcuts import runs_without_recomputation
    from fuseflow.analysis.contexts import DEFAULT_POLICY

    assert all(runs_without_recomputation(space.program, rs.ops, DEFAULT_POLICY) for rs in schedule.regions)
    assert len(schedule.regions) < len(space.program.ops)  # it fused something
    assert session.steps[0].figures["compared"]["rules"]
