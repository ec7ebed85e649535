"""`navigator …` entry point. A thin layer: each command lives in navigator/commands/, and
every rule lives in the library code beneath them.

Exit codes: 0 success, 1 the work itself failed (e.g. an invalid schedule under `validate`),
2 bad usage or bad input. User errors print one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from fuseflow.errors import UserError
from navigator import __version__

# Each module defines register(subparsers) and sets `run` on the parsers it adds.
COMMAND_MODULES = [
    "navigator.commands.compiler",
    "navigator.commands.navigation",
    "navigator.commands.simulate",
    "navigator.commands.session",
    "navigator.commands.batch",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"navigator: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="navigator", description="Programming-by-Navigation scheduler for sparse ML programs")
    parser.add_argument("--version", action="version", version=f"navigator {__version__}")
    subs = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subs)
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
