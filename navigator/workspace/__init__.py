"""Command-line sessions: a navigation session saved in a file, tied to its program.

    workspace = create_workspace(path, ProgramSpec.from_user("spmm", dims={"N": 8}))
    with locked_workspace(path) as workspace:      # mutate under <path>.lock, then save
        workspace.session.apply_default()
        workspace.save()
    workspace = open_workspace(path)               # read only, no lock
    with hold_session(path):                       # the TUI: the session's writer while it runs
        ...

The session's `context` records the program spec (a bundled name or an absolute path), the
data file, the dimension overrides, the library, content hashes of the program, library,
facts and data, and fingerprints of what the file itself records (navigator.workspace.integrity).
Opening a session recomputes them and names whatever changed or was edited.
"""

from navigator.workspace.session_file import (DEFAULT_SESSION, SESSION_ENV, hold_session, session_exists, session_lock,
                                      session_path, session_target)
from navigator.workspace.spec import ProgramSpec, LoadedProgram
from navigator.workspace.session_workspace import (Workspace, create_workspace, locked_workspace, open_workspace,
                                          read_context_spec)

__all__ = [
    "DEFAULT_SESSION", "LoadedProgram", "ProgramSpec", "SESSION_ENV", "Workspace",
    "create_workspace", "hold_session", "locked_workspace", "open_workspace", "read_context_spec",
    "session_exists", "session_lock", "session_path", "session_target",
]
