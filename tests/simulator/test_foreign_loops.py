"""Foreign loops (loops of other ops above an op) have one semantics, fuseflow.analysis.contexts'
hoisting: an op stays under such a loop only when every use of its result runs under it too,
so nothing is lost where the loop's fiber is empty (docs/simulator.md, "Foreign loops")."""

import numpy as np
import pytest

from fuseflow.analysis.contexts import foreign_loops, region_contexts
from fuseflow.analysis.fusion_shortcuts import largest_fusion
from fuseflow.analysis.orders import OrderSpace
from fuseflow.analysis.unification import unify_region
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule
from simulator.evaluate import run_schedule
from simulator.program_data import materialize
from simulator.reference import evaluate_program
from tests.simulator.helpers import assert_close

# Vertices 0, 3 and 6 have no neighbour: their fibers A(i,:) are empty (graphsage adds no self loops).
EDGES = ["1 2", "2 4", "4 5", "5 1", "7 8", "8 9", "9 7", "9 9"]


@pytest.fixture(scope="module")
def graphsage(tmp_path_factory):
    path = tmp_path_factory.mktemp("g") / "isolated.txt"
    path.write_text("\n".join(EDGES) + "\n")
    program = resolve_program("graphsage")
    binding = bind(program, str(path), {"F": 3, "H": 2, "C": 2})
    data = materialize(program, binding, 5)
    assert binding.extents["N"] == 10
    assert {0, 3, 6} <= set(np.flatnonzero(np.diff(data.arrays["A"].indptr) == 0))
    return program, binding, data


def _orders(region, count, seed):
    space = OrderSpace.of_region(region)
    rng = np.random.default_rng(seed)
    return [space.unrank(int(k)) for k in rng.choice(space.count(), min(count, space.count()), replace=False)]


def test_an_op_with_a_use_outside_a_foreign_loop_is_hoisted_out_of_it():
    program = resolve_program("graphsage")
    ops = ("mean1", "neigh1", "self1", "combine1")
    region = unify_region(program, ops)
    ctx = region_contexts(program, region, ("i", "k", "f", "f2", "h"))
    # self1 = X(i,f2)·Ws1(f2,h) sat under mean1's loops k and f; combine1, its only use, waits for both.
    assert ctx.chain["self1"] == ("i", "f2", "h")


def test_an_op_whose_every_use_runs_under_a_foreign_loop_is_recomputed_there():
    program = resolve_program("gcn")
    region = unify_region(program, ("aggregate1", "transform1", "activate1", "aggregate2"))
    ctx = region_contexts(program, region, ("i2", "i", "k", "f", "h"))
    # Layer 1 feeds aggregate2, which iterates i2: layer 1 is recomputed per row i2 (fusion's recomputation).
    for op in ("aggregate1", "transform1", "activate1"):
        assert ctx.chain[op][0] == "i2"


@pytest.mark.parametrize("executor", ["fast", "exact"])
def test_graphsage_fused_keeps_isolated_vertices(graphsage, executor):
    program, binding, data = graphsage
    reference = evaluate_program(program, data.arrays, binding.extents)
    grouping = largest_fusion(program)
    fused = unify_region(program, grouping[0])
    rest = [unify_region(program, g) for g in grouping[1:]]
    hoisted = 0
    for order in _orders(fused, 6, 1):
        ctx = region_contexts(program, fused, order)
        hoisted += any(v not in ctx.chain[n] for n in fused.ops
                       for v in order[: order.index(ctx.chain[n][-1])]
                       if v not in fused.op_region_vars(n))
        schedule = Schedule((RegionSchedule(fused.ops, order, (1,) * len(order)),
                             *[RegionSchedule(r.ops, r.vars, (1,) * len(r.vars)) for r in rest]))
        _, values = run_schedule(program, binding, schedule, executor, "accumulate", data)
        # H1 and Z must hold the self term of the isolated vertices (rows 0, 3, 6), as numpy computes them.
        assert_close(values["Z"], reference["Z"])
        for tensor in ("S1", "H1", "S2"):
            if tensor in values:
                assert_close(values[tensor], reference[tensor])
        assert np.any(np.asarray(reference["Z"])[[0, 3, 6]] != 0)
    assert hoisted, "no sampled order put an op under a loop it was hoisted out of"


def test_foreign_loops_are_neither_own_nor_carried():
    assert foreign_loops(("i2", "i", "k", "f"), frozenset({"i", "k", "f"}), frozenset()) == ("i2",)
    assert foreign_loops(("i", "k", "f", "h"), frozenset({"i", "f", "h"}), frozenset({"k"})) == ()
