"""The contract both executors fulfil: token counts per primitive, and memory visits per input.

Per primitive, `Counts` (fields described in `fuseflow.cost.tokens`, where the cycle rule that
reads them lives).

For every input an op reads from memory (`visits[(op, key)]`): distinct value reads, and per
compressed level the coordinates and fibers read, counted on the op's loop chain without the
loops of other ops that sit *between* the input's own levels (their repeats are served from a
fiber buffer on chip).

For the memory model (`groups`), both measure the projections `fuseflow.cost.walks` names: the
distinct points of a stream projected on some loop depths, as a histogram of the sizes of
their groups under the first of those depths.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fuseflow.cost.tokens import Counts, Visits  # noqa: F401  (the executors' contract)


@dataclass
class RegionRun:
    """What an executor measured for one region."""

    counts: dict[int, Counts]
    visits: dict[tuple[str, str], Visits]
    written: dict[str, object]        # tensor -> FiberTree written to memory
    buffers: dict[tuple[str, str], object] = field(default_factory=dict)
    #: the exact executor's steps per primitive (simulator.firing), for the cycle-level pipeline
    firings: dict[int, object] = field(default_factory=dict)
    #: (op, projection name) -> {group size: groups}: the projections fuseflow.cost.walks names
    groups: dict[tuple[str, str], dict[int, int]] = field(default_factory=dict)


def lane_layout(vars_: tuple[str, ...], par: dict[str, int]) -> tuple[list[int], list[int]]:
    """Positions on the path of the forked variables, and their factors."""
    where = [k for k, v in enumerate(vars_) if par.get(v, 1) > 1]
    return where, [par[vars_[k]] for k in where]


def path_tiles(paths, parent_paths, vars_: tuple[str, ...], coarsen: dict[str, int],
               par: dict[str, int]) -> tuple[int, int, tuple[int, ...]]:
    """Tiles, tiled fibers and per-lane tiles of a stream given as Python path tuples."""
    div = [coarsen.get(v, 1) for v in vars_]
    if all(d == 1 for d in div) and not any(par.get(v, 1) > 1 for v in vars_):
        # Scalar tokens on one lane: every path of a stream is distinct.
        return len(paths), len(parent_paths), (len(paths),)
    tiled = {tuple(c // d for c, d in zip(p, div)) for p in paths}
    parent_div = div[:-1]
    tiled_parents = {tuple(c // d for c, d in zip(p, parent_div)) for p in parent_paths}
    where, factors = lane_layout(vars_, par)
    lanes = np.zeros(int(np.prod(factors)) if factors else 1, dtype=np.int64)
    for t in tiled:
        index = 0
        for k, f in zip(where, factors):
            index = index * f + t[k] % f
        lanes[index] += 1
    return len(tiled), len(tiled_parents), tuple(int(x) for x in lanes)
