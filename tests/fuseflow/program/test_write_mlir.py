"""A program's regions written as MLIR (one func.func each, what FuseFlow compiles) parse with
the real MLIR parser and import back to the same ops: every region fusion can form in the
bundled programs, and a whole schedule's module."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch_mlir", reason="the MLIR bindings are in the test extra")

from fuseflow.analysis.fusion_steps import fusion_steps  # noqa: E402
from fuseflow.analysis.unification import unify_region  # noqa: E402
from fuseflow.program.binding import bind  # noqa: E402
from fuseflow.program.bundled import resolve_program  # noqa: E402
from fuseflow.program.frontend import parse_program  # noqa: E402
from fuseflow.program.mlir import import_mlir_text  # noqa: E402
from fuseflow.program.mlir.bindings import parse_module  # noqa: E402
from fuseflow.program.mlir.write_mlir import regions_module  # noqa: E402
from fuseflow.schedule import default_schedule  # noqa: E402
from fuseflow.schedule.fuseflow_pipeline import pipeline_document, regions_mlir  # noqa: E402
from simulator.reference import evaluate_program  # noqa: E402
from tests.mlir_models import canonical_statements  # noqa: E402

PROGRAMS = ["spmm", "sddmm", "nested_matmul", "gcn", "gcn_logsoftmax", "graphsage", "sparse_autoencoder",
            "block_attention"]
SMALL = {"N": 24, "F": 6, "H": 4, "C": 3, "T": 32, "D": 8, "J": 5, "K": 7, "M": 6}


def _small(name: str):
    program = resolve_program(name)
    dims = {d: v for d, v in SMALL.items() if d in program.dims}
    program = resolve_program(name, dims)
    return program, bind(program, None, dims)


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_region_round_trips_through_mlir(name):
    program, binding = _small(name)
    for group in fusion_steps(program).regions():
        region = unify_region(program, group)
        text = regions_module(program, binding.extents, [region], ["region"])
        back = parse_program(import_mlir_text(text, "region.mlir"), "region.mlir")
        ops = [program.op_by_name[op] for op in group]
        assert canonical_statements(back, back.ops) == canonical_statements(program, ops), group
        for result in region.results:  # the formats written to memory are kept
            imported = back.tensors[_renamed(back, program, ops, result.tensor)]
            assert imported.formats == program.tensors[result.tensor].formats


def _renamed(back, program, ops, tensor: str) -> str:
    """The imported name of `tensor`, by position: ops write the same tensors in the same order."""
    index = [op.output.tensor for op in ops].index(tensor)
    return back.ops[index].output.tensor


def test_gelu_and_layer_norm_are_written_out_and_compute_the_same():
    """transformer_block's gelu (which MLIR has not) is written out, a dimension used as a number
    (`/ D`, `rsqrt(D)`) is its extent: the imported ops compute what the program's do (the numpy
    reference on the same inputs)."""
    program = resolve_program("transformer_block", {"T": 32, "D": 8, "F": 16})
    binding = bind(program, None, {"T": 32, "D": 8, "F": 16})
    ops = [program.op_by_name[name] for name in ("gelu1", "ln1_mean1", "ln2_normalize1", "scores1")]
    rng = np.random.default_rng(3)
    for op in ops:
        region = unify_region(program, (op.name,))
        text = regions_module(program, binding.extents, [region], ["region"])
        back = parse_program(import_mlir_text(text, "region.mlir"), "region.mlir")
        [imported] = back.ops
        inputs = {o.tensor: rng.uniform(-1, 1, [binding.extents[d] for d in program.tensors[o.tensor].dims])
                  for o in region.operands}
        want = evaluate_program(_alone(program, op), inputs, binding.extents)[op.output.tensor]
        renamed = {a.tensor: inputs[b.tensor] for a, b in zip(_reads(imported), _reads(op))}
        got = evaluate_program(back, renamed, bind(back).extents)[imported.output.tensor]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _reads(op):
    from fuseflow.program.expr import accesses

    seen, found = set(), []
    for access in accesses(op.expr):
        if access.tensor not in seen:
            seen.add(access.tensor)
            found.append(access)
    return found


def _alone(program, op):
    import dataclasses

    return dataclasses.replace(program, ops=[op], memo={})


def test_a_schedules_module_has_a_function_per_region_that_the_pipeline_document_names():
    program, binding = _small("gcn")
    schedule = default_schedule(program)
    text = regions_mlir(program, binding, schedule)
    module = parse_module(text, "regions.mlir")
    functions = [str(op.operation.attributes["sym_name"]).strip('"') for op in module.body.operations]
    document = pipeline_document(program, binding, schedule)
    assert functions == [entry["function"] for entry in document["regions"]] == \
        [f"region_{n}" for n in range(len(schedule.regions))]
