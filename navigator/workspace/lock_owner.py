"""Who holds a session's lock: a small record beside it, so a command that finds the lock
busy can say who has it.

Whoever takes `<session>.lock` writes `<session>.lock.owner` (JSON: pid, host, command,
since, kind) and removes it before letting the lock go. The record only words messages:
the operating-system lock decides who may write, so the record is read only while the lock
is busy, and one that cannot be trusted (its process is gone, its text is not a record, it
is a symbolic link, a huge or binary file) is ignored, never an error.

A holder of kind "interactive" (the TUI) keeps the lock for as long as it runs, so waiting
for it is pointless: a command that finds one alive gives up at once.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from fuseflow.support.errors import UserError
from fuseflow.support.files import pid_alive, read_user_bytes, write_text_atomic
from fuseflow.support.readers import parse_json_text
from navigator.navigation.session_errors import SessionError

COMMAND = "command"
INTERACTIVE = "interactive"
_KINDS = (COMMAND, INTERACTIVE)
#: an owner record is a few dozen bytes; anything larger is not one
_RECORD_LIMIT = 4096
_TEXT_LIMIT = 120


@dataclass(frozen=True)
class LockOwner:
    pid: int
    host: str
    command: str
    since: datetime
    kind: str

    @property
    def interactive(self) -> bool:
        return self.kind == INTERACTIVE

    def describe(self, now: datetime | None = None) -> str:
        """`navigator tui (pid 1234 on HOST since 05:31 UTC)`: who, for a one-line message."""
        return f"{self.command} (pid {self.pid} on {self.host} since {_clock(self.since, now)})"

    def to_json(self) -> dict:
        return {"pid": self.pid, "host": self.host, "command": self.command,
                "since": self.since.isoformat(timespec="seconds"), "kind": self.kind}


def owner_path(lock_file: Path) -> Path:
    return lock_file.with_name(lock_file.name + ".owner")


def default_holder(argv: list[str] | None = None) -> str:
    """`navigator fill` for the running command: its program and the first word after it
    (navigator's global options come after the command's name)."""
    argv = sys.argv if argv is None else argv
    program = Path(argv[0]) if argv and argv[0] not in ("", "-c", "-m") else Path("python")
    if program.name == "__main__.py":  # python -m navigator
        program = program.parent
    words = [arg for arg in argv[1:] if not arg.startswith("-")]
    return _clean(" ".join([program.stem, *words[:1]]))


def this_process(holder: str, kind: str) -> LockOwner:
    return LockOwner(pid=os.getpid(), host=_clean(socket.gethostname()) or "?", command=_clean(holder) or "?",
                     since=datetime.now(timezone.utc).replace(microsecond=0), kind=kind)


def write_owner(lock_file: Path, owner: LockOwner) -> None:
    """Record `owner` beside the lock; best effort (a record never matters for correctness),
    and never through a symbolic link or over anything but a regular file."""
    path = owner_path(lock_file)
    if _something_else_at(path):
        return
    try:
        write_text_atomic(path, json.dumps(owner.to_json()) + "\n", error=SessionError)
    except (UserError, OSError):
        pass


def remove_owner(lock_file: Path, owner: LockOwner) -> None:
    """Remove the record this process wrote (best effort): a file that is not that record
    (another process's, or something written there since) is left alone."""
    if read_owner(lock_file) != owner:
        return
    try:
        owner_path(lock_file).unlink()
    except OSError:
        pass


def read_owner(lock_file: Path) -> LockOwner | None:
    """The record beside `lock_file`, or None when there is none or it cannot be trusted."""
    path = owner_path(lock_file)
    if _something_else_at(path):
        return None
    try:
        data = parse_json_text(read_user_bytes(path, SessionError, "a lock owner record", _RECORD_LIMIT
                                               ).decode("utf-8"), str(path), SessionError)
        return _owner_of(data)
    except (UserError, OSError, ValueError):
        return None


def live_owner(lock_file: Path) -> LockOwner | None:
    """The record of a holder whose process still runs (as far as this machine can tell)."""
    owner = read_owner(lock_file)
    return owner if owner is not None and is_alive(owner) else None


def is_alive(owner: LockOwner) -> bool:
    """On this host: the pid exists. On another host (a shared folder) the record is trusted."""
    if owner.host != _clean(socket.gethostname()):
        return True
    return pid_alive(owner.pid)


def _owner_of(data: object) -> LockOwner | None:
    if not isinstance(data, dict):
        return None
    pid, host, command, since, kind = (data.get(k) for k in ("pid", "host", "command", "since", "kind"))
    if type(pid) is not int or not 0 < pid < 2**31:
        return None
    if not all(isinstance(text, str) for text in (host, command, since)) or kind not in _KINDS:
        return None
    try:
        when = datetime.fromisoformat(since)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    host, command = _clean(host), _clean(command)
    if not host or not command:
        return None
    return LockOwner(pid=pid, host=host, command=command, since=when.astimezone(timezone.utc), kind=kind)


def _something_else_at(path: Path) -> bool:
    """A symbolic link, a folder, a FIFO... where the record goes: leave it alone."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(info.st_mode)


def _clean(text: str) -> str:
    """Printable text of bounded length: a record's words end up in a one-line message."""
    printable = "".join(c if c.isprintable() else "?" for c in text.strip())
    return printable if len(printable) <= _TEXT_LIMIT else printable[: _TEXT_LIMIT - 3] + "..."


def _clock(when: datetime, now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    if when.date() == now.astimezone(timezone.utc).date():
        return when.strftime("%H:%M UTC")
    return when.strftime("%Y-%m-%d %H:%M UTC")
