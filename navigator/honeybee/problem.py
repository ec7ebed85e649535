"""Honeybee problems: a library (`L.hblib.toml`) and a problem file (`P.hb.toml`, ground
`[[Prop]]` facts and one `[Goal]`) navigated directly, with no tensor program behind them.

A file is recognised by its content, not its name: a problem has `Prop` or `Goal` at its
top level and none of a tensor program's keys (fuseflow.program.frontend.TOP_KEYS). Its space is
the library, the facts and the oracle over them; a finished sketch is exported as the
expression itself, in Honeybee's JSON form. Nothing here compiles or simulates, so the
commands that need a tensor program refuse a problem with `tensor_program_required`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from fuseflow.support.errors import ProgramError, UserError
from navigator.lang import FactProgram, Library
from navigator.synth import Oracle, Sketch, sketch_to_json

#: the top-level keys of a Honeybee problem file
PROBLEM_KEYS = frozenset({"Prop", "Goal"})
#: what a problem file is, for messages
WHAT = "a Honeybee problem (.hb.toml)"


def is_honeybee_problem_document(doc: Any) -> bool:
    """A parsed TOML document is a Honeybee problem: it has [[Prop]] or [Goal], and no key of a tensor program."""
    from fuseflow.program.frontend import TOP_KEYS

    return isinstance(doc, dict) and bool(PROBLEM_KEYS & doc.keys()) and not (TOP_KEYS & doc.keys())


def is_honeybee_problem_file(path: str | os.PathLike) -> bool:
    """Whether the file at `path` holds a Honeybee problem. A path that is not a readable file
    or not TOML is no problem file: the caller's own loading reports what is wrong with it."""
    from navigator.lang.toml_source import parse_toml, read_toml_text

    if not os.path.isfile(path):
        return False
    try:
        text = read_toml_text(path, ProgramError, WHAT)
        return is_honeybee_problem_document(parse_toml(text, str(path), ProgramError, WHAT))
    except UserError:
        return False


def problem_name(path: str | os.PathLike) -> str:
    """`spmm` for `…/spmm.hb.toml`: the file name without its Honeybee suffixes."""
    name = Path(path).name
    for suffix in (".hb.toml", ".toml"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


# What each tensor-only command's user can do with a problem instead.
_INSTEAD = {
    "eval": "`navigator export --json F` writes a Honeybee problem's expression",
    "compare": "`navigator count` and `navigator sample` explore a Honeybee problem's programs",
    "check": "`navigator count P.hb.toml --library L` and `navigator show` describe a Honeybee problem",
    "validate": "`navigator replay E.json --facts P.hb.toml --library L` checks that an expression is reachable",
    "batch": "`navigator sample P.hb.toml N --library L --out DIR` draws a problem's expressions",
    "facts": "a Honeybee problem already is a fact program",
}


def tensor_program_required(command: str | None, given: str) -> UserError:
    """The one-line refusal of a tensor-only command given a Honeybee problem."""
    instead = _INSTEAD.get(command or "", "start, show, fill, count, sample, replay and export take a Honeybee "
                                          "problem")
    who = f"`navigator {command}`" if command else "this"
    return UserError(f"{who} needs a tensor program (a program .toml or a bundled name), "
                     "and this is a Honeybee problem", where=given,
                     fix=f"give a tensor program; {instead}")


def library_required(problem: str) -> UserError:
    return UserError("a Honeybee problem needs its library", where=problem,
                     fix=f"add --library L.hblib.toml (e.g. navigator start {problem} --library L.hblib.toml)")


@dataclass
class ProblemSpace:
    """The space of one Honeybee problem (navigator.navigation.space.Space): a library and its
    facts, with no tensor program, so no cost model and nothing to simulate."""

    name: str
    library: Library
    facts: FactProgram
    oracle: Oracle
    library_text: str
    problem_text: str

    @classmethod
    def build(cls, problem_path: str | os.PathLike, library_path: str | os.PathLike | None,
              library: tuple[Library, str] | None = None) -> "ProblemSpace":
        """`library`: the library to use instead of the file at `library_path`, already loaded, with its text."""
        from navigator.lang import load_library_file, parse_facts
        from navigator.lang.load_errors import FactError
        from navigator.lang.toml_source import read_toml_text

        library, library_text = library or load_library_file(library_path)
        text = read_toml_text(problem_path, FactError, WHAT)
        facts = parse_facts(text, library, str(problem_path))
        return cls(problem_name(problem_path), library, facts, Oracle(library, facts), library_text, text)

    @cached_property
    def facts_fingerprint(self) -> str:
        """A content hash of the facts as read (formatting and comments do not count)."""
        from navigator.navigation.fingerprint import content_hash

        return content_hash(repr((self.facts.facts, self.facts.goal)))

    #: what the user gave, and what a complete sketch exports as (Space)
    noun = "problem"
    product = "expression"
    tensor_program = None
    has_cost_model = False

    def initial_sketch(self) -> Sketch:
        return self.oracle.initial_sketch()

    def require_tensor_program(self, command: str | None) -> Any:
        raise tensor_program_required(command, self.name)

    def hints(self, sketch: Sketch, menus: Any = None) -> dict:
        return {}

    def option_details(self, option: Any) -> tuple[str, ...]:
        return ()

    def document_of(self, sketch: Sketch) -> dict[str, Any]:
        return self.expression_of(sketch)

    def document_text(self, sketch: Sketch) -> str:
        from navigator.synth.json_form import sketch_json_text

        return sketch_json_text(self.expression_of(sketch)) + "\n"

    export_formats = ("json", "python", "notebook")

    def check_export(self, formats) -> None:
        """A program or a notebook is assembled from the library's code, which it must have."""
        from navigator.honeybee.codegen import has_code

        wanted = [f for f in ("python", "notebook") if f in formats]
        if wanted and not has_code(self.library):
            raise UserError("the library has no code to assemble (no [[Preamble]] and no info.code)",
                            where=f"--{wanted[0]}", fix="export the expression with --json F, or add info.code to "
                                                        "the library's functions (docs/honeybee-codegen.md)")

    def export_file(self, sketch: Sketch, format: str, origin: Any) -> tuple[str, bool]:
        """The expression in Honeybee's JSON form, or the program (a script or a notebook) that
        the library's code assembles in the expression's order: written out, never run."""
        if format == "json":
            return self.document_text(sketch), False
        from navigator.honeybee.codegen import notebook, python_program

        render = python_program if format == "python" else notebook
        return render(self.library, self.expression_of(sketch)), False

    def expression_of(self, sketch: Sketch) -> dict[str, Any]:
        """A complete sketch in Honeybee's JSON form."""
        if not sketch.complete:
            open_holes = " ".join(f"?{h.id}" for h in sketch.holes())
            raise UserError(f"the sketch still has open holes: {open_holes}", where="export",
                            fix="fill them (navigator fill), or pass --partial to take their defaults")
        return sketch_to_json(sketch)
