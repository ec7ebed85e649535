"""What bounds a region and a schedule: one rule for the estimate (`check`) and the simulation
(`eval`, `compare`), so a schedule's class never contradicts its regions'.

A region's time is its largest term: memory (DRAM bytes / bandwidth) or compute (the estimate's
FLOPs / peak; the simulation's slowest stream primitive or ALU throughput). The terms overlap,
so the others hide under the largest. A region is memory-bound when memory is strictly the
largest term, compute-bound otherwise (a tie is the roofline's ridge, which counts as compute).
A schedule's class is the class of the regions that take most of its cycles, reported with
that share, because one region's class can differ from the whole's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

MEMORY_BOUND = "memory-bound"
COMPUTE_BOUND = "compute-bound"


def region_class(memory_cycles: float, compute_cycles: float) -> str:
    """memory-bound when the memory term is strictly the largest, compute-bound otherwise."""
    return MEMORY_BOUND if memory_cycles > compute_cycles else COMPUTE_BOUND


@dataclass(frozen=True)
class ScheduleBound:
    """The class of the regions holding most cycles, and the share of cycles they hold."""

    roofline: str
    share: float            # 0..1, of the cycles of all regions

    def describe(self, what: str = "cycles") -> str:
        """`memory-bound: 97% of the cycles are in memory-bound regions`."""
        share = round(self.share * 100)
        if share == 100 and self.share < 1:   # never print 100% when some cycles are elsewhere
            text = ">99%"
        elif share == 50 and self.share > 0.5:
            text = ">50%"
        else:
            text = f"{share}%"
        return f"{self.roofline}: {text} of the {what} are in {self.roofline} regions"


def schedule_bound(regions: Iterable[tuple[str, float]]) -> ScheduleBound:
    """`regions`: (class, cycles) per region. Ties go to compute-bound, as for one region."""
    cycles = {MEMORY_BOUND: 0.0, COMPUTE_BOUND: 0.0}
    for roofline, count in regions:
        cycles[roofline] += count
    total = cycles[MEMORY_BOUND] + cycles[COMPUTE_BOUND]
    roofline = region_class(cycles[MEMORY_BOUND], cycles[COMPUTE_BOUND])
    return ScheduleBound(roofline, cycles[roofline] / total if total else 1.0)
