"""How to get a working session back when a session file's content is damaged.

The advice names what is there to recover from: the previous version in `<session>.bak`
when it reads as a session (navigator.workspace.backup), and the `navigator start
--force` command that starts the same navigation again, with the program, data, dims and
library the damaged file recorded when those can still be read.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from navigator.navigation.session_errors import DamagedSessionError
from navigator.workspace.backup import usable_backup
from navigator.workspace.session_file import DEFAULT_SESSION


def restart_command(path: Path, data: Any = None) -> str:
    """`navigator start PROGRAM --force ...` for the session at `path`; PROGRAM, --data,
    --dim and --library are what `data` (the file's parsed JSON, if any) records."""
    from navigator.workspace.spec import ProgramSpec

    spec = None
    context = data.get("context") if isinstance(data, dict) else None
    recorded = context.get("navigator") if isinstance(context, dict) else None
    if isinstance(recorded, dict):
        try:
            spec = ProgramSpec.from_context(recorded, where=str(path))
        except DamagedSessionError:
            spec = None
    words = ["navigator", "start", spec.program if spec else "PROGRAM"]
    if spec is not None:
        if spec.data:
            words += ["--data", spec.data]
        for name, value in spec.dims:
            words += ["--dim", f"{name}={value}"]
        if spec.library:
            words += ["--library", spec.library]
    if Path(path) != DEFAULT_SESSION:
        words += ["--session", str(path)]
    words.append("--force")
    return " ".join(word if word == "PROGRAM" else shlex.quote(word) for word in words)


def recovery_fix(path: Path, data: Any = None, first: str | None = None) -> str:
    """`first` (advice specific to the problem), then the backup, then starting again."""
    ways = [first] if first else []
    backup = usable_backup(Path(path))
    if backup is not None:
        ways.append(f"restore the previous version, kept in {backup}: "
                    f"`cp {shlex.quote(str(backup))} {shlex.quote(str(path))}`")
    command = restart_command(path, data)
    ways.append(f"start again with `{command}`" + (" (PROGRAM: a name `navigator programs` lists, or a .toml path)"
                                                    if " PROGRAM " in command else ""))
    return "; or ".join(ways)


def damaged(exc: DamagedSessionError, path: Path, data: Any = None, first: str | None = None) -> DamagedSessionError:
    """The same problem, with how to recover from it as its fix."""
    return DamagedSessionError(exc.bare_message, where=exc.where or str(path),
                               fix=recovery_fix(path, data, first))
