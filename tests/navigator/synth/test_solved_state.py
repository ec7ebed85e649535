"""An oracle given another's solved tables and counts (navigator.synth.solved_state, through
JSON text as a cache keeps them) answers as one that solved them: the same menus, counts and
blocked reasons along random runs of random libraries; data of another shape is ignored."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.synth import Oracle
from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems


def through_json(data):
    return json.loads(json.dumps(data))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=problems(), data=st.data())
def test_a_restored_oracle_answers_as_one_that_solved(texts, data):
    library, facts = load(texts)
    solving = Oracle(library, facts)
    restored = Oracle(library, facts, solved=through_json(solving.solved_state()))
    assert restored.restored_solved and not solving.restored_solved
    assert restored.goal_metadata == solving.goal_metadata
    assert restored.count_with_aliases() == solving.count_with_aliases()
    sketch = solving.initial_sketch()
    for _ in range(data.draw(st.integers(1, 10))):
        menus = solving.menus(sketch)
        assert restored.menus(sketch).to_dict() == menus.to_dict()
        options = list(menus.options())
        if menus.blocked is not None or not options:
            break
        sketch = solving.apply(sketch, data.draw(st.sampled_from(options)))


def test_a_snapshot_of_a_large_count_and_of_true_beside_1_round_trips():
    from navigator.synth.solved_state import _decode, _encode

    for n in (0, 1, 2 ** 53 - 1, 2 ** 53, 10 ** 688, None):
        assert _decode(json.loads(json.dumps(_encode(n)))) == n


@given(texts=problems())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_data_of_another_shape_is_ignored_and_the_oracle_solves(texts):
    library, facts = load(texts)
    solving = Oracle(library, facts)
    state = through_json(solving.solved_state())
    for broken in ({}, {**state, "format": 0}, {**state, "groups": [["NoSuchType", [], [], []]]},
                   {**state, "goal": [10 ** 6]}, {**state, "counts": "x"}):
        oracle = Oracle(library, facts, solved=broken)
        assert not oracle.restored_solved
        assert oracle.count_with_aliases() == solving.count_with_aliases()
