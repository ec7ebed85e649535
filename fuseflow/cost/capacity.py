"""The on-chip buffer, shared by the state a region keeps on chip.

`onchip_buffer_bytes` is allocated in two tiers:

1. **Buffers the pipeline fills as it runs**: accumulators (the live part of a reduced result),
   intermediates between fused ops that their consumer re-reads, and fiber buffers (an
   operand's fiber repeated over another op's loop between its levels; the loop-following
   reads, `Visits`, assume them). None of them is needed for the result to be right: what does
   not fit spills to DRAM, and costs traffic. A spilled accumulator writes its partial sums out
   and reads them back at every later pass of the reduction; a spilled intermediate is written
   once and read back at every read; a spilled fiber buffer is re-read at every repeat (reads
   only). The spilled bytes are linear in the share that does not fit, so the buffer goes to
   the largest saving per byte first (then plan order), each taking what is left up to its
   peak: an accumulator too large to fit spills anyway, and a little more room for it saves
   less than a whole small fiber buffer would.
2. **Resident operands**, once every buffer is whole: an operand kept whole on chip is read
   once, in whole lines, instead of at every visit of its loops (a *locate* buffer when its
   reads are gathers). Candidates go by bytes saved per byte (then by name), each whole or not
   at all; one that would fit alone but is not kept is re-read (reads only).

Traffic never grows with the buffer: in tier 1 every state only gets more room as the buffer
grows, and tier 2 sees any room only once tier 1 is whole (its savings are then fixed), where
greedy by ratio is monotone: an operand that enters at the larger size saves more than all
the smaller ones it displaces could.
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


def share(states: list[State], capacity: float) -> float:
    """Tier 1: by bytes saved per byte (then in the given order), each state takes what is
    left, up to its size. Returns what is left."""
    left = float(capacity)
    for state in sorted(states, key=_by_saving):
        state.allocated = min(state.size, left)
        left -= state.allocated
    return left


def choose_residents(candidates: list[State], left: float) -> float:
    """Tier 2: whole operands by bytes saved per byte. Returns what is left."""
    for state in sorted(candidates, key=lambda s: (_by_saving(s), s.name)):
        if state.reads > 0 and state.size <= left:
            state.allocated = state.size
            left -= state.size
    return left


def _by_saving(state: State) -> float:
    """Sort key: the most DRAM bytes saved per byte of buffer first."""
    return -(state.reads + state.writes) / state.size if state.size > 0 else -float("inf")
