"""A dimension named in an expression is its extent, as a number (`mu(i) = Z(i,c) / C`): the
frontend reads it so, the binding gives it its value (the program's, --dim's, or the data's),
and the reference, both executors and the cost model all use that value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fuseflow.program.binding import bind
from fuseflow.cost.estimate import schedule_cost
from fuseflow.program.expr import Const, Extent, bind_extents, extents_of, flops_per_point
from fuseflow.program.frontend import parse_program
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.cost.hardware import load_hardware
from fuseflow.schedule import Schedule, default_schedule
from simulator.program_data import materialize
from simulator.evaluate import evaluate
from simulator.reference import evaluate_program
from tests.simulator.helpers import default_region
from tests.simulator.test_contract import check_contract

LAYER_NORM = '''name = "ln"
[dims]
N = 5
C = 3
[tensors]
Z = { shape = ["N", "C"], format = ["dense", "dense"], source = "random" }
S = { shape = ["N", "C"], format = ["dense", "compressed"], source = "random", density = 0.5 }
[[ops]]
name = "mean"
expr = "mu(i) = Z(i,c) / C"
[[ops]]
name = "center"
expr = "D(i,c) = Z(i,c) - mu(i)"
[[ops]]
name = "variance"
expr = "var(i) = D(i,c) * D(i,c) / C"
[[ops]]
name = "normalize"
expr = "Y(i,c) = D(i,c) * rsqrt(var(i) + 1e-5) + S(i,c) * rsqrt(C) * N"
'''


def test_a_dimension_in_an_expression_reads_as_its_extent():
    program = parse_program(LAYER_NORM, "ln.toml")
    mean = program.op_by_name["mean"]
    assert mean.expr.rhs == Extent("C") and str(mean.statement) == "mu(i) = Z(i,c) / C"
    assert [a.tensor for a in mean.inputs] == ["Z"]  # an extent is not a tensor read
    assert extents_of(program.op_by_name["normalize"].expr) == ["C", "N"]
    assert bind_extents(mean.expr, {"C": 7}).rhs == Const(7.0)
    assert bind_extents(program.op_by_name["center"].expr, {"C": 7}) is program.op_by_name["center"].expr
    assert flops_per_point(mean.expr) == 1  # the division; the extent itself costs nothing


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 9), st.integers(1, 6), st.integers(0, 2**16))
def test_the_reference_is_layer_norm_at_any_width(width, rows, seed):
    dims = {"C": width, "N": rows}
    program = parse_program(LAYER_NORM, "ln.toml", dims)
    binding = bind(program, dims=dims)
    data = materialize(program, binding, seed)
    z, s = data.arrays["Z"], data.arrays["S"].toarray()
    centred = z - z.mean(axis=1, keepdims=True)
    expected = centred / np.sqrt(centred.var(axis=1, keepdims=True) + 1e-5) + s / np.sqrt(width) * rows
    got = evaluate_program(program, data.arrays, binding.extents)["Y"]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("policy", ["stream", "accumulate"])
def test_both_executors_agree_on_every_grouping(policy):
    dims = {"C": 4, "N": 3}
    program = parse_program(LAYER_NORM, "ln.toml", dims)
    binding = bind(program, dims=dims)
    data = materialize(program, binding, 2)
    for grouping in legal_groupings(program):
        schedule = Schedule(tuple(default_region(program, ops) for ops in grouping))
        check_contract(program, binding, data, schedule, policy)


def test_an_extent_bound_to_the_data_is_the_graphs(tmp_path):
    text = '''[data]
preset = "cora"
[dims]
N = "graph.vertices"
F = 2
[tensors]
A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "graph.adjacency" }
X = { shape = ["N", "F"], source = "random" }
[[ops]]
name = "mean_neighbour"
expr = "M(i,f) = A(i,k) * X(k,f) / N"
'''
    path = tmp_path / "edges.txt"
    path.write_text("0 1\n1 2\n2 3\n3 0\n0 4\n", encoding="utf-8")
    program = parse_program(text, "mean.toml")
    binding = bind(program, data=str(path))
    assert binding.extents["N"] == 5
    report = evaluate(program, binding, default_schedule(program), executor="exact")
    assert report.check.passed
    data = materialize(program, binding)
    got = evaluate_program(program, data.arrays, binding.extents)["M"]
    np.testing.assert_allclose(got, data.arrays["A"] @ data.arrays["X"] / 5)


def test_the_cost_model_counts_an_extent_as_a_constant():
    program = parse_program(LAYER_NORM, "ln.toml")
    numbers = parse_program(LAYER_NORM.replace("/ C", "/ 3").replace("rsqrt(C) * N", "rsqrt(3) * 5"), "ln.toml")
    hardware = load_hardware(None)
    cost = schedule_cost(program, bind(program), default_schedule(program), hardware).to_dict()
    same = schedule_cost(numbers, bind(numbers), default_schedule(numbers), hardware).to_dict()
    assert (cost["flops"], cost["bytes"]) == (same["flops"], same["bytes"])
