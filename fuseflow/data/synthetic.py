"""Synthetic graphs with exact sizes and a skewed degree distribution, plus dataset presets.

`power_law_graph` draws a Chung-Lu style random graph: vertex i gets weight
w_i = (i + i0)^(-1/(exponent-1)) and an edge {u, v} is drawn with probability proportional to
w_u * w_v, without replacement, until exactly the requested number of distinct edges exists.
The offset i0 keeps the largest expected degree at most sqrt(total degree), the usual Chung-Lu
condition under which edge probabilities stay below one; without it the top vertex of a large
graph would be connected to almost every other vertex. Vertex ids are shuffled at the end so
the hubs are spread over the id range instead of sitting in the first rows.

Two samplers give the same distribution (weighted sampling of distinct pairs):
- small graphs (up to `_EXACT_PAIR_LIMIT` candidate pairs) or dense requests enumerate every
  candidate pair and keep the k smallest Exp(1)/weight keys (Efraimidis-Spirakis);
- large sparse graphs draw endpoint batches by inverse-CDF lookup, drop self loops and
  duplicates, and top up with fresh batches until the count is reached, keeping the first
  distinct pairs in draw order.
Both are vectorised: no Python loop runs per edge.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import MAX_VERTICES
from fuseflow.data.presets import PRESETS, GraphPreset, get_preset  # noqa: F401 - also read from here
from fuseflow.support.errors import DataError
from fuseflow.support.memory import check_memory

# Enumerate all candidate pairs when there are at most this many (~1 M pairs, ~40 MB peak).
_EXACT_PAIR_LIMIT = 1 << 20
# ...or when the request needs more than this share of all candidate pairs.
_DENSE_SHARE = 0.25
_MAX_ROUNDS = 200
# Peak bytes of generation (measured: ~115 per stored entry for a directed exact sample,
# ~50 symmetric; 32 per vertex), and of feature sampling (Generator.choice without
# replacement shuffles the whole index range when it takes more than 1/50 of it).
_GENERATION_BYTES_PER_ENTRY = 128
_GENERATION_BYTES_PER_VERTEX = 48
_CHOICE_SHUFFLE_SHARE = 1 / 50


def generation_bytes(n_vertices: int, n_edges: int) -> int:
    """Peak bytes `power_law_graph(n_vertices, n_edges)` needs."""
    return n_edges * _GENERATION_BYTES_PER_ENTRY + n_vertices * _GENERATION_BYTES_PER_VERTEX


def stored_entries(density: float, cells: int) -> int:
    """How many of `cells` entries a matrix of this density stores: round(density * cells),
    computed once here (density * rows * cols rounds differently for some sizes, e.g. 0.9 of
    31 x 15 is 418.5 one way and 418.50000000000006 the other)."""
    return min(cells, int(round(density * cells)))


def feature_bytes(n_rows: int, n_cols: int, density: float | None) -> int:
    """Peak bytes `synthetic_features(n_rows, n_cols, density=density)` needs."""
    cells = n_rows * n_cols
    if density is None:
        return cells * 8
    count = stored_entries(density, cells)
    sampling = cells * 8 if count > cells * _CHOICE_SHUFFLE_SHARE else count * 32
    return sampling + count * 32 + (n_rows + 1) * 16


def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise DataError(f"{name} must be an integer >= {minimum}, got {value!r}",
                        where=name, fix=f"pass a whole number of at least {minimum}")
    return int(value)


def _vertex_weights(n: int, exponent: float, total_degree: int) -> np.ndarray:
    """Chung-Lu weights (i + i0)^-alpha, normalised to sum 1, with the hub capped."""
    alpha = 1.0 / (exponent - 1.0)
    ids = np.arange(n, dtype=np.float64)
    cap = min(math.sqrt(total_degree), n - 1.0) if total_degree > 0 else n - 1.0

    def top_share(offset: float) -> float:
        w = (ids + offset) ** -alpha
        return w[0] / w.sum()

    offset_low, offset_high = 1.0, 1.0
    if total_degree * top_share(1.0) > cap:
        offset_high = 2.0
        while total_degree * top_share(offset_high) > cap and offset_high < 1e12:
            offset_high *= 2.0
        # bisect: the share of vertex 0 falls as the offset grows
        while offset_high - offset_low > 1e-3 * offset_high:
            middle = 0.5 * (offset_low + offset_high)
            if total_degree * top_share(middle) > cap:
                offset_low = middle
            else:
                offset_high = middle
    weights = (ids + offset_high) ** -alpha
    return weights / weights.sum()


def _exact_pairs(n: int, count: int, weights: np.ndarray, symmetric: bool,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sample of `count` distinct pairs by enumerating every candidate pair."""
    if symmetric:
        rows, cols = np.triu_indices(n, k=1)
    else:
        rows, cols = np.nonzero(~np.eye(n, dtype=bool))
    pair_weight = weights[rows] * weights[cols]
    keys = rng.exponential(size=rows.size) / pair_weight
    if count < rows.size:
        chosen = np.argpartition(keys, count - 1)[:count]
    else:
        chosen = np.arange(rows.size)
    return rows[chosen].astype(np.int64), cols[chosen].astype(np.int64)


def _sampled_pairs(n: int, count: int, weights: np.ndarray, symmetric: bool,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sample of `count` distinct pairs by batch draws with rejection and top-ups."""
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    kept = np.empty(0, dtype=np.int64)      # distinct pair keys in draw order
    seen = np.empty(0, dtype=np.int64)      # the same keys, sorted, for membership tests
    fresh_rate = 0.9
    for _ in range(_MAX_ROUNDS):
        need = count - kept.size
        if need <= 0:
            break
        batch = int(need / max(fresh_rate, 0.05) * 1.05) + 64
        u = np.minimum(np.searchsorted(cdf, rng.random(batch), side="right"), n - 1)
        v = np.minimum(np.searchsorted(cdf, rng.random(batch), side="right"), n - 1)
        loop_free = u != v
        u, v = u[loop_free], v[loop_free]
        if symmetric:
            u, v = np.minimum(u, v), np.maximum(u, v)
        keys = u * np.int64(n) + v
        unique_keys, first = np.unique(keys, return_index=True)
        new = ~np.isin(unique_keys, seen, assume_unique=True)
        fresh = keys[np.sort(first[new])]   # new distinct keys, in draw order
        fresh_rate = max(fresh.size / batch, 0.01)
        fresh = fresh[:need]
        kept = np.concatenate([kept, fresh])
        if kept.size < count:  # fresh is distinct from seen, so a sorted merge is enough
            seen = np.sort(np.concatenate([seen, fresh]))
    if kept.size < count:  # pragma: no cover - only for requests close to a complete graph
        raise DataError(f"could not place {count} distinct edges among {n} vertices",
                        where="power_law_graph", fix="ask for fewer edges or more vertices")
    return kept // n, kept % n


def power_law_graph(n_vertices: int, n_edges: int, *, seed: int = 0, exponent: float = 2.1,
                    symmetric: bool = True, name: str | None = None) -> sp.csr_matrix:
    """A random graph with a skewed (power-law-like) degree distribution and exact sizes.

    Returns an n_vertices x n_vertices float64 CSR matrix of ones with exactly `n_edges`
    stored entries, no self loops and no duplicates. With `symmetric=True` `n_edges` counts
    directed entries, must be even, and the matrix equals its transpose. The same arguments
    always give the same matrix. `name` is accepted for symmetry with the presets and only
    used in error messages.
    """
    where = name or "power_law_graph"
    n = _check_int(n_vertices, "n_vertices", 1)
    m = _check_int(n_edges, "n_edges", 0)
    seed = _check_int(seed, "seed", 0)
    if not isinstance(exponent, (int, float)) or not math.isfinite(exponent) or exponent <= 1:
        raise DataError(f"exponent must be a number > 1, got {exponent!r}", where=where,
                        fix="typical power-law exponents lie between 2 and 3")
    if symmetric and m % 2:
        raise DataError(f"a symmetric graph stores every edge twice, so n_edges must be even, "
                        f"got {m}", where=where, fix=f"ask for {m - 1} or {m + 1} edges")
    possible = n * (n - 1)
    if m > possible:
        raise DataError(f"{n} vertices hold at most {possible} edges without self loops, "
                        f"asked for {m}", where=where, fix="ask for fewer edges or more vertices")
    if n > MAX_VERTICES:
        raise DataError(f"{n:,} vertices are more than the {MAX_VERTICES:,} Navigator can store", where=where,
                        fix="ask for fewer vertices")
    check_memory(generation_bytes(n, m), f"generating a {n:,}-vertex graph with {m:,} edges", where,
                 fix="ask for fewer vertices or edges (a smaller --dim or preset)")
    pairs_needed = m // 2 if symmetric else m
    candidates = possible // 2 if symmetric else possible
    rng = np.random.default_rng(seed)
    weights = _vertex_weights(n, float(exponent), m)
    if pairs_needed == 0:
        rows = cols = np.empty(0, dtype=np.int64)
    elif candidates <= _EXACT_PAIR_LIMIT or pairs_needed > _DENSE_SHARE * candidates:
        rows, cols = _exact_pairs(n, pairs_needed, weights, symmetric, rng)
    else:
        rows, cols = _sampled_pairs(n, pairs_needed, weights, symmetric, rng)
    relabel = rng.permutation(n).astype(np.int64)
    rows, cols = relabel[rows], relabel[cols]
    if symmetric:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    return _csr_from_unique_pairs(rows, cols, n)


def _csr_from_unique_pairs(rows: np.ndarray, cols: np.ndarray, n: int) -> sp.csr_matrix:
    """A canonical CSR of ones from distinct (row, col) pairs, built without a COO pass."""
    order = np.argsort(rows * np.int64(n) + cols, kind="stable")
    indices = cols[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    index_type = np.int32 if max(n, rows.size) < np.iinfo(np.int32).max else np.int64
    matrix = sp.csr_matrix(
        (np.ones(rows.size), indices.astype(index_type), indptr.astype(index_type)),
        shape=(n, n))
    matrix.has_sorted_indices = True
    matrix.has_canonical_format = True
    return matrix


def synthetic_features(n_rows: int, n_cols: int, *, density: float | None = None,
                       seed: int = 0) -> np.ndarray | sp.csr_matrix:
    """Random feature values in [0, 1): a dense float64 array, or CSR with exactly
    stored_entries(density, n_rows * n_cols) stored entries when `density` is given."""
    rows = _check_int(n_rows, "n_rows", 0)
    cols = _check_int(n_cols, "n_cols", 0)
    seed = _check_int(seed, "seed", 0)
    if density is not None and (isinstance(density, bool) or not isinstance(density, (int, float))
                                or not 0.0 <= density <= 1.0):
        raise DataError(f"density must be between 0 and 1, got {density!r}", where="density",
                        fix="pass a fraction such as 0.01, or None for dense features")
    check_memory(feature_bytes(rows, cols, density), f"generating {rows:,} x {cols:,} features", "features",
                 fix="ask for fewer rows or a narrower feature width (a smaller --dim or preset)")
    rng = np.random.default_rng(seed)
    if density is None:
        return rng.random((rows, cols))
    cells = rows * cols
    count = stored_entries(density, cells)
    positions = np.sort(rng.choice(cells, size=count, replace=False)) if count else \
        np.empty(0, dtype=np.int64)
    r, c = np.divmod(positions, max(cols, 1))
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=rows), out=indptr[1:])
    values = rng.random(count)
    values[values == 0.0] = 0.5  # a stored entry should never be an explicit zero
    return sp.csr_matrix((values, c, indptr), shape=(rows, cols))


# ---------------------------------------------------------------------------------- presets

def scaled_sizes(preset: GraphPreset, scale: float) -> tuple[int, int]:
    """Vertex and (even) edge counts of `preset` shrunk or grown by `scale`."""
    if not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise DataError(f"scale must be a positive number, got {scale!r}", where="scale",
                        fix="use 1.0 for the full size or e.g. 0.01 for a small test graph")
    if preset.n_vertices * scale > MAX_VERTICES:  # also keeps round() away from inf
        raise DataError(f"scale {scale:g} gives {preset.n_vertices * scale:.3g} vertices, more than the "
                        f"{MAX_VERTICES:,} Navigator can store", where="scale", fix="use a smaller scale")
    n = max(2, int(round(preset.n_vertices * scale)))
    m = int(round(preset.n_edges * scale))
    m = min(m - m % 2, n * (n - 1))
    return n, max(m, 0)


def make_preset_graph(name: str, *, seed: int = 0, scale: float = 1.0,
                      with_features: bool = True) -> GraphData:
    """A synthetic graph with the preset's vertex/edge counts (times `scale`), symmetric
    power-law adjacency, synthetic features (dense or sparse per the preset) and random
    labels in 0..n_classes-1. `with_features=False` skips the features (and their memory)."""
    preset = get_preset(name)
    n, m = scaled_sizes(preset, scale)
    label = preset.name if scale == 1.0 else f"{preset.name}@{scale:g}"
    features = feature_bytes(n, preset.n_features, preset.feature_density) if with_features else 0
    check_memory(generation_bytes(n, m) + features + n * 8, f"generating the graph {label} ({n:,} vertices, "
                 f"{m:,} edges{', with features' if with_features else ''})", label,
                 fix="use a smaller scale or preset")
    adjacency = power_law_graph(n, m, seed=seed, symmetric=True, name=label)
    features = None
    if with_features:
        features = synthetic_features(n, preset.n_features, density=preset.feature_density,
                                      seed=seed + 1)
    labels = np.random.default_rng(seed + 2).integers(0, preset.n_classes, size=n)
    return GraphData(name=label, adjacency=adjacency, features=features, labels=labels)
