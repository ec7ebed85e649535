"""FuseFlow, the compiler: sparse tensor programs, their legal fused schedules, and a
SAM-style dataflow graph for each region. It knows nothing of Honeybee, sessions or screens.

The layers, each importing only those below it (pyproject.toml's contracts check it):

    lower      a scheduled region becomes a SAM-style dataflow graph
    cost       the analytical model of the simulator: FLOPs, bytes, cycles; hints and bounds
    schedule   the schedule model, every legality rule (named), its JSON forms and keys
    analysis   what is legal: region unification, fusion groupings, loop orders
    program    what a user writes: the IR, expressions, the TOML frontend, bundled programs, binding
    data       graph data: loaders, synthetic generators, preprocessing
    support    errors, bounded file reading, TOML and JSON readers, memory and work budgets, memo

The names a user of the compiler calls:

    import fuseflow
    program = fuseflow.resolve_program("gcn")            # a bundled name or a program .toml
    binding = fuseflow.bind(program)                      # extents and data statistics
    schedule = fuseflow.default_schedule(program)
    fuseflow.check_schedule(program, binding, schedule)   # ScheduleError naming the rule broken
    cost = fuseflow.schedule_cost(program, binding, schedule, fuseflow.load_hardware())
    graphs = fuseflow.lower_schedule(program, binding, schedule)

Names are imported on first use: `import fuseflow` loads neither numpy nor the analyses.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.support.errors": ["UserError"],
    "fuseflow.program.frontend": ["load_program"],
    "fuseflow.program.bundled": ["resolve_program"],
    "fuseflow.program.binding": ["bind"],
    "fuseflow.analysis.fusion": ["legal_groupings"],
    "fuseflow.analysis.fusion_steps": ["count_groupings"],
    "fuseflow.analysis.unification": ["unify_region"],
    "fuseflow.analysis.orders": ["OrderSpace"],
    "fuseflow.schedule.schedules": ["RegionSchedule", "Schedule"],
    "fuseflow.schedule.rules": ["check_schedule", "default_schedule"],
    "fuseflow.schedule.schedule_json": ["load_schedule", "save_schedule"],
    "fuseflow.cost.estimate": ["schedule_cost"],
    "fuseflow.cost.hardware": ["load_hardware"],
    "fuseflow.lower": ["lower_schedule"],
})
