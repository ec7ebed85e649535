"""The figures eval, compare and check print say what they are and agree with each other:
a region's cycles are its bound term plus the fill, the schedule's cycles the sum of its
regions', and the schedule's memory/compute class is the class of most of its cycles
(fuseflow.cost.bounds, one rule for the estimate and the simulation)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuseflow.cost.bounds import COMPUTE_BOUND, MEMORY_BOUND, region_class, schedule_bound
from fuseflow.cost.estimate import schedule_cost
from fuseflow.cost.hardware import load_hardware
from fuseflow.schedule import default_schedule
from simulator.evaluate import evaluate
from navigator.evaluation.report_text import format_report
from tests.bundled import LARGE_PROGRAMS
from tests.simulator.helpers import SMALL_DIMS, random_schedule, small

PROGRAMS = sorted(SMALL_DIMS)


def _hardware(tmp_path, bandwidth: float):
    path = tmp_path / f"hw{bandwidth}.toml"
    path.write_text(f"memory_bytes_per_cycle = {bandwidth}\n", encoding="utf-8")
    return load_hardware(path)


def _assert_consistent(report):
    regions = report.to_dict()["regions"]
    for r in regions:
        terms = {"primitive": r["compute_cycles"], "memory": r["memory_cycles"], "arithmetic": r["arithmetic_cycles"]}
        assert r["bound_cycles"] == max(terms.values()) == terms[r["bound"]]
        assert r["cycles"] == r["bound_cycles"] + r["fill_cycles"]
        assert r["roofline"] == (MEMORY_BOUND if r["bound"] == "memory" else COMPUTE_BOUND)
        if r["bound"] == "primitive":
            assert r["bottleneck"].startswith("p") and " of " in r["bottleneck"]
    assert report.cycles == pytest.approx(sum(r["cycles"] for r in regions), rel=1e-12)
    classes = {r["roofline"] for r in regions}
    if len(classes) == 1:
        assert report.roofline == classes.pop()
    held = sum(r["cycles"] for r in regions if r["roofline"] == report.roofline)
    assert held >= report.cycles / 2 - 1e-9


@pytest.mark.parametrize("bandwidth", [0.01, 1.0, 1000.0])
@pytest.mark.parametrize("name", [name for name in PROGRAMS if name not in LARGE_PROGRAMS])  # random groupings
def test_breakdown_adds_up_and_the_class_follows_the_regions(name, bandwidth, tmp_path):
    program, binding, data = small(name)
    hw = _hardware(tmp_path, bandwidth)
    rng = np.random.default_rng(7)
    schedules = [default_schedule(program)] + [random_schedule(program, binding, rng) for _ in range(3)]
    for schedule in schedules:
        report = evaluate(program, binding, schedule, hw, data=data, check=False)
        _assert_consistent(report)
        text = format_report(report)
        assert f"{report.roofline}: " in text and "pipeline fill" in text and "simulated" in text
        assert f"seed {data.seed}" in text


@pytest.mark.parametrize("name", PROGRAMS)
def test_estimate_regions_sum_to_its_total_and_share_its_class(name, tmp_path):
    program, binding, _ = small(name)
    for bandwidth in (0.01, 1.0, 1000.0):
        cost = schedule_cost(program, binding, default_schedule(program), _hardware(tmp_path, bandwidth))
        d = cost.to_dict()
        assert d["kind"] == "estimated"
        assert d["cycles"] == pytest.approx(sum(r["cycles"] for r in d["regions"]))
        classes = {r["roofline"] for r in d["regions"]}
        if len(classes) == 1:
            assert d["roofline"] == classes.pop()
        assert d["roofline_share"] >= 0.5


def test_low_bandwidth_makes_every_figure_memory_bound(tmp_path):
    program, binding, data = small("gcn")
    report = evaluate(program, binding, default_schedule(program), _hardware(tmp_path, 1e-4), data=data)
    assert report.roofline == MEMORY_BOUND
    assert all(r.timing.bound == "memory" for r in report.regions)
    assert "memory-bound: 100% of the cycles are in memory-bound regions" in format_report(report)


@given(st.lists(st.tuples(st.sampled_from([MEMORY_BOUND, COMPUTE_BOUND]),
                          st.floats(0, 1e12, allow_nan=False)), max_size=12))
def test_schedule_class_holds_most_cycles(regions):
    bound = schedule_bound(regions)
    total = sum(c for _, c in regions)
    held = sum(c for k, c in regions if k == bound.roofline)
    assert held >= total / 2 * (1 - 1e-12)
    if regions and len({k for k, _ in regions}) == 1 and total > 0:
        assert bound.roofline == regions[0][0] and bound.share == 1.0
    text = bound.describe()
    assert (text.endswith("of the cycles are in " + bound.roofline + " regions"))
    if bound.share < 1:
        assert "100%" not in text


@given(st.floats(0, 1e9), st.floats(0, 1e9))
def test_one_region_class_is_the_roofline(memory, compute):
    """memory-bound exactly when intensity (FLOPs/bytes) is below the ridge (peak/bandwidth)."""
    assert region_class(memory, compute) == (MEMORY_BOUND if memory > compute else COMPUTE_BOUND)
    assert schedule_bound([(region_class(memory, compute), max(memory, compute))]).roofline == \
        region_class(memory, compute)
