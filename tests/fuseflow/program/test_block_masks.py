"""BigBird block masks (fuseflow/program/block_masks.py): the blocks each row keeps, causality, the
diagonal, the density the cost model is told, and the same mask for the same seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.block_masks import BigBirdPattern, bigbird_mask, block_grid, stored_fraction
from fuseflow.program.frontend import parse_program
from simulator.program_data import materialize

patterns = st.builds(BigBirdPattern, window=st.sampled_from([1, 3, 5]), global_blocks=st.integers(0, 3),
                     random_blocks=st.integers(0, 4), causal=st.booleans())


def kept_blocks(mask, block: int) -> np.ndarray:
    rows, cols = mask.shape
    n_rows, n_cols = block_grid(rows, cols, block)
    grid = np.zeros((n_rows, n_cols), dtype=bool)
    coo = mask.tocoo()
    grid[coo.row // block, coo.col // block] = True
    return grid


@settings(max_examples=80, deadline=None)
@given(patterns, st.integers(1, 70), st.sampled_from([1, 2, 4, 8]), st.integers(0, 2**32 - 1))
def test_each_block_row_keeps_its_window_its_globals_and_its_random_blocks(pattern, size, block, seed):
    mask = bigbird_mask(pattern, size, size, block, np.random.default_rng(seed))
    assert set(np.unique(mask.data)) <= {1.0}
    assert (mask.diagonal() == 1).all()           # a masked softmax never sums an empty row
    grid = kept_blocks(mask, block)
    n = grid.shape[0]
    for row in range(n):
        kept = set(np.flatnonzero(grid[row]))
        assert pattern.fixed_columns(row, n) <= kept
        assert len(kept) == pattern.blocks_in_row(row, n)
        if pattern.causal:
            assert max(kept) <= row
    if pattern.causal:
        assert not np.triu(mask.toarray(), k=1).any()  # no query sees a later key


@settings(max_examples=60, deadline=None)
@given(patterns, st.integers(1, 12), st.sampled_from([1, 2, 4]))
def test_the_density_the_cost_model_is_told_is_the_masks(pattern, blocks, block):
    size = blocks * block
    mask = bigbird_mask(pattern, size, size, block, np.random.default_rng(0))
    fraction = stored_fraction(pattern, size, size, block)
    assert mask.nnz / size ** 2 == pytest.approx(fraction)


def test_bigbird_itc_defaults_on_a_small_grid():
    mask = bigbird_mask(BigBirdPattern(), 8, 8, 1, np.random.default_rng(0))
    grid = mask.toarray().astype(bool)
    assert grid[:2].all() and grid[:, :2].all()           # two global rows and columns
    assert all(grid[r, r - 1:r + 2].all() for r in range(2, 7))  # the window
    assert (grid.sum(axis=1)[2:] <= 3 + 2 + 3).all()


PROGRAM = '''[dims]
T = 152
D = 2
[tensors]
M = { shape = ["T", "T"], format = ["dense", "compressed"], source = "bigbird", block = 16, pattern = { window = 3, global = 1, random = 1, causal = true } }
Q = { shape = ["T", "D"], source = "random" }
[[ops]]
expr = "S(i,j) = M(i,j) * Q(i,d) * Q(j,d)"
'''


def test_a_program_gets_the_same_mask_for_the_same_seed_and_the_density_it_stores():
    program = parse_program(PROGRAM, "mask.toml")
    binding = bind(program)
    first = materialize(program, binding).arrays["M"]
    again = materialize(program, binding).arrays["M"]
    other = materialize(program, binding, seed=1).arrays["M"]
    assert (first != again).nnz == 0 and first.shape == (152, 152)  # cut at the edge: a 10 x 10 grid of 16
    assert other.nnz != first.nnz or (other != first).nnz  # the random blocks move with the seed
    expected = stored_fraction(program.tensors["M"].pattern, 152, 152, 16)
    assert binding.stats["M"].value_density == pytest.approx(expected)


def test_a_dense_bigbird_mask_is_materialized_dense():
    program = parse_program(PROGRAM.replace('format = ["dense", "compressed"], ', ""), "mask.toml")
    mask = materialize(program, bind(program)).arrays["M"]
    assert isinstance(mask, np.ndarray) and mask.shape == (152, 152) and not np.triu(mask, k=1).any()


# ---- the grid-size-independent counts against the brute force they replace (issue 21: a
# mask of T = 2**30 tokens hung, quadratic in block rows x columns)

def brute_fixed_columns(pattern: BigBirdPattern, row: int, n_cols: int) -> set[int]:
    """The block columns a row keeps, listed one by one (the former implementation)."""
    if row < pattern.global_blocks:
        kept = set(range(n_cols))
    else:
        half = pattern.window // 2
        kept = set(range(max(0, row - half), min(n_cols, row + half + 1)))
        kept.update(range(min(pattern.global_blocks, n_cols)))
    return {c for c in kept if c <= row} if pattern.causal else kept


def brute_candidates(pattern: BigBirdPattern, row: int, n_cols: int) -> list[int]:
    if row < pattern.global_blocks:
        return []
    last = min(n_cols, row + 1) if pattern.causal else n_cols
    fixed = brute_fixed_columns(pattern, row, n_cols)
    return [c for c in range(last) if c not in fixed]


def brute_blocks_in_row(pattern: BigBirdPattern, row: int, n_cols: int) -> int:
    fixed = brute_fixed_columns(pattern, row, n_cols)
    return len(fixed) + min(pattern.random_blocks, len(brute_candidates(pattern, row, n_cols)))


def brute_mask_blocks(pattern: BigBirdPattern, n_rows: int, n_cols: int, rng) -> list[tuple[int, int]]:
    """The tiles kept, drawing each row's random blocks from the listed candidates."""
    tiles = []
    for row in range(n_rows):
        pool = brute_candidates(pattern, row, n_cols)
        drawn = rng.choice(pool, size=min(pattern.random_blocks, len(pool)), replace=False).tolist() if pool else []
        tiles += [(row, c) for c in sorted(brute_fixed_columns(pattern, row, n_cols).union(drawn))]
    return tiles


wide_patterns = st.builds(BigBirdPattern, window=st.integers(1, 9), global_blocks=st.integers(0, 6),
                          random_blocks=st.integers(0, 7), causal=st.booleans())


@settings(max_examples=400, deadline=None)
@given(wide_patterns, st.integers(1, 80), st.integers(1, 80), st.sampled_from([1, 2, 3, 16]))
def test_the_closed_form_counts_equal_the_brute_force_on_every_row_and_grid(pattern, n_rows, n_cols, block):
    from fractions import Fraction

    from fuseflow.program.block_masks import kept_blocks

    per_row = [brute_blocks_in_row(pattern, row, n_cols) for row in range(n_rows)]
    for row in range(n_rows):
        assert pattern.fixed_columns(row, n_cols) == brute_fixed_columns(pattern, row, n_cols)
        assert pattern.candidate_count(row, n_cols) == len(brute_candidates(pattern, row, n_cols))
        assert pattern.blocks_in_row(row, n_cols) == per_row[row]
    assert kept_blocks(pattern, n_rows, n_cols) == sum(per_row)
    # the fraction is the exact ratio of the tiles kept (less the causal diagonals' upper parts), rounded once
    upper = Fraction(block - 1, 2 * block) * (min(n_rows, n_cols) if pattern.causal else 0)
    exact = (sum(per_row) - upper) / (n_rows * n_cols)
    assert stored_fraction(pattern, n_rows * block, n_cols * block, block) == float(min(exact, 1))


@settings(max_examples=150, deadline=None)
@given(wide_patterns, st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_the_mask_is_the_one_drawn_from_the_listed_candidates(pattern, n_rows, n_cols, seed):
    mask = bigbird_mask(pattern, n_rows, n_cols, 1, np.random.default_rng(seed)).tocoo()
    expected = brute_mask_blocks(pattern, n_rows, n_cols, np.random.default_rng(seed))
    assert sorted(zip(mask.row.tolist(), mask.col.tolist())) == expected


def test_the_density_of_a_billion_token_mask_is_counted_without_the_grid():
    """T = 2**30 in 16-token blocks is a 2**26 x 2**26 grid: the count no longer visits it."""
    from fuseflow.program.block_masks import kept_blocks

    pattern = BigBirdPattern(window=3, global_blocks=1, random_blocks=2, causal=True)
    n = 2**26
    # the first rows have fewer columns to their left; from row 4 on every row keeps its global
    # column, its two window columns and 2 random ones
    assert kept_blocks(pattern, n, n) == sum(brute_blocks_in_row(pattern, r, 64) for r in range(8)) + (n - 8) * 5
    assert 0 < stored_fraction(pattern, 2**30, 2**30, 16) < 1e-6
    assert stored_fraction(BigBirdPattern(global_blocks=4096), 2**40, 2**40, 1) > 0


def test_the_density_visits_a_bounded_number_of_rows_whatever_the_grid(monkeypatch):
    """The work is bounded by the pattern's block counts, not the grid's rows (which the former
    row-by-row sum visited, each over every column)."""
    visits = []
    row_count = BigBirdPattern.blocks_in_row

    def counted(self, row, n_cols):
        visits.append(row)
        assert len(visits) < 10_000, "the density visits rows in proportion to the grid"
        return row_count(self, row, n_cols)

    monkeypatch.setattr(BigBirdPattern, "blocks_in_row", counted)
    for causal in (False, True):
        assert stored_fraction(BigBirdPattern(causal=causal), 2**36, 2**36, 16) > 0
