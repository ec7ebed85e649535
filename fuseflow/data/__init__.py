"""Graph data for the sparse ML programs: loaders, synthetic generators and preprocessing.

See docs/data.md for the accepted file formats and the generator's guarantees.

    from fuseflow.data import load_graph, make_preset_graph
    graph = load_graph("../shared/datasets/cora.npz")      # GraphData: CSR adjacency, features
    small = make_preset_graph("cora", scale=0.1)

Names are imported on first use, so `fuseflow.data.presets` alone loads no numpy.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.data.graph": ["GraphData", "gini"],
    "fuseflow.data.loaders": ["load_edge_list", "load_graph", "load_mtx", "load_npz", "load_planetoid_graph"],
    "fuseflow.data.preprocessing": ["NORMALIZE_MODES", "add_self_loops", "normalize", "preprocess", "preprocess_graph",
                                 "remove_self_loops", "symmetrize"],
    "fuseflow.data.synthetic": ["PRESETS", "GraphPreset", "get_preset", "make_preset_graph", "power_law_graph",
                                "scaled_sizes", "synthetic_features"],
})
