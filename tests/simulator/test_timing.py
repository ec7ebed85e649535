"""The cycle model: lanes, measured imbalance, vector and block tiles, memory bound, fill."""

import numpy as np

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.cost.hardware import load_hardware
from fuseflow.schedule import RegionSchedule, Schedule
from simulator.program_data import materialize
from simulator.evaluate import evaluate
from fuseflow.cost.cycles import longest_path
from tests.simulator.helpers import default_region


class _One:
    """The report of one region of a schedule (the other ops run unfused)."""

    def __init__(self, report, ops):
        self.report = report
        self.regions = [r for r in report.regions if r.plan.schedule.ops == ops]
        self.flops = self.regions[0].flops
        self.counters = self.regions[0].counters


def _region(name, ops, order, par, shape=1, block=False, dims=None, data=None, hw=None):
    program = resolve_program(name)
    binding = bind(program, data, dims)
    others = [default_region(program, (op.name,)) for op in program.ops if op.name not in ops]
    schedule = Schedule((RegionSchedule(ops, order, par, shape, block), *others))
    report = evaluate(program, binding, schedule, hw or load_hardware(), data=materialize(program, binding))
    assert report.check.passed
    return _One(report, ops)


def test_par_factors_on_a_balanced_level_scale_the_slowest_stage():
    dims = {"I": 64, "J": 64, "K": 16, "L": 16}
    cycles = {}
    for factor in (1, 2, 4):
        program = resolve_program("nested_matmul")
        binding = bind(program, dims=dims)
        schedule = Schedule((RegionSchedule(("matmul1",), ("i", "j", "k"), (factor, 1, 1)),
                             RegionSchedule(("matmul2",), ("i", "k", "l"), (factor, 1, 1))))
        report = evaluate(program, binding, schedule, check=False)
        cycles[factor] = report.regions[1].timing.compute_cycles      # the dense matmul
    assert cycles[1] / cycles[2] >= 1.8
    assert cycles[1] / cycles[4] >= 3.5


def test_a_lane_join_passes_the_op_output_one_token_per_cycle():
    """The lanes' streams merge once each lane has closed its own reductions, and the merge
    passes the op's output one token per cycle for all lanes (SAM's parallelizer takes one token
    per update; its lanes merge through a tree whose root emits one per cycle)."""
    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 64, "F": 4, "H": 4, "C": 8})
    cycles = {}
    for ops, order in ((("bias2",), ("i", "c")), (("aggregate1",), ("i", "k", "f"))):
        for factor in (1, 4):
            others = [default_region(program, (op.name,)) for op in program.ops if op.name not in ops]
            schedule = Schedule((RegionSchedule(ops, order, (factor,) + (1,) * (len(order) - 1)), *others))
            report = evaluate(program, binding, schedule, check=False)
            region = next(r for r in report.regions if r.plan.schedule.ops == ops)
            cycles[ops[0], factor] = region.timing
    # an elementwise op emits every value it computes: four lanes, the same cycles, set by the join
    assert cycles["bias2", 4].compute_cycles == cycles["bias2", 1].compute_cycles
    assert "lane join" in cycles["bias2", 4].bottleneck
    join = next(p for p in region.plan.primitives if p.kind == "join")
    # an aggregation merges its rows only: the lanes share its products
    assert cycles["aggregate1", 1].compute_cycles / cycles["aggregate1", 4].compute_cycles > 3
    assert region.run.counts[join.pid].tiles > 4 * (64 * 4)


def test_imbalance_between_lanes_is_measured(tmp_path):
    # Every edge joins two even vertices: dealt round-robin, all the work lands on lane 0.
    path = tmp_path / "even.txt"
    n = 16
    path.write_text("\n".join(f"{a} {b}" for a in range(0, n, 2) for b in range(0, n, 2) if a < b) + "\n")
    one = _region("spmm", ("spmm",), ("i", "k", "j"), (1, 1, 1), dims={"J": 4}, data=str(path))
    two = _region("spmm", ("spmm",), ("i", "k", "j"), (2, 1, 1), dims={"J": 4}, data=str(path))
    speedup = one.regions[0].timing.compute_cycles / two.regions[0].timing.compute_cycles
    assert speedup < 1.2
    scan = next(p for p in two.regions[0].plan.primitives if p.kind == "scan")
    lanes = two.regions[0].run.counts[scan.pid].lanes
    assert lanes[1] == 0 and lanes[0] > 0


def test_vector_width_divides_the_innermost_dense_level():
    dims = {"I": 32, "J": 32, "K": 16, "L": 16}
    scalar = _region("nested_matmul", ("matmul1", "matmul2"), ("i", "j", "k", "l"), (1,) * 4, dims=dims)
    vector = _region("nested_matmul", ("matmul1", "matmul2"), ("i", "j", "k", "l"), (1,) * 4, shape=4, dims=dims)
    ratio = scalar.regions[0].timing.compute_cycles / vector.regions[0].timing.compute_cycles
    assert 3.0 <= ratio <= 4.0
    assert scalar.flops == vector.flops         # the same useful work, in fewer tiles


def test_block_mode_pays_for_whole_tiles():
    dims = {"L": 64, "Dk": 8}
    scalar = _region("block_attention", ("scores",), ("i", "j", "d"), (1, 1, 1), dims=dims)
    blocked = _region("block_attention", ("scores",), ("i", "j", "d"), (1, 1, 1), block=True, dims=dims)
    assert blocked.regions[0].timing.compute_cycles < scalar.regions[0].timing.compute_cycles / 10
    # Blocks of M are full (16 x 16), so no zero is computed: executed element operations (ALU operations and
    # the reducer's accumulations) equal the useful ones.
    assert blocked.regions[0].timing.executed_ops == blocked.flops


def test_arithmetic_roof_counts_the_accumulations():
    """spmm reduces over k: one multiply and one accumulate per point, both on the ALUs' roof."""
    result = _region("spmm", ("spmm",), ("i", "k", "j"), (1, 1, 1), dims={"N": 7, "J": 3})
    region = result.regions[0]
    assert region.counters["reductions"] == region.counters["ops"] > 0
    assert region.timing.executed_ops == region.counters["ops"] + region.counters["reductions"]
    assert region.timing.arithmetic_cycles == region.timing.executed_ops / result.report.hardware.peak_ops_per_cycle


def test_partially_filled_blocks_compute_their_zeros():
    program = resolve_program("spmm")
    binding = bind(program, dims={"N": 40, "J": 4})
    data = materialize(program, binding)
    schedule = Schedule((RegionSchedule(("spmm",), ("i", "k", "j"), (1, 1, 1), 1, True),))
    report = evaluate(program, binding, schedule, data=data)
    assert report.check.passed
    assert report.regions[0].timing.executed_ops > report.regions[0].counters["ops"]


def test_low_bandwidth_makes_a_region_memory_bound(tmp_path):
    slow = tmp_path / "slow.toml"
    slow.write_text("memory_bytes_per_cycle = 0.01\n")
    hw = load_hardware(slow)
    report = _region("spmm", ("spmm",), ("i", "k", "j"), (1, 1, 1), dims={"N": 30, "J": 4}, hw=hw)
    timing = report.regions[0].timing
    assert timing.bottleneck == "memory"
    assert timing.cycles == timing.memory_cycles + timing.fill_cycles
    traffic = report.regions[0].traffic
    assert timing.memory_cycles == traffic.memory_cycles == traffic.bytes / 0.01 + traffic.latency_cycles


def test_fill_latency_and_sequential_regions():
    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 12, "F": 4, "H": 2, "C": 2})
    from fuseflow.schedule import default_schedule

    report = evaluate(program, binding, default_schedule(program), check=False)
    hw = load_hardware()
    for region in report.regions:
        assert region.timing.fill_cycles == hw.pipeline_fill_cycles + longest_path(region.plan)
    assert report.cycles == sum(r.timing.cycles for r in report.regions)


def test_small_operands_are_read_once_large_gathers_are_not(tmp_path):
    program = resolve_program("spmm")
    binding = bind(program, dims={"N": 64, "J": 8})
    data = materialize(program, binding)
    schedule = Schedule((RegionSchedule(("spmm",), ("i", "k", "j"), (1, 1, 1)),))
    roomy = evaluate(program, binding, schedule, data=data, check=False)
    tiny = tmp_path / "tiny.toml"
    tiny.write_text("onchip_buffer_bytes = 64\n")
    cramped = evaluate(program, binding, schedule, load_hardware(tiny), data=data, check=False)
    b_bytes = data.arrays["B"].size * 4
    assert roomy.regions[0].traffic.per_tensor["B"]["read"] == b_bytes
    # Without room on chip, B's rows are fetched once per edge that gathers them: 32 bytes each, a whole
    # 64-byte DRAM line each.
    nnz = data.arrays["A"].nnz
    assert cramped.regions[0].traffic.per_tensor["B"]["logical_read"] == nnz * 8 * 4
    assert cramped.regions[0].traffic.per_tensor["B"]["read"] == nnz * 64
    assert np.isclose(cramped.regions[0].traffic.compulsory_bytes, roomy.regions[0].traffic.compulsory_bytes)


def test_vector_width_applies_to_a_fused_producer():
    """matmul1 (innermost k) feeds matmul2 (innermost l): both vectorize their own innermost dense level, so the
    producer's ALU stream has a quarter of the tiles too, not only the region's last level."""
    dims = {"I": 8, "J": 8, "K": 8, "L": 8}
    scalar = _region("nested_matmul", ("matmul1", "matmul2"), ("i", "j", "k", "l"), (1,) * 4, dims=dims)
    vector = _region("nested_matmul", ("matmul1", "matmul2"), ("i", "j", "k", "l"), (1,) * 4, shape=4, dims=dims)
    plan = vector.regions[0].plan
    assert {op.name: op.vector for op in plan.ops} == {"matmul1": "k", "matmul2": "l"}
    for op in ("matmul1", "matmul2"):
        alu = next(p.pid for p in plan.primitives if p.kind == "alu" and p.op == op)
        assert scalar.regions[0].run.counts[alu].tiles == 4 * vector.regions[0].run.counts[alu].tiles
