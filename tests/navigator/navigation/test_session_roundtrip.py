"""Sessions round-trip: save, load, replay, equal (navigator.navigation.roundtrip).

1. Random navigations of random problems (single steps with any provenance, rationale and
   figures, commands of several steps, defaults, undo and redo of steps and of commands, forced
   steps on and off, a free-form context) survive `verify_session_roundtrip`.
2. The helper names the first part that differs, when the file does not hold the state.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from navigator.navigation.roundtrip import verify_session_roundtrip
from navigator.navigation.session import Session
from navigator.navigation.session_errors import SessionError
from navigator.navigation.step_log import StepRecord

from harness.honeybee_examples import recursive, sched
from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems

#: steps and undos are drawn more often than the rest, so that the redo stack often holds several
ACTIONS = ("apply", "apply", "apply", "command", "command", "default", "undo", "undo", "redo", "undo_command",
           "undo_command", "redo_command", "toggle_forced")
#: what a session's context and a step's figures may hold: what JSON holds and reads back as equal
_SCALARS = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8)
_FIGURES = st.dictionaries(st.text(max_size=6), _SCALARS | st.floats(allow_nan=False, allow_infinity=False)
                           | st.dictionaries(st.text(max_size=6), _SCALARS, max_size=2), max_size=3)
_CONTEXT = st.dictionaries(st.text(max_size=6), st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6), max_size=3)


def navigable():
    """(library, facts): an example problem whose sessions run many steps deep (one of them
    recursive, with infinitely many programs), or a random small one."""
    return st.sampled_from([sched, recursive]).map(lambda make: make()) | problems().map(load)


def examples(n):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def take_random_step(session: Session, data) -> None:
    options = list(session.menus().options())
    if not options:
        return
    option = data.draw(st.sampled_from(options))
    by = data.draw(st.sampled_from(["user", "strategy:random"] + (["default"] if option.is_default else [])))
    rationale = data.draw(st.none() | st.text(max_size=12), label="rationale")
    figures = data.draw(st.none() | _FIGURES, label="figures") if by.startswith("strategy:") else None
    session.apply(option.hole, option.id, by=by, rationale=rationale, figures=figures)


def act(session: Session, action: str, data) -> None:
    if action == "apply":
        take_random_step(session, data)
    elif action == "command":
        with session.command():
            for _ in range(data.draw(st.integers(1, 3))):
                take_random_step(session, data)
    elif action == "default":
        try:
            session.apply_default()
        except SessionError:
            pass  # no open hole has a default
    elif action == "toggle_forced":
        session.forced_steps = not session.forced_steps
        session.settle()
    elif action in ("undo", "undo_command") and session.can_undo:
        getattr(session, action)()
    elif action in ("redo", "redo_command") and session.can_redo:
        getattr(session, action)()


@examples(120)
@given(problem=navigable(), forced=st.booleans(), context=_CONTEXT, data=st.data())
def test_random_navigations_round_trip(problem, forced, context, data):
    library, facts = problem
    session = Session(library, facts, context=context, forced_steps=forced)
    session.settle()
    assume(session.steps or list(session.menus().options()))  # a problem with nothing to navigate
    for action in data.draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=12), label="actions"):
        act(session, action, data)
    loaded = verify_session_roundtrip(session)
    # the loaded session navigates on as the original does
    if session.can_redo:
        assert loaded.redo_command() == session.redo_command() and loaded.sketch == session.sketch
    if session.can_undo:
        assert loaded.undo_command() == session.undo_command() and loaded.sketch == session.sketch


def test_the_round_trip_of_a_driven_session_with_forced_steps():
    library, facts = sched()
    session = Session(library, facts, forced_steps=True, context={"program": "spmm.toml"})
    session.apply(0, "fused_schedule{fused=true}", rationale="the whole space")
    session.undo()
    loaded = verify_session_roundtrip(session)
    assert loaded.redo_steps == session.redo_steps and loaded.forced_steps


def test_a_context_json_reads_back_differently_is_named():
    library, facts = sched()
    session = Session(library, facts, context={"pair": (1, 2)})  # JSON reads a tuple back as a list
    with pytest.raises(AssertionError, match=r"loaded from its file differs in context: \{'pair': \[1, 2\]\}"):
        verify_session_roundtrip(session)


def test_a_step_the_file_does_not_hold_is_named(monkeypatch):
    library, facts = sched()
    session = Session(library, facts)
    session.apply(0, "fused_schedule{fused=true}")
    session.apply_default(1, rationale="the only grouping with one region")
    written = StepRecord.to_dict

    def without_rationale(record):
        data = written(record)
        data.pop("rationale", None)
        return data

    monkeypatch.setattr(StepRecord, "to_dict", without_rationale)
    with pytest.raises(AssertionError, match=r"loaded from its file differs in steps\[1\]: .*rationale=None"):
        verify_session_roundtrip(session)
