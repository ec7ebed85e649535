"""The previous version of a session file, kept beside it as `<session>.bak`.

A save reads the file it is about to replace (`previous_version`), writes the new session,
then writes what it read to `<session>.bak` atomically (a temporary file renamed over the old
backup). So a session file damaged by hand or by another program can be brought back as it
was one step earlier, and `start --force` keeps the session it replaces. Only a file that
reads as a session is kept: a damaged one that `start --force` replaces leaves the last good
backup in place. The backup sits beside the file the session path resolves to (a symbolic
link's target), like the lock, and is only ever a regular file. Failing to write it never
undoes a step that was saved: the command says so on stderr and succeeds.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fuseflow.support.errors import UserError
from fuseflow.support.files import read_user_bytes, write_bytes_atomic
from navigator.navigation.session_errors import SessionError


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def previous_version(path: Path) -> bytes | None:
    """The bytes of the session file at `path` (a target, see files.session_target) when it
    reads as a navigator session; None when there is none, or it does not."""
    from navigator.navigation.session_format import read_session_file

    try:
        read_session_file(path)
        return read_user_bytes(path, UserError, "a navigator session file")
    except UserError:
        return None


def write_backup(path: Path, previous: bytes | None) -> str | None:
    """Keep `previous` in `<path>.bak`; why it could not be kept, or None."""
    if previous is None:
        return None
    target = backup_path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"{target}: {exc.strerror or exc}"
    if info is not None and not stat.S_ISREG(info.st_mode):  # never write through a link left there
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        return f"{target}: is {kind}; remove it to let navigator keep the session's previous version there"
    try:
        write_bytes_atomic(target, previous, error=SessionError)
    except SessionError as exc:
        return str(exc)
    return None


def usable_backup(path: Path) -> Path | None:
    """The backup beside `path` when it reads as a navigator session file, else None."""
    target = backup_path(path)
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None
    except (OSError, ValueError):
        return None
    return target if previous_version(target) is not None else None
