"""`navigator tui`: the terminal UI on a program, a Honeybee problem, or the current session."""

from __future__ import annotations

from fuseflow.support.errors import UserError
from navigator.commands.options import add_data_options, add_session_option, parse_dims


def cmd_tui(args) -> int:
    from navigator.workspace import ProgramSpec, session_path
    from navigator.tui.launch import is_terminal, run_tui

    if not is_terminal():
        raise UserError("the terminal UI needs a terminal (stdin and stdout are not one)", where="tui",
                        fix="run it in a terminal, or use the commands (navigator start, show, fill; docs/cli.md)")
    spec = (ProgramSpec.from_user(args.program, args.data, parse_dims(args.dim), args.library)
            if args.program is not None else None)
    if spec is None and (args.data or args.dim or args.library):
        raise UserError("--data, --dim and --library describe a PROGRAM to start", where="tui",
                        fix="give the program too, e.g. navigator tui gcn --data graph.npz")
    return run_tui(session_path(args.session), spec)


def register(subs) -> None:
    tui = subs.add_parser("tui", help="the terminal UI: navigate, auto-fill, ask the model, evaluate and export "
                                      "(docs/tui.md)")
    tui.add_argument("program", nargs="?", help="a program .toml, a bundled program's name, or a Honeybee problem "
                                                ".hb.toml with --library (default: resume the session)")
    tui.add_argument("--library", metavar="L", help="scheduling library (required for a Honeybee problem)")
    add_data_options(tui)
    add_session_option(tui)
    tui.set_defaults(run=cmd_tui)
