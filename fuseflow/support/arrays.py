"""Set operations on integer key arrays, by sorting.

numpy 2.3 and later compute a plain `np.unique(x)` (and so `np.union1d`) with a hash table
that runs 50-100x slower than a sort on the simulator's 10**6-10**8 integer keys (11 s against
0.15 s for 10**7 keys on the development machine). Library code takes distinct keys from
here; `tests/test_array_sets.py` keeps the slow forms out of it.
"""

from __future__ import annotations

import numpy as np


def unique_sorted(keys: np.ndarray) -> np.ndarray:
    """The distinct values of `keys`, ascending (what `np.unique(keys)` returns)."""
    out = np.sort(np.asarray(keys).reshape(-1), kind="stable")   # a merge of sorted runs is linear
    if out.size < 2:
        return out
    keep = np.empty(out.size, dtype=bool)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    return out[keep]


def union_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distinct values of both arrays, ascending (what `np.union1d(a, b)` returns)."""
    return unique_sorted(np.concatenate((np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))))
