"""The on-chip buffer, shared by the state a region keeps on chip.

`onchip_buffer_bytes` is allocated in a fixed order:

1. **Accumulators and intermediates** (plan order), which the pipeline needs on chip to be
   correct at all. Each takes what is left, up to its peak; the rest spills. A spilled
   accumulator writes its partial sums to DRAM and reads them back at every later pass of
   the reduction; a spilled intermediate is written once and read back at every read.
2. **Fiber buffers** (plan order), which serve the repeats of another op's loop between an
   operand's levels: the loop-following reads (`Visits`) assume them. A spilled one is
   re-read from DRAM at every repeat (reads only).
3. **Resident operands**: an operand kept whole on chip is read once, in whole lines, instead
   of at every visit of its loops (a *locate* buffer when its reads are gathers). Candidates
   go by bytes saved per byte, largest first (then by name), each whole or not at all; one
   that would fit alone but is not kept is re-read (reads only).

Spills are linear in the share that does not fit, so the traffic never grows with the buffer:
tiers 1 and 2 only take more as it grows, and tier 3 sees any room only once tiers 1 and 2 are
whole, where greedy by ratio is monotone (an item that enters at the larger size saves more
than all the smaller ones it displaces could).
"""

from __future__ import annotations

from dataclasses import dataclass

@dataclass
class State:
    """One piece of on-chip state: `size` bytes at its peak; with none of it on chip, it moves
    `reads` and `writes` more DRAM bytes (a candidate for residency: saves `reads`)."""

    kind: str                   # "accumulator" | "intermediate" | "fiber" | "resident" | "locate"
    name: str
    size: float
    reads: float = 0.0
    writes: float = 0.0
    allocated: float = 0.0
    spill: float = 0.0          # the DRAM bytes its spill moved (simulator.traffic)

    @property
    def spilled(self) -> float:
        """The share of it that is not on chip."""
        return (self.size - self.allocated) / self.size if self.size > 0 else 0.0

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "bytes": self.size, "onchip_bytes": self.allocated,
                "spill_bytes": self.spill}


def fill(states: list[State], capacity: float) -> float:
    """Tiers 1 and 2: each state in turn takes what is left, up to its size. Returns what is left."""
    left = float(capacity)
    for state in states:
        state.allocated = min(state.size, left)
        left -= state.allocated
    return left


def choose_residents(candidates: list[State], left: float) -> float:
    """Tier 3: whole operands by bytes saved per byte. Returns what is left."""
    def ratio(state: State) -> float:
        return state.reads / state.size if state.size > 0 else float("inf")

    for state in sorted(candidates, key=lambda s: (-ratio(s), s.name)):
        if state.reads > 0 and state.size <= left:
            state.allocated = state.size
            left -= state.size
    return left
