"""Options and loading shared by the commands that work on a program."""

from __future__ import annotations

import argparse
import json

from fuseflow.errors import UserError


def add_program_options(sub: argparse.ArgumentParser, program_positional: bool = True) -> None:
    if program_positional:
        sub.add_argument("program", help="path to a program .toml, or a bundled program's name")
    sub.add_argument("--data", metavar="D", help="graph data file (.npz, .mtx, .graph, edge list) replacing the preset")
    sub.add_argument("--dim", action="append", metavar="NAME=N", help="override a dimension's extent (repeatable)")
    sub.add_argument("--hardware", metavar="H", help="hardware .toml overriding the defaults")
    sub.add_argument("--dense-order-fixed", action="store_true",
                     help="also treat dense operands' storage order as fixed when ordering loops")
    sub.add_argument("--json", action="store_true", help="print JSON on stdout")


def parse_dims(values: list[str] | None) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in values or []:
        name, _, value = item.partition("=")
        if not name or not value.lstrip("-").isdigit():
            raise UserError(f"cannot read {item!r}", where="--dim", fix="write NAME=INTEGER, e.g. --dim N=64")
        dims[name] = int(value)
    return dims


def load_program_args(args):
    """(program, binding, hardware) from the common options."""
    from fuseflow.binding import bind
    from fuseflow.bundled import resolve_program
    from fuseflow.hardware import load_hardware

    program = resolve_program(args.program)
    binding = bind(program, getattr(args, "data", None), parse_dims(getattr(args, "dim", None)))
    hardware = load_hardware(getattr(args, "hardware", None))
    return program, binding, hardware


def print_json(data) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))
