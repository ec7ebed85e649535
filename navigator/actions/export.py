"""Export a session: the files `navigator export` and the TUI's `e` write, written once for both.

The space decides what a complete sketch becomes (navigator.navigation.space.Space.export_file:
a schedule's JSON and a script that rebuilds it, or a Honeybee problem's expression and the
program its library assembles); this module checks where the files go, completes the sketch
when asked, and writes each file atomically.

    report = export_session(workspace, ExportRequest({"json": "s.json", "python": "s.py"}, partial=True))
    report.written     # [("json", "s.json"), ("python", "s.py")]
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from fuseflow.support.errors import UserError
from navigator.navigation.space import ExportFailure, ExportOrigin, Space

if TYPE_CHECKING:
    from navigator.navigation.session import Session
    from navigator.navigation.step_log import StepRecord
    from navigator.workspace.session_workspace import Workspace

#: every format, in the order the files are written (each is written by `--FORMAT F`)
FORMATS = ("json", "python", "notebook", "fuseflow-pipeline", "fuseflow-mlir")

__all__ = ["FORMATS", "ExportFailure", "ExportReport", "ExportRequest", "check_formats", "check_outputs",
           "complete_session", "export_session"]


@dataclass(frozen=True)
class ExportRequest:
    #: format (one of FORMATS) -> the path to write it to
    paths: Mapping[str, str] = field(default_factory=dict)
    #: open holes take their defaults first (in the workspace's session object only)
    partial: bool = False

    @property
    def formats(self) -> list[str]:
        return [f for f in FORMATS if self.paths.get(f)]


@dataclass
class ExportReport:
    #: (format, path) of each file written, in order
    written: list[tuple[str, str]]
    #: the steps `partial` took with defaults
    filled: list["StepRecord"]
    #: with no path given: the JSON document, for the caller to print
    text: str | None = None


def export_session(workspace: "Workspace", request: ExportRequest) -> ExportReport:
    """Write what `request` asks of the workspace's sketch; nothing is written unless every file
    can be (ExportFailure: the completed sketch is invalid). The session is never saved: with
    `partial`, the defaults are taken on the in-memory session only."""
    check_outputs(request, workspace.path)
    space = workspace.space
    space.check_export(request.formats)  # before --partial fills anything
    check_formats(request, space)
    filled = complete_session(workspace.session, partial=request.partial)
    sketch = workspace.session.sketch
    origin = ExportOrigin(workspace.spec, str(workspace.path), request.paths.get("json"))
    if not request.formats:
        return ExportReport([], filled, space.export_file(sketch, "json", origin)[0])
    files = [(f, request.paths[f], *space.export_file(sketch, f, origin)) for f in request.formats]
    from fuseflow.support.files import write_text_atomic

    for _, path, text, executable in files:
        write_text_atomic(path, text, executable=executable, follow_link=True)  # paths the user named
    return ExportReport([(f, path) for f, path, _, _ in files], filled)


def complete_session(session: "Session", *, partial: bool = False) -> list["StepRecord"]:
    """Make sure `session`'s sketch is complete: with `partial`, open holes take their defaults
    (the steps taken are returned); without, an open hole is an error.

    `partial` fills the given session object in memory; callers that must not change the saved
    session simply do not save it.
    """
    if session.complete:
        return []
    if not partial:
        holes = " ".join(f"?{h.id}" for h in session.sketch.holes())
        raise UserError(f"the sketch still has open holes: {holes}", where="export",
                        fix="fill them (navigator fill), or pass --partial to take their defaults")
    from navigator.auto import fill_open_holes, get_strategy

    return fill_open_holes(session, get_strategy("default"), rationale="filled by export --partial")


def check_formats(request: ExportRequest, space: Space) -> None:
    """Refuse a format the space does not write (its `export_formats`), before anything is filled."""
    for format in request.formats:
        if format not in space.export_formats:
            *others, last = [f"--{f} F" for f in space.export_formats]
            options = f"{', '.join(others)} or {last}" if others else last
            raise UserError(f"the {space.product} of this session's {space.noun} cannot be written in this format",
                            where=f"--{format}", fix=f"export it with {options}")


def check_outputs(request: ExportRequest, session: Path) -> None:
    """Refuse output paths that would overwrite the session (or its lock) or each other."""
    from navigator.workspace.lock_owner import owner_path
    from navigator.workspace.session_file import lock_path
    from navigator.workspace.user_text import check_path_text

    outputs = [(f"--{f}", request.paths[f]) for f in request.formats]
    for option, path in outputs:
        check_path_text(path, option)
        for kept, what in ((session, "the session file"), (lock_path(session), "the session's lock file"),
                           (owner_path(lock_path(session)), "the record of who holds the session's lock")):
            if _same_file(path, kept):
                raise UserError(f"{path} is {what}", where=option,
                                fix="choose another path for the export; the session must not be overwritten")
    for index, (option, path) in enumerate(outputs):
        for earlier, earlier_path in outputs[:index]:
            if _same_file(earlier_path, path):
                raise UserError(f"{earlier} and {option} name the same file", where=option,
                                fix=f"give {option} another path")


def _same_file(a, b) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links too
    except (OSError, ValueError):
        return False
