"""What does not change while one hole is filled: the tensor program, its data and the
hardware, described once per schedule space for the language model's prompt.

`ProgramBrief.of(space, hardware)` builds the text on first use and keeps it (the space holds
no reference back), so later rounds of a fill pay nothing for it. Every figure is printed with
a fixed number of significant digits (`figure`), so the same space gives the same bytes.

The data statistics are measured on the inputs the simulator runs on: `simulator.program_data.materialize`
over the space's binding (the `--data` graph or the program's preset, at the bound sizes).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fuseflow.cost.hardware import Hardware
    from fuseflow.program.ir import Program
    from navigator.fuseflow.schedule_space import ScheduleSpace


def figure(value: float) -> str:
    """The one number format (fuseflow.support.numbers), so figures read alike across the
    prompt and every screen."""
    from fuseflow.support.numbers import figure as one_format

    return one_format(value)


def count_text(value: int) -> str:
    """A count in the one number format (fuseflow.support.numbers), any size."""
    from fuseflow.support.numbers import figure as one_format

    return one_format(value)


@dataclass(frozen=True)
class ProgramBrief:
    """The program, data and hardware sections of the prompt, as text."""

    program: str
    data: str
    hardware: str

    @staticmethod
    def of(space: "ScheduleSpace", hardware: "Hardware", seed: int | None = None) -> "ProgramBrief":
        """The brief of `space` on `hardware` with the data drawn with `seed` (None: the
        program's), made once and kept while the space lives."""
        per_space = _BRIEFS.get(id(space))
        if per_space is None:
            per_space = _BRIEFS[id(space)] = {}
            weakref.finalize(space, _BRIEFS.pop, id(space), None)
        key = (hardware, seed)
        if key not in per_space:
            per_space[key] = ProgramBrief(describe_program(space.program, space.binding),
                                          describe_data(space, hardware, seed), describe_hardware(hardware))
        return per_space[key]


#: id(space) -> {(hardware, seed): brief}; dropped with the space (a space is not hashable)
_BRIEFS: dict[int, dict] = {}


# ---------------------------------------------------------------- the program

def describe_program(program: "Program", binding) -> str:
    """Dimensions, tensors (shape, per-level format, where they come from) and operators with
    what each reads from which other operator."""
    lines = [f"# Program {program.name}"]
    if program.description:
        lines.append(program.description)
    lines += ["", "## Dimensions", ", ".join(f"{d}={count_text(binding.extent(d))}" for d in program.dims)]
    producer = program.producer
    consumers: dict[str, list[str]] = {}
    for op in program.ops:
        for access in op.inputs:
            consumers.setdefault(access.tensor, [])
            if op.name not in consumers[access.tensor]:
                consumers[access.tensor].append(op.name)
    results = set(program.output_tensors)
    lines += ["", "## Tensors (levels in storage order: dense or compressed)"]
    for name, decl in program.tensors.items():
        shape = " x ".join(f"{d}" for d in decl.dims) or "scalar"
        formats = ",".join(decl.formats) or "-"
        if decl.source is not None:
            origin = f"input ({decl.source})"
        else:
            origin = f"computed by {producer.get(name, '?')}" + (", program result" if name in results else "")
        block = f"; blocks of {decl.block}x{decl.block}" if decl.block else ""
        lines.append(f"{name}: {shape}  [{formats}]  {origin}{block}")
    lines += ["", "## Operators (in program order; an index missing from the output is reduced)"]
    for op in program.ops:
        reduced = f"; {op.reduce} over {' '.join(op.reduction_vars)}" if op.reduction_vars else ""
        reads = [f"{access.tensor} (from {producer[access.tensor]})" if access.tensor in producer else access.tensor
                 for access in _distinct(op.inputs)]
        lines.append(f"{op.name}: {op.statement}{reduced}; reads {', '.join(reads) or 'nothing'}")
    return "\n".join(lines)


def _distinct(accesses) -> list:
    seen: dict[str, object] = {}
    for access in accesses:
        seen.setdefault(access.tensor, access)
    return list(seen.values())


# ---------------------------------------------------------------- the data

def describe_data(space: "ScheduleSpace", hardware: "Hardware", seed: int | None = None) -> str:
    """Each sparse tensor's shape, stored entries, density, row skew and block occupancy, measured
    on the simulator's inputs (computed sparse tensors: the binding's estimated density)."""
    program, binding = space.program, space.binding
    sparse = [name for name, decl in program.tensors.items() if decl.is_sparse]
    lines = ["## Data", f"source: {binding.data_source}"]
    if not sparse:
        lines.append("every tensor is stored dense")
        return "\n".join(lines)
    arrays, note = _inputs(space, seed)
    if note:
        lines.append(note)
    for name in sparse:
        decl = program.tensors[name]
        shape = " x ".join(count_text(binding.extent(d)) for d in decl.dims)
        array = arrays.get(name)
        if decl.source is not None and array is not None and hasattr(array, "indptr"):
            lines.append(f"{name}: {shape}; " + _measured(array, decl.block or hardware.block_size))
        else:
            stats = binding.stats.get(name)
            density = f"estimated density {figure(stats.value_density)}" if stats is not None else "density unknown"
            kind = "computed" if decl.source is None else "input"
            lines.append(f"{name}: {shape}; {kind}, {density}")
    return "\n".join(lines)


def _inputs(space: "ScheduleSpace", seed: int | None) -> tuple[dict, str | None]:
    """The simulator's input arrays, or none and why (data too large to generate, say)."""
    from fuseflow.support.errors import UserError
    from simulator.program_data import materialize

    try:
        return materialize(space.program, space.binding, seed).arrays, None
    except UserError as exc:  # a DataError, or a ResourceError: too large to generate here
        return {}, f"(inputs not measured: {exc.bare_message})"


def _measured(matrix, block: int) -> str:
    """nnz, density, row nnz (max, mean, coefficient of variation, Gini) and block occupancy:
    stored entries over the cells of the blocks that hold any, i.e. what block mode streams
    (the simulator counts tiles as distinct coarsened coordinates, the same blocks)."""
    import numpy as np

    from fuseflow.data.graph import gini
    from fuseflow.support.arrays import unique_sorted

    rows, cols = matrix.shape
    nnz = int(matrix.nnz)
    per_row = np.diff(matrix.indptr)
    mean = float(per_row.mean()) if per_row.size else 0.0
    cv = float(per_row.std() / mean) if mean > 0 else 0.0
    coo = matrix.tocoo()
    blocks = unique_sorted((coo.row // block).astype(np.int64) * (-(-cols // block)) + coo.col // block).size
    occupancy = nnz / (blocks * block * block) if blocks else 0.0
    return (f"nnz {count_text(nnz)}, density {figure(nnz / (rows * cols) if rows * cols else 0.0)}; "
            f"row nnz max {count_text(int(per_row.max()) if per_row.size else 0)}, mean {figure(mean)}, "
            f"CV {figure(cv)}, Gini {figure(gini(per_row))}; "
            f"{block}x{block} blocks: {count_text(blocks)} hold entries, occupancy {figure(occupancy)}")


# ---------------------------------------------------------------- the hardware

def describe_hardware(hw: "Hardware") -> str:
    return "\n".join([
        f"## Hardware ({hw.source})",
        f"clock {figure(hw.clock_ghz)} GHz; peak {figure(hw.peak_ops_per_cycle)} ops/cycle; memory "
        f"{figure(hw.memory_bytes_per_cycle)} bytes/cycle (ridge {figure(hw.ridge_intensity)} ops/byte); "
        f"{hw.lanes} lanes; on-chip buffer {count_text(hw.onchip_buffer_bytes)} bytes; values {hw.value_bytes} "
        f"bytes, indices {hw.index_bytes} bytes; block {hw.block_size}x{hw.block_size}; "
        f"pipeline fill one cycle per hop + {hw.pipeline_fill_cycles}; queues "
        f"{f'of {hw.queue_depth} tokens' if hw.queue_depth else 'unbounded'}; DRAM lines of {hw.dram_line_bytes} "
        f"bytes, gathers wait {hw.dram_latency_cycles} cycles",
    ])
