"""The memory model (docs/simulator.md, "Bytes and counters"): the on-chip buffer shared by the
region's state, DRAM in whole lines with the latency of gathers, and block storage. The figures
below are worked out by hand; both executors must produce them."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule
from simulator.blocks import block_tree, stored_arrays
from simulator.evaluate import Machine, run_schedule
from simulator.fibertree import FiberTree
from simulator.program_data import materialize
from tests.simulator.helpers import SMALL_DIMS, random_schedule, reference_memory, small


def region(name, ops, order, dims, block=False, par=None, **hardware):
    """One region on the reference's inputs, by both executors (which must agree); the fast one's result."""
    program, binding, data = small(name, dims)
    machine = Machine(program, binding, data, replace(load_hardware(), **hardware), "accumulate")
    machine.memory, reference = reference_memory(program, binding, data)
    machine.values.update(reference)
    rs = RegionSchedule(ops, order, par or (1,) * len(order), 1, block)
    exact, fast = (machine.simulate(rs, executor) for executor in ("exact", "fast"))
    assert exact.traffic.to_dict() == fast.traffic.to_dict()
    return fast, data


def state(result, kind):
    return next(s for s in result.traffic.state if s.kind == kind)


def test_an_accumulator_larger_than_the_buffer_spills():
    """E(i,l) = sum_k T(i,k) C(k,l) in order k i l: the reduction is outermost, so all of E (4 x 4 values,
    64 bytes) is live while k runs. Every pass after the first of the K = 3 revisits each entry: a spilled entry
    is written out and read back, 2 x 16 x 4 = 128 bytes each way in all, 4 bytes saved per byte on chip. C's
    fiber buffer (a row of C, 16 bytes, repeated over i) saves more per byte: its K x I = 12 re-reads of a row
    instead of K, (12 - 3) x 16 = 144 bytes. So the 32-byte buffer goes to C's row first, and the accumulator
    gets the other 16 bytes, a quarter of E. The spilled three quarters move 0.75 x 128 = 96 bytes each way
    (lines of 4 bytes, so no rounding)."""
    dims = {"I": 4, "J": 4, "K": 3, "L": 4}
    result, _ = region("nested_matmul", ("matmul2",), ("k", "i", "l"), dims, onchip_buffer_bytes=32,
                       dram_line_bytes=4)
    accumulator, fiber = state(result, "accumulator"), state(result, "fiber")
    assert (fiber.size, fiber.allocated, fiber.reads) == (16, 16, 144)
    assert (accumulator.size, accumulator.allocated, accumulator.spill) == (64, 16, 2 * 96)
    assert result.traffic.spill_write_bytes == result.traffic.spill_read_bytes == 96
    # With room for everything, nothing spills and DRAM moves the logical bytes.
    roomy, _ = region("nested_matmul", ("matmul2",), ("k", "i", "l"), dims, dram_line_bytes=4)
    assert roomy.traffic.spill_bytes == 0 and state(roomy, "accumulator").allocated == 64
    assert roomy.traffic.bytes == roomy.traffic.logical_bytes


def test_a_tiny_buffer_makes_a_fused_intermediate_spill():
    """GraphSAGE's combine1 feeds mean2 in one region, order i2 i h. H1 also leaves the region, so combine1 runs
    once, outside i2, and mean2 re-reads all of H1 (4 x 2 values, 32 bytes) for every row i2: its nnz x H = 24
    reads. Spilled, H1 is written once (32 bytes) and read back at each read (96 bytes): 4 bytes per byte.
    mean2's accumulator (a row of M2, 8 bytes) saves 16 per byte (each of its nnz x H - N x H = 16 later partial
    sums out and back), so it comes first. Of a 24-byte buffer H1 gets the other 16 bytes, half: its spilled
    half is written once (16 bytes) and read back 0.5 x 96 = 48 bytes."""
    result, data = region("graphsage", ("combine1", "mean2"), ("i2", "i", "h"), {"N": 4, "F": 2, "H": 2, "C": 2},
                          onchip_buffer_bytes=24, dram_line_bytes=4)
    nnz, rows = data.arrays["A"].nnz, int((data.arrays["A"].getnnz(axis=1) > 0).sum())
    assert (nnz, rows) == (12, 4)
    accumulator = state(result, "accumulator")
    assert (accumulator.size, accumulator.allocated, accumulator.spill) == (8, 8, 0)
    assert accumulator.reads == accumulator.writes == (nnz * 2 - rows * 2) * 4
    buffered = state(result, "intermediate")
    assert (buffered.size, buffered.allocated) == (32, 16)
    assert (buffered.writes, buffered.reads) == (32, nnz * 2 * 4)
    assert buffered.spill == 16 + 48
    assert result.traffic.spill_write_bytes == 16
    assert result.to_dict()["onchip_bytes"] == 24


def test_a_column_walk_of_a_row_major_matrix_costs_a_line_per_value():
    """C is 16 x 16 row-major: a row is 64 bytes, one DRAM line. With no room to keep C (1 KiB) on chip, order
    i k l reads it row after row for each of I = 2 rows of T: 2 x 16 lines. Order i l k walks its columns: each
    value sits 64 bytes after the last, so each costs its own line: 2 x 16 x 16 lines. The logical bytes are the
    same; neither walk depends on data, so neither pays latency."""
    dims = {"I": 2, "J": 4, "K": 16, "L": 16}
    rows, _ = region("nested_matmul", ("matmul2",), ("i", "k", "l"), dims, onchip_buffer_bytes=200)
    columns, _ = region("nested_matmul", ("matmul2",), ("i", "l", "k"), dims, onchip_buffer_bytes=200)
    assert rows.traffic.per_tensor["C"]["read"] == 2 * 16 * 64
    assert columns.traffic.per_tensor["C"]["read"] == 2 * 16 * 16 * 64
    assert rows.traffic.per_tensor["C"]["logical_read"] == columns.traffic.per_tensor["C"]["logical_read"] == 2048
    assert rows.traffic.gathers == columns.traffic.gathers == 0
    # With a 128-byte stride, two values per line: the column walk costs half as many lines.
    half, _ = region("nested_matmul", ("matmul2",), ("i", "l", "k"), {**dims, "L": 8}, onchip_buffer_bytes=100)
    assert half.traffic.per_tensor["C"]["read"] == 2 * 8 * 16 * 64 // 2


def test_gathered_rows_pay_whole_lines_and_latency():
    """SpMM in order i k j: each stored A(i,k) gathers row k of B (J = 8 values, 32 bytes: a whole 64-byte
    line) at an address the coordinate k decides. Without room for B, that is nnz gathers, each paying the
    latency with one in flight per lane the region forks: one at par 1, four with i forked 4 ways (of the
    hardware's 16); A itself streams."""
    result, data = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 7, "J": 8}, onchip_buffer_bytes=8)
    nnz = data.arrays["A"].nnz
    hw = load_hardware()
    assert result.traffic.per_tensor["B"]["read"] == nnz * 64
    assert result.traffic.gathers == nnz
    assert result.traffic.latency_cycles == nnz * hw.dram_latency_cycles
    forked, _ = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 8, "J": 8}, par=(4, 1, 1), onchip_buffer_bytes=8)
    assert forked.traffic.latency_cycles == forked.traffic.gathers * hw.dram_latency_cycles / 4
    assert result.timing.memory_cycles == result.traffic.bytes / hw.memory_bytes_per_cycle + \
        result.traffic.latency_cycles
    # Kept on chip (a locate buffer), B is read once (224 bytes: 4 lines) and the gathers stay on chip.
    roomy, _ = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 7, "J": 8})
    assert roomy.traffic.per_tensor["B"]["read"] == 4 * 64 and roomy.traffic.gathers == 0
    assert state(roomy, "locate").name == "B(k,j)"


def test_values_wider_than_a_line_take_several():
    result, data = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 7, "J": 8}, onchip_buffer_bytes=8,
                          value_bytes=16, dram_line_bytes=8)
    assert result.traffic.per_tensor["B"]["read"] == data.arrays["A"].nnz * 8 * 16


def test_block_storage_by_hand():
    """An 8 x 8 CSR matrix with 5 entries in 4 of its 4 x 4 blocks: stored as blocks, 4 blocks of 16 values
    (256 bytes), 2 block rows (3 positions) and 4 block coordinates; entry by entry, 5 values, 9 positions and
    5 coordinates."""
    rows, cols = [0, 0, 1, 6, 7], [0, 1, 5, 6, 2]
    tree = FiberTree.from_coo(("dense", "compressed"), (8, 8), [rows, cols], np.ones(5))
    assert tree.array_bytes(4, 4) == [20, 36, 20]
    assert stored_arrays(tree, 4, 4, (4, 4)) == [4 * 16 * 4, 3 * 4, 4 * 4]
    blocks = block_tree(tree, (4, 4))
    assert blocks.extents == (2, 2) and list(blocks.crd[1]) == [0, 1, 0, 1]


def test_block_mode_reads_the_blocks():
    """spmm in block mode: A is stored (and read once, being small) as its blocks: more bytes than its entries
    when the blocks are partly empty, as many as the blocks' arithmetic computes."""
    result, data = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 12, "J": 4}, block=True)
    program, binding, _ = small("spmm", {"N": 12, "J": 4})
    tree = FiberTree.from_sparse(data.arrays["A"], program.tensors["A"].formats)
    blocked = sum(stored_arrays(tree, 4, 4, (4, 4)))
    assert result.traffic.per_tensor["A"]["logical_read"] == blocked > tree.stored_bytes(4, 4)
    scalar, _ = region("spmm", ("spmm",), ("i", "k", "j"), {"N": 12, "J": 4})
    assert scalar.traffic.per_tensor["A"]["logical_read"] == tree.stored_bytes(4, 4)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["spmm", "sddmm", "gcn", "graphsage", "nested_matmul", "sparse_autoencoder"]),
       seed=st.integers(0, 2**16), sizes=st.lists(st.integers(0, 4096), min_size=2, max_size=4),
       line=st.sampled_from([4, 16, 64]))
def test_traffic_never_grows_with_the_buffer(name, seed, sizes, line):
    program = resolve_program(name)
    binding = bind(program, dims=SMALL_DIMS[name])
    data = materialize(program, binding, seed)
    schedule = random_schedule(program, binding, np.random.default_rng(seed))
    previous = None
    for size in sorted(sizes):
        hw = replace(load_hardware(), onchip_buffer_bytes=size, dram_line_bytes=line)
        results, _ = run_schedule(program, binding, schedule, "fast", "accumulate", data, hw, numerics=False)
        moved = [r.traffic.bytes for r in results]
        if previous is not None:
            assert all(now <= before for now, before in zip(moved, previous)), (size, moved, previous)
        assert all(r.traffic.onchip_bytes <= size for r in results)
        previous = moved


@pytest.mark.parametrize("key,value,fragment", [
    ("dram_line_bytes", "0", "must be from 1 to 4096, got 0"),
    ("dram_line_bytes", "64.5", "must be a whole number, got 64.5"),
    ("dram_latency_cycles", "-1", "must be from 0 to 1e+06, got -1"),
    ("dram_latency_cycles", "'slow'", "must be a number, got 'slow'"),
])
def test_bad_dram_keys_exit_2_naming_file_and_key(tmp_path, key, value, fragment):
    from tests.test_cli_subprocess import run

    (tmp_path / "hw.toml").write_text(f"{key} = {value}\n")
    result = run("check", "spmm", "--hardware", "hw.toml", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    message = result.stderr.strip().splitlines()
    assert len(message) == 1 and f"hw.toml [{key}]: {fragment}" in message[0], result.stderr
