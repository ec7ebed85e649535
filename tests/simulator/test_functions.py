"""The element-wise functions sqrt, rsqrt, tanh and gelu and scalar constants, end to end: the
parser, the reference (checked against numpy and scipy written out independently), both
executors on random legal schedules, the NaN policy, and the FLOPs each function counts."""

import math
from pathlib import Path

import numpy as np
import pytest
import scipy.special
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.cost.estimate import schedule_cost
from fuseflow.cost.hardware import load_hardware
from fuseflow.program.expr import FUNCTION_FLOPS, FUNCTIONS, Call, flops_per_point, parse_statement
from fuseflow.program.frontend import parse_program
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.schedule import Schedule
from simulator.program_data import materialize
from simulator.evaluate import compare, evaluate
from simulator.reference import apply_function, evaluate_program
from tests.simulator.helpers import default_region, random_schedule
from tests.simulator.test_contract import check_contract

NEW_FUNCTIONS = ["sqrt", "rsqrt", "tanh", "gelu"]
LAYERNORM_GELU = Path(__file__).parent / "data" / "layernorm_gelu.toml"


def _one_op(expr: str, density: float = 0.5) -> str:
    """A program with a sparse and a dense input and one op."""
    return f'''name = "one_op"
[dims]
N = 5
F = 3
[tensors]
A = {{ shape = ["N", "F"], format = ["dense", "compressed"], source = "random", density = {density} }}
X = {{ shape = ["N", "F"], format = ["dense", "dense"], source = "random" }}
[[ops]]
name = "f"
expr = "{expr}"
'''


def _schedules(program, binding, count: int, seed: int):
    rng = np.random.default_rng(seed)
    return [random_schedule(program, binding, rng) for _ in range(count)]


@pytest.mark.parametrize("name", NEW_FUNCTIONS)
def test_new_functions_parse_and_print_back(name):
    statement = parse_statement(f"Y(i,j) = {name}(A(i,j) * 0.125 + 1)")
    assert statement.expr == Call(name, parse_statement("Y(i,j) = A(i,j) * 0.125 + 1").expr)
    assert parse_statement(str(statement)) == statement


def test_reference_functions_match_numpy_and_scipy():
    x = np.random.default_rng(0).uniform(-6, 6, 1000)
    positive = np.abs(x) + 0.01
    np.testing.assert_allclose(apply_function("sqrt", positive), np.sqrt(positive), rtol=1e-15)
    np.testing.assert_allclose(apply_function("rsqrt", positive), positive ** -0.5, rtol=1e-14)
    np.testing.assert_allclose(apply_function("tanh", x), np.tanh(x), rtol=1e-15)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(apply_function("gelu", x), tanh_form, rtol=1e-13, atol=1e-300)
    # The tanh form stays within 1e-3 of the exact x·Φ(x) that uses erf.
    erf_form = 0.5 * x * (1 + scipy.special.erf(x / math.sqrt(2)))
    assert np.max(np.abs(apply_function("gelu", x) - erf_form)) < 1e-3


def test_domain_edges_follow_the_language_rules():
    values = np.array([-4.0, -0.0, 0.0, 4.0, np.inf])
    # sqrt of a negative is NaN, as log of a negative is; rsqrt(0) is 1/0, which the language makes 0.
    np.testing.assert_array_equal(apply_function("sqrt", values), [np.nan, -0.0, 0.0, 2.0, np.inf])
    np.testing.assert_array_equal(apply_function("rsqrt", values), [np.nan, 0.0, 0.0, 0.5, 0.0])
    assert apply_function("gelu", np.array([1e200, -1e200])).tolist() == [1e200, 0.0]
    for name in NEW_FUNCTIONS:   # all four keep zero, so they keep sparsity
        assert FUNCTIONS[name] and apply_function(name, np.float64(0.0)) == 0.0


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NEW_FUNCTIONS),
       scale=st.floats(allow_nan=False, allow_infinity=False),
       seed=st.integers(0, 2**16), policy=st.sampled_from(["stream", "accumulate"]))
def test_any_finite_input_executors_match_the_reference(name, scale, seed, policy):
    """Random data in [-1, 1) times any finite scale (overflow to infinity included), under a
    random legal schedule: both executors count the same and produce the reference's values
    (NaN and infinities where it has them)."""
    program = parse_program(_one_op(f"Y(i,j) = {name}(A(i,j) * {scale!r}) + X(i,j)"), "one_op.toml")
    binding = bind(program)
    data = materialize(program, binding, seed)
    schedule = random_schedule(program, binding, np.random.default_rng(seed))
    check_contract(program, binding, data, schedule, policy)


def test_layernorm_gelu_program_matches_numpy_written_out():
    """The reference's layer norm, gelu, tanh and sqrt agree with numpy's own mean and variance."""
    program = resolve_program(str(LAYERNORM_GELU))
    binding = bind(program)
    data = materialize(program, binding, 4)
    got = evaluate_program(program, data.arrays, binding.extents)
    x, g, b = (np.asarray(data.arrays[t]) for t in ("X", "g", "b"))
    w1 = data.arrays["W1"].toarray() if hasattr(data.arrays["W1"], "toarray") else data.arrays["W1"]
    var = x.var(axis=1)
    normed = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(var[:, None] + 1e-5) * g + b
    hidden = normed @ w1
    gelu = 0.5 * hidden * (1 + np.tanh(math.sqrt(2 / math.pi) * (hidden + 0.044715 * hidden ** 3)))
    want = np.tanh(gelu * 2) + np.sqrt(gelu * gelu + 1) - 1 / np.sqrt(var[:, None] + 1)
    np.testing.assert_allclose(got["N"], normed, rtol=1e-12)
    np.testing.assert_allclose(got["Y"], want, rtol=1e-12)


def test_layernorm_gelu_program_under_several_schedules():
    """Unfused, fully fused where legal, and random legal schedules: both executors match the reference."""
    program = resolve_program(str(LAYERNORM_GELU))
    binding = bind(program)
    data = materialize(program, binding, 2)
    groupings = sorted(legal_groupings(program), key=len)
    fixed = [Schedule(tuple(default_region(program, ops) for ops in grouping))
             for grouping in (groupings[0], groupings[-1])]
    assert len(fixed[0].regions) < len(fixed[1].regions) == len(program.ops)
    for schedule in fixed + _schedules(program, binding, 6, 7):
        for policy in ("stream", "accumulate"):
            check_contract(program, binding, data, schedule, policy)
        report = evaluate(program, binding, schedule, executor="exact", data=data)
        assert report.check.passed


def test_nan_from_sqrt_of_negatives_flows_the_same_through_both_executors():
    program = parse_program(_one_op("Y(i,j) = sqrt(A(i,j)) + rsqrt(A(i,j)) * X(i,j)"), "one_op.toml")
    binding = bind(program)
    data = materialize(program, binding, 1)
    reference = evaluate_program(program, data.arrays, binding.extents)
    assert np.isnan(reference["Y"]).any() and not np.isnan(reference["Y"]).all()
    for schedule in _schedules(program, binding, 4, 1):
        check_contract(program, binding, data, schedule, "stream")
        for executor in ("exact", "fast"):
            report = evaluate(program, binding, schedule, executor=executor, data=data)
            assert report.check.passed and report.check.max_relative_error == 0.0


def test_result_check_does_not_excuse_missing_nan_or_infinity():
    want = np.array([np.nan, np.inf, 1.0])
    assert compare({"Y": want.copy()}, {"Y": want}, ["Y"]).passed
    assert not compare({"Y": np.array([0.0, np.inf, 1.0])}, {"Y": want}, ["Y"]).passed
    # An infinity in the reference once made the tolerance infinite; 1.0 against 5.0 must fail.
    assert not compare({"Y": np.array([np.nan, np.inf, 5.0])}, {"Y": want}, ["Y"]).passed
    assert not compare({"Y": np.array([np.nan, 3.0, 1.0])}, {"Y": want}, ["Y"]).passed


@pytest.mark.parametrize("name, flops", [("relu", 1), ("sqrt", 1), ("rsqrt", 1), ("tanh", 1), ("gelu", 9)])
def test_each_function_counts_its_flops_in_the_cost_model_and_the_simulator(name, flops):
    assert FUNCTION_FLOPS[name] == flops
    program = parse_program(_one_op(f"Y(i,j) = {name}(X(i,j)) * 0.5"), "one_op.toml")
    assert program.ops[0].flops_per_point == flops + 1 == flops_per_point(program.ops[0].expr)
    binding = bind(program)
    schedule = Schedule((default_region(program, ("f",)),))
    points = 5 * 3
    assert schedule_cost(program, binding, schedule, load_hardware()).flops == points * (flops + 1)
    for executor in ("exact", "fast"):
        report = evaluate(program, binding, schedule, executor=executor, seed=0)
        assert report.counters["ops"] == points * (flops + 1)


@pytest.mark.parametrize("expr", ["Y(i,j) = A(i,j) * -2 + exp(1) * X(i,j) - sqrt(4)",
                                  "Y(i,j) = 1 / rsqrt(X(i,j) * X(i,j) + 0.5) + gelu(-(1.5)) * A(i,j)",
                                  "Y(i,j) = tanh(-0.25) * (X(i,j) + 1)"])
def test_constants_anywhere_in_an_expression(expr):
    """A function of a constant or a negated constant is a constant each point produces
    (the exact executor once had no stream to apply it to)."""
    program = parse_program(_one_op(expr), "one_op.toml")
    binding = bind(program)
    data = materialize(program, binding, 5)
    for schedule in _schedules(program, binding, 3, 5):
        for policy in ("stream", "accumulate"):
            check_contract(program, binding, data, schedule, policy)


@pytest.mark.parametrize("expr", ["Y(i,j) = A(i,j) * sqrt(X(i,j))", "Y(i,j) = A(i,j) * log(X(i,j))",
                                  "Y(i,j) = relu(X(i,j)) * sqrt(X(i,j)) + A(i,j) * exp(X(i,j) * 1000)",
                                  "Y(i,k) = A(i,j) * rsqrt(X(j,k)) * 2"])
def test_zero_times_nan_or_infinity_is_zero_everywhere(expr):
    """0 * x is 0 even where x is NaN or infinite: an unstored zero of A annihilates the product
    in the executors, and the reference and a stored zero (relu's) follow the same rule."""
    text = _one_op(expr)
    if "X(j,k)" in expr:
        text = text.replace('X = { shape = ["N", "F"]', 'X = { shape = ["F", "F"]')
    program = parse_program(text, "one_op.toml")
    binding = bind(program)
    data = materialize(program, binding, 1)
    reference = evaluate_program(program, data.arrays, binding.extents)["Y"]
    a = data.arrays["A"].toarray()
    if "X(i,j)" in expr:
        assert np.all(reference[a == 0] == 0) or "relu" in expr
    for schedule in _schedules(program, binding, 3, 1):
        for policy in ("stream", "accumulate"):
            check_contract(program, binding, data, schedule, policy)


@pytest.mark.parametrize("expr", ["m(i) = sqrt(X(i,j))", "m(i) = A(i,j) * log(X(i,j))"])
@pytest.mark.parametrize("reduce", ["max", "sum"])
def test_a_nan_in_a_reduction_makes_it_nan_in_both_executors(expr, reduce):
    """Python's max keeps or drops a NaN depending on where it sits; the reducer must not."""
    program = parse_program(_one_op(expr) + f'reduce = "{reduce}"\n', "one_op.toml")
    binding = bind(program)
    for seed in range(3):
        data = materialize(program, binding, seed)
        assert np.isnan(evaluate_program(program, data.arrays, binding.extents)["m"]).any()
        for schedule in _schedules(program, binding, 2, seed):
            for policy in ("stream", "accumulate"):
                check_contract(program, binding, data, schedule, policy)
