"""Options and loading shared by the commands that work on a program."""

from __future__ import annotations

import argparse
import math
import re
from typing import Callable

from fuseflow.support.errors import UserError
from navigator.process.console import say


def whole_number(least: int = 1, noun: str = "a whole number", *, bounded: bool = True) -> Callable[[str], int]:
    """An argparse type for counts: ASCII digits only (int() also takes "²" or "1_000"), and
    unless not `bounded`, at most 9 of them (a count that size is checked by what it sizes)."""
    pattern, most = (r"[0-9]{1,9}", " and at most 999999999") if bounded else (r"[0-9]+", "")

    def parse(text: str) -> int:
        if not re.fullmatch(pattern, text) or int(text) < least:
            raise argparse.ArgumentTypeError(f"expected {noun}, at least {least}{most}, not {text[:40]!r}")
        return int(text)

    return parse


def seconds(most: float, note: str = "") -> Callable[[str], float]:
    """An argparse type for a duration: more than 0 and at most `most` seconds (not nan or inf)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0 < value <= most):
            raise argparse.ArgumentTypeError(f"expected a number of seconds above 0 and at most {most:,}, "
                                             f"not {text[:40]!r}{note}")
        return value

    return parse


class AppendOnce(argparse.Action):
    """A repeatable NAME=VALUE option (`--dim N=64 --dim J=8`) that refuses a NAME given twice:
    `--dim layers=3 --dim layers=4` is a typo, and keeping either value silently would hide it.
    The refusal is the parser's one-line error (exit 2). Values that do not read as NAME=VALUE
    are kept for the command to refuse with its own message."""

    def __call__(self, parser, namespace, value, option_string=None):
        given = list(getattr(namespace, self.dest, None) or [])
        name = value.split("=", 1)[0]
        earlier = [item for item in given if "=" in value and "=" in item and item.split("=", 1)[0] == name]
        if earlier:
            parser.error(f"argument {option_string}: {name} is given twice ({option_string} {earlier[0]} and "
                         f"{option_string} {value}); give each name once")
        setattr(namespace, self.dest, given + [value])


def add_data_options(sub: argparse.ArgumentParser) -> None:
    """--data and --dim: the graph and the dimension overrides of a tensor program."""
    sub.add_argument("--data", metavar="D", help="graph data file (.npz, .mtx, .graph, edge list) replacing the "
                                                 "program's preset")
    sub.add_argument("--dim", action=AppendOnce, metavar="NAME=N",
                     help="override a dimension's extent (repeatable, once per dimension)")


def add_session_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--session", metavar="FILE",
                     help="session file (default: $NAVIGATOR_SESSION, else .navigator/session.json)")


def add_program_options(sub: argparse.ArgumentParser, program_positional: bool = True,
                        program_optional: bool = False) -> None:
    """The program and its sizes; with `program_optional`, the current session's program is the default."""
    if program_positional:
        if program_optional:
            sub.add_argument("program", nargs="?",
                             help="path to a program .toml, or a bundled program's name "
                                  "(default: the current session's program)")
        else:
            sub.add_argument("program", help="path to a program .toml, or a bundled program's name")
    add_data_options(sub)
    sub.add_argument("--hardware", metavar="H", help="hardware .toml overriding the defaults")
    sub.add_argument("--dense-order-fixed", action="store_true",
                     help="also treat dense operands' storage order as fixed when ordering loops")
    sub.add_argument("--json", action="store_true", help="print JSON on stdout")
    add_session_option(sub)


def add_policy_option(sub: argparse.ArgumentParser) -> None:
    from fuseflow.analysis.policies import DEFAULT_POLICY, POLICIES

    sub.add_argument("--policy", choices=POLICIES, default=DEFAULT_POLICY,
                     help="accumulate (default): every reduction closes on chip before its result is used; "
                          "stream: linear consumers take partial sums")


_DIM = re.compile(r"(?P<name>[^=\s]+)=(?P<value>-?[0-9]+)")


def parse_dims(values: list[str] | None) -> dict[str, int]:
    """`--dim NAME=N` options as {name: N}. Only ASCII digits are read, at most 20 of them
    (int() would also take '1_000', '²' or 5,000 digits); bind() checks the range."""
    from fuseflow.program.ir import MAX_EXTENT

    dims: dict[str, int] = {}
    for item in values or []:
        match = _DIM.fullmatch(item)
        if not match:
            raise UserError(f"cannot read {item[:60]!r}", where="--dim",
                            fix="write NAME=EXTENT with the extent as a whole number in digits, e.g. --dim N=64")
        name, value = match.group("name"), match.group("value")
        if len(value.lstrip("-")) > 20:
            raise UserError(f"dimension {name} = {value[:12]}... ({len(value)} digits) is larger than the "
                            f"{MAX_EXTENT:,} Navigator allows", where="--dim",
                            fix=f"write --dim {name}=<extent> with an extent from 1 to {MAX_EXTENT:,}")
        dims[name] = int(value)
    return dims


def program_spec(args) -> str:
    """The program the command works on: `args.program`, else the current session's.

    Falling back to the session also takes its data file, dimension overrides (the command
    line's --dim still win) and library, by filling `args.data`, `args.dim` and
    `args.library` when the command line left them out, so code that reads those afterwards
    (e.g. bind(program, args.data, parse_dims(args.dim))) sees the session's values.
    """

    from navigator.workspace import read_context_spec, session_exists, session_path, session_target

    if getattr(args, "program", None):
        return args.program
    path = session_path(getattr(args, "session", None))
    if not session_exists(session_target(path)):
        raise UserError("no program given, and no session to take it from", where=str(path),
                        fix="name the program (e.g. --program spmm), or start a session with "
                            "`navigator start PROGRAM`")
    spec = read_context_spec(path)
    if getattr(args, "data", None) is None:
        args.data = spec.data
    args.dim = [f"{name}={value}" for name, value in spec.dims] + list(getattr(args, "dim", None) or [])
    if getattr(args, "library", None) is None and spec.library is not None:
        args.library = spec.library
    args.program = spec.program
    say(f"navigator: using the {spec.space_kind.noun} of session {path}: {spec.describe()}")
    return spec.program


def program_named_by(args, schedule_path: str) -> None:
    """`validate` and `eval` without --program: the program the schedule file names, when the
    session (if any) works on another one or there is none and it is a bundled program. The
    session's program stays the default when it is the one named (it carries the data and
    dimensions), and when the file names none (FuseFlow's single-region form) or cannot be read
    (reading it later says why)."""
    from fuseflow.program.bundled import bundled_program_names
    from fuseflow.support.readers import load_json_file
    from navigator.workspace import read_context_spec, session_exists, session_path, session_target

    if getattr(args, "program", None):
        return
    try:
        named = load_json_file(schedule_path, UserError, "a schedule .json file").get("program")
    except (UserError, AttributeError):
        return
    if not isinstance(named, str):
        return
    path = session_path(getattr(args, "session", None))
    if session_exists(session_target(path)):
        spec = read_context_spec(path)
        if spec.program == named or not spec.bundled:   # a program file: its own name is checked on reading
            return
    if named in bundled_program_names():
        args.program = named
        say(f"navigator: using the bundled program {named}, which {schedule_path} names")
    elif not session_exists(session_target(path)):
        raise UserError(f"the schedule names program {named[:60]!r}, which is not a bundled program, and there "
                        "is no session to take it from", where=schedule_path,
                        fix=f"give its program file with --program (e.g. --program {named[:60]}.toml)")


def tensor_program_spec(args) -> str:
    """`program_spec`, for the commands that need a tensor program: a Honeybee problem (given,
    or the session's) is refused in one line that says what to use instead."""
    from navigator.honeybee.problem import is_honeybee_problem_file, tensor_program_required

    spec = program_spec(args)
    if is_honeybee_problem_file(spec):
        raise tensor_program_required(getattr(args, "command", None), spec)
    return spec


def problem_space_of(args):
    """The Honeybee problem a command is given, as a ProblemSpace, or None for a tensor program.

    A problem is `--facts F` (with --library, else the bundled library: the facts `navigator
    facts` writes are for it), or a program argument whose content is a problem (then
    --library is required), or the current session's problem when neither is given.
    """
    from navigator.fuseflow.bundled_library import load_scheduling_library
    from navigator.honeybee.problem import ProblemSpace, is_honeybee_problem_file, library_required
    from navigator.lang.load_errors import FactError

    facts = getattr(args, "facts", None)
    if facts:
        if getattr(args, "program", None):
            raise UserError("give the program or --facts, not both", where="--facts",
                            fix="a fact file (.hb.toml) is the whole problem: leave out the program")
        library = getattr(args, "library", None)
        try:
            return ProblemSpace.build(facts, library, load_scheduling_library() if library is None else None)
        except FactError as exc:
            if library is not None:
                raise
            raise FactError(exc.bare_message, where=exc.where,
                            fix="these facts do not fit the bundled FuseFlow library: name theirs with "
                                "--library L.hblib.toml") from None
    spec = program_spec(args)
    if not is_honeybee_problem_file(spec):
        return None
    for option, given in (("--data", getattr(args, "data", None)), ("--dim", getattr(args, "dim", None))):
        if given:
            raise UserError(f"{option} applies to tensor programs, and {spec} is a Honeybee problem",
                            where=option, fix=f"leave out {option}: a problem's facts are its whole input")
    if getattr(args, "library", None) is None:
        raise library_required(spec)
    return ProblemSpace.build(spec, args.library)


def load_program_args(args):
    """(program, binding, hardware) from the common options (the session's program by default);
    `--preset`, where a command has it, generates that graph instead of the program's."""
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import load_bound_program

    spec = tensor_program_spec(args)
    preset = getattr(args, "preset", None)
    if preset and getattr(args, "data", None):
        raise UserError("--preset and --data both name the graph", where="--preset", fix="give one of them")
    program, binding = load_bound_program(spec, getattr(args, "data", None), parse_dims(getattr(args, "dim", None)),
                                          preset=preset)
    return program, binding, load_hardware(getattr(args, "hardware", None))


def print_json(data) -> None:
    from navigator.synth.json_form import sketch_json_text

    print(sketch_json_text(data))
