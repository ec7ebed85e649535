"""The cost model and the simulator share one semantics of loops (fuseflow.analysis.contexts
places the ops and hoists foreign loops, fuseflow.analysis.loop_fibers decides what each level
visits), so on data that meets the estimate's assumptions their figures are equal:

* FLOPs: the estimate's equal the simulator's ALU operations plus accumulations, exactly, for
  every region of every bundled program under every legal order (a seeded sample where a
  region has many), under the default policy; and so does the arithmetic roof's work
  (`executed_ops`, scalar streams).
* Bytes written: equal. Bytes read (with an on-chip buffer of 0 bytes, so that every read
  follows the loops): equal (both logical figures: values and coordinates moved, before the
  simulator rounds to DRAM lines and adds what its state spills), except where a read is projected across a level of another sparse
  operand (`RegionCost.reads_exact` is False): there the estimate is an upper bound, since it
  cannot know which coordinates two sparse hops reach.

The assumptions: sparse patterns whose fibers all have the same length (circulant patterns,
so that products of stored fractions are exact), and statistics measured on the data (the
binding of a preset holds expected counts).
"""

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from fuseflow.analysis.fusion import legal_groupings
from fuseflow.analysis.fusion_shortcuts import offered_shortcuts
from fuseflow.analysis.orders import OrderSpace
from fuseflow.analysis.unification import unify_region
from fuseflow.cost.estimate import RegionCostModel
from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import TensorStats
from fuseflow.program.bundled import bundled_program_names
from fuseflow.schedule import RegionSchedule, default_schedule
from fuseflow.support.memory import ResourceError
from simulator.evaluate import Machine, input_trees, run_schedule
from simulator.reference import evaluate_program
from tests.simulator.helpers import reference_memory, small

ORDERS_PER_REGION = 12
REGIONS_PER_PROGRAM = 40
PER_ROW = 2


def circulant(rows: int, cols: int, per_row: int) -> sp.csr_matrix:
    """Row r stores columns r, r+1, ... (mod cols): every fiber has the same length, and every
    column is stored in as many rows."""
    r = np.repeat(np.arange(rows), per_row)
    c = (r + np.tile(np.arange(per_row), rows)) % cols
    return sp.csr_matrix((np.linspace(0.5, 1.5, len(r)), (r, c)), shape=(rows, cols))


def regular_case(name: str):
    program, binding, data = small(name)
    arrays = dict(data.arrays)
    for tensor, array in arrays.items():
        if "compressed" in program.tensors[tensor].formats:
            arrays[tensor] = circulant(*array.shape, min(PER_ROW, array.shape[1]))
    data = replace(data, arrays=arrays)
    # Statistics measured on the data: inputs as stored, results as the loops write them.
    trees = input_trees(program, data)
    results, _ = run_schedule(program, binding, default_schedule(program), "fast", "accumulate", data,
                              numerics=False)
    for result in results:
        trees.update(result.written)
    stats = {**binding.stats, **{t: TensorStats(tuple(int(s) for s in tree.sizes), 1.0) for t, tree in trees.items()}}
    return program, replace(binding, stats=stats), data


def regions_of(program, rng) -> list[tuple[str, ...]]:
    try:
        regions = sorted({g for grouping in legal_groupings(program) for g in grouping})
    except ResourceError:   # too many groupings: the regions of the shortcuts (unfused, per layer, largest)
        regions = sorted({g for grouping in offered_shortcuts(program).values() for g in grouping})
    if len(regions) > REGIONS_PER_PROGRAM:
        regions = [regions[i] for i in sorted(rng.choice(len(regions), REGIONS_PER_PROGRAM, replace=False))]
    return regions


def orders_of(region, rng) -> list[tuple[str, ...]]:
    space = OrderSpace.of_region(region)
    count = space.count()
    if count <= ORDERS_PER_REGION:
        return list(space)
    return [space.unrank(int(k)) for k in rng.choice(count, ORDERS_PER_REGION, replace=False)]


@pytest.mark.parametrize("name", bundled_program_names())
def test_estimate_equals_simulated_counters(name):
    program, binding, data = regular_case(name)
    hw = replace(load_hardware(), onchip_buffer_bytes=0)
    machine = Machine(program, binding, data, hw, "accumulate")
    machine.memory, _ = reference_memory(program, binding, data)
    machine.values.update(evaluate_program(program, data.arrays, binding.extents))
    rng = np.random.default_rng(22)
    checked = exact_reads = 0
    for ops in regions_of(program, rng):
        region = unify_region(program, ops)
        model = RegionCostModel(program, binding, region, hw)
        for order in orders_of(region, rng):
            simulated = machine.simulate(RegionSchedule(region.ops, order, (1,) * len(order)))
            estimate = model.cost(order)
            where = (ops, order)
            assert estimate.flops == pytest.approx(simulated.flops, rel=1e-9), where
            # Scalar streams: the arithmetic roof's work is the FLOPs, accumulations included.
            assert simulated.timing.executed_ops == simulated.flops, where
            # The logical figures: values and coordinates moved, before whole lines and spills.
            traffic = simulated.traffic
            assert estimate.bytes_written == pytest.approx(traffic.logical_write_bytes, rel=1e-9), where
            if estimate.reads_exact:
                assert estimate.bytes_read == pytest.approx(traffic.logical_read_bytes, rel=1e-9), where
                exact_reads += 1
            else:
                assert estimate.bytes_read >= traffic.logical_read_bytes * (1 - 1e-9), where
            checked += 1
    assert checked and exact_reads >= 0.7 * checked
