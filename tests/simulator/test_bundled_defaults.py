"""Every bundled program, the large ones included, compiles and simulates under its default
schedule (every op in its own region) with the result of the numpy reference, on both
executors; and the transformer's reference is what a transformer block computes, written
independently in numpy."""

import numpy as np
import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import bundled_program_names, resolve_program
from fuseflow.schedule import default_schedule
from simulator.program_data import materialize
from simulator.evaluate import evaluate
from simulator.reference import evaluate_program
from tests.simulator.helpers import small


@pytest.mark.parametrize("name", bundled_program_names())
def test_the_default_schedule_matches_the_reference(name):
    program, binding, data = small(name)
    schedule = default_schedule(program)
    assert evaluate(program, binding, schedule, data=data).check.passed
    assert evaluate(program, binding, schedule, data=data, executor="exact").check.passed


@pytest.mark.parametrize("layers", [1, 3, 8])
def test_deep_gcn_at_other_depths(layers):
    dims = {"N": 6, "H": 3, "layers": layers}
    program = resolve_program("deep_gcn", dims)
    binding = bind(program, dims=dims)
    assert len(program.ops) == 3 * layers
    report = evaluate(program, binding, default_schedule(program), executor="exact")
    assert report.check.passed


def _layer_norm(x, gain, bias):
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-5) * gain + bias


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def transformer_in_numpy(arrays, blocks: int):
    """The decoder blocks as a textbook writes them: masked softmax attention, one head."""
    x = arrays["X0"]
    mask = arrays["M"].toarray() != 0
    for b in range(1, blocks + 1):
        w = {key: arrays[f"{key}{b}"] for key in ("ln1g", "ln1b", "Wq", "Wk", "Wv", "Wo", "ln2g", "ln2b", "W1", "c1",
                                                  "W2", "c2")}
        h = _layer_norm(x, w["ln1g"], w["ln1b"])
        q, k, v = h @ w["Wq"], h @ w["Wk"], h @ w["Wv"]
        scores = np.where(mask, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        y = x + weights @ v @ w["Wo"]
        x = y + _gelu(_layer_norm(y, w["ln2g"], w["ln2b"]) @ w["W1"] + w["c1"]) @ w["W2"] + w["c2"]
    return x


@pytest.mark.parametrize("name,dims,blocks", [("transformer_block", None, 1),
                                              ("transformer_block", {"T": 48, "D": 8, "F": 16, "blocks": 3}, 3),
                                              ("transformer12", {"T": 32, "D": 4, "F": 8}, 12)])
def test_the_transformer_computes_a_transformer(name, dims, blocks):
    program = resolve_program(name, dims)
    binding = bind(program, dims=dims)
    data = materialize(program, binding, seed=3)
    result = evaluate_program(program, data.arrays, binding.extents)[f"X{blocks}"]
    np.testing.assert_allclose(result, transformer_in_numpy(data.arrays, blocks), rtol=1e-9, atol=1e-9)
