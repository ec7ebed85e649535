"""A session file together with the program it navigates.

Opening a session resolves its path once (a symbolic link's target is what is locked, read
and written), reads the file once (never writing it), checks the fingerprints of what it
records (settings, step log, redo stack: navigator.workspace.integrity), rebuilds the
schedule space from the recorded `ProgramSpec`, compares the content hashes of the files it
depends on, and replays the steps and the undone ones. Commands that change a session hold
`<session>.lock` from before they read until after they have written, so two commands at
once run one after the other instead of losing a step.

A workspace also remembers which version of the file it read (`read_as`), and `save` takes
the lock (at no cost when it is held) and writes only over that version: a workspace read
before another process saved a step (read without the lock, or the file edited meanwhile)
refuses to save (`StaleSessionError`) rather than erase that step. The reader of the
version on disk then opens it again (the TUI does so on its own).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from fuseflow.support.errors import UserError
from navigator.navigation.session import Session
from navigator.navigation.session_errors import DamagedSessionError, SessionError
from navigator.navigation.session_format import read_session_bytes, records_of, save_session, session_from_data
from navigator.process.console import say
from navigator.process.heap import keep_loaded
from navigator.workspace.backup import previous_version, write_backup
from navigator.workspace.session_file import (FileIdentity, file_identity, session_exists, session_lock,
                                              session_target)
from navigator.workspace.integrity import integrity_problem, record_fingerprints, spec_is_intact
from navigator.workspace.recovery import damaged, recovery_fix
from navigator.workspace.spec import LoadedProgram, ProgramSpec
from navigator.workspace.warm import warm_for

if TYPE_CHECKING:
    from navigator.navigation.space import Space

#: the CLI's part of Session.context
CONTEXT_KEY = "navigator"
#: 2: fingerprints.record covers the recorded settings, steps and redo stack;
#: 3: and the forced-steps setting
CONTEXT_VERSION = 3


@dataclass
class Workspace:
    #: the session file itself (a symbolic link given by the user is resolved)
    path: Path
    loaded: LoadedProgram
    session: Session
    #: things the user should hear about on stderr (e.g. accepted changes)
    notes: list[str] = field(default_factory=list)
    #: the version of the file this workspace read or last saved (None: there was none)
    read_as: FileIdentity | None = None
    #: that version's bytes: the backup a save keeps, without reading the file again
    read_bytes: bytes | None = field(default=None, repr=False)

    @property
    def spec(self) -> ProgramSpec:
        return self.loaded.spec

    @property
    def space(self) -> "Space":
        return self.loaded.space

    @property
    def program(self):
        """The tensor program; a space without one refuses (Space.require_tensor_program)."""
        return self.loaded.program

    def changed_on_disk(self) -> bool:
        """Whether the file is no longer the version this workspace read or saved."""
        return file_identity(self.path) != self.read_as

    def save(self) -> None:
        """Record the current spec and fingerprints in the context, then write atomically,
        under the lock and only over the version this workspace read."""
        with session_lock(self.path):
            if self.changed_on_disk():
                raise StaleSessionError(
                    "the session file changed since this command read it (another navigator saved a step, or "
                    "it was edited); nothing was saved, so that change is kept", where=str(self.path),
                    fix="run the command again: it reads the session as it is now")
            self.read_bytes = self._write()
            self.read_as = file_identity(self.path)

    def _write(self) -> bytes:
        previous = self.session.context.get(CONTEXT_KEY)
        created = previous.get("created") if isinstance(previous, dict) else None
        spec = self.spec.to_context()
        steps = [s.to_dict() for s in self.session.steps]
        redo = [s.to_dict() for s in self.session.redo_steps]
        self.session.context[CONTEXT_KEY] = {
            "version": CONTEXT_VERSION,
            **spec,
            "fingerprints": {**self.loaded.fingerprints,
                             "record": record_fingerprints(spec, steps, redo, self.session.forced_steps)},
            "created": created if isinstance(created, str) else _now(),
        }
        # the version being replaced is the one read (save checked it, under the lock): it read as
        # a session then, so it is kept as it is
        previous = self.read_bytes if self.read_bytes is not None else previous_version(self.path)
        written = save_session(self.session, self.path)
        problem = write_backup(self.path, previous)
        if problem is not None:  # the step is saved; only the copy of the version before it is missing
            say(f"note: the previous version of the session was not kept: {problem}")
        return written


class StaleSessionError(SessionError):
    """A save over a version of the session file other than the one read."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _missing(path: Path) -> SessionError:
    return SessionError("no session file here", where=str(path),
                        fix="start one with `navigator start PROGRAM`, or name one with --session FILE "
                            "or NAVIGATOR_SESSION")


def _existing(path) -> Path:
    """The session file `path` stands for, which must exist."""
    target = session_target(path)
    if not session_exists(target):
        raise _missing(target)
    return target


def read_context_spec(path: Path) -> ProgramSpec:
    """The spec a session file records, from its envelope alone (no replay); the fingerprints
    of what it records must match, since commands will take their program from it."""
    target = _existing(path)
    data, spec = _read(target)
    problem = _integrity(data, target)
    if problem is not None:
        advice = ("name the program on the command line; or pass --accept-changes to the next fill, undo or redo "
                  "to record new fingerprints")
        raise DamagedSessionError(f"cannot take the program from this session: {problem}", where=str(target),
                                  fix=recovery_fix(target, _trusted(data), advice))
    return spec


def _read(path: Path) -> tuple[dict[str, Any], ProgramSpec]:
    """The file's content and the spec it records; damage is reported with how to recover."""
    return _read_with_bytes(path)[1:]


def _read_with_bytes(path: Path) -> tuple[bytes, dict[str, Any], ProgramSpec]:
    data = None
    try:
        raw, data = read_session_bytes(path)
        return raw, data, _spec_of(data, path)
    except DamagedSessionError as exc:
        raise damaged(exc, path, data) from None


def _context(data: dict[str, Any]) -> dict[str, Any]:
    context = data.get("context", {}).get(CONTEXT_KEY)
    return context if isinstance(context, dict) else {}


def _spec_of(data: dict[str, Any], path: Path) -> ProgramSpec:
    spec = ProgramSpec.from_context(data.get("context", {}).get(CONTEXT_KEY),
                                    where=f"{path}: context.{CONTEXT_KEY}")
    version = _context(data).get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DamagedSessionError("corrupted session file: context.navigator.version must be a positive integer",
                                  where=str(path))
    if version > CONTEXT_VERSION:
        raise SessionError(f"the session was saved by a newer navigator (context version {version}; this one "
                           f"reads up to {CONTEXT_VERSION})", where=str(path), fix="upgrade navigator")
    return spec


def _trusted(data: dict[str, Any]) -> dict[str, Any] | None:
    """`data` when its recorded program, data, dims and library are as navigator saved them."""
    return data if spec_is_intact(_context(data)) else None


def _integrity(data: dict[str, Any], path: Path) -> str | None:
    context = _context(data)
    return integrity_problem(context, data["steps"], data.get("redo", []), data.get("forced_steps"),
                             context["version"])


def _load_space(spec: ProgramSpec, path: Path) -> LoadedProgram:
    try:
        return spec.load()
    except SessionError:
        raise
    except UserError as exc:
        raise SessionError(f"cannot load what the session navigates: {exc}", where=str(path),
                           fix="restore that file, or start a new session with `navigator start`") from None


def create_workspace(path: Path, spec: ProgramSpec, *, force: bool = False, forced_steps: bool = True
                     ) -> Workspace:
    """Build the space, save a fresh session at `path` (refusing to replace one unless `force`).

    With `forced_steps`, the session fills every hole that offers exactly one option, now
    and after each later fill (the file records the setting)."""
    target = session_target(path)

    def refuse_existing() -> None:  # before the lock (nothing is created) and again under it
        if session_exists(target) and not force:
            raise SessionError("a session already exists here", where=str(target),
                               fix="pass --force to replace it, or --session FILE to start another one")

    refuse_existing()
    with session_lock(target):
        refuse_existing()
        loaded = spec.load()
        space = loaded.space
        session = Session(space.library, space.facts, oracle=space.oracle, forced_steps=forced_steps)
        session.settle()
        # replaces what is there now (refused above unless `force`)
        workspace = Workspace(target, loaded, session, read_as=file_identity(target))
        workspace.save()
        return workspace


def open_workspace(path: Path, *, accept_changes: bool = False, progress: "Opening | None" = None) -> Workspace:
    """Load a session read-only; names what changed since it was saved. `progress(what, done,
    total)` hears the phases of a long open: the program's space, then the steps replayed."""
    target = _existing(path)
    return _open(target, accept_changes, progress)


#: hears an open's progress: (what is being done, done, total; None: a phase of unknown length)
Opening = Callable[[str, int, "int | None"], None]


def _open(path: Path, accept_changes: bool, progress: "Opening | None" = None) -> Workspace:
    where = str(path)
    warm = None if accept_changes else warm_for(path)
    if warm is not None and file_identity(path) == warm.read_as:  # the version a server read and checked
        return Workspace(path, warm.loaded, warm.session, [], warm.read_as, warm.read_bytes)
    raw, data, spec, read_as = _read_version(path)
    try:
        records, redo = records_of(data, where)
    except DamagedSessionError as exc:
        raise damaged(exc, path, data) from None
    notes = []
    replay = f"replay the {len(records)} recorded steps" + (f" and the {len(redo)} undone ones" if redo else "")
    problem = _integrity(data, path)
    if problem is not None:
        if not accept_changes:
            advice = f"pass --accept-changes to {replay}, and with it a fill, undo or redo records new fingerprints"
            raise DamagedSessionError(f"cannot trust this session file: {problem}", where=where,
                                      fix=recovery_fix(path, _trusted(data), advice))
        notes.append(f"{where}: accepted, after checking that its steps replay: {problem}")
    warm = None if accept_changes else warm_for(path, spec)
    if progress is not None:
        progress(f"loading {spec.describe()}", 0, None)
    loaded = warm.loaded if warm is not None else _load_space(spec, path)
    saved = _context(data).get("fingerprints")
    changes = spec.changes(saved if isinstance(saved, dict) else {}, loaded.fingerprints)
    if changes:
        if not accept_changes:
            raise SessionError("changed since the session was saved: " + "; ".join(changes), where=where,
                               fix=f"restore the old version, or pass --accept-changes to {replay} on the new one")
        notes.append(f"{where}: accepted changes since the session was saved: " + "; ".join(changes))
    space = loaded.space
    # With --accept-changes the replayed steps are the truth, so the saved sketch is not compared.
    try:
        replayed = None if progress is None else (lambda done, total: progress("replaying its steps", done, total))
        session = session_from_data(data, where, space.library, space.facts, oracle=space.oracle,
                                    check_sketch=not accept_changes, progress=replayed,
                                    base=warm.session if warm is not None else None)
    except DamagedSessionError as exc:
        raise damaged(exc, path, data) from None
    keep_loaded()  # the replayed sketch too
    return Workspace(path, loaded, session, notes, read_as, raw)


def _read_version(path: Path) -> tuple[bytes, dict[str, Any], ProgramSpec, FileIdentity | None]:
    """The file's bytes, content and spec, and the identity of the version read: the file is
    read again if it was replaced while it was read (by a writer that does not take the lock)."""
    for _ in range(5):
        before = file_identity(path)
        raw, data, spec = _read_with_bytes(path)
        if file_identity(path) == before:
            return raw, data, spec, before
    raise SessionError("the session file kept changing while it was read", where=str(path),
                       fix="stop the program that keeps rewriting it, then run the command again")


@contextmanager
def locked_workspace(path: Path, *, accept_changes: bool = False) -> Iterator[Workspace]:
    """Open under the session lock; the caller calls `save()` when it changed something."""
    target = _existing(path)  # before the lock: no lock file beside a directory or a device
    with session_lock(target):
        yield _open(target, accept_changes)
