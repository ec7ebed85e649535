"""Where a session file lives, and the lock that serializes commands changing it."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from navigator.session import SessionError

SESSION_ENV = "NAVIGATOR_SESSION"
DEFAULT_SESSION = Path(".navigator") / "session.json"
#: seconds a command waits for another one to finish with the same session
LOCK_TIMEOUT = 60.0


def session_path(explicit: str | os.PathLike | None = None) -> Path:
    """--session FILE, else $NAVIGATOR_SESSION, else .navigator/session.json in the cwd."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(SESSION_ENV)
    if from_env:
        return Path(from_env)
    return DEFAULT_SESSION


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def session_lock(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold `<session>.lock` (an OS file lock, released even if the process dies)."""
    from filelock import FileLock, Timeout

    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(path)))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise SessionError(f"another navigator command has held the session lock for {timeout:.0f} s",
                           where=str(lock_path(path)),
                           fix="wait for it to finish; the lock frees itself when that process exits") from None
    try:
        yield
    finally:
        lock.release()
