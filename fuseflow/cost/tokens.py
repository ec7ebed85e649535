"""What the cycle and traffic rules read of a region: token counts per primitive and memory
visits per input. The simulator's executors measure them on the data (`simulator.counts` has
the contract); the estimate predicts them from the data's statistics.

For every primitive (`Counts`):
  data    data tokens it emits (a reducer: the tokens it consumes; a joiner: its output)
  stops   stop tokens it emits (one closes every fiber; see docs/simulator.md for SAM's rules)
  walk    joiners only: coordinates the merge visits (|a ∪ b|), one per cycle
  tiles   data tokens when a token carries a vector or block tile (distinct coarsened paths);
          for a joiner, tiles of its walk
  fibers  fibers of the tiled stream (distinct coarsened parent paths)
  lanes   tiles per logical lane, for the par factors of the variables on its path

For every input an op reads from memory (`Visits`): distinct value reads, and per compressed
level the coordinates and fibers read.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Counts:
    data: int = 0
    stops: int = 0
    walk: int = 0
    tiles: int = 0
    fibers: int = 0
    lanes: tuple[int, ...] = ()

    def as_tuple(self):
        return (self.data, self.stops, self.walk, self.tiles, self.fibers, tuple(int(x) for x in self.lanes))


@dataclass
class Visits:
    values: int = 0
    coords: dict[int, int] = field(default_factory=dict)   # storage level -> coordinates read
    fibers: dict[int, int] = field(default_factory=dict)   # storage level -> fibers opened

    def as_tuple(self):
        return (self.values, tuple(sorted(self.coords.items())), tuple(sorted(self.fibers.items())))
