"""How a partly chosen region is completed when it is costed: the heuristic's rule for what is
not chosen yet, one rule for the hints (fuseflow.cost.hints) and the `heuristic` strategy.

* parallel factors: unless a chosen factor forks already, the outermost free dense level of
  more than one coordinate gets the largest allowed factor within the hardware's lanes (a
  dense level splits evenly across lanes; a compressed one cannot be forked), every other
  level 1;
* stream shape: the widest the innermost level allows;
* block mode: off or on, whichever the estimate prefers (`candidates` offers both).

`candidates` adds the compiler's defaults for what is free (factors 1, shape 1, block off),
so the best of the candidates is never worse than leaving the choices at their defaults.
"""

from __future__ import annotations

from itertools import product

from fuseflow.cost.hardware import Hardware
from fuseflow.program.binding import Binding
from fuseflow.program.ir import Region
from fuseflow.schedule import RegionSchedule
from fuseflow.schedule.rules import allowed_stream_shapes, block_sparse_choices, levels


def outer_dense(region: Region, order: tuple[str, ...], binding: Binding) -> str | None:
    """The outermost dense loop of more than one coordinate: the level the rule forks."""
    compressed = region.compressed_vars()
    return next((v for v in order if v not in compressed and binding.extent(region.var_dims[v]) > 1), None)


def heuristic_factors(region: Region, order: tuple[str, ...], binding: Binding, hw: Hardware,
                      chosen: dict[str, int] | None = None) -> dict[str, int]:
    """The rule's factor for every loop variable of `order`, `chosen` ones as chosen: unless a
    chosen factor forks already, the outermost free dense level of more than one coordinate
    gets the largest allowed factor within the lanes; every other level 1."""
    chosen = chosen or {}
    free = [v for v in order if v not in chosen]
    forked = None if any(f > 1 for f in chosen.values()) else outer_dense(region, tuple(free), binding)
    factors = {}
    for level in levels(region, order, binding):
        allowed = level.allowed_par_factors
        within = [f for f in allowed if f <= hw.lanes] or [min(allowed)]
        factors[level.var] = chosen.get(level.var, max(within) if level.var == forked else 1)
    return factors


def widest_shape(region: Region, order: tuple[str, ...], binding: Binding, hw: Hardware) -> int:
    shapes = allowed_stream_shapes(levels(region, order, binding)[-1])
    return max((s for s in shapes if s <= hw.lanes), default=1)


def candidates(region: Region, order: tuple[str, ...], binding: Binding, hw: Hardware,
               factors: dict[str, int] | None = None, shape: int | None = None,
               block: bool | None = None, defaults: bool = True) -> list[RegionSchedule]:
    """The completions costed for a region under `order`, with the choices made so far
    (`factors` per loop variable, `shape`, `block`; missing or None: free). Without
    `defaults`, only the rule's (with block mode both ways); with them, also everything free
    at the compiler's default."""
    factors = factors or {}
    rule = heuristic_factors(region, order, binding, hw, factors)
    par_options = {tuple(rule[v] for v in order)}
    shape_options = {shape} if shape is not None else {widest_shape(region, order, binding, hw)}
    block_options = {block} if block is not None else set(block_sparse_choices(region))
    found = {RegionSchedule(region.ops, order, par, s, b)
             for par, s, b in product(sorted(par_options), sorted(shape_options), sorted(block_options))}
    if defaults:   # everything still free at the compiler's default
        found.add(RegionSchedule(region.ops, order, tuple(factors.get(v, 1) for v in order),
                                 shape if shape is not None else 1, block if block is not None else False))
    return sorted(found, key=lambda rs: (rs.par_factors, rs.stream_shape, rs.block_sparse))
