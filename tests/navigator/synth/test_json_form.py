"""Sketches to and from Honeybee's JSON expression form."""

from __future__ import annotations

import json

import pytest

from navigator.synth import ExpressionError, Oracle, sketch_from_json, sketch_to_json

from harness.honeybee_examples import sched


def navigate():
    library, facts = sched()
    oracle = Oracle(library, facts)
    sketch = oracle.step(oracle.initial_sketch(), 0, "fused_schedule{fused=true}")
    sketch = oracle.step(sketch, 2, "region_schedule{region=0}")
    return library, facts, sketch


def test_shape_is_honeybees():
    _, _, sketch = navigate()
    data = sketch_to_json(sketch)
    assert data == {"App": [
        {"name": "fused_schedule", "metadata": {"fused": True}, "arity": ["grouping", "r0"]},
        {"grouping": {"Hole": 1},
         "r0": {"App": [{"name": "region_schedule", "metadata": {"region": 0},
                         "arity": ["order", "par0"]},
                        {"order": {"Hole": 3}, "par0": {"Hole": 4}}]}}]}


def test_round_trip_partial_and_complete():
    library, facts, sketch = navigate()
    text = json.dumps(sketch_to_json(sketch))
    back = sketch_from_json(json.loads(text), library, facts.goal.type)
    assert back.root == sketch.root
    assert back.next_hole == 5
    # Holes get their types back from the library.
    assert [(h.id, h.type) for h in back.holes()] == [(1, "Grouping"), (3, "Order"), (4, "Par")]


def test_arity_may_be_left_out():
    library, facts = sched()
    back = sketch_from_json({"App": [{"name": "choose_grouping",
                                      "metadata": {"groups": "0,1", "regions": 1}}, {}]},
                            library, "Grouping")
    assert back.root.function == "choose_grouping"


@pytest.mark.parametrize("data, fragment, where", [
    ({"Hole": -1}, "non-negative integer", "$.Hole"),
    ({"Nope": 1}, "an expression is", "$"),
    ({"App": [{"name": "nope", "metadata": {}}, {}]}, "unknown function 'nope'", "$.App[0].name"),
    ({"App": [{"name": "choose_order", "metadata": {"region": 0, "order": "i j"}}, {}]},
     "choose_order returns Order, but a Schedule is needed here", "$.App[0].name"),
    ({"App": [{"name": "fused_schedule", "metadata": {"fused": 1}, "arity": ["grouping", "r0"]},
              {"grouping": {"Hole": 1}, "r0": {"Hole": 2}}]},
     "metadata fused is Bool, got 1", "$.App[0].metadata.fused"),
    ({"App": [{"name": "fused_schedule", "metadata": {}, "arity": ["grouping", "r0"]},
              {"grouping": {"Hole": 1}, "r0": {"Hole": 2}}]},
     "must give exactly the fields", "$.App[0].metadata"),
    ({"App": [{"name": "fused_schedule", "metadata": {"fused": True}, "arity": ["grouping"]},
              {"grouping": {"Hole": 1}}]}, "arity of fused_schedule", "$.App[0].arity"),
    ({"App": [{"name": "fused_schedule", "metadata": {"fused": True}},
              {"grouping": {"Hole": 1}, "r0": {"Hole": 1}}]}, "?1 appears twice",
     "$.App[1].r0.Hole"),
])
def test_errors_name_the_json_path(data, fragment, where):
    library, facts = sched()
    with pytest.raises(ExpressionError) as info:
        sketch_from_json(data, library, facts.goal.type, source="t.json")
    assert fragment in str(info.value)
    assert info.value.where == f"t.json: {where}"
