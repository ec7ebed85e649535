"""`navigator …` entry point. A thin layer: each command lives in navigator/commands/, and
every rule lives in the library code beneath them.

Exit codes: 0 success, 1 the work itself failed (e.g. an invalid schedule under `validate`),
2 bad usage or bad input. User errors print one line on stderr, never a traceback; any other
exception is a bug, reported in one line with the path of a crash file (navigator.process.crash).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from fuseflow.support.errors import UserError, one_line
from navigator.version import __version__
from navigator.process.console import say, say_error

# Each module defines register(subparsers) and sets `run` on the parsers it adds.
COMMAND_MODULES = [
    "navigator.commands.compiler",
    "navigator.commands.explore",
    "navigator.commands.simulate",
    "navigator.commands.navigate",
    "navigator.commands.batch",
    "navigator.commands.library",
    "navigator.commands.tui",
]


class _Parser(argparse.ArgumentParser):
    """Every parser of the command line, the subcommands' included (add_subparsers makes them of
    its parser's class): an argument error is one line naming the option and where the help is,
    exit 2, never the usage block (`--help` prints that)."""

    def error(self, message: str):
        self.exit(2, one_line(f"navigator: error: {message} (see `{self.prog} --help`)") + "\n")

    def parse_args(self, args=None, namespace=None):
        # argparse reports unrecognized arguments from the top parser; name the command they were given to
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            prog = getattr(parsed, "command_prog", None) or self.prog
            self.exit(2, one_line(f"navigator: error: unrecognized arguments: {' '.join(extras)} "
                                  f"(see `{prog} --help`)") + "\n")
        return parsed


def _add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options every command takes, after its name (`navigator eval ... --max-memory 8G`)."""
    parser.add_argument("--max-memory", metavar="SIZE",
                        help="refuse work estimated to need more memory than SIZE (e.g. 512M, 16G; default: "
                             "$NAVIGATOR_MAX_MEMORY, else half the memory available)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write navigator's cache (also: NAVIGATOR_CACHE=off; docs/cli.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="navigator", description="Programming-by-Navigation scheduler for sparse ML programs")
    parser.add_argument("--version", action="version", version=f"navigator {__version__}")
    subs = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subs)
    for sub in _leaf_parsers(subs):
        _add_global_options(sub)
        sub.set_defaults(command_prog=sub.prog)
    return parser


def _leaf_parsers(subs) -> list[argparse.ArgumentParser]:
    """The parsers that run a command (`library check`, not `library`)."""
    leaves = []
    for sub in subs.choices.values():
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        leaves.extend(_leaf_parsers(nested[0]) if nested else [sub])
    return leaves


def _apply_global_options(args) -> None:
    from fuseflow.support.memory import parse_size, set_max_memory

    if getattr(args, "max_memory", None) is not None:
        set_max_memory(parse_size(args.max_memory))
    if getattr(args, "no_cache", False):
        from navigator.workspace.cache import switch_off

        switch_off()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _tolerant_streams()
    if not argv:
        argv = _bare_command()
    parser = build_parser()
    args = parser.parse_args(argv)
    from fuseflow.support.work_budget import set_progress_hook
    from navigator.process.console import report_progress

    set_progress_hook(report_progress)
    try:
        _apply_global_options(args)
        return args.run(args)
    except UserError as exc:
        say_error(exc)
        return 2
    except KeyboardInterrupt:
        say("navigator: interrupted")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:  # noqa: BLE001 - the last resort: a bug, reported without a traceback
        from navigator.process.interrupts import was_interrupted

        if was_interrupted(exc):  # a Ctrl-C that surfaced as another exception (an import's)
            say("navigator: interrupted")
            return 130
        from navigator.process.crash import report_bug

        return report_bug(exc, argv)
    finally:
        from fuseflow.support.memory import set_max_memory
        from navigator.workspace.cache import switch_off

        set_max_memory(None)
        switch_off(False)
        set_progress_hook(None)


def _bare_command() -> list[str]:
    """`navigator` alone: on a terminal the TUI, resuming the session here if there is one, else
    on the GCN program with its built-in Cora-shaped graph; elsewhere one line asking for a command (exit 2)."""
    from navigator.workspace import session_exists, session_path
    from navigator.workspace.session_file import session_target
    from navigator.tui.launch import DEFAULT_PROGRAM, is_terminal

    if not is_terminal():
        return []  # argparse says a command is needed, and exits 2
    try:
        resume = session_exists(session_target(session_path(None)))
    except UserError:  # a bad $NAVIGATOR_SESSION: `navigator tui` names it
        resume = True
    return ["tui"] if resume else ["tui", DEFAULT_PROGRAM]


def _tolerant_streams() -> None:
    """Text that is not valid Unicode (say, a file name of non-UTF-8 bytes echoed in a message)
    is printed escaped rather than crashing the print; valid text is unchanged. A stream closed
    before start (`2>&-`) is None, and print(file=None) would write to stdout instead."""
    import os

    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # replaced streams (tests) need not support it
            pass


def _silence_stdout() -> None:
    """After a closed pipe, point stdout and stderr at /dev/null so the interpreter's final
    flush is quiet (either of them may be the pipe that closed)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass


if __name__ == "__main__":
    raise SystemExit(main())
