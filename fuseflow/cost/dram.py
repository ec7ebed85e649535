"""DRAM moves whole lines, and a gather waits for its data.

* A run of consecutive addresses of n bytes costs ceil(n / dram_line_bytes) lines. Runs
  (fuseflow.cost.walks.Split) are measured on the data: {run length: runs}.
* A strided walk (a dense loop over a level that is not the operand's innermost) of m
  accesses, s bytes apart, shares lines between neighbours when s is shorter than a line:
  ceil(((m - 1) s + e) / line) lines; otherwise each access costs its own ceil(e / line).
* A scattered access costs ceil(e / line) lines: never less than its own e bytes (a value
  wider than a line takes several).
* A gather (a run or access whose address a coordinate just read decides) pays
  `dram_latency_cycles`. Each lane keeps one gather in flight, so the lanes a region forks
  (the product of its par factors, at most `lanes`) overlap them:
  exposed latency = gathers x dram_latency_cycles / lanes in use. A walk whose addresses are known
  ahead (sequential, strided, a re-read) streams and pays none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fuseflow.cost.hardware import Hardware
from fuseflow.cost.walks import Split


def line_bytes(n: float, line: int) -> float:
    """Bytes moved to transfer n consecutive bytes in whole lines."""
    return float(-(-n // line) * line) if n > 0 else 0.0


@dataclass(frozen=True)
class Walk:
    """What one walk (or a sum of walks) moves."""

    logical: float = 0.0       # bytes of the values and coordinates themselves
    lines: float = 0.0         # bytes moved, in whole lines
    gathered: float = 0.0      # of `lines`, the bytes of gathers
    gathers: float = 0.0       # runs or accesses that pay the latency

    def __add__(self, other: "Walk") -> "Walk":
        return Walk(self.logical + other.logical, self.lines + other.lines, self.gathered + other.gathered,
                    self.gathers + other.gathers)

    def towards(self, other: "Walk", share: float) -> "Walk":
        """This walk for the part of a buffer on chip, `other` for the `share` that is not."""
        if share <= 0:
            return self
        return Walk(*(a + share * (b - a) for a, b in ((self.logical, other.logical), (self.lines, other.lines),
                                                         (self.gathered, other.gathered),
                                                         (self.gathers, other.gathers))))


def walk_cost(histogram: dict[int, int], split: Split, elem: int, line: int, pairs: bool = False) -> Walk:
    """A walk of `elem`-byte accesses whose groups (runs, or strided walks) are `histogram`.
    With `pairs`, each access reads two neighbouring entries of `elem / 2` bytes (a fiber's
    positions), and neighbours in a run share one: a run of m spans m + 1 entries."""
    count = sum(size * groups for size, groups in histogram.items())
    if split.kind == "runs":
        extra = 1 if pairs else 0
        span = elem // 2 if pairs else elem
        lines = sum(groups * line_bytes((size + extra) * span, line) for size, groups in histogram.items())
        gathers = sum(histogram.values()) if split.dependent else 0
    elif split.kind == "strided" and split.stride * elem < line:
        stride = split.stride * elem
        lines = sum(groups * line_bytes((size - 1) * stride + elem, line) for size, groups in histogram.items())
        gathers = 0
    else:
        lines = count * line_bytes(elem, line)
        gathers = count if split.dependent else 0
    return Walk(float(count * elem), lines, lines if gathers else 0.0, float(gathers))


def streamed(n: float, line: int) -> Walk:
    """One sequential walk of n bytes."""
    return Walk(float(n), line_bytes(n, line))


def latency_cycles(gathers: float, hw: Hardware, par: dict[str, int]) -> float:
    """The latency gathers expose: one in flight per lane the region's par factors use (at
    most the hardware's lanes; one without a fork)."""
    return gathers * hw.dram_latency_cycles / min(hw.lanes, math.prod(par.values()))
