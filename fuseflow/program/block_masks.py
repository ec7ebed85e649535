"""Block-sparse attention masks in the style of BigBird (Zaheer et al., 2020): `source = "bigbird"`.

The mask is a grid of `block` x `block` tiles. Block row r keeps:
- a sliding window: the `window` block columns centred on r (r-1, r, r+1 for a window of 3);
- the global blocks: the first `global` block columns, and, for the first `global` block rows,
  every block column (global tokens attend to everything and everything attends to them);
- `random` further block columns, drawn uniformly without replacement from those the row does
  not keep yet (fewer when fewer are left).
With `causal = true` (a decoder) only block columns at or left of r are kept, random ones drawn
among those, and a diagonal tile keeps its lower triangle, so no token attends to a later one.
Every row keeps its diagonal entry, so a masked softmax never divides by an empty row sum.
Stored entries are 1; the last block row and column are cut at the matrix's edge.

The pattern parses without numpy (the frontend checks it); `bigbird_mask` builds the matrix
(numpy and scipy, loaded when called) and `stored_fraction` says, without building it, how
much of the matrix it stores, for the cost model.
"""

from __future__ import annotations

from dataclasses import dataclass

#: keys of a tensor's `pattern` table, with their defaults: BigBird's ITC configuration
PATTERN_DEFAULTS = {"window": 3, "global": 2, "random": 3, "causal": False}
#: largest window, global and random block counts (far beyond any real configuration)
MAX_PATTERN_BLOCKS = 4096


@dataclass(frozen=True)
class BigBirdPattern:
    window: int = 3
    global_blocks: int = 2
    random_blocks: int = 3
    causal: bool = False

    def describe(self) -> str:
        return (f"window {self.window}, global {self.global_blocks}, random {self.random_blocks}"
                + (", causal" if self.causal else ""))

    # ---- the block grid, one block row at a time

    def fixed_columns(self, row: int, n_cols: int) -> set[int]:
        """Block columns of block row `row` kept by the window and the global blocks."""
        if row < self.global_blocks:
            kept = set(range(n_cols))
        else:
            half = self.window // 2
            kept = set(range(max(0, row - half), min(n_cols, row + half + 1)))
            kept.update(range(min(self.global_blocks, n_cols)))
        return {c for c in kept if c <= row} if self.causal else kept

    def candidates(self, row: int, n_cols: int, fixed: set[int]) -> list[int]:
        """Block columns a random block of row `row` is drawn from."""
        if row < self.global_blocks:
            return []
        last = min(n_cols, row + 1) if self.causal else n_cols
        return [c for c in range(last) if c not in fixed]

    def blocks_in_row(self, row: int, n_cols: int) -> int:
        fixed = self.fixed_columns(row, n_cols)
        return len(fixed) + min(self.random_blocks, len(self.candidates(row, n_cols, fixed)))


def block_grid(rows: int, cols: int, block: int) -> tuple[int, int]:
    return -(-rows // block), -(-cols // block)


def stored_fraction(pattern: BigBirdPattern, rows: int, cols: int, block: int) -> float:
    """The fraction of the rows x cols matrix the mask stores, counted in whole tiles (a causal
    diagonal tile stores its lower triangle); no random draw is needed, only how many blocks
    each block row keeps. Exact when the block divides both sides; runs in time linear in the
    number of block rows."""
    n_rows, n_cols = block_grid(rows, cols, block)
    if n_rows * n_cols == 0:
        return 0.0
    upper = (block - 1) / (2 * block)  # the part of a diagonal tile above its diagonal
    kept = 0.0
    for row in range(n_rows):
        kept += pattern.blocks_in_row(row, n_cols) - (upper if pattern.causal and row < n_cols else 0.0)
    return min(1.0, kept / (n_rows * n_cols))


def bigbird_mask(pattern: BigBirdPattern, rows: int, cols: int, block: int, rng):
    """The mask as a CSR matrix of ones; `rng` (a numpy Generator) draws the random blocks."""
    import numpy as np
    import scipy.sparse as sp

    n_rows, n_cols = block_grid(rows, cols, block)
    block_rows: list[int] = []
    block_cols: list[int] = []
    for row in range(n_rows):
        fixed = pattern.fixed_columns(row, n_cols)
        pool = pattern.candidates(row, n_cols, fixed)
        drawn = rng.choice(pool, size=min(pattern.random_blocks, len(pool)), replace=False).tolist() if pool else []
        chosen = sorted(fixed.union(drawn))
        block_rows += [row] * len(chosen)
        block_cols += chosen
    offsets = np.arange(block)
    r = np.asarray(block_rows, dtype=np.int64)[:, None, None] * block + offsets[None, :, None]
    c = np.asarray(block_cols, dtype=np.int64)[:, None, None] * block + offsets[None, None, :]
    r, c = np.broadcast_arrays(r, c)
    keep = (r < rows) & (c < cols)
    if pattern.causal:
        keep &= c <= r
    r, c = r[keep], c[keep]
    return sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(rows, cols))
