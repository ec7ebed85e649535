"""The analytical model of the simulator: a schedule's FLOPs, bytes and roofline cycles,
estimated without running it (docs/cost-model.md).

    estimate   the model: a region's cost under an order, a schedule's as their sum
    hints      the best estimate beneath a partly chosen schedule (the menus' cost hints)
    bounds     roofline classes: memory- or compute-bound
    hardware   the hardware configuration (a TOML file with defaults)

Names are imported on first use.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.cost.estimate": ["RegionCost", "RegionCostModel", "ScheduleCost", "region_cost", "schedule_cost"],
    "fuseflow.cost.hints": ["CostHint", "CostHints"],
    "fuseflow.cost.bounds": ["ScheduleBound"],
    "fuseflow.cost.hardware": ["Hardware", "load_hardware"],
})
