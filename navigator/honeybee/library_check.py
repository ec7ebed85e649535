"""`navigator library check`: every problem of a library, and of a problem file with it.

Like Honeybee's `validate` (type checking) and `check` (is the goal solvable?), but every
problem is reported, not only the first, each with its file and key:

1. declarations (`navigator.lang.library_loader`, collecting mode): unknown types in
   parameters and returns, formulas that do not parse or do not type-check, duplicate
   names, bad value types, ...;
2. functions that can never be applied, whatever the facts (`navigator.lang.applicability`);
3. with a problem file (`*.hb.toml`): functions its facts never let apply
   (`navigator.synth.blocked_by_facts`), and a goal without solution (no complete program).

Steps 2 and 3 need the declarations to load: when step 1 finds problems they are skipped
(a missing declaration would make them report its consequences, not new problems), and
`checked` says so. A file that cannot be read, is not TOML, or a problem file that does not
fit the library are input errors (UserError), not problems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fuseflow.support.errors import UserError
from navigator.lang import load_facts
from navigator.lang.applicability import never_applicable
from navigator.lang.formula import format_value
from navigator.lang.library_loader import load_library_collecting

#: problem kinds, as the JSON report names them
DECLARATION = "declaration"
NEVER_APPLIED = "never-applied"
BLOCKED_BY_FACTS = "blocked-by-facts"
NO_SOLUTION = "no-solution"


@dataclass(frozen=True)
class LibraryProblem:
    file: str
    key: str
    kind: str
    message: str
    fix: str | None = None

    def line(self) -> str:
        """`FILE: KEY: MESSAGE (FIX)`."""
        text = f"{self.file}: {self.key}: {self.message}"
        return f"{text} ({self.fix})" if self.fix else text

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "key": self.key, "kind": self.kind, "message": self.message,
                "fix": self.fix}


@dataclass
class LibraryReport:
    library: str
    problem_file: str | None
    problems: list[LibraryProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: which steps ran: declarations, applicability, facts
    checked: dict[str, bool] = field(default_factory=dict)
    #: the goal and its number of complete programs (with a problem file)
    goal: dict[str, Any] | None = None

    @property
    def clean(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"library": self.library, "problem": self.problem_file, "clean": self.clean,
                "problems": [p.to_json() for p in self.problems], "warnings": self.warnings,
                "checked": self.checked, "goal": self.goal}


def check_library(library_path: str, problem_path: str | None = None) -> LibraryReport:
    """Check a library, and a problem file against it. Raises UserError for input that
    cannot be read."""
    library, errors = load_library_collecting(library_path)
    report = LibraryReport(library_path, problem_path, warnings=list(library.warnings))
    report.problems.extend(_declaration_problem(error, library_path) for error in errors)
    report.checked = {"declarations": True, "applicability": not errors,
                      "facts": bool(problem_path) and not errors}
    if errors:
        if problem_path:  # not checked against the library, but it must at least read
            from navigator.lang.load_errors import FactError
            from navigator.lang.facts_loader import WHAT
            from navigator.lang.toml_source import parse_toml, read_toml_text

            parse_toml(read_toml_text(problem_path, FactError, WHAT), problem_path, FactError, WHAT)
        return report
    never = never_applicable(library)
    report.problems.extend(LibraryProblem(library_path, n.key, NEVER_APPLIED, n.message, n.fix)
                           for n in never)
    if problem_path:
        _check_problem(library, problem_path, {n.function for n in never}, report)
    return report


def _check_problem(library, problem_path: str, already: set[str], report: LibraryReport) -> None:
    from navigator.synth.blocked_by_facts import blocked_by_facts
    from navigator.synth.oracle import Oracle

    facts = load_facts(problem_path, library)
    report.warnings.extend(facts.warnings)
    oracle = Oracle(library, facts)
    for blocked in blocked_by_facts(oracle, frozenset(already)):
        report.problems.append(LibraryProblem(
            report.library, f"Function.{blocked.function}", BLOCKED_BY_FACTS,
            f"can never be applied with the facts of {problem_path}: {blocked.reason}",
            "nothing to fix if this problem does not need it; else add the facts it needs"))
    goal = facts.goal
    count = oracle.count(oracle.initial_sketch())
    shown = f"{goal.type} {{{', '.join(f'{k} = {format_value(v)}' for k, v in goal.args)}}}"
    report.goal = {"type": goal.type, "args": dict(goal.args), "programs": count.to_json()}
    if not count:
        report.problems.append(LibraryProblem(
            problem_path, "Goal", NO_SOLUTION,
            f"the goal {shown} has no solution: no complete program builds it from these facts",
            "check the goal's metadata and the facts its functions' conditions need"))


def _declaration_problem(error: UserError, library_path: str) -> LibraryProblem:
    """A loader error as a problem: its `where` is "FILE: KEY"."""
    where = error.where or library_path
    prefix = f"{library_path}: "
    key = where.removeprefix(prefix)
    return LibraryProblem(library_path, key, DECLARATION, error.bare_message, error.fix)
