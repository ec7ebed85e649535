"""Off-chip traffic and the work counters of one region.

Two figures are kept apart (docs/simulator.md, "Bytes and counters"):

* **Logical** bytes: the values and coordinates moved, as the cost model counts them. An
  operand that fits the on-chip buffer (`onchip_buffer_bytes`) alone is read once, unless its
  loops read less of it; a larger one is read as often as the loop nest visits it:
  `value_bytes` per value read and `index_bytes` per coordinate and per fiber boundary (two
  positions) of its compressed levels, counted by the executors as `Visits`. When several ops
  of a region read the same operand, it streams once (the largest reader counts). Every
  tensor leaving the region is written once, at its stored size.
* **DRAM** bytes: the same walks in whole lines (fuseflow.cost.dram), with the on-chip buffer
  shared by the region's state (fuseflow.cost.capacity): what does not fit spills and moves more.
  `bytes`, the cycles' memory term and the roofline class follow these.

Compulsory bytes count each operand once and each result once, whatever the loop nest does
(the figure published for FuseFlow's GCN traffic is of this kind). In block mode a
block-sparse operand is stored, and so read, as blocks (simulator.blocks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from fuseflow.cost.hardware import Hardware
from fuseflow.lower.plan import RegionPlan
from fuseflow.cost.capacity import State, choose_residents, share
from fuseflow.cost.dram import Walk, latency_cycles, line_bytes, streamed, walk_cost
from fuseflow.cost.walks import Reader, RegionWalks, region_walks


@dataclass
class Traffic:
    read_bytes: float = 0.0            # DRAM: whole lines, spills included
    write_bytes: float = 0.0
    compulsory_bytes: float = 0.0      # every operand read once, every result written once
    per_tensor: dict[str, dict] = field(default_factory=dict)
    logical_read_bytes: float = 0.0    # the values and coordinates moved (the cost model's figures)
    logical_write_bytes: float = 0.0
    spill_read_bytes: float = 0.0      # of read_bytes / write_bytes: what state that did not fit on chip moved
    spill_write_bytes: float = 0.0
    streamed_bytes: float = 0.0        # DRAM bytes of walks whose addresses are known ahead
    gathered_bytes: float = 0.0        # DRAM bytes of gathers
    gathers: float = 0.0               # runs or accesses that pay dram_latency_cycles
    onchip_bytes: float = 0.0          # of onchip_buffer_bytes, what the state took
    latency_cycles: float = 0.0        # the latency the gathers expose
    memory_cycles: float = 0.0         # bytes at memory_bytes_per_cycle, plus latency_cycles
    state: list[State] = field(default_factory=list)

    @property
    def bytes(self) -> float:
        return self.read_bytes + self.write_bytes

    @property
    def logical_bytes(self) -> float:
        return self.logical_read_bytes + self.logical_write_bytes

    @property
    def spill_bytes(self) -> float:
        return self.spill_read_bytes + self.spill_write_bytes

    @property
    def line_overhead_bytes(self) -> float:
        """What moving whole lines adds to the logical bytes (spills apart)."""
        return self.bytes - self.spill_bytes - self.logical_bytes

    def to_dict(self) -> dict:
        return {"bytes_read": self.read_bytes, "bytes_written": self.write_bytes,
                "compulsory_bytes": self.compulsory_bytes, "logical_bytes_read": self.logical_read_bytes,
                "logical_bytes_written": self.logical_write_bytes, "spill_bytes": self.spill_bytes,
                "spill_bytes_read": self.spill_read_bytes, "spill_bytes_written": self.spill_write_bytes,
                "streamed_bytes": self.streamed_bytes, "gathered_bytes": self.gathered_bytes,
                "gathers": self.gathers, "line_overhead_bytes": self.line_overhead_bytes,
                "latency_cycles": self.latency_cycles, "onchip_bytes": self.onchip_bytes,
                "onchip_state": [s.to_dict() for s in self.state]}


@dataclass
class _Operand:
    """A memory operand of the region: its stored arrays and how each reader walks it."""

    tensor: str
    arrays: list[int]
    readers: list[tuple[Reader, float, Walk, Walk, State | None]] = field(default_factory=list)

    @property
    def size(self) -> float:
        return float(sum(self.arrays))

    def once(self, line: int) -> Walk:
        return sum((streamed(a, line) for a in self.arrays), Walk())

    def walk(self) -> Walk:
        """The largest reader's walk, with its fiber buffer as allocated."""
        walks = [w1.towards(w0, fiber.spilled if fiber else 0.0) for _, _, w1, w0, fiber in self.readers]
        return max(walks, key=lambda w: w.lines)


def region_traffic(plan: RegionPlan, run, stored: Callable[[str, tuple[int, ...] | None], list[float]],
                   written: dict[str, list[float]], hw: Hardware, walks: RegionWalks | None = None) -> Traffic:
    """`run`: the region's visits and projection histograms (`simulator.counts.RegionRun`, or the
    estimate's `fuseflow.cost.tokens`); `stored(tensor, block edges)`: the bytes of each array an
    operand is stored in; `written`: the same for each result the region writes."""
    walks = walks or region_walks(plan)
    line, vb, ib = hw.dram_line_bytes, hw.value_bytes, hw.index_bytes
    capacity = hw.onchip_buffer_bytes
    traffic = Traffic()

    def groups(op: str, name: str) -> dict[int, int]:
        return run.groups[(op, name)]

    # Accumulators and intermediates: their peak, and what a whole spill moves.
    required = []
    for span in walks.spans:
        entry = vb * span.values + ib * span.indices
        held = groups(span.op, span.span)
        entries = sum(size * n for size, n in held.items())
        passes = sum(size * n for size, n in groups(span.op, span.passes).items())
        state = State(span.kind, span.name, max(held, default=0) * entry)
        if span.kind == "accumulator":
            # every pass after the first reads a spilled partial sum back and writes it out again
            state.reads = state.writes = (passes - entries) * entry
        else:
            state.writes, state.reads = entries * entry, passes * entry
        required.append(state)

    # Memory operands: each reader's walk with and without its fiber buffer.
    operands: dict[tuple, _Operand] = {}
    fibers = []
    for reader in walks.readers:
        inp = reader.inp
        visits = run.visits[(reader.op, reader.key)]
        volume = 1
        for b in reader.edges or ():
            volume *= b
        logical = float(vb * volume * visits.values)
        for s, coords in visits.coords.items():
            logical += ib * (coords + 2 * visits.fibers.get(s, 0))
        w1 = w0 = streamed(vb, line) if inp.kind != "filter" and not inp.vars else Walk()
        for stream in reader.streams:
            elem = {"values": vb * stream.volume, "coords": ib, "fibers": 2 * ib}[stream.what]
            pairs = stream.what == "fibers"
            buffered = walk_cost(groups(reader.op, stream.buffered), stream.split, elem, line, pairs)
            w1 += buffered
            w0 += buffered if stream.unbuffered is None else \
                walk_cost(groups(reader.op, stream.unbuffered), stream.split_unbuffered, elem, line, pairs)
        fiber = None
        if reader.fiber is not None and w0.lines > w1.lines:
            span = reader.fiber
            peak = max(groups(reader.op, span.span), default=0)
            fiber = State("fiber", span.name, peak * (vb * span.values + ib * span.indices), w0.lines - w1.lines)
            fibers.append(fiber)
        key = (inp.tensor, inp.vars)
        if key not in operands:
            operands[key] = _Operand(inp.tensor, list(stored(inp.tensor, reader.edges)))
            traffic.compulsory_bytes += operands[key].size
        operands[key].readers.append((reader, logical, w1, w0, fiber))

    left = share(required + fibers, capacity)
    candidates = {}
    for key, operand in operands.items():
        gathers = any(w1.gathers for _, _, w1, _, _ in operand.readers)
        candidates[key] = State("locate" if gathers else "resident", f"{key[0]}({','.join(key[1])})",
                                operand.size, max(0.0, operand.walk().lines - operand.once(line).lines))
    choose_residents(list(candidates.values()), left)

    # Reads: resident operands once, the others as their largest reader walks them.
    moved = Walk()
    for fiber in fibers:
        fiber.spill = fiber.spilled * fiber.reads
    for key, operand in operands.items():
        resident = candidates[key]
        once = operand.once(line)
        if not resident.allocated and resident.size <= capacity:
            resident.spill = resident.reads          # it would fit alone: re-read for want of room
        walk = once if resident.allocated else operand.walk()
        logical = max(r[1] for r in operand.readers)
        full = max((w1 for _, _, w1, _, _ in operand.readers), key=lambda w: w.lines)
        if operand.size <= capacity:
            logical = min(logical, operand.size)          # it fits alone: read once, unless its loops read less
            if full.lines > once.lines:
                full = once
        moved += walk
        traffic.spill_read_bytes += max(0.0, walk.lines - full.lines)
        traffic.logical_read_bytes += logical
        entry = traffic.per_tensor.setdefault(operand.tensor, _tensor_entry())
        entry["read"] += walk.lines
        entry["logical_read"] += logical
    traffic.read_bytes = moved.lines
    traffic.gathers, traffic.gathered_bytes = moved.gathers, moved.gathered
    traffic.streamed_bytes = moved.lines - moved.gathered

    # Spilled accumulators and intermediates stream out and back in.
    for state in required:
        reads, writes = line_bytes(state.spilled * state.reads, line), line_bytes(state.spilled * state.writes, line)
        traffic.read_bytes += reads
        traffic.write_bytes += writes
        traffic.spill_read_bytes += reads
        traffic.spill_write_bytes += writes
        traffic.streamed_bytes += reads + writes
        state.spill = reads + writes

    # Writes: each result once, its arrays in whole lines (level writers append).
    for tensor, arrays in written.items():
        size, lines = float(sum(arrays)), sum(line_bytes(a, line) for a in arrays)
        traffic.write_bytes += lines
        traffic.logical_write_bytes += size
        traffic.streamed_bytes += lines
        traffic.compulsory_bytes += size
        entry = traffic.per_tensor.setdefault(tensor, _tensor_entry())
        entry["written"] += lines
        entry["logical_written"] += size

    traffic.state = [s for s in required + fibers + list(candidates.values()) if s.allocated or s.spill]
    traffic.onchip_bytes = sum(s.allocated for s in traffic.state)
    traffic.latency_cycles = latency_cycles(traffic.gathers, hw, plan.par)
    traffic.memory_cycles = traffic.bytes / hw.memory_bytes_per_cycle + traffic.latency_cycles
    return traffic


def _tensor_entry() -> dict:
    return {"read": 0.0, "written": 0.0, "logical_read": 0.0, "logical_written": 0.0}
