"""Program memos are bounded: a long search over op groups cannot grow memory without end."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion import region_problem
from fuseflow.analysis.unification import unify_region
from fuseflow.support.memo import BoundedMemo


@given(st.lists(st.integers(0, 50), max_size=200), st.integers(1, 20))
def test_the_memo_forgets_its_oldest_new_keys_beyond_its_limit(keys, limit):
    memo = BoundedMemo(limit)
    model: list[int] = []  # keys in the order they were first written since last kept
    for key in keys:
        memo[key] = key * 2
        if key not in model:
            del model[:max(0, len(model) - limit + 1)]
            model.append(key)
    assert list(memo) == model and len(memo) <= limit
    assert all(memo[k] == 2 * k for k in memo)


def test_program_memos_are_bounded_and_answers_survive_eviction():
    program = dataclasses.replace(resolve_program("gcn"), memo={})  # the bundled one is shared
    unify_region(program, ["aggregate1"])
    region_problem(program, ["aggregate1", "transform1"])
    for name in ("regions", "region_problems"):
        program.memo[name].limit = 1
    first = unify_region(program, ["aggregate1", "transform1"])
    unify_region(program, ["transform2"])  # evicts the first answer
    assert frozenset(["aggregate1", "transform1"]) not in program.memo["regions"]
    assert unify_region(program, ["aggregate1", "transform1"]) == first
    assert len(program.memo["regions"]) == 1
    assert region_problem(program, ["aggregate1", "transform2"]) is not None  # not convex
    assert len(program.memo["region_problems"]) == 1
