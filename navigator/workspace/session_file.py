"""Where a session file lives, what is allowed to be there, and the lock that serializes
commands changing it.

A session path is resolved once (`session_target`): when it is a symbolic link, the lock,
the read and the atomic write all use the link's target, so the link stays a link, the
target gets every step, and a command reaching the file through the link and one naming
the target take the same lock. Nothing but a regular file is ever treated as a session
(`session_exists`), and that is checked before the lock file is created beside it.

A workspace remembers which version of the file it read (`file_identity`: device, inode,
size and times, which every atomic save changes), and saves only over that version
(navigator.workspace.session_workspace). Taking the lock removes the temporary files of
writers that were killed before they could rename them (fuseflow.support.files). A caller
that would rather say why it waits passes `on_wait`, which hears who holds the lock.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

from fuseflow.support.files import ensure_folder, os_error, output_path, remove_stale_temps
from navigator.navigation.session_errors import SessionError
from navigator.workspace import lock_owner
from navigator.workspace.user_text import check_path_text

SESSION_ENV = "NAVIGATOR_SESSION"
DEFAULT_SESSION = Path(".navigator") / "session.json"
#: seconds a command waits for another one to finish with the same session
LOCK_TIMEOUT = 60.0
#: seconds between two looks at who holds a busy lock
_POLL = 0.25
_WHAT = "a navigator session file"
#: per thread, how many times each lock file (by absolute path) is held
_held_here = threading.local()


def session_path(explicit: str | os.PathLike | None = None) -> Path:
    """--session FILE, else $NAVIGATOR_SESSION, else .navigator/session.json in the cwd."""
    if explicit:
        return Path(check_path_text(os.fspath(explicit), "--session"))
    from_env = os.environ.get(SESSION_ENV)
    if from_env:
        return Path(check_path_text(from_env, f"${SESSION_ENV}"))
    return DEFAULT_SESSION


def session_target(path: str | os.PathLike) -> Path:
    """The file a session path stands for: a symbolic link's target (the path itself otherwise)."""
    return output_path(check_path_text(os.fspath(path), str(path)), SessionError)


def session_exists(path: Path) -> bool:
    """True for a regular file at `path`, False when nothing is there; anything else that is
    there (a directory, a FIFO, a device) or a path that cannot be looked at is refused."""
    where = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise os_error(exc, where, SessionError, "read", _WHAT) from None
    except ValueError as exc:  # a NUL byte, which check_path_text refuses first
        raise SessionError(f"not a usable path ({exc})", where=where, fix=f"give the path of {_WHAT}") from None
    if stat.S_ISDIR(info.st_mode):
        raise SessionError("is a directory, not a session file", where=where,
                           fix="give the path of a session file, e.g. --session runs/one.json")
    if not stat.S_ISREG(info.st_mode):
        raise SessionError("is not a regular file (a named pipe or a device?), so it cannot be a session file",
                           where=where, fix="give the path of a session file, e.g. --session runs/one.json")
    return True


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class FileIdentity(NamedTuple):
    """Which version of a file: an atomic save makes a new inode; an edit in place changes
    the size or the modification time."""
    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def file_identity(path: Path) -> FileIdentity | None:
    """The identity of the file now at `path`; None when there is none (or it cannot be looked at)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return FileIdentity(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


#: what `on_wait` hears: a sentence saying what the lock is waited for
WaitCallback = Callable[[str], None]


@contextmanager
def session_lock(path: Path, timeout: float | None = None, *, holder: str | None = None,
                 interactive: bool = False, on_wait: WaitCallback | None = None) -> Iterator[None]:
    """Hold `<session>.lock` (an OS file lock, released even if the process dies).

    `path` must be the session's target (see `session_target`), so every way of naming
    the session leads to the same lock file. The holder records who it is beside the lock
    (`holder`, by default `navigator <command>`; `interactive` for the TUI, which keeps it
    while it runs), so a command that finds the lock busy names it, and gives up at once
    when it is an interactive holder (navigator.workspace.lock_owner). A thread that
    already holds the lock takes it again at no cost: the TUI can call what commands call.
    `on_wait` is told, once the lock turns out to be busy and again whenever its holder
    changes, who holds it and how long the wait may last.
    """
    lock_file = lock_path(path)
    key = os.path.abspath(lock_file)
    held = _held_here.__dict__.setdefault("counts", {})
    if held.get(key):
        held[key] += 1
        try:
            yield
        finally:
            held[key] -= 1
        return
    timeout = LOCK_TIMEOUT if timeout is None else timeout
    ensure_folder(path.parent, SessionError)
    lock = _acquire(lock_file, timeout, on_wait)
    owner = lock_owner.this_process(holder or lock_owner.default_holder(),
                                    lock_owner.INTERACTIVE if interactive else lock_owner.COMMAND)
    held[key] = 1
    try:
        lock_owner.write_owner(lock_file, owner)
        # temporary files of killed writers beside the session: of the session, its backup and
        # owner record, and of exports written there (a dead writer's file is no one's)
        remove_stale_temps(path.parent)
        yield
    finally:
        held.pop(key, None)
        lock_owner.remove_owner(lock_file, owner)  # before the lock goes: a record never outlives its hold
        lock.release()


@contextmanager
def hold_session(path: str | os.PathLike, holder: str = "navigator tui", *,
                 on_wait: WaitCallback | None = None) -> Iterator[Path]:
    """Hold a session's lock as an interactive writer (the TUI) until the block ends, even by
    an exception; yields the session's target. Gives up at once when another interactive
    holder has it, after LOCK_TIMEOUT when a command does not finish (`on_wait` hears which)."""
    target = session_target(path)
    session_exists(target)  # no lock file beside a directory or a device
    with session_lock(target, holder=holder, interactive=True, on_wait=on_wait):
        yield target


def _acquire(lock_file: Path, timeout: float, on_wait: WaitCallback | None = None):
    """The acquired FileLock, waiting in short steps so that a holder that turns out to be
    interactive (or becomes one while we wait) ends the wait at once."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(lock_file))
    deadline = time.monotonic() + timeout
    wait = 0.0  # a first attempt that does not wait, then steps of _POLL
    told: object = ()  # the holder `on_wait` last heard of
    while True:
        try:
            lock.acquire(timeout=wait)
            return lock
        except Timeout:
            pass
        except OSError as exc:
            raise _lock_error(exc, lock_file) from None
        owner = lock_owner.live_owner(lock_file)
        if owner is not None and owner.interactive:
            raise SessionError(f"the session is open in {owner.describe()}", where=str(lock_file),
                               fix="quit it (q) to let other commands change the session, "
                                   "or use --session FILE for another one")
        if on_wait is not None and owner != told:
            told = owner
            on_wait(waiting_message(owner, timeout))
        left = deadline - time.monotonic()
        if left <= 0:
            held_by = f": held by {owner.describe()}" if owner is not None else ""
            raise SessionError(f"another navigator command has held the session lock for {timeout:.0f} s{held_by}",
                               where=str(lock_file),
                               fix="wait for it to finish; the lock frees itself when that process exits")
        wait = min(_POLL, left)


def waiting_message(owner: "lock_owner.LockOwner | None", timeout: float) -> str:
    """What a caller waiting for the lock may show: who holds it, and for how long at most."""
    who = owner.describe() if owner is not None else "another navigator command"
    return f"waiting for {who} to finish with the session (at most {timeout:.0f} s)"


def _lock_error(exc: OSError, lock_file: Path) -> SessionError:
    """The lock file cannot be created or opened: say what is in the way."""
    where = str(lock_file)
    fix = (f"remove it: navigator creates {lock_file.name} itself, to let one command at a time "
           "change the session")
    if exc.errno == errno.EISDIR:
        return SessionError("is a directory, not the session's lock file", where=where, fix=fix)
    if exc.errno == errno.ELOOP and os.path.islink(lock_file):  # the lock is opened with O_NOFOLLOW
        return SessionError("is a symbolic link, not the session's lock file", where=where, fix=fix)
    return os_error(exc, where, SessionError, "write", "the session's lock file")
