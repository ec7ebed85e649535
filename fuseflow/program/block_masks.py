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
from fractions import Fraction

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

    # ---- the block grid, one block row at a time, in time independent of the grid's size:
    # a block row is a few spans of block columns, never a list of all of them

    def fixed_spans(self, row: int, n_cols: int) -> tuple[tuple[int, int], ...]:
        """Block columns of block row `row` kept by the window and the global blocks, as disjoint
        sorted half-open spans [start, stop)."""
        last = min(n_cols, row + 1) if self.causal else n_cols  # columns past it are never kept
        if row < self.global_blocks:
            return ((0, last),) if last > 0 else ()
        half = self.window // 2
        globals_end = min(self.global_blocks, last)
        start, stop = max(globals_end, row - half), min(last, row + half + 1)
        spans = [(0, globals_end)] if globals_end > 0 else []
        if start < stop:
            if spans and start == globals_end:
                spans[-1] = (0, stop)
            else:
                spans.append((start, stop))
        return tuple(spans)

    def fixed_columns(self, row: int, n_cols: int) -> set[int]:
        """Block columns of block row `row` kept by the window and the global blocks (a global
        row keeps every column: use fixed_spans where the grid may be large)."""
        return {c for start, stop in self.fixed_spans(row, n_cols) for c in range(start, stop)}

    def candidate_count(self, row: int, n_cols: int) -> int:
        """How many block columns a random block of row `row` is drawn from: those up to the
        last it may keep, less the fixed ones."""
        if row < self.global_blocks:
            return 0
        last = min(n_cols, row + 1) if self.causal else n_cols
        return last - sum(stop - start for start, stop in self.fixed_spans(row, n_cols))

    def blocks_in_row(self, row: int, n_cols: int) -> int:
        fixed = sum(stop - start for start, stop in self.fixed_spans(row, n_cols))
        return fixed + min(self.random_blocks, self.candidate_count(row, n_cols))


def block_grid(rows: int, cols: int, block: int) -> tuple[int, int]:
    return -(-rows // block), -(-cols // block)


def kept_blocks(pattern: BigBirdPattern, n_rows: int, n_cols: int) -> int:
    """How many tiles the n_rows x n_cols block grid keeps, in time linear in the pattern's block
    counts (at most MAX_PATTERN_BLOCKS each), not in the grid's size.

    Only rows near the top (global rows, the window reaching the global columns, a causal row
    with fewer than `random` columns to draw from) and rows near the right edge (the window cut
    at column n_cols, rows past it) differ from their neighbours; the rows between the two and
    the rows after the edge each keep one constant count, so each of those runs is counted once."""
    half = pattern.window // 2
    head = min(n_rows, pattern.global_blocks + half + pattern.random_blocks + 2)
    edge_start = min(n_rows, max(head, n_cols - half - 2))
    edge_stop = min(n_rows, max(edge_start, n_cols + half + 2))
    total = sum(pattern.blocks_in_row(row, n_cols) for row in range(head))
    total += sum(pattern.blocks_in_row(row, n_cols) for row in range(edge_start, edge_stop))
    if edge_start > head:   # the interior: the whole window, all globals, all random blocks
        total += (edge_start - head) * pattern.blocks_in_row(head, n_cols)
    if n_rows > edge_stop:  # past the right edge: the globals and the random blocks only
        total += (n_rows - edge_stop) * pattern.blocks_in_row(edge_stop, n_cols)
    return total


def stored_fraction(pattern: BigBirdPattern, rows: int, cols: int, block: int) -> float:
    """The fraction of the rows x cols matrix the mask stores, counted in whole tiles (a causal
    diagonal tile stores its lower triangle); no random draw is needed, only how many blocks
    each block row keeps (kept_blocks, independent of the grid's size). Exact when the block
    divides both sides; the one rounding is the final division."""
    n_rows, n_cols = block_grid(rows, cols, block)
    if n_rows * n_cols == 0:
        return 0.0
    # in units of 1 / (2 * block) tile: a causal diagonal tile loses (block - 1) of them above its diagonal
    units = 2 * block * kept_blocks(pattern, n_rows, n_cols)
    if pattern.causal:
        units -= min(n_rows, n_cols) * (block - 1)
    return min(1.0, float(Fraction(units, 2 * block * n_rows * n_cols)))


def _nth_free_column(spans: tuple[tuple[int, int], ...], index: int) -> int:
    """The `index`-th block column (from 0) outside the sorted disjoint `spans`."""
    column = index
    for start, stop in spans:
        if start <= column:
            column += stop - start
        else:
            break
    return column


def bigbird_mask(pattern: BigBirdPattern, rows: int, cols: int, block: int, rng):
    """The mask as a CSR matrix of ones; `rng` (a numpy Generator) draws the random blocks,
    by their rank among a row's candidate columns (the same draw as choosing from the list of
    candidates, without listing them: the work is proportional to the tiles kept)."""
    import numpy as np
    import scipy.sparse as sp

    n_rows, n_cols = block_grid(rows, cols, block)
    block_rows: list[int] = []
    block_cols: list[int] = []
    for row in range(n_rows):
        spans = pattern.fixed_spans(row, n_cols)
        pool = pattern.candidate_count(row, n_cols)
        ranks = rng.choice(pool, size=min(pattern.random_blocks, pool), replace=False).tolist() if pool else []
        chosen = [c for start, stop in spans for c in range(start, stop)]
        chosen = sorted(chosen + [_nth_free_column(spans, rank) for rank in ranks])
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
