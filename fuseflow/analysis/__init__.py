"""What is legal: which ops may fuse into a region, and in which loop orders a region may run.

    unification       a group of ops becomes a region with one set of loop variables
    fusion            the rules of a legal region and grouping; groupings listed
    fusion_steps      fusion chosen region by region (the navigator's menus), and counted
    fusion_count      the same count by inclusion-exclusion (the tests hold the two equal)
    fusion_shortcuts  named groupings: unfused, per_layer, largest_fusion
    orders            a region's legal dataflow orders, counted and ranked
    contexts          where each op of a region runs under an order
    op_masks          the op graph as bit masks

Names are imported on first use.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.analysis.unification": ["Unification", "UnificationError", "region_signature", "unify_region"],
    "fuseflow.analysis.fusion": ["Grouping", "canonical", "grouping_problem", "legal_groupings", "region_problem"],
    "fuseflow.analysis.fusion_steps": ["FusionState", "FusionStep", "FusionSteps", "count_groupings"],
    "fuseflow.analysis.fusion_shortcuts": ["SHORTCUT_NAMES", "largest_fusion", "offered_shortcuts",
                                           "per_layer_grouping", "shortcut_groupings"],
    "fuseflow.analysis.orders": ["OrderSpace", "default_order"],
    "fuseflow.analysis.contexts": ["Contexts", "region_contexts"],
    "fuseflow.analysis.policies": ["DEFAULT_POLICY", "POLICIES"],
})
