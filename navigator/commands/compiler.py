"""`check`, `validate` and `programs`: the compiler core's view of a program."""

from __future__ import annotations


from navigator.commands.options import add_program_options, load_program_args, print_json, program_named_by
from navigator.process.console import say


def cmd_check(args) -> int:
    from navigator.fuseflow.summary import format_summary, program_summary

    program, binding, hardware = load_program_args(args)
    summary = program_summary(program, binding, hardware, dense_fixed=args.dense_order_fixed)
    if args.json:
        print_json(summary)
    else:
        print(format_summary(summary))
    return 0


def cmd_validate(args) -> int:
    """Exit 0 valid, 1 invalid (every rule broken, as JSON under --json), 2 unreadable input."""
    from fuseflow.support.errors import ScheduleError
    from fuseflow.schedule import Problem, load_schedule, schedule_problems

    program_named_by(args, args.schedule)
    program, binding, _ = load_program_args(args)
    try:
        schedule = load_schedule(args.schedule, program)
    except ScheduleError as exc:  # read, but breaks a rule of its shape, its keys, its program or its fusion
        schedule = None
        problems = list(getattr(exc, "problems", ())) or [Problem(exc.field, exc.rule, exc.detail, exc.fix)]
    else:
        problems = schedule_problems(program, binding, schedule, dense_fixed=args.dense_order_fixed)
    if args.json:
        print_json({"schedule": args.schedule, "program": program.name, "valid": not problems,
                    "problems": [{"field": p.field, "rule": p.rule, "message": p.message, "fix": p.fix}
                                 for p in problems]})
    elif problems:
        for problem in problems:
            say(f"{args.schedule}: {problem}")
    else:
        print(f"{args.schedule}: valid schedule for {program.name} ({len(schedule.regions)} regions)")
    return 1 if problems else 0


def cmd_programs(args) -> int:
    from fuseflow.program.bundled import bundled_program_names, resolve_program

    for name in bundled_program_names():
        print(f"{name:<20} {resolve_program(name).description}")
    return 0


def register(subs) -> None:
    check = subs.add_parser("check", help="summarize a program's regions, groupings, orders and default cost")
    add_program_options(check, program_optional=True)
    check.set_defaults(run=cmd_check)
    validate = subs.add_parser("validate", help="check a schedule JSON against a program")
    validate.add_argument("schedule", help="schedule .json (FuseFlow single-region or multi-region form)")
    validate.add_argument("--program", help="program path or bundled name (default: the session's, or the bundled "
                                            "program the schedule names)")
    add_program_options(validate, program_positional=False)
    validate.set_defaults(run=cmd_validate)
    programs = subs.add_parser("programs", help="list the bundled programs")
    programs.set_defaults(run=cmd_programs)
