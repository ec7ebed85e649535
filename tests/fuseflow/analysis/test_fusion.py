"""Fusion groupings equal all partitions filtered by connectivity, convexity, unification, the
existence of a loop order and the single-pass rule."""

import itertools

import networkx as nx
from hypothesis import given, settings

from fuseflow.program.frontend import parse_program
from fuseflow.analysis.fusion import canonical, fully_fused, grouping_problem, legal_groupings, unfused
from fuseflow.analysis.fusion_steps import count_groupings
from fuseflow.analysis.unification import UnificationError, unify_region

from tests.fuseflow.analysis.random_programs import programs
from tests.partitions import set_partitions


def brute_force_legal(program, partition):
    graph = program.graph
    where = {op: i for i, group in enumerate(partition) for op in group}
    for group in partition:
        members = set(group)
        if not nx.is_weakly_connected(graph.subgraph(members)):
            return False
        for a in members:
            for b in members:
                # convex: every path between members stays inside
                for path in nx.all_simple_paths(graph, a, b):
                    if any(node not in members for node in path):
                        return False
        try:
            region = unify_region(program, tuple(group))
        except UnificationError:
            return False
        # Some order of the region's variables reads every sparse operand in its storage order.
        if not any(all(order.index(a) < order.index(b) for operand in region.operands
                       if "compressed" in operand.formats for a, b in zip(operand.vars, operand.vars[1:]))
                   for order in itertools.permutations(region.vars)):
            return False
        # No op may iterate a variable an upstream op of the same region reduces over.
        for consumer in group:
            for producer in nx.ancestors(graph.subgraph(members), consumer):
                reduced = {region.op_vars[producer][v] for v in program.op_by_name[producer].reduction_vars}
                if reduced & set(region.op_vars[consumer].values()):
                    return False
    quotient = nx.DiGraph()
    quotient.add_nodes_from(range(len(partition)))
    quotient.add_edges_from((where[a], where[b]) for a, b in graph.edges if where[a] != where[b])
    return nx.is_directed_acyclic_graph(quotient)


@settings(max_examples=120, deadline=None)
@given(programs())
def test_groupings_equal_filtered_partitions(text):
    program = parse_program(text)
    names = [op.name for op in program.ops]
    brute = {canonical(program, p) for p in set_partitions(names) if brute_force_legal(program, p)}
    listed = list(legal_groupings(program))
    assert len(listed) == len(set(listed))
    assert set(listed) == brute
    assert count_groupings(program) == len(brute)
    for grouping in listed:
        assert grouping_problem(program, grouping) is None
    assert unfused(program) in brute
    ff = fully_fused(program)
    assert (ff in brute) if ff else all(len(g) > 1 for g in brute)


def test_convexity_rejects_a_region_that_a_path_leaves_and_reenters(program_from):
    program = program_from('''
[dims]
N = 4
[tensors]
A = { shape = ["N", "N"], source = "random" }
[[ops]]
name = "a"
expr = "B(i,j) = exp(A(i,j))"
[[ops]]
name = "b"
expr = "C(i,j) = relu(B(i,j))"
[[ops]]
name = "c"
expr = "D(i,j) = B(i,j) + C(i,j)"
''')
    assert "convex" in grouping_problem(program, [["a", "c"], ["b"]])
    assert grouping_problem(program, [["a", "b", "c"]]) is None


def test_reading_a_fused_intermediate_at_two_points_is_not_fusable(program_from):
    program = program_from('''
[dims]
N = 4
[tensors]
A = { shape = ["N", "N"], source = "random" }
[[ops]]
name = "square_input"
expr = "B(i,j) = exp(A(i,j))"
[[ops]]
name = "square"
expr = "C(i,j) = B(i,k) * B(k,j)"
''')
    assert "merge two index variables" in grouping_problem(program, [["square_input", "square"]])
    assert fully_fused(program) is None


def test_a_reduction_cannot_be_used_inside_its_own_loop(program_from):
    program = program_from('''
[dims]
N = 4
[tensors]
X = { shape = ["N", "N"], source = "random" }
[[ops]]
name = "scores"
expr = "S(i,j) = exp(X(i,j))"
[[ops]]
name = "rowmax"
expr = "m(i) = S(i,j)"
reduce = "max"
[[ops]]
name = "shift"
expr = "E(i,j) = exp(S(i,j) - m(i))"
''')
    assert "second pass" in grouping_problem(program, [["scores", "rowmax", "shift"]])
    # With S read from memory, the max and the shift are two passes over S's rows: legal.
    assert grouping_problem(program, [["scores"], ["rowmax", "shift"]]) is None
