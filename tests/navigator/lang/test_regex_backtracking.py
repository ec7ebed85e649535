"""No regular expression in Navigator can backtrack exponentially.

A fact file with one stray quote (`name = "LegalOrde = { region = 1, order = "i k" }`) made
the fast TOML reader spin for minutes: its string pattern nested one unbounded repeat inside
another, `(?:[^"]+|...)*`, and a failing match tried every way of splitting the string.
The class is closed by a rule checked here on every compiled pattern of the packages:
an unbounded greedy repeat may not contain another unbounded greedy repeat (make the inner
one possessive, `++`/`*+`, or the pair unambiguous some other way)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from re import _constants as sre
from re import _parser as sre_parse

import pytest

from navigator.lang.toml_fast import parse_simple_toml

PACKAGES = ("navigator", "fuseflow", "simulator")


def _is_unbounded(op, av) -> bool:
    return op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[1] == sre.MAXREPEAT


def _parts(op, av):
    """The sub-patterns inside one node (an atomic group cannot be backtracked into)."""
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        yield av[2]
    elif op is sre.SUBPATTERN:
        yield av[3]
    elif op is sre.BRANCH:
        yield from av[1]
    elif op in (sre.ASSERT, sre.ASSERT_NOT):
        yield av[1]


def _contains_unbounded(pattern) -> bool:
    return any(_is_unbounded(op, av) or any(_contains_unbounded(p) for p in _parts(op, av)) for op, av in pattern)


def _nests_unbounded(pattern) -> bool:
    for op, av in pattern:
        if _is_unbounded(op, av) and _contains_unbounded(av[2]):
            return True
        if any(_nests_unbounded(p) for p in _parts(op, av)):
            return True
    return False


def _compiled_patterns():
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if isinstance(value, re.Pattern):
                    yield f"{info.name}.{name}", value


def test_the_rule_catches_the_pattern_that_hung():
    assert _nests_unbounded(sre_parse.parse(r'"(?:[^"\\]+|\\.)*"'))
    assert not _nests_unbounded(sre_parse.parse(r'"(?:[^"\\]++|\\.)*+"'))


def test_no_pattern_nests_unbounded_repeats():
    found = [name for name, pattern in _compiled_patterns()
             if _nests_unbounded(sre_parse.parse(pattern.pattern, pattern.flags))]
    assert len(list(_compiled_patterns())) > 20
    assert not found, f"patterns that can backtrack exponentially: {found}"


STRAY_QUOTE = '[[Prop]]\nname = "LegalOrde = { region = 1, order = "i k" }\n'


def test_a_stray_quote_is_left_to_tomllib():
    assert parse_simple_toml(STRAY_QUOTE) is None
    assert parse_simple_toml('[[Prop]]\nname = "a \\" b"\nargs = { x = "y" }\n') == \
        {"Prop": [{"name": 'a " b', "args": {"x": "y"}}]}


@pytest.mark.parametrize("length", [30, 3000])
def test_a_near_miss_line_is_refused_in_a_subprocess_that_finishes(length):
    # In a child with a timeout, so that a regression fails instead of hanging the suite.
    text = '[[Prop]]\nname = "' + "a " * length + '" x\n'
    code = "import sys; from navigator.lang.toml_fast import parse_simple_toml; " \
           "sys.exit(parse_simple_toml(sys.stdin.read()) is not None)"
    assert subprocess.run([sys.executable, "-c", code], input=text, text=True, timeout=60).returncode == 0
