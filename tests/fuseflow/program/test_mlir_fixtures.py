"""Each MLIR fixture (tests/fuseflow/program/mlir_models, written in torch-mlir's style) imports to
the program written by hand beside it: the same op graph, formats and extents up to renaming,
and the same numbers when the simulator runs both on the same inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch_mlir", reason="the MLIR bindings are in the test extra")

from fuseflow.program.binding import bind  # noqa: E402
from fuseflow.program.frontend import load_program  # noqa: E402
from fuseflow.schedule.rules import default_schedule  # noqa: E402
from simulator.evaluate import run_schedule  # noqa: E402
from simulator.program_data import ProgramData, materialize  # noqa: E402
from simulator.reference import evaluate_program  # noqa: E402
from tests.mlir_models import canonical_statements  # noqa: E402

MODELS = Path(__file__).parent / "mlir_models"
FIXTURES = sorted(p.stem for p in MODELS.glob("*.mlir"))
#: the `?` dimension of spmm_chain, bound as its header says
DYNAMIC = {"spmm_chain": {"D1": 32}}


def test_every_fixture_has_its_hand_written_program():
    assert FIXTURES == ["attention", "gcn", "graphsage", "sparse_autoencoder", "spmm_chain"]
    assert all((MODELS / f"{name}.toml").exists() for name in FIXTURES)


def canonical(program):
    """(statements and reductions up to renaming, {tensor: (extents in storage order, formats,
    input?)} by canonical name, the renaming): tests.mlir_models.canonical_statements names
    tensors T0, T1, ... in order of first use, and so does the renaming here."""
    from fuseflow.program.expr import accesses

    names: dict[str, str] = {}
    for op in program.ops:
        for access in [*accesses(op.expr), op.output]:
            names.setdefault(access.tensor, f"T{len(names)}")
    tensors = {canon: (tuple(program.dims[d] for d in program.tensors[name].dims), program.tensors[name].formats,
                       program.tensors[name].source is not None)
               for name, canon in names.items() if name in program.tensors}
    return canonical_statements(program, program.ops), tensors, names


def _load(name: str):
    dims = DYNAMIC.get(name, {})
    imported = load_program(MODELS / f"{name}.mlir", dims=dims)
    hand = load_program(MODELS / f"{name}.toml")
    return imported, hand, dims


@pytest.mark.parametrize("name", FIXTURES)
def test_the_imported_program_is_the_hand_written_one(name):
    imported, hand, _ = _load(name)
    mine, theirs = canonical(imported), canonical(hand)
    assert mine[0] == theirs[0]  # the op graph: statements and reductions, op by op
    assert mine[1] == theirs[1]  # formats and extents of every declared tensor
    assert all(op.origin and op.origin.startswith(f"{name}.mlir:") for op in imported.ops)


@pytest.mark.parametrize("name", FIXTURES)
def test_the_simulator_computes_the_same_result_for_both(name):
    imported, hand, dims = _load(name)
    mine_names, hand_names = canonical(imported)[2], canonical(hand)[2]
    by_canon = {canon: real for real, canon in hand_names.items()}
    to_hand = {real: by_canon[canon] for real, canon in mine_names.items()}
    binding = bind(imported, None, dims)
    data = materialize(imported, binding, seed=7)
    hand_binding = bind(hand, None, {})
    hand_data = ProgramData({to_hand[n]: a for n, a in data.arrays.items()}, data.seed, data.graph)
    _, values = run_schedule(imported, binding, default_schedule(imported), data=data)
    _, hand_values = run_schedule(hand, hand_binding, default_schedule(hand), data=hand_data)
    output = imported.ops[-1].output.tensor
    got, want = _dense(values[output]), _dense(hand_values[to_hand[output]])
    reference = evaluate_program(imported, data.arrays, binding.extents)[output]
    assert np.isfinite(reference).any()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, reference, rtol=1e-9, atol=1e-12)


def _dense(value):
    return value.toarray() if hasattr(value, "toarray") else np.asarray(value, dtype=np.float64)


def test_a_deep_model_imports_to_the_bundled_deep_gcn():
    from fuseflow.program.bundled import resolve_program
    from fuseflow.program.mlir import import_mlir_text
    from fuseflow.program.frontend import parse_program
    from tests.mlir_models import deep_gcn_mlir

    imported = parse_program(import_mlir_text(deep_gcn_mlir(12), "deep.mlir"), "deep.mlir")
    bundled = resolve_program("deep_gcn", {"layers": 12})
    assert len(imported.ops) == 36
    assert canonical(imported)[0] == canonical(bundled)[0]
