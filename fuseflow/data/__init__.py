"""Graph data for the sparse ML programs: loaders, synthetic generators and preprocessing.

See docs/data.md for the accepted file formats and the generator's guarantees.
"""

from fuseflow.data.graph import GraphData, gini
from fuseflow.data.loaders import (
    load_edge_list,
    load_graph,
    load_mtx,
    load_npz,
    load_planetoid_graph,
)
from fuseflow.data.preprocess import (
    NORMALIZE_MODES,
    add_self_loops,
    normalize,
    preprocess,
    preprocess_graph,
    remove_self_loops,
    symmetrize,
)
from fuseflow.data.synthetic import (
    PRESETS,
    GraphPreset,
    get_preset,
    make_preset_graph,
    power_law_graph,
    scaled_sizes,
    synthetic_features,
)

__all__ = [
    "GraphData",
    "GraphPreset",
    "NORMALIZE_MODES",
    "PRESETS",
    "add_self_loops",
    "get_preset",
    "gini",
    "load_edge_list",
    "load_graph",
    "load_mtx",
    "load_npz",
    "load_planetoid_graph",
    "make_preset_graph",
    "normalize",
    "power_law_graph",
    "preprocess",
    "preprocess_graph",
    "remove_self_loops",
    "scaled_sizes",
    "symmetrize",
    "synthetic_features",
]
