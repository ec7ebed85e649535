"""Sessions: steps with provenance, undo/redo, deterministic replay, save and load."""

from __future__ import annotations

import json

import pytest

from navigator.lang import parse_facts
from navigator.navigation.roundtrip import verify_session_roundtrip
from navigator.navigation.session import Session
from navigator.navigation.session_errors import SessionError
from navigator.navigation.session_format import load_session, save_session, session_from_data
from navigator.navigation.step_log import StepRecord
from navigator.synth import Oracle, sketch_to_json

from harness.honeybee_examples import SCHED_FACTS, sched

TICKS = iter(range(10**6))


def clock():
    return f"2025-01-01T00:00:{next(TICKS) % 60:02d}.000Z"


def new_session(**kwargs):
    library, facts = sched()
    return Session(library, facts, clock=clock, **kwargs)


def drive(session):
    session.apply(0, "fused_schedule{fused=true}")
    session.apply_default(1, rationale="the only grouping with one region")
    session.apply(2, "region_schedule{region=0}", by="strategy:heuristic", rationale="only choice")
    session.apply(3, 'choose_order{region=0, order="i j"}')
    return session


def test_steps_record_provenance():
    session = drive(new_session())
    by = [s.by for s in session.steps]
    assert by == ["user", "default", "strategy:heuristic", "user"]
    assert session.steps[1].option == 'choose_grouping{groups="0,1", regions=1}'
    assert session.steps[1].rationale == "the only grouping with one region"
    assert session.steps[2].metadata == (("region", 0),)
    assert all(s.timestamp.startswith("2025-01-01T") for s in session.steps)


def test_undo_redo():
    session = drive(new_session())
    before = session.sketch
    undone = session.undo()
    assert undone.hole == 3 and session.sketch.has_hole(3)
    session.undo()
    assert session.can_redo and [s.hole for s in session.redo_steps] == [2, 3]
    session.redo()
    redone = session.redo()
    assert redone == undone  # same record, provenance and timestamp kept
    assert session.sketch == before and not session.can_redo
    session.undo()
    session.apply(3, 'choose_order{region=0, order="i j"}')
    assert not session.can_redo  # a new step clears the redo stack
    while session.can_undo:
        session.undo()
    assert session.sketch == session.oracle.initial_sketch()
    with pytest.raises(SessionError, match="nothing to undo"):
        session.undo()


def test_rejects_steps_that_are_not_offered():
    session = new_session()
    with pytest.raises(SessionError, match="is not an open hole"):
        session.apply(5, "x")
    session.apply(0, "fused_schedule{fused=true}")
    with pytest.raises(SessionError) as info:
        session.apply(1, 'choose_grouping{groups="0|1", regions=2}')
    assert "is not offered at ?1" in str(info.value)
    assert 'choose_grouping{groups="0,1", regions=1}' in str(info.value)
    with pytest.raises(ValueError):
        session.apply(1, 'choose_grouping{groups="0,1", regions=1}', by="robot")


def test_apply_default_without_a_hole_takes_the_first_hole_that_has_one():
    session = new_session()
    with pytest.raises(SessionError, match="no default"):
        session.apply_default()
    session.apply(0, "fused_schedule{fused=true}")
    record = session.apply_default()
    assert record.hole == 1 and record.by == "default"


def test_replay_from_the_step_log_is_deterministic():
    session = drive(new_session())
    library, facts = sched()
    again = Session.from_steps(library, facts, session.steps)
    assert again.sketch == session.sketch
    assert again.steps == session.steps


def test_save_load_round_trip(tmp_path):
    session = drive(new_session(context={"program": "spmm.toml", "hashes": {"lib": "abc"}}))
    session.undo()
    path = tmp_path / "s.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    assert data["format"] == "navigator-session" and data["version"] == 2
    assert data["context"] == {"program": "spmm.toml", "hashes": {"lib": "abc"}}
    library, facts = sched()
    loaded = load_session(path, library, facts)
    assert loaded.sketch == session.sketch
    assert loaded.steps == session.steps
    assert loaded.redo_steps == session.redo_steps
    assert loaded.context == session.context
    loaded.redo()
    assert sketch_to_json(loaded.sketch)["App"][0]["name"] == "fused_schedule"
    # Saving the loaded session reproduces the file.
    loaded.undo()
    save_session(loaded, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == data
    verify_session_roundtrip(session)


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "corrupted session file: invalid JSON at line 1"),
    ("[1, 2]", "not a navigator session file"),
    ('{"format": "other-tool", "version": 1}', "not a navigator session file"),
    ('{"format": "navigator-session"}', "missing or invalid version"),
    ('{"format": "navigator-session", "version": 3, "steps": []}', "version 3 is newer"),
    ('{"format": "navigator-session", "version": 0, "steps": []}', "unsupported session file version 0"),
    ('{"format": "navigator-session", "version": 1}', "no steps"),
    ('{"format": "navigator-session", "version": 1, "steps": {}}', "steps must be a JSON array"),
    ('{"format": "navigator-session", "version": 1, "steps": [{"hole": 0}]}', "no option string"),
    ('{"format": "navigator-session", "version": 1, "steps": [{"hole": 0, "option": "f", '
     '"function": "g", "metadata": {}, "by": "user"}]}', "does not match its function"),
    ('{"format": "navigator-session", "version": 1, "steps": [{"hole": 0, "option": "f", '
     '"function": "f", "metadata": {}, "by": "user"}]}', "step 1 (?0 := f) cannot be replayed"),
])
def test_bad_session_files_are_reported_and_left_alone(tmp_path, content, fragment):
    path = tmp_path / "s.json"
    path.write_text(content)
    library, facts = sched()
    with pytest.raises(SessionError) as info:
        load_session(path, library, facts)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)
    assert path.read_text() == content


def test_session_against_changed_facts_names_the_step(tmp_path):
    session = drive(new_session())
    path = tmp_path / "s.json"
    save_session(session, path)
    library, facts = sched()
    changed = parse_facts(SCHED_FACTS.read_text().replace('"i j"', '"j k"'), library)
    before = path.read_text()
    with pytest.raises(SessionError) as info:
        load_session(path, library, changed)
    assert "step 4" in str(info.value) and "cannot be replayed" in str(info.value)
    assert path.read_text() == before


def test_edited_sketch_is_detected(tmp_path):
    session = drive(new_session())
    path = tmp_path / "s.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    data["sketch"] = {"Hole": 0}
    path.write_text(json.dumps(data))
    library, facts = sched()
    with pytest.raises(SessionError, match="does not give the sketch saved"):
        load_session(path, library, facts)


def test_step_record_round_trip():
    record = StepRecord(3, 'f{x=1, s="a"}', "f", (("x", 1), ("s", "a")), "strategy:llm", "why", "t")
    assert StepRecord.from_dict(record.to_dict(), "here") == record


def test_shared_oracle():
    library, facts = sched()
    oracle = Oracle(library, facts)
    a = Session(library, facts, oracle=oracle)
    b = Session(library, facts, oracle=oracle)
    assert a.oracle is b.oracle


def test_a_redo_stack_that_no_longer_replays_is_refused_at_load(tmp_path):
    session = drive(new_session())
    session.undo()
    path = tmp_path / "s.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    data["redo"].insert(0, data["steps"][0])  # ?0 is filled already: this step cannot be re-taken
    path.write_text(json.dumps(data))
    library, facts = sched()
    with pytest.raises(SessionError) as info:
        load_session(path, library, facts)
    assert f"{path}: redo[0]" in str(info.value)
    assert "undone step 1 (?0 := fused_schedule{fused=true}) cannot be replayed" in str(info.value)


def test_checking_the_redo_stack_leaves_it_as_saved(tmp_path):
    session = drive(new_session())
    session.undo()
    session.undo()
    path = tmp_path / "s.json"
    save_session(session, path)
    library, facts = sched()
    loaded = load_session(path, library, facts)
    assert loaded.redo_steps == session.redo_steps and loaded.steps == session.steps
    assert loaded.sketch == session.sketch
    verify_session_roundtrip(session)


def test_the_saved_sketch_may_be_ignored_when_the_log_is_the_truth(tmp_path):
    session = drive(new_session())
    path = tmp_path / "s.json"
    save_session(session, path)
    data = json.loads(path.read_text())
    data["sketch"] = {"Hole": 0}
    library, facts = sched()
    loaded = session_from_data(data, "s.json", library, facts, check_sketch=False)
    assert loaded.sketch == session.sketch


def test_a_session_file_with_an_unpaired_surrogate_is_corrupted(tmp_path):
    session = drive(new_session())
    path = tmp_path / "s.json"
    save_session(session, path)
    text = path.read_text().replace('"only choice"', '"\\ud800"')
    path.write_text(text)
    library, facts = sched()
    with pytest.raises(SessionError, match=r"steps\[2\].rationale holds text that is not valid Unicode"):
        load_session(path, library, facts)


def test_a_context_json_cannot_hold_is_refused_when_saving(tmp_path):
    session = new_session(context={"ratio": float("nan")})
    with pytest.raises(SessionError, match="not JSON-serialisable"):
        save_session(session, tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()
