"""What a session navigates: the `Space` protocol, and the capabilities callers ask it for.

Two kinds of space implement it: a tensor program's schedule space
(navigator.fuseflow.schedule_space.ScheduleSpace) and a Honeybee problem
(navigator.honeybee.problem.ProblemSpace). Callers never ask which kind they hold; they ask
for a capability, and a space without it answers so:

    space.tensor_program            # None: nothing to compile, cost or simulate
    space.has_cost_model            # False: every cost hint is None
    space.require_tensor_program("eval")   # the program, or the space's one-line refusal
    space.document_text(sketch)     # a complete sketch as the JSON file it exports to

The workspace (navigator.workspace.spec) is the one place that chooses the kind, from the
file a user names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Collection, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    from navigator.lang import FactProgram, Library
    from navigator.synth import Menus, MenuOption, Oracle, Sketch


class ExportFailure(Exception):
    """A complete sketch does not give a valid document: a bug in the engine or the library."""


@dataclass(frozen=True)
class ExportOrigin:
    """Where an exported sketch comes from, for what a written file says about it."""

    #: the session's ProgramSpec (navigator.workspace.spec): the program as the user named it
    spec: Any
    #: the session file
    session: str
    #: where the JSON is written, if anywhere (a generated script saves there by default)
    json_path: str | None = None


@runtime_checkable
class Space(Protocol):
    """A library, its facts and the oracle over them, and what a complete sketch means."""

    library: "Library"
    facts: "FactProgram"
    oracle: "Oracle"

    @property
    def name(self) -> str:
        """The program's name, or the problem file's name without `.hb.toml`."""
        ...

    @property
    def noun(self) -> str:
        """What the user gave, for messages: "program" or "problem"."""
        ...

    @property
    def product(self) -> str:
        """What a complete sketch is exported as: "schedule" or "expression"."""
        ...

    @property
    def facts_fingerprint(self) -> str:
        """A content hash of the facts, which saved sessions keep to notice a changed space."""
        ...

    def initial_sketch(self) -> "Sketch":
        ...

    # ---- capabilities

    @property
    def tensor_program(self) -> Any | None:
        """The tensor program (fuseflow.program.ir.Program) behind the space, or None."""
        ...

    def require_tensor_program(self, command: str | None) -> Any:
        """The tensor program, or the UserError that refuses `command` for want of one."""
        ...

    @property
    def has_cost_model(self) -> bool:
        ...

    def hints(self, sketch: "Sketch", menus: "Menus | None" = None) -> Mapping[tuple[int, str], Any]:
        """(hole, option id) -> the best estimated cost beneath that option; empty without a cost model."""
        ...

    def option_details(self, option: "MenuOption") -> Sequence[str]:
        """Lines that explain an option beyond the library's words (a region's ops and loop nest)."""
        ...

    # ---- a complete sketch, written out

    def document_of(self, sketch: "Sketch") -> Any:
        """The JSON document a complete sketch stands for (a schedule, or the expression itself)."""
        ...

    def document_text(self, sketch: "Sketch") -> str:
        """`document_of(sketch)` as the text of its file, newline included."""
        ...

    @property
    def export_formats(self) -> tuple[str, ...]:
        """What `export` can write of a complete sketch: "json", "python", "notebook"."""
        ...

    def check_export(self, formats: Collection[str]) -> None:
        """Refuse a format this space cannot write, before anything is filled."""
        ...

    def export_file(self, sketch: "Sketch", format: str, origin: ExportOrigin) -> tuple[str, bool]:
        """A complete sketch in one of `export_formats`: (the file's text, whether it is executable);
        ExportFailure if the sketch gives an invalid document."""
        ...
