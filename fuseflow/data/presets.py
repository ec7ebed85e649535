"""The benchmark graphs a program can name as its data (`[data] preset = "cora"`).

A module of its own, without numpy or scipy, so that parsing a program can check the name
without loading the generator (fuseflow.data.synthetic, which makes the graphs) or the
rest of the data package.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.support.errors import DataError


@dataclass(frozen=True)
class GraphPreset:
    """Sizes of a benchmark graph: vertices, directed edges, and the feature/hidden/class
    lengths of the GCN layers run on it. `real_file` names the file under the shared dataset
    folder when the real graph is available. `feature_density` is None for dense features."""

    name: str
    n_vertices: int
    n_edges: int
    n_features: int
    n_hidden: int
    n_classes: int
    real_file: str | None
    feature_density: float | None = None


PRESETS: dict[str, GraphPreset] = {
    # Feature densities of cora and cora_ml are measured on the real files (49216 and 151171
    # stored entries); dblp's is an assumption (sparse bag-of-words, real file not available);
    # ogb_collab's features are dense 128-wide embeddings.
    "cora": GraphPreset("cora", 2708, 10556, 1433, 16, 7, "cora.npz", 0.0127),
    "cora_ml": GraphPreset("cora_ml", 2995, 16316, 2879, 16, 7, "cora_ml.npz", 0.0175),
    "dblp": GraphPreset("dblp", 17716, 105734, 1639, 16, 4, None, 0.01),
    "ogb_collab": GraphPreset("ogb_collab", 235868, 2570930, 128, 16, 2, None, None),
}


def get_preset(name: str) -> GraphPreset:
    """The preset called `name`; DataError listing the known names otherwise."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise DataError(f"unknown graph preset {name!r}", where="preset",
                        fix=f"choose one of: {', '.join(sorted(PRESETS))}") from None
