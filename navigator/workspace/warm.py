"""A workspace a long-lived process keeps loaded (navigator.server), for the commands it runs.

The server loads a session once and forks a child per command; in the child, opening that
session reuses what is loaded instead of building the space and replaying every step again:

- the session file unchanged since the server read it (the same FileIdentity): the very
  workspace, not read again;
- the file changed (a step saved since, an undo): read and checked as always, but the space is
  the loaded one and only the steps after those both logs share are replayed (Session.from_base).

The loaded space is used only for the same ProgramSpec and while the files it was built
from (program, library, data) are the versions it read; otherwise opening is what it always is.
Nothing is kept unless `keep_warm` is called, so an ordinary command is not affected.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from navigator.workspace.session_file import FileIdentity, file_identity

if TYPE_CHECKING:
    from navigator.workspace.spec import ProgramSpec

#: a navigator.workspace.session_workspace.Workspace (which imports this module)
Workspace = Any


@dataclass(frozen=True)
class Warm:
    workspace: Workspace
    #: the identity of each file the space was built from, when it was built
    sources: tuple[tuple[str, FileIdentity | None], ...]


_WARM: Warm | None = None


def source_files(spec: "ProgramSpec") -> list[str]:
    """The files a spec's space is built from: the program (unless bundled), its data, its library."""
    return [path for path in ((None if spec.bundled else spec.program), spec.data, spec.library) if path]


def keep_warm(workspace: Workspace) -> None:
    """Keep `workspace` for the next opens of its session in this process (and in its forks)."""
    global _WARM
    _WARM = Warm(workspace, tuple((path, file_identity(Path(path))) for path in source_files(workspace.spec)))


def forget_warm() -> None:
    global _WARM
    _WARM = None


def warm_for(path: Path, spec: "ProgramSpec | None" = None) -> Workspace | None:
    """The kept workspace when it is of the session at `path` (and of `spec`, when given) and
    the files its space was built from are unchanged; None otherwise."""
    warm = _WARM
    if warm is None or (spec is not None and warm.workspace.spec != spec):
        return None
    if warm.workspace.path != path and os.path.realpath(warm.workspace.path) != os.path.realpath(path):
        return None
    if any(file_identity(Path(source)) != identity for source, identity in warm.sources):
        return None
    return warm.workspace
