"""What the parser refuses is one line, exit 2, for every command (issue 21: `fill ?0 --budget
abc` printed the whole usage block first): unrecognized arguments, values of the wrong type,
choices, mutually exclusive options, missing required arguments, and a NAME=VALUE option
(`--dim`) naming a name twice. The cases are made from each command's own parser, so a new
command or option is covered without listing it here."""

from __future__ import annotations

import argparse

import pytest

from navigator.cli import _leaf_parsers, build_parser
from tests.cli import SMALL_SPMM


def leaf_commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {leaf.prog: leaf for leaf in _leaf_parsers(subs)}


LEAVES = leaf_commands()


def words(prog: str) -> list[str]:
    return prog.split()[1:]  # "navigator library check" -> ["library", "check"]


def refused_value(action: argparse.Action) -> str | None:
    """A value the option's type or choices refuse, if there is one."""
    if action.choices is not None:
        return "no-such-choice"
    if action.type is None:
        return None
    for value in ("abc", "0", "-1", ""):
        try:
            action.type(value)
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            return value
    return None


def argument_errors(leaf: argparse.ArgumentParser) -> list[tuple[str, list[str]]]:
    """(what, argv) pairs the parser of this command refuses."""
    command = words(leaf.prog)
    cases = [("unrecognized", [*command, "--no-such-option"]), ("explicit value", [*command, "--no-cache=yes"])]
    for action in leaf._actions:
        if action.option_strings and action.nargs != 0:
            value = refused_value(action)
            if value is not None:
                cases.append((f"type of {action.option_strings[0]}", [*command, f"{action.option_strings[0]}={value}"]))
    for group in leaf._mutually_exclusive_groups:
        both = [a for a in group._group_actions if a.option_strings][:2]
        if len(both) == 2:
            argv = [*command]
            for action in both:
                argv += [action.option_strings[0]] + ([] if action.nargs == 0 else ["1"])
            cases.append(("exclusive", argv))
    if any(a.required for a in leaf._actions):
        cases.append(("missing required", command))
    return cases


CASES = [pytest.param(argv, id=f"{prog} {what}") for prog, leaf in LEAVES.items()
         for what, argv in argument_errors(leaf)]


def assert_one_line(result, prog: str, *fragments: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # no usage block
    assert lines[0].startswith("navigator: error: ") and f"(see `{prog} --help`)" in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_every_command_is_covered():
    assert {"navigator check", "navigator fill", "navigator library check", "navigator batch"} <= set(LEAVES)
    assert len(CASES) > 3 * len(LEAVES)


@pytest.mark.parametrize("argv", CASES)
def test_an_argument_error_is_one_line_naming_the_command_help(cli, argv):
    prog = next(p for p in sorted(LEAVES, key=len, reverse=True) if argv[:len(words(p))] == words(p))
    assert_one_line(cli(*argv), prog)


@pytest.mark.parametrize("argv, fragment", [
    (["fill", "?0", "--budget", "abc"], "argument --budget"),
    (["fill", "?0", "--auto", "llm", "--rounds", "0"], "argument --rounds"),
    (["batch", "s.json", "--engine", "warp"], "argument --engine: invalid choice: 'warp'"),
    (["fill", "?0", "--auto", "default", "--subtree", "--all"], "not allowed with argument --subtree"),
    (["check", "spmm", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["eval"], "the following arguments are required"),
])
def test_the_reported_cases(cli, argv, fragment):
    assert_one_line(cli(*argv), f"navigator {argv[0]}", fragment)


def test_a_dimension_given_twice_is_refused(cli):
    result = cli("check", "deep_gcn", "--dim", "layers=3", "--dim", "layers=4")
    assert_one_line(result, "navigator check", "argument --dim: layers is given twice",
                    "--dim layers=3 and --dim layers=4")


def test_different_dimensions_and_a_session_s_dimensions_still_combine(cli):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    # the session's N=2 is overridden by the command line's, which names N once
    assert cli("check", "--dim", "N=3", "--dim", "J=2", ok=True).returncode == 0


def test_bare_navigator_off_a_terminal_asks_for_a_command_in_one_line(nav):
    result = nav()
    assert_one_line(result, "navigator", "required: command")
