"""Whole schedules compose: every legal grouping of every bundled program, with the default
orders, runs region after region through memory and matches the reference (fast executor),
and a sample of groupings does so token by token (exact executor)."""

import numpy as np
import pytest

from tests.bundled import enumerable_program_names
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.schedule import Schedule
from simulator.evaluate import evaluate
from tests.simulator.helpers import default_region, small


@pytest.mark.parametrize("name", enumerable_program_names())
def test_every_grouping_passes_the_check(name):
    program, binding, data = small(name)
    groupings = list(legal_groupings(program))
    rng = np.random.default_rng(5)
    exact_picks = set(rng.choice(len(groupings), size=min(4, len(groupings)), replace=False).tolist())
    for index, grouping in enumerate(groupings):
        schedule = Schedule(tuple(default_region(program, ops) for ops in grouping))
        report = evaluate(program, binding, schedule, data=data)
        assert report.check.passed, grouping
        if index in exact_picks:
            assert evaluate(program, binding, schedule, data=data, executor="exact").check.passed, grouping


def test_regions_run_in_dependency_order():
    """A grouping lists regions by their first op; a later-listed region may have to run first."""
    program, binding, data = small("graphsage")
    grouping = (("mean1", "neigh1", "combine1"), ("self1",), ("mean2", "neigh2", "combine2"), ("self2",))
    schedule = Schedule(tuple(default_region(program, ops) for ops in grouping))
    report = evaluate(program, binding, schedule, data=data)
    assert [r.plan.region.ops for r in report.regions][:2] == [("self1",), ("mean1", "neigh1", "combine1")]
    assert report.check.passed
