"""Both executors reproduce the numpy reference for every region of every bundled program under
every legal order, under both policies, and agree on every token count and on the memory
model's figures (at the default hardware and with a cramped buffer and short DRAM lines).

A region's result depends only on its own ops and order, so checking every fusable region in
isolation (inputs from the reference) covers every legal grouping; test_groupings.py checks
that whole schedules compose. Under `accumulate` only the regions whose loop placement differs
from `stream` run again; gcn_logsoftmax's regions made only of GCN ops are covered by gcn. GraphSAGE has 14,859 region orders; a seeded sample of them runs
here and all of them under `pytest --slow`.
"""

from dataclasses import replace

import numpy as np
import pytest

from fuseflow.cost.hardware import load_hardware
from tests.bundled import enumerable_program_names
from fuseflow.lower import lower_region
from fuseflow.schedule import RegionSchedule
from simulator import exact, fast
from simulator.evaluate import _fast_values
from simulator.traffic import measured_traffic as region_traffic
from fuseflow.analysis.unification import unify_region
from fuseflow.lower import region_contexts
from tests.simulator.helpers import all_regions, assert_close, reference_memory, region_orders, small

SAMPLE = {"graphsage": 120}
HARDWARE = load_hardware()
# A buffer too small for most state, with short lines: spills and gathers everywhere.
CRAMPED = replace(HARDWARE, onchip_buffer_bytes=24, dram_line_bytes=8)
COVERED_BY = {"gcn_logsoftmax": "gcn"}
# The smallest sizes that still exercise every primitive; fully fused regions recompute a lot.
TINY = {"gcn": {"N": 4, "F": 2, "H": 2, "C": 2}, "gcn_logsoftmax": {"N": 4, "F": 2, "H": 2, "C": 2},
        "graphsage": {"N": 3, "F": 2, "H": 2, "C": 2}}


def _cases(name, policy, everything=False):
    program, _, _ = small(name, TINY.get(name))
    regions = all_regions(program)
    if name in COVERED_BY:
        # Regions made only of ops another program shares verbatim are checked there.
        other = {op.name: str(op.statement) for op in small(COVERED_BY[name], TINY.get(COVERED_BY[name]))[0].ops}
        shared = {op.name for op in program.ops if other.get(op.name) == str(op.statement)}
        regions = [ops for ops in regions if not set(ops) <= shared]
    cases = [(ops, order) for ops in regions for order in region_orders(program, ops)]
    if name in SAMPLE and not everything:
        rng = np.random.default_rng(7)
        picks = rng.choice(len(cases), size=SAMPLE[name], replace=False)
        cases = [cases[i] for i in sorted(picks)]
    if policy == "accumulate":
        # Only the regions where the policy changes where some op runs.
        def differs(ops, order):
            region = unify_region(program, ops)
            return region_contexts(program, region, order, "stream").chain != \
                region_contexts(program, region, order, "accumulate").chain
        cases = [c for c in cases if differs(*c)]
    return cases


@pytest.mark.parametrize("policy", ["stream", "accumulate"])
@pytest.mark.parametrize("name", enumerable_program_names())
def test_every_region_and_order_matches_reference(request, name, policy):
    program, binding, data = small(name, TINY.get(name))
    memory, reference = reference_memory(program, binding, data)
    values = {**data.arrays, **reference}
    for ops, order in _cases(name, policy, everything=request.config.getoption("--slow")):
        where = f"{name} {ops} order {' '.join(order)} ({policy})"
        plan = lower_region(program, binding, RegionSchedule(ops, order, (1,) * len(order)), policy)
        run = exact.run_region(plan, memory)
        quick, patterns = fast.run_region(plan, memory)
        assert {p: c.as_tuple() for p, c in run.counts.items()} == \
            {p: c.as_tuple() for p, c in quick.counts.items()}, where
        assert run.groups == quick.groups, where
        quick_written = _fast_values(program, binding, plan, values, patterns)
        for hw in (HARDWARE, CRAMPED):
            assert region_traffic(plan, run, memory, run.written, hw).to_dict() == \
                region_traffic(plan, quick, memory, quick_written, hw).to_dict(), where
        assert run.written, where
        for tensor, tree in run.written.items():
            try:
                assert_close(tree.to_dense(), reference[tensor])
                assert_close(quick_written[tensor].to_dense(), reference[tensor])
            except AssertionError as exc:
                raise AssertionError(f"{where}: {tensor} differs") from exc
