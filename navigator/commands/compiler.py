"""`check`, `validate`, `programs` and `import`: the compiler core's view of a program."""

from __future__ import annotations


import argparse

from fuseflow.support.errors import UserError
from navigator.commands.options import (AppendOnce, add_program_options, load_program_args, parse_dims, print_json,
                                        program_named_by)
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


def cmd_import(args) -> int:
    """Write the program a .mlir model imports to (docs/mlir.md); it is read back first, so every
    rule of a program holds for what is written."""
    import os

    from fuseflow.program.frontend import parse_program
    from fuseflow.program.mlir import import_mlir_text
    from fuseflow.support.errors import ProgramError
    from fuseflow.support.files import read_user_text, write_text_atomic

    dims = parse_dims(args.dim)
    text = read_user_text(args.model, ProgramError, "an MLIR model (.mlir)")
    program_text = import_mlir_text(text, args.model, dims, density=args.density)
    program = parse_program(program_text, f"{args.model} (imported)", dims)
    from fuseflow.program.binding import bind

    bind(program, None, dims)  # every --dim known and in range, as any command that reads the program checks
    if args.output is None:
        print(program_text, end="")
        return 0
    if os.path.exists(args.output) and os.path.samefile(args.output, args.model):
        raise UserError(f"{args.output} is the model being imported", where="-o",
                        fix="write the program to another file, e.g. model.toml")
    write_text_atomic(args.output, program_text, follow_link=True)
    say(f"wrote {args.output}: {program.name}, {len(program.ops)} ops, {len(program.tensors)} tensors, "
        f"{len(program.dims)} dimensions")
    return 0


def _density(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text[:40]!r}")
    return value


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
    mlir = subs.add_parser("import", help="turn an MLIR model (linalg on tensors with sparse_tensor encodings, as "
                                          "torch-mlir emits) into a program .toml (docs/mlir.md)")
    mlir.add_argument("model", help="the .mlir file: one func.func")
    mlir.add_argument("-o", "--output", metavar="PROGRAM.toml", help="write the program here (default: print it)")
    mlir.add_argument("--dim", action=AppendOnce, metavar="NAME=N",
                      help="bind a dynamic (?) dimension, or override one (repeatable; the import names them "
                           "D0, D1, ...)")
    mlir.add_argument("--density", type=_density, default=0.1, metavar="F",
                      help="the density of the data generated for a compressed input (default 0.1)")
    mlir.set_defaults(run=cmd_import)
