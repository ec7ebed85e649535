"""Schedules: the model, every legality rule, and the JSON forms.

    schedules       RegionSchedule, Schedule: what a schedule is, as data
    rules           every legality rule, named (allowed_par_factors, schedule_problems,
                    check_schedule, …), and the compiler's defaults (default_schedule)
    schedule_json   schedule_to_json, save_schedule, schedule_from_json, load_schedule
    schedule_keys   the keys each level of the JSON may hold
    space_size      the size of a program's schedule space, from the rules alone

The rules live in `rules` only: the fact generator (navigator.fuseflow.facts), the validator
and the docs all read them from there.

    from fuseflow.schedule import check_schedule, default_schedule, load_schedule
    schedule = load_schedule("schedule.json", program)
    check_schedule(program, binding, schedule, "schedule.json")

Names are imported on first use, so the model alone loads neither the analyses nor numpy.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.schedule.schedules": ["RegionSchedule", "Schedule"],
    "fuseflow.schedule.rules": [
        "PAR_FACTORS", "STREAM_SHAPES", "Level", "Problem", "allowed_par_factors", "allowed_stream_shapes",
        "block_sparse_allowed", "block_sparse_choices", "check_schedule", "default_grouping",
        "default_region_schedule", "default_schedule", "levels", "region_problems", "schedule_problems",
        "sparse_annotation_problem", "vector_level",
    ],
    "fuseflow.schedule.schedule_json": [
        "NESTED_LEVELS", "SCHEDULE_FORMAT", "SCHEDULE_VERSION", "SINGLE_REGION_KEYS", "SPARSE_ANNOTATIONS",
        "ScheduleReadError", "annotation_problems", "key_problems", "load_schedule", "save_schedule",
        "schedule_from_json", "schedule_to_json",
    ],
    "fuseflow.schedule.space_size": ["region_space", "schedule_space_size"],
})
