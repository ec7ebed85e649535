"""Functions that can never be applied (navigator.lang.applicability, navigator.synth.blocked_by_facts),
the collecting library loader, and the report of `navigator library check` (navigator.honeybee.library_check)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigator.lang import LibraryError, load_facts, load_library, parse_library
from navigator.lang.applicability import never_applicable, satisfiable
from navigator.lang.formula import Comparison, Literal, RetField, value_type_of
from navigator.lang.library_loader import load_library_collecting
from navigator.honeybee.library_check import (
    BLOCKED_BY_FACTS,
    DECLARATION,
    NEVER_APPLIED,
    NO_SOLUTION,
    check_library,
)
from navigator.synth.blocked_by_facts import blocked_by_facts
from navigator.synth.oracle import Oracle
from tests.paths import HARNESS_DATA, NAVIGATOR_DATA, REPO

CHECK = NAVIGATOR_DATA / "check"
NEVER = str(CHECK / "never.hblib.toml")


def keys(problems):
    return [p.key for p in problems]


# -- the library alone --------------------------------------------------------------------


def test_each_kind_of_never_applicable_function_is_found():
    found = never_applicable(load_library(NEVER))
    assert keys(found) == [
        "Function.two_regions.condition[2]",
        "Function.sized.condition[3]",
        "Function.flip.condition[0]",
        "Function.chain.params.previous",
        "Function.from_chain.params.chain",
    ]
    by_function = {f.function: f.message for f in found}
    assert "ret.region = 1 contradicts the comparisons before it" in by_function["two_regions"]
    assert "ret.fast != ret.fast is never true" in by_function["flip"]
    assert "no function that returns one can ever be applied (chain)" in by_function["from_chain"]


def test_a_parameter_type_no_function_returns():
    library = parse_library("""
[Type.A]
params.n = "Int"
[Type.B]
params.n = "Int"
[Function.needs_b]
params.b = "B"
ret = "A"
condition = []
""")
    [found] = never_applicable(library)
    assert found.key == "Function.needs_b.params.b"
    assert "no function returns one" in found.message


@pytest.mark.parametrize("path", ["navigator/library/fuseflow.hblib.toml", "harness/data/sched.hblib.toml",
                                  "harness/data/fuseflow/fuseflow.hblib.toml"])
def test_the_shipped_libraries_have_no_never_applicable_function(path):
    assert never_applicable(load_library(REPO / path)) == []


def test_an_int_disequality_forced_by_bounds():
    n = RetField("n")
    comparisons = [Comparison("<=", n, Literal(4)), Comparison("<=", Literal(4), n),
                   Comparison("!=", n, Literal(4))]
    assert not satisfiable(comparisons, _types({"n": "Int"}))
    assert satisfiable(comparisons[:2] + [Comparison("!=", n, Literal(5))], _types({"n": "Int"}))


def test_int_bounds_are_64_bit():
    n = RetField("n")
    assert not satisfiable([Comparison("<", Literal(2**63 - 1), n)], _types({"n": "Int"}))
    assert satisfiable([Comparison("<", Literal(2**63 - 2), n)], _types({"n": "Int"}))


def test_true_and_one_are_different_literals():
    types = _types({"b": "Bool", "n": "Int"})
    assert satisfiable([Comparison("=", RetField("b"), Literal(True)),
                        Comparison("=", RetField("n"), Literal(1))], types)


# Small worlds: a few fields of each type, literals from a small set. A brute force over a
# range wide enough for every ordering of the literals and fields is the reference.
FIELDS = {"i": "Int", "j": "Int", "k": "Int", "b": "Bool", "c": "Bool", "s": "Str", "t": "Str"}
LITERALS = {"Int": [-1, 0, 2], "Bool": [False, True], "Str": ["x", "y"]}
WORLD = {"Int": range(-5, 7), "Bool": [False, True], "Str": ["x", "y", "other", "more"]}


@st.composite
def comparison(draw):
    kind = draw(st.sampled_from(["Int", "Bool", "Str"]))
    names = [n for n, t in FIELDS.items() if t == kind]
    atom = st.one_of(st.sampled_from(names).map(RetField), st.sampled_from(LITERALS[kind]).map(Literal))
    ops = ["=", "!=", "<", "<="] if kind == "Int" else ["=", "!="]
    return Comparison(draw(st.sampled_from(ops)), draw(atom), draw(atom))


def _brute_force(comparisons) -> bool:
    names = sorted({a.field for c in comparisons for a in c.atoms() if isinstance(a, RetField)})
    ops = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           "<=": lambda a, b: a <= b}

    def value(atom, env):
        return atom.value if isinstance(atom, Literal) else env[atom.field]

    for values in itertools.product(*(WORLD[FIELDS[n]] for n in names)):
        env = dict(zip(names, values))
        if all(ops[c.op](value(c.left, env), value(c.right, env)) for c in comparisons):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(st.lists(comparison(), max_size=7))
def test_satisfiable_agrees_with_brute_force(comparisons):
    decided = satisfiable(comparisons, _types(FIELDS))
    truth = _brute_force(comparisons)
    if not decided:
        assert not truth  # never a false alarm
    int_disequality = any(c.op == "!=" and all(value_type_of(a.value) == "Int" if isinstance(a, Literal)
                                              else FIELDS[a.field] == "Int" for a in c.atoms())
                          for c in comparisons)
    if not int_disequality:
        assert decided == truth  # exact without Int !=


def _types(fields):
    def type_of(atom):
        return value_type_of(atom.value) if isinstance(atom, Literal) else fields[atom.field]
    return type_of


# -- with facts ---------------------------------------------------------------------------


def test_functions_the_facts_never_let_apply():
    library = load_library(NEVER)
    oracle = Oracle(library, load_facts(CHECK / "facts.hb.toml", library))
    skip = frozenset(f.function for f in never_applicable(library))
    blocked = {b.function: b.reason for b in blocked_by_facts(oracle, skip)}
    assert blocked == {
        "extent": "its condition needs a fact of Extent, and there is none",
        "sized_schedule": "parameter sized needs a value of type Sized, and these facts let no program build one",
    }


def test_every_function_applies_with_enough_facts():
    library = load_library(HARNESS_DATA / "sched.hblib.toml")
    oracle = Oracle(library, load_facts(HARNESS_DATA / "sched.hb.toml", library))
    assert blocked_by_facts(oracle) == []


def test_a_goal_without_solution_is_reported_on_the_problem_file():
    report = check_library(NEVER, str(CHECK / "unsolvable.hb.toml"))
    [goal] = [p for p in report.problems if p.kind == NO_SOLUTION]
    assert (goal.file, goal.key) == (str(CHECK / "unsolvable.hb.toml"), "Goal")
    assert "Schedule {fused = false} has no solution" in goal.message
    assert report.goal["programs"] == 0


def test_report_kinds_and_clean_report():
    report = check_library(NEVER, str(CHECK / "facts.hb.toml"))
    kinds = [p.kind for p in report.problems]
    assert kinds == [NEVER_APPLIED] * 5 + [BLOCKED_BY_FACTS] * 2
    assert report.goal == {"type": "Schedule", "args": {"fused": True}, "programs": 1}
    clean = check_library(str(HARNESS_DATA / "sched.hblib.toml"), str(HARNESS_DATA / "sched.hb.toml"))
    assert clean.clean and clean.goal["programs"] == 9


# -- declarations -------------------------------------------------------------------------


def test_the_collecting_loader_reports_every_declaration_problem():
    library, problems = load_library_collecting(CHECK / "declarations.hblib.toml")
    wheres = [p.where.split(": ", 1)[1] for p in problems]
    assert wheres == [
        "Type.Broken.params.x",
        "Function.a.params.x",
        "Function.a.params.y",
        "Function.b.ret",
        "Function.c.condition[1]",
        "Function.c.condition[2]",
    ]
    # what loads is kept; d needs the broken type, whose problem is already reported
    assert set(library.types) == {"Order"} and library.functions == {}


def test_the_normal_loader_still_stops_at_the_first_problem():
    with pytest.raises(LibraryError) as info:
        load_library(CHECK / "declarations.hblib.toml")
    assert info.value.where.endswith("Type.Broken.params.x")


def test_declaration_problems_skip_the_later_checks():
    report = check_library(str(CHECK / "declarations.hblib.toml"), str(CHECK / "facts.hb.toml"))
    assert {p.kind for p in report.problems} == {DECLARATION}
    assert report.checked == {"declarations": True, "applicability": False, "facts": False}
    assert report.problems[1].line().startswith(
        f"{CHECK / 'declarations.hblib.toml'}: Function.a.params.x: unknown type 'Ordr'")
