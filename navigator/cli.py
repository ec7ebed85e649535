"""`navigator …` commands. A thin layer: every rule lives in the library code beneath it.

Exit codes: 0 success, 1 the work itself failed (e.g. an invalid schedule under `validate`),
2 bad usage or bad input. User errors print one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from fuseflow.errors import UserError
from navigator import __version__


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 already; keep its one-line message
        self.print_usage(sys.stderr)
        self.exit(2, f"navigator: error: {message}\n")


def _dims(values: list[str] | None) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in values or []:
        name, _, value = item.partition("=")
        if not name or not value.lstrip("-").isdigit():
            raise UserError(f"cannot read {item!r}", where="--dim", fix="write NAME=INTEGER, e.g. --dim N=64")
        dims[name] = int(value)
    return dims


def _load(args):
    from fuseflow.binding import bind
    from fuseflow.bundled import resolve_program
    from fuseflow.hardware import load_hardware

    program = resolve_program(args.program)
    binding = bind(program, getattr(args, "data", None), _dims(getattr(args, "dim", None)))
    hardware = load_hardware(getattr(args, "hardware", None))
    return program, binding, hardware


def cmd_check(args) -> int:
    from fuseflow.summary import format_summary, program_summary

    program, binding, hardware = _load(args)
    summary = program_summary(program, binding, hardware, dense_fixed=args.dense_order_fixed)
    print(json.dumps(summary, indent=2, ensure_ascii=False) if args.json else format_summary(summary))
    return 0


def cmd_validate(args) -> int:
    from fuseflow.schedule import load_schedule, schedule_problems

    program, binding, _ = _load(args)
    schedule = load_schedule(args.schedule, program)
    problems = schedule_problems(program, binding, schedule, dense_fixed=args.dense_order_fixed)
    if args.json:
        print(json.dumps({"schedule": args.schedule, "program": program.name, "valid": not problems,
                          "problems": [{"field": p.field, "rule": p.rule, "message": p.message}
                                       for p in problems]}, indent=2))
    elif problems:
        for problem in problems:
            print(f"{args.schedule}: {problem}", file=sys.stderr)
    else:
        print(f"{args.schedule}: valid schedule for {program.name} ({len(schedule.regions)} regions)")
    return 1 if problems else 0


def cmd_programs(args) -> int:
    from fuseflow.bundled import bundled_program_names, resolve_program

    for name in bundled_program_names():
        print(f"{name:<20} {resolve_program(name).description}")
    return 0


def _add_program_options(sub: argparse.ArgumentParser, program_positional: bool = True) -> None:
    if program_positional:
        sub.add_argument("program", help="path to a program .toml, or a bundled program's name")
    sub.add_argument("--data", metavar="D", help="graph data file (.npz, .mtx, .graph, edge list) replacing the preset")
    sub.add_argument("--dim", action="append", metavar="NAME=N", help="override a dimension's extent (repeatable)")
    sub.add_argument("--hardware", metavar="H", help="hardware .toml overriding the defaults")
    sub.add_argument("--dense-order-fixed", action="store_true",
                     help="also treat dense operands' storage order as fixed when ordering loops")
    sub.add_argument("--json", action="store_true", help="print JSON on stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="navigator", description="Programming-by-Navigation scheduler for sparse ML programs")
    parser.add_argument("--version", action="version", version=f"navigator {__version__}")
    subs = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = subs.add_parser("check", help="summarize a program's regions, groupings, orders and default cost")
    _add_program_options(check)
    check.set_defaults(run=cmd_check)
    validate = subs.add_parser("validate", help="check a schedule JSON against a program")
    validate.add_argument("schedule", help="schedule .json (FuseFlow single-region or multi-region form)")
    validate.add_argument("--program", required=True, help="program path or bundled name")
    _add_program_options(validate, program_positional=False)
    validate.set_defaults(run=cmd_validate)
    programs = subs.add_parser("programs", help="list the bundled programs")
    programs.set_defaults(run=cmd_programs)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except UserError as exc:
        print(f"navigator: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("navigator: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
