"""The simulator's rules, and the analytical model that predicts the simulator with them
(docs/cost-model.md).

    tokens      what the rules read of a region: token counts per primitive, memory visits
    cycles      a region's cycles from its counts (slowest primitive, memory, arithmetic, fill)
    traffic     DRAM lines, gathers and on-chip state from its visits (with dram, capacity, walks)
    bounds      roofline classes: memory- or compute-bound
    statistics  the data's statistics the model reads once
    predict     the counts predicted from them, and the rules applied to them
    estimate    a schedule's estimate (and the logical FLOPs and bytes of a region's order)
    completion  how a partly chosen region is completed when it is costed
    hints       the best estimated completion beneath a partly chosen schedule (the menus' hints)
    hardware    the hardware configuration (a TOML file with defaults)

Names are imported on first use.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.cost.estimate": ["RegionCost", "RegionCostModel", "ScheduleCost", "region_cost", "schedule_cost"],
    "fuseflow.cost.hints": ["Choices", "CostHint", "CostHints"],
    "fuseflow.cost.bounds": ["ScheduleBound"],
    "fuseflow.cost.hardware": ["Hardware", "load_hardware"],
    "fuseflow.cost.statistics": ["DataStatistics"],
    "fuseflow.cost.predict": ["predict_region"],
})
