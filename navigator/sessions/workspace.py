"""A session file together with the program it navigates.

Opening a session reads the file (never writing it), rebuilds the schedule space from the
recorded `ProgramSpec`, compares content hashes, and replays the steps. Commands that
change a session hold `<session>.lock` from before they read until after they have
written, so two commands at once run one after the other instead of losing a step.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from fuseflow.errors import UserError
from navigator.session import Session, SessionError
from navigator.sessions.files import session_lock
from navigator.sessions.spec import LoadedProgram, ProgramSpec

#: the CLI's part of Session.context
CONTEXT_KEY = "navigator"
CONTEXT_VERSION = 1


@dataclass
class Workspace:
    path: Path
    loaded: LoadedProgram
    session: Session
    #: things the user should hear about on stderr (e.g. accepted changes)
    notes: list[str] = field(default_factory=list)

    @property
    def spec(self) -> ProgramSpec:
        return self.loaded.spec

    @property
    def space(self):
        return self.loaded.space

    @property
    def program(self):
        return self.loaded.space.program

    def save(self) -> None:
        """Record the current spec and hashes in the context, then write atomically."""
        previous = self.session.context.get(CONTEXT_KEY)
        created = previous.get("created") if isinstance(previous, dict) else None
        self.session.context[CONTEXT_KEY] = {
            "version": CONTEXT_VERSION,
            **self.spec.to_context(),
            "fingerprints": dict(self.loaded.fingerprints),
            "created": created or _now(),
        }
        self.session.save(self.path)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _missing(path: Path) -> SessionError:
    return SessionError("no session file here", where=str(path),
                        fix="start one with `navigator start PROGRAM`, or name one with --session FILE "
                            "or NAVIGATOR_SESSION")


def read_context_spec(path: Path) -> ProgramSpec:
    """The spec a session file records, from its envelope alone (no replay)."""
    if not path.exists():
        raise _missing(path)
    data = Session.read_file(path)
    return _spec_of(data, path)


def _spec_of(data: dict[str, Any], path: Path) -> ProgramSpec:
    return ProgramSpec.from_context(data.get("context", {}).get(CONTEXT_KEY),
                                    where=f"{path}: context.{CONTEXT_KEY}")


def _load_space(spec: ProgramSpec, path: Path) -> LoadedProgram:
    try:
        return spec.load()
    except SessionError:
        raise
    except UserError as exc:
        raise SessionError(f"cannot load what the session navigates: {exc}", where=str(path),
                           fix="restore that file, or start a new session with `navigator start`") from None


def create_workspace(path: Path, spec: ProgramSpec, *, force: bool = False) -> Workspace:
    """Build the space, save a fresh session at `path` (refusing to replace one unless `force`)."""
    with session_lock(path):
        if path.exists() and not force:
            raise SessionError("a session already exists here", where=str(path),
                               fix="pass --force to replace it, or --session FILE to start another one")
        loaded = spec.load()
        space = loaded.space
        workspace = Workspace(path, loaded, Session(space.library, space.facts, oracle=space.oracle))
        workspace.save()
        return workspace


def open_workspace(path: Path, *, accept_changes: bool = False) -> Workspace:
    """Load a session read-only; names what changed since it was saved."""
    if not path.exists():
        raise _missing(path)
    data = Session.read_file(path)
    spec = _spec_of(data, path)
    loaded = _load_space(spec, path)
    saved = data["context"][CONTEXT_KEY].get("fingerprints")
    changes = spec.changes(saved if isinstance(saved, dict) else {}, loaded.fingerprints)
    notes = []
    if changes:
        steps = len(data["steps"])
        if not accept_changes:
            raise SessionError("changed since the session was saved: " + "; ".join(changes), where=str(path),
                               fix=f"restore the old version, or pass --accept-changes to replay the {steps} "
                                   "recorded steps on the new one")
        notes.append(f"{path}: accepted changes since the session was saved: " + "; ".join(changes))
    space = loaded.space
    session = Session.load(path, space.library, space.facts, oracle=space.oracle)
    return Workspace(path, loaded, session, notes)


@contextmanager
def locked_workspace(path: Path, *, accept_changes: bool = False) -> Iterator[Workspace]:
    """Open under the session lock; the caller calls `save()` when it changed something."""
    if not path.exists():
        raise _missing(path)
    with session_lock(path):
        yield open_workspace(path, accept_changes=accept_changes)
