"""Small problem sizes and schedule builders shared by the simulator tests."""

from __future__ import annotations

import numpy as np

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace, default_order
from fuseflow.schedule import RegionSchedule, Schedule, allowed_stream_shapes, block_sparse_choices, levels
from simulator.program_data import materialize
from simulator.evaluate import input_trees
from simulator.fibertree import FiberTree
from simulator.reference import evaluate_program

# Small enough for the exact executor, big enough for empty rows, joins and several lanes.
SMALL_DIMS = {
    "spmm": {"N": 7, "J": 3},
    "sddmm": {"N": 7, "K": 3},
    "nested_matmul": {"I": 6, "J": 6, "K": 3, "L": 2},
    "gcn": {"N": 5, "F": 3, "H": 2, "C": 2},
    "gcn_logsoftmax": {"N": 5, "F": 3, "H": 2, "C": 2},
    "graphsage": {"N": 4, "F": 2, "H": 2, "C": 2},
    "sparse_autoencoder": {"B": 3, "D": 6, "Hd": 6},
    "block_attention": {"L": 8, "Dk": 2},
    "deep_gcn": {"N": 5, "H": 2},
    # two 16 x 16 mask blocks: a window, a global and a causal diagonal block
    "transformer_block": {"T": 32, "D": 4, "F": 8},
    "transformer12": {"T": 32, "D": 2, "F": 4},
}


def small(name: str, dims: dict | None = None, seed: int = 0):
    program = resolve_program(name)
    binding = bind(program, dims=dims or SMALL_DIMS[name])
    return program, binding, materialize(program, binding, seed)


def reference_memory(program, binding, data):
    """Stored inputs plus every computed tensor from the reference, in its declared format,
    so one region can run in isolation."""
    reference = evaluate_program(program, data.arrays, binding.extents)
    memory = input_trees(program, data)
    for tensor, value in reference.items():
        memory[tensor] = FiberTree.from_dense(value, program.tensors[tensor].formats)
    return memory, reference


def all_regions(program):
    return sorted({g for grouping in legal_groupings(program) for g in grouping})


def region_orders(program, ops):
    return list(OrderSpace.of_region(unify_region(program, ops)))


def default_region(program, ops):
    region = unify_region(program, ops)
    order = default_order(region)
    return RegionSchedule(region.ops, order, (1,) * len(order))


def random_schedule(program, binding, rng) -> Schedule:
    """A random legal schedule: grouping, orders, par factors, stream shapes and block mode."""
    groupings = list(legal_groupings(program))
    grouping = groupings[rng.integers(len(groupings))]
    regions = []
    for ops in grouping:
        region = unify_region(program, ops)
        space = OrderSpace.of_region(region)
        order = space.unrank(int(rng.integers(space.count())))
        lvls = levels(region, order, binding)
        par = tuple(int(rng.choice(level.allowed_par_factors)) for level in lvls)
        shape = int(rng.choice(allowed_stream_shapes(lvls[-1])))
        block = bool(rng.choice(block_sparse_choices(region)))
        regions.append(RegionSchedule(region.ops, order, par, shape, block))
    return Schedule(tuple(regions))


def assert_close(got, want):
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    # From the finite values: an infinity in `want` would make any difference tolerable.
    scale = max(1.0, float(np.max(np.abs(want), where=np.isfinite(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12 * scale)
