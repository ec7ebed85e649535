"""Lowering: the graph text is pinned by golden files (rerun with --update-golden after an
intended change), DOT export is well formed, and the loop placement follows the policies."""

from pathlib import Path

import pytest

from fuseflow.program.bundled import resolve_program
from fuseflow.program.binding import bind
from fuseflow.analysis.unification import unify_region
from fuseflow.lower import format_graph, lower_region, region_contexts, to_dot
from fuseflow.analysis.level_support import ALL, expression_support, fiber, s_and, s_or, show
from fuseflow.schedule import RegionSchedule
from tests.simulator.helpers import SMALL_DIMS

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "spmm_par": ("spmm", ("spmm",), ("i", "k", "j"), (2, 1, 1), 1, False, "stream"),
    "sddmm_vector": ("sddmm", ("sddmm",), ("i", "j", "k"), (1, 1, 1), 2, False, "stream"),
    "gcn_layer1_stream": ("gcn", ("aggregate1", "transform1", "activate1"), ("i", "k", "f", "h"), (1,) * 4, 1,
                          False, "stream"),
    "gcn_layer1_accumulate": ("gcn", ("aggregate1", "transform1", "activate1"), ("i", "f", "k", "h"), (1,) * 4, 1,
                              False, "accumulate"),
    "gcn_layer2_filtered": ("gcn", ("activate1", "aggregate2"), ("i2", "i", "h"), (1, 1, 1), 1, False, "stream"),
    "attention_exp_block": ("block_attention", ("exp", "rowsum"), ("i", "j"), (1, 1), 1, True, "stream"),
    "logsoftmax_head": ("gcn_logsoftmax", ("rowmax", "shift_exp", "rowsum", "log_softmax"), ("i", "c2", "c", "c3"),
                        (1,) * 4, 1, False, "stream"),
}


def _plan(case):
    name, ops, order, par, shape, block, policy = CASES[case]
    program = resolve_program(name)
    binding = bind(program, dims=SMALL_DIMS[name])
    return lower_region(program, binding, RegionSchedule(ops, order, par, shape, block), policy)


@pytest.mark.parametrize("case", sorted(CASES))
def test_graph_text_matches_golden(case, golden):
    golden(GOLDEN / f"{case}.txt", format_graph(_plan(case)))


def test_dot_names_every_primitive_and_edge():
    plan = _plan("gcn_layer1_stream")
    dot = to_dot(plan)
    assert dot.startswith("digraph region {") and dot.rstrip().endswith("}")
    for prim in plan.primitives:
        assert f"p{prim.pid} [" in dot
        for src in prim.inputs:
            assert f"p{src} -> p{prim.pid};" in dot


def test_primitive_kinds_cover_the_sam_vocabulary():
    kinds = set()
    for case in CASES:
        kinds |= {p.kind for p in _plan(case).primitives}
    assert {"scan", "dense", "intersect", "leftjoin", "locate", "repeat", "array", "alu", "reduce", "spacc",
            "crddrop", "write", "fork", "join"} <= kinds


def test_streaming_and_accumulating_place_the_consumer_differently():
    program = resolve_program("gcn")
    region = unify_region(program, ("aggregate1", "transform1", "activate1"))
    order = ("i", "k", "f", "h")
    stream = region_contexts(program, region, order, "stream")
    accumulate = region_contexts(program, region, order, "accumulate")
    # Partial sums of A·X stream through the matmul: it runs per (i, k, f, h), the multilinear form.
    assert stream.chain["transform1"] == ("i", "k", "f", "h")
    assert accumulate.chain["transform1"] == ("i", "f", "h")
    # relu waits for both reductions under either policy.
    assert stream.chain["activate1"] == accumulate.chain["activate1"] == ("i", "h")


def test_a_consumer_cannot_run_inside_a_loop_its_input_waited_for():
    program = resolve_program("gcn")
    region = unify_region(program, ("aggregate1", "transform1", "activate1", "aggregate2"))
    ctx = region_contexts(program, region, ("i2", "i", "k", "f", "h"), "stream")
    # activate1 closes k and f, so aggregate2 (linear in H1) runs outside them too.
    assert ctx.chain["aggregate2"] == ("i2", "i", "h")


def test_max_reductions_never_stream():
    program = resolve_program("block_attention")
    region = unify_region(program, ("scores", "rowmax"))
    ctx = region_contexts(program, region, ("i", "j", "d"), "stream")
    assert ctx.max_vars["rowmax"] == frozenset({"j"}) and not ctx.pending["rowmax"]


def test_support_follows_the_expression():
    from fuseflow.program.expr import parse_statement

    expr = parse_statement("E(i,j) = M(i,j) * exp(S(i,j) - m(i))").expr
    leaf = {"M": fiber("M"), "S": fiber("S"), "m": ALL}
    assert expression_support(expr, lambda a: leaf[a.tensor]) == fiber("M")
    expr = parse_statement("Y(i) = A(i) * B(i) + C(i)").expr
    leaf = {"A": fiber("A"), "B": fiber("B"), "C": fiber("C")}
    assert show(expression_support(expr, lambda a: leaf[a.tensor])) == "((A ∩ B) ∪ C)"
    assert s_or(fiber("A"), ALL) == ALL and s_and(fiber("A"), ALL) == fiber("A")


def test_a_layer_feeding_an_aggregation_is_filtered_by_its_adjacency():
    plan = _plan("gcn_layer2_filtered")
    activate = plan.op("activate1")
    assert activate.filters == {"i": ("A(i2,i)",)}
    assert show(activate.levels[1].support) == "A(i2,i)"


def test_the_stream_shape_vectorizes_each_ops_innermost_dense_level():
    """fuseflow.schedule.rules.vector_level: the innermost level of an op's chain that iterates no compressed
    coordinates. aggregate1's innermost k is A's compressed level, so its f carries the vectors."""
    from fuseflow.schedule.rules import vector_level

    program = resolve_program("gcn")
    region = unify_region(program, ("aggregate1", "transform1", "activate1"))
    assert vector_level(region, ("i", "f", "k")) == "f"
    assert vector_level(region, ("i", "f", "h")) == "h"
    assert vector_level(region, ("k",)) is None
    binding = bind(program, dims=SMALL_DIMS["gcn"])
    plan = lower_region(program, binding, RegionSchedule(region.ops, ("i", "f", "k", "h"), (1,) * 4, 2))
    assert {op.name: op.vector for op in plan.ops} == {"aggregate1": "f", "transform1": "h", "activate1": "h"}
    assert plan.coarsen == {}          # no block mode: the vectors are each op's own
