"""Both executors fulfil one contract: on small random data and random legal schedules (any
grouping, order, par factors, stream shape and block mode, either policy) the fast executor's
per-primitive token counts, memory visits and the memory model's figures (DRAM lines, gathers,
on-chip state and spills) equal the exact executor's, and both results match the numpy
reference."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from simulator import fast
from simulator.program_data import materialize
from simulator.evaluate import run_schedule
from simulator.reference import evaluate_program
from tests.simulator.helpers import SMALL_DIMS, assert_close, random_schedule

GRAPH_PROGRAMS = ["spmm", "sddmm", "gcn", "gcn_logsoftmax", "graphsage"]
OTHER_PROGRAMS = ["nested_matmul", "sparse_autoencoder", "block_attention"]
GRAPH_DIMS = {"gcn": {"F": 2, "H": 2, "C": 2}, "gcn_logsoftmax": {"F": 2, "H": 2, "C": 2},
              "graphsage": {"F": 2, "H": 2, "C": 2}, "spmm": {"J": 3}, "sddmm": {"K": 2}}


@st.composite
def graph_files(draw, max_vertices=7):
    """An edge list with isolated vertices allowed, so fibers can be empty. The last vertex
    gets a self loop, which pins the vertex count."""
    n = draw(st.integers(3, max_vertices))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    lines = [f"{a} {b}" for a, b in pairs if a != b] + [f"{n - 1} {n - 1}"]
    return n, lines


def check_contract(program, binding, data, schedule, policy, hardware=None):
    ex, ex_values = run_schedule(program, binding, schedule, "exact", policy, data, hardware)
    fa, fa_values = run_schedule(program, binding, schedule, "fast", policy, data, hardware)
    for re, rf in zip(ex, fa):
        for pid, counts in re.run.counts.items():
            prim = re.plan.primitives[pid]
            assert rf.run.counts[pid].as_tuple() == counts.as_tuple(), (prim.pid, prim.kind, prim.label)
        assert {k: v.as_tuple() for k, v in re.run.visits.items()} == \
            {k: v.as_tuple() for k, v in rf.run.visits.items()}
        assert re.counters == rf.counters
        # The memory model's projections, and what it makes of them: lines, gathers, state, spills.
        assert re.run.groups == rf.run.groups
        assert re.traffic.to_dict() == rf.traffic.to_dict()
        assert re.timing.cycles == rf.timing.cycles
    reference = evaluate_program(program, data.arrays, binding.extents)
    for region in ex:
        for tensor in region.written:
            assert_close(ex_values[tensor], reference[tensor])
            assert_close(fa_values[tensor], reference[tensor])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(GRAPH_PROGRAMS), graph=graph_files(), seed=st.integers(0, 2**16),
       policy=st.sampled_from(["stream", "accumulate"]), buffer=st.sampled_from([None, 1, 40, 200]),
       line=st.sampled_from([4, 64]))
def test_graph_programs_on_random_graphs(tmp_path_factory, name, graph, seed, policy, buffer, line):
    n, lines = graph
    path = tmp_path_factory.mktemp("g") / "edges.txt"
    path.write_text("\n".join(lines) + "\n")
    program = resolve_program(name)
    binding = bind(program, str(path), GRAPH_DIMS[name])
    assert binding.extents["N"] == n
    data = materialize(program, binding, seed)
    schedule = random_schedule(program, binding, np.random.default_rng(seed))
    # A cramped buffer makes state spill and operands stream: the memory model's figures must agree too.
    hardware = replace(load_hardware(), onchip_buffer_bytes=buffer or 2**20, dram_line_bytes=line)
    check_contract(program, binding, data, schedule, policy, hardware)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(OTHER_PROGRAMS), seed=st.integers(0, 2**16),
       policy=st.sampled_from(["stream", "accumulate"]))
def test_other_programs_on_random_data(name, seed, policy):
    program = resolve_program(name)
    binding = bind(program, dims=SMALL_DIMS[name])
    data = materialize(program, binding, seed)
    schedule = random_schedule(program, binding, np.random.default_rng(seed))
    check_contract(program, binding, data, schedule, policy)


@pytest.mark.parametrize("name", ["gcn", "sddmm", "graphsage"])
def test_virtual_levels_count_like_materialized_ones(monkeypatch, name):
    """Large last sparse levels are kept as fiber lengths; force that path on small data."""
    monkeypatch.setattr(fast, "VIRTUAL_ROWS", 0)
    program = resolve_program(name)
    binding = bind(program, dims={**{"N": 6}, **GRAPH_DIMS[name]})
    data = materialize(program, binding, 3)
    rng = np.random.default_rng(11)
    for _ in range(6):
        check_contract(program, binding, data, random_schedule(program, binding, rng), "stream")


@pytest.mark.parametrize("name,ops,order,shape", [
    ("nested_matmul", ("matmul1", "matmul2"), ("i", "j", "k", "l"), 2),
    ("gcn", ("aggregate1", "transform1", "activate1"), ("i", "k", "f", "h"), 2),
    ("graphsage", ("mean1", "neigh1", "self1", "combine1"), ("i", "k", "f", "f2", "h"), 2),
])
def test_vectorized_fused_producers_count_alike(name, ops, order, shape):
    """A stream shape tiles each op's innermost dense level (fuseflow.schedule.rules.vector_level), so fused
    producers and hoisted ops have tiles of their own: both executors count them alike."""
    from fuseflow.schedule import RegionSchedule, Schedule
    from tests.simulator.helpers import default_region

    program = resolve_program(name)
    binding = bind(program, dims=SMALL_DIMS[name])
    data = materialize(program, binding, 7)
    rest = [default_region(program, (op.name,)) for op in program.ops if op.name not in ops]
    schedule = Schedule((RegionSchedule(ops, order, (1,) * len(order), shape), *rest))
    for policy in ("accumulate", "stream"):
        check_contract(program, binding, data, schedule, policy)
