"""What every layer of the compiler (and the engine) may use: errors a user can cause, bounded
file reading and writing, TOML and JSON readers, memory and work budgets, a bounded memo.

It imports nothing else of fuseflow. Names are imported on first use.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.support.errors": ["DataError", "HardwareError", "ProgramError", "ScheduleError", "UserError"],
    "fuseflow.support.files": ["read_user_text", "write_text_atomic"],
    "fuseflow.support.memo": ["BoundedMemo"],
    "fuseflow.support.memory": ["ResourceError", "check_memory"],
    "fuseflow.support.readers": ["load_json_file", "parse_json_text", "parse_toml_text"],
    "fuseflow.support.work_budget": ["StepBudget"],
})
