"""`library check`: every problem of a scheduling library (and of a problem file with it)."""

from __future__ import annotations

from navigator.commands.options import print_json
from navigator.process.console import say


def cmd_library_check(args) -> int:
    """Exit 0 clean, 1 problems found (one line each, or the JSON report), 2 unreadable input."""
    from fuseflow.support.errors import one_line
    from navigator.honeybee.library_check import check_library

    report = check_library(args.library, args.problem)
    for warning in report.warnings:
        say(f"navigator: warning: {warning}")
    if args.json:
        print_json(report.to_json())
    else:
        for problem in report.problems:
            print(one_line(problem.line()))
        if not report.checked["applicability"]:
            say("navigator: fix these first: applicability and the goal are checked once every "
                "declaration loads")
        elif report.clean:
            goal = "" if report.goal is None else f"; the goal has {report.goal['programs']} programs"
            print(one_line(f"{args.library}: no problems{goal}"))
    return 0 if report.clean else 1


def register(subs) -> None:
    library = subs.add_parser("library", help="work on a scheduling library (*.hblib.toml)")
    commands = library.add_subparsers(dest="library_command", required=True, parser_class=type(library))
    check = commands.add_parser(
        "check", help="report every problem of a library: unknown types, functions that can never "
                      "be applied, and with a problem file, a goal without solution")
    check.add_argument("library", help="the library, *.hblib.toml")
    check.add_argument("problem", nargs="?", help="a problem (fact program) to check with it, *.hb.toml")
    check.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    check.set_defaults(run=cmd_library_check)
