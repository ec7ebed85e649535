"""The fast executor's values are computed through the plan's loops (simulator.values), so the
numerical check catches a broken lowering on data too large for the exact executor.

Each case lowers GCN's regions on the Cora-sized synthetic graph normally, then breaks one
thing in the lowered plan the way a lowering bug would, and runs the fast executor. Under the
old check (reference values masked by the loop coordinates) all three passed."""

import pytest

import simulator.evaluate as evaluate_module
from fuseflow.lower import lower_region
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule, default_schedule
from navigator.evaluation.runs import EXACT_TOKEN_LIMIT
from simulator.evaluate import evaluate
from simulator.program_data import materialize
from simulator.reference import evaluate_program


@pytest.fixture(scope="module")
def gcn():
    program = resolve_program("gcn")
    binding = bind(program)
    data = materialize(program, binding)
    return program, binding, data, evaluate_program(program, data.arrays, binding.extents)


def _drop_last_row(plan):
    """A dense iterator whose range stops one short: coordinate i = N-1 is never visited."""
    for op in plan.ops:
        if op.name == "aggregate1":
            op.levels[0].extent -= 1


def _sum_as_max(plan):
    """The wrong reduction: every summed variable closed by max."""
    for op in plan.ops:
        for edge in op.edges:
            edge.modes = {v: "max" if m == "sum" else m for v, m in edge.modes.items()}


def _sum_as_last(plan):
    """A wrong closing of a variable: the aggregation's k kept as its last copy, not summed."""
    for op in plan.ops:
        if op.name == "aggregate1":
            for edge in op.edges:
                edge.modes = {v: "last" if m == "sum" else m for v, m in edge.modes.items()}


def _run(monkeypatch, gcn, breaker=None, schedule=None):
    program, binding, data, reference = gcn

    def lower(*args, **kwargs):
        plan = lower_region(*args, **kwargs)
        if breaker is not None:
            breaker(plan)
        return plan

    monkeypatch.setattr(evaluate_module, "lower_region", lower)
    return evaluate(program, binding, schedule or default_schedule(program), data=data, reference=reference)


def test_the_correct_lowering_passes_at_a_size_beyond_the_exact_executor(monkeypatch, gcn):
    report = _run(monkeypatch, gcn)
    tokens = sum(c.data + c.stops for r in report.regions for c in r.run.counts.values())
    assert tokens > EXACT_TOKEN_LIMIT
    assert report.executor == "fast" and report.check.passed


@pytest.mark.parametrize("breaker", [_drop_last_row, _sum_as_max, _sum_as_last])
def test_a_broken_lowering_fails_the_check(monkeypatch, gcn, breaker):
    report = _run(monkeypatch, gcn, breaker)
    assert not report.check.passed
    assert not report.check.tensors["AX"]


def test_a_fused_region_is_computed_through_its_buffers(monkeypatch, gcn):
    """Layer 1 fused (aggregate, transform, relu in one region): values pass between the ops
    through on-chip buffers; breaking the producer's reduction shows in the region's result."""
    program = gcn[0]
    layer1 = RegionSchedule(("aggregate1", "transform1", "activate1"), ("i", "k", "f", "h"), (1, 1, 1, 1))
    rest = tuple(rs for rs in default_schedule(program).regions if not set(rs.ops) & set(layer1.ops))
    schedule = Schedule((layer1,) + rest)
    assert _run(monkeypatch, gcn, schedule=schedule).check.passed
    report = _run(monkeypatch, gcn, _sum_as_last, schedule)
    assert not report.check.tensors["H1"]


def test_without_the_check_no_values_are_computed_and_the_figures_are_the_same(gcn):
    """Counts and cycles do not depend on values, so evaluate(check=False) skips them."""
    program, binding, data, reference = gcn
    checked = evaluate(program, binding, default_schedule(program), data=data, reference=reference).to_dict()
    blind = evaluate(program, binding, default_schedule(program), data=data, check=False).to_dict()
    assert checked.pop("check")["passed"] and blind.pop("check") is None
    assert blind == checked


MEDIUM = {"spmm": {"N": 120, "J": 5}, "sddmm": {"N": 120, "K": 3}, "gcn": {"N": 60, "F": 6, "H": 4, "C": 3},
          "graphsage": {"N": 40, "F": 4, "H": 3, "C": 2}, "nested_matmul": {"I": 30, "J": 20, "K": 6, "L": 4},
          "sparse_autoencoder": {"B": 12, "D": 20, "Hd": 16}, "block_attention": {"L": 32, "Dk": 3}}


@pytest.mark.parametrize("name", sorted(MEDIUM))
def test_random_schedules_pass_the_check_in_small_chunks(monkeypatch, name):
    """Every kernel (products in both nestings, dense contractions, chunks with boxes cut into
    rows) on random legal schedules, with chunks small enough that every op spans several."""
    import numpy as np

    import simulator.values as values_module
    from tests.simulator.helpers import random_schedule

    monkeypatch.setattr(values_module, "CHUNK_ELEMENTS", 40)
    program = resolve_program(name)
    binding = bind(program, dims=MEDIUM[name])
    data = materialize(program, binding)
    reference = evaluate_program(program, data.arrays, binding.extents)
    rng = np.random.default_rng(22)
    for _ in range(4):
        schedule = random_schedule(program, binding, rng)
        for policy in ("stream", "accumulate"):
            report = evaluate(program, binding, schedule, data=data, reference=reference, policy=policy)
            assert report.check.passed, (schedule, policy, report.check.to_dict())
