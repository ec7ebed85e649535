"""Forced steps and commands as undo units (navigator.navigation.session).

1. With `forced_steps`, every command ends with no open hole offering exactly one option;
   the steps it adds are `forced`, belong to the command, and change no count: the total
   before and after them is the same, and a complete sketch reached with them replays in
   as many rounds as it has steps, through the same options.
2. `undo_command` restores exactly the state before the last command (sketch and log), and
   `redo_command` the state after it, for random sequences of one- and many-step commands.
3. Old session files (version 1: no command numbers, no forced_steps) still load; each of
   their steps is its own command.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.navigation.replay import replay
from navigator.navigation.roundtrip import verify_session_roundtrip
from navigator.navigation.session import Session
from navigator.navigation.session_errors import SessionError
from navigator.navigation.session_format import load_session, save_session
from navigator.navigation.step_log import FORCED, StepRecord
from navigator.synth import sketch_to_json

from harness.honeybee_examples import sched
from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems


def examples(n):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def state(session: Session):
    return sketch_to_json(session.sketch), session.steps


def single_option_holes(session: Session) -> list[int]:
    return [m.hole for m in session.menus().holes if len(m.options) == 1]


def run_command(session: Session, data, max_steps: int) -> list:
    """One command of 1 to `max_steps` random offered steps; the totals before its forced steps."""
    before_forced = []
    with session.command() as taken:
        for _ in range(data.draw(st.integers(1, max_steps))):
            options = list(session.menus().options())
            if not options:
                break
            option = data.draw(st.sampled_from(options))
            session.apply(option.hole, option.id, by=data.draw(st.sampled_from(["user", "strategy:random"])))
        before_forced.append(session.menus().total)
    return taken, before_forced[0]


@examples(150)
@given(texts=problems(), data=st.data())
def test_forced_steps_close_every_command_and_change_no_count(texts, data):
    library, facts = load(texts)
    plain = Session(library, facts)
    session = Session(library, facts, oracle=plain.oracle, forced_steps=True)
    started = session.settle()
    assert session.menus().total == plain.menus().total  # the count at ?0, with or without them
    assert all(s.by == FORCED and s.command == 1 for s in started)
    for _ in range(4):
        if not list(session.menus().options()):
            break
        taken, total_before_forced = run_command(session, data, 3)
        assert session.menus().total == total_before_forced
        assert single_option_holes(session) == []
        assert len({s.command for s in taken}) == 1 and taken == list(session.steps[-len(taken):])
        forced_flags = [s.by == FORCED for s in taken]
        assert forced_flags == sorted(forced_flags)  # forced steps come after the command's own
    if session.complete:
        report = replay(library, facts, sketch_to_json(session.sketch), oracle=session.oracle)
        assert report.reached and report.final_sketch.root == session.sketch.root
        assert len(report.rounds) == len(session.steps)
        assert sorted(r.option for r in report.rounds) == sorted(s.option for s in session.steps)


@examples(150)
@given(texts=problems(), forced=st.booleans(), data=st.data())
def test_undo_of_the_last_command_restores_the_state_before_it(texts, forced, data):
    library, facts = load(texts)
    session = Session(library, facts, forced_steps=forced)
    session.settle()
    for _ in range(data.draw(st.integers(1, 4))):
        if not list(session.menus().options()):
            break
        before = state(session)
        taken, _ = run_command(session, data, 3)
        after = state(session)
        undone = session.undo_command()
        assert state(session) == before
        assert undone == list(reversed(taken))
        assert session.redo_command() == taken
        assert state(session) == after and not session.can_redo


def test_a_command_is_one_undo_unit_and_undo_n_counts_steps():
    library, facts = sched()
    session = Session(library, facts)
    with session.command() as first:
        session.apply(0, "fused_schedule{fused=true}")
        session.apply_default(1)
    session.apply(2, "region_schedule{region=0}")
    assert [s.command for s in session.steps] == [1, 1, 2] and len(first) == 2
    assert [s.hole for s in session.undo_command()] == [2]
    assert [s.hole for s in session.undo_command()] == [1, 0]
    assert [s.hole for s in session.redo_command()] == [0, 1]
    assert [s.hole for s in session.redo_command()] == [2]
    session.undo()  # single steps split commands: ?2, then ?1 alone
    session.undo()
    assert [s.hole for s in session.redo_command()] == [1]  # the rest of command 1 on the stack
    assert [s.hole for s in session.redo_command()] == [2]
    session.undo_command()
    session.apply(2, "region_schedule{region=0}")  # a new number, unlike the undone command's
    assert [s.command for s in session.steps] == [1, 1, 3]
    with pytest.raises(SessionError, match="nothing to redo"):
        session.redo_command()


def test_a_failed_command_takes_no_forced_step():
    library, facts = sched()
    session = Session(library, facts, forced_steps=True)
    with pytest.raises(RuntimeError):
        with session.command():
            session.apply(0, "fused_schedule{fused=true}")
            raise RuntimeError("the strategy gave up")
    assert [s.by for s in session.steps] == ["user"] and single_option_holes(session) != []
    session.settle()
    assert session.steps[-1].by == FORCED and session.steps[-1].command == 2


def test_forced_steps_are_saved_and_loaded(tmp_path):
    library, facts = sched()
    session = Session(library, facts, forced_steps=True)
    session.apply(0, "fused_schedule{fused=true}")
    assert [s.by for s in session.steps][:2] == ["user", FORCED]
    path = tmp_path / "s.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    assert data["version"] == 2 and data["forced_steps"] is True
    assert {s["command"] for s in data["steps"]} == {1}
    loaded = load_session(path, library, facts)
    assert loaded.forced_steps and loaded.steps == session.steps
    assert len(loaded.undo_command()) == len(session.steps)
    verify_session_roundtrip(session)
    plain = Session(library, facts)
    save_session(plain, path)
    assert load_session(path, library, facts).forced_steps is False


def test_a_version_1_file_loads_with_one_command_per_step(tmp_path):
    library, facts = sched()
    session = Session(library, facts)
    session.apply(0, "fused_schedule{fused=true}")
    session.apply_default(1)
    session.apply(2, "region_schedule{region=0}")
    session.undo()
    path = tmp_path / "old.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    data["version"] = 1
    del data["forced_steps"]
    for step in (*data["steps"], *data["redo"]):
        del step["command"]
    path.write_text(json.dumps(data))
    loaded = load_session(path, library, facts)
    assert loaded.forced_steps  # files from before the setting take forced steps from now on
    assert [s.command for s in loaded.steps] == [None, None]
    assert [s.hole for s in loaded.undo_command()] == [1]
    assert [s.hole for s in loaded.redo_command()] == [1]
    assert [s.hole for s in loaded.redo_command()] == [2]
    loaded.undo_command()
    with loaded.command() as taken:
        loaded.apply(2, "region_schedule{region=0}")
    assert taken[0].command == 1 and all(s.command == 1 for s in taken)


@pytest.mark.parametrize("command, fragment", [
    (0, "command must be a positive whole number"),
    ("1", "command must be a positive whole number"),
    (True, "command must be a positive whole number"),
])
def test_a_bad_command_number_is_refused(command, fragment):
    record = {"hole": 0, "option": "f", "function": "f", "metadata": {}, "by": "forced", "command": command}
    with pytest.raises(SessionError, match=fragment):
        StepRecord.from_dict(record, "steps[0]")
    record["command"] = 3
    assert StepRecord.from_dict(record, "steps[0]").command == 3


def test_history_alternatives_are_the_options_not_taken():
    library, facts = sched()
    session = Session(library, facts, forced_steps=True)
    session.apply(0, "fused_schedule{fused=true}")
    menu = session.oracle.menus(session.oracle.initial_sketch()).for_hole(0)
    assert [o.id for o in session.alternatives(0)] == [o.id for o in menu.options
                                                       if o.id != "fused_schedule{fused=true}"]
    assert all(session.alternatives(i) == () for i, s in enumerate(session.steps) if s.by == FORCED)


@examples(100)
@given(texts=problems(), data=st.data())
def test_going_to_a_step_keeps_the_forced_steps_it_caused(texts, data):
    library, facts = load(texts)
    session = Session(library, facts, forced_steps=True)
    session.settle()
    for _ in range(data.draw(st.integers(1, 4))):
        if not list(session.menus().options()):
            break
        run_command(session, data, 2)
    timeline = list(session.steps)
    end_state = state(session)
    for number in data.draw(st.lists(st.integers(0, len(timeline)), max_size=6)):
        session.go_to(number)
        taken = len(session.steps)
        assert taken >= number and list(session.steps) == timeline[:taken]
        # the steps kept past `number` are the forced ones of its command, and all of them
        assert all(s.by == FORCED and s.command == timeline[number - 1].command for s in timeline[number:taken])
        after = timeline[taken] if taken < len(timeline) else None
        assert after is None or number == 0 or after.by != FORCED or after.command != timeline[number - 1].command
        if taken and (after is None or after.command != timeline[taken - 1].command):  # a command's end
            assert single_option_holes(session) == []
    session.go_to(len(timeline))
    assert state(session) == end_state
    with pytest.raises(SessionError, match="there is no step"):
        session.go_to(len(timeline) + 1)
