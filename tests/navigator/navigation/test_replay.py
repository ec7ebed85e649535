"""Replaying a target expression through offered steps."""

from __future__ import annotations

import json

import pytest

from navigator.navigation.replay import load_target, replay
from navigator.synth import ExpressionError, Oracle, sketch_to_json

from harness.honeybee_examples import recursive, sched
from tests.navigator.synth.test_printer_golden import STEPS


def complete_target():
    library, facts = sched()
    oracle = Oracle(library, facts)
    sketch = oracle.initial_sketch()
    for hole, option in STEPS:
        sketch = oracle.step(sketch, hole, option)
    return library, facts, sketch


def test_reaches_a_valid_target():
    library, facts, sketch = complete_target()
    report = replay(library, facts, sketch_to_json(sketch))
    assert report.reached and report.failure is None
    assert len(report.rounds) == sketch.size() == 10
    assert report.final_sketch.root == sketch.root
    assert [r.hole for r in report.rounds][:3] == [0, 1, 2]
    data = json.loads(json.dumps(report.to_dict()))
    assert data["reached"] and data["rounds"] == 10 and data["failure"] is None
    assert data["total_seconds"] >= data["startup_seconds"] >= 0


def test_reports_the_round_hole_and_node_that_is_not_offered():
    library, facts, sketch = complete_target()
    target = sketch_to_json(sketch)
    # Region 0 with order "j i": its level 0 is compressed, so no Par can be placed.
    r0 = target["App"][1]["r0"]["App"][1]
    r0["order"]["App"][0]["metadata"]["order"] = "j i"
    report = replay(library, facts, target)
    assert not report.reached
    failure = report.failure
    # Other holes keep progressing; ?4 is first found stuck in round 5 (round 4 filled ?3).
    assert failure.round == 10 and failure.stuck_since_round == 5
    assert failure.hole == 4 and failure.hole_type == "Order"
    assert failure.target == 'choose_order{region=0, order="j i"}'
    assert failure.target_path == "$.App[1].r0.App[1].order"
    assert "not offered" in failure.reason and 'order="i j"' in failure.reason
    assert report.to_dict()["failure"]["hole"] == 4


def test_unknown_function_and_wrong_type_reasons():
    library, facts = sched()
    report = replay(library, facts, {"App": [{"name": "mystery", "metadata": {}}, {}]})
    assert report.failure.round == 1 and "unknown function 'mystery'" in report.failure.reason
    report = replay(library, facts, {"App": [
        {"name": "choose_order", "metadata": {"region": 0, "order": "i j"}}, {}]})
    assert "choose_order returns Order, but ?0 needs a Schedule" in report.failure.reason


def test_holes_in_the_target_stay_open():
    library, facts = recursive()
    report = replay(library, facts, {"App": [{"name": "es_lt", "metadata": {"count": 3},
                                              "arity": ["in"]}, {"in": {"Hole": 1}}]})
    assert report.reached and len(report.rounds) == 1
    assert [h.id for h in report.final_sketch.holes()] == [1]


def test_malformed_target_is_a_user_error(tmp_path):
    library, facts = sched()
    with pytest.raises(ExpressionError, match="App. holds"):
        replay(library, facts, {"App": 3}, source="t.json")
    path = tmp_path / "t.json"
    path.write_text("{oops")
    with pytest.raises(ExpressionError, match="invalid JSON at line 1"):
        load_target(path)
