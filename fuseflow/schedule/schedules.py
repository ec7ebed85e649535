"""The schedule model: what a schedule is, as data.

A Schedule lists its fused regions; a RegionSchedule is one region's choices: its ops, the
dataflow order of its loop variables, a parallel factor per loop level (outermost first), the
stream shape and the block-sparse switch. Whether a schedule is legal is
fuseflow.schedule.rules' question, and its JSON forms are fuseflow.schedule.schedule_json's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RegionSchedule:
    ops: tuple[str, ...]
    order: tuple[str, ...]
    par_factors: tuple[int, ...]
    stream_shape: int = 1
    block_sparse: bool = False


@dataclass(frozen=True)
class Schedule:
    regions: tuple[RegionSchedule, ...]

    @property
    def grouping(self) -> tuple[tuple[str, ...], ...]:
        return tuple(r.ops for r in self.regions)
