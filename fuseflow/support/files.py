"""Every file Navigator reads or writes on a user's behalf goes through this module.

Reading: only regular files are read (a FIFO or a device such as /dev/zero would hang or
never end), the file is opened without blocking, and its size is checked against a limit
before a byte is read. Writing: the text goes to a temporary file beside the target, is
fsync'ed, then renamed over it, so a reader never sees half a file. Whatever is at the
path is replaced, never written through: a symbolic link there is replaced by the new file
(its target is untouched), unless the path is one the user named and the link is theirs
(`follow_link`: the target gets the content and the link stays a link). Temporary files
carry their writer's pid, so those of a killed writer are recognised and removed
(`remove_stale_temps`). Folders are created without recursion (`make_folders`). A new file
gets the mode the umask allows (0666 & ~umask); a rewritten file keeps its mode. Every
OSError becomes a UserError that names the path and the fix.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from fuseflow.support.errors import UserError

#: structured text inputs (JSON, TOML, edge lists) larger than this are refused
TEXT_LIMIT = 64 * 1024 * 1024

PathLike = str | os.PathLike


# ---------------------------------------------------------------- errors

def os_error(exc: OSError, where: str, error: type[UserError], action: str, what: str = "the file"
             ) -> UserError:
    """A UserError for an OSError raised while `action`ing (read/write/create) `where`."""
    code = exc.errno
    if code == errno.ENOENT:
        if action == "read":
            return error("file not found", where=where, fix=f"give the path of {what}")
        return error("its folder does not exist", where=where, fix="create the folder, or choose another path")
    if code in (errno.EACCES, errno.EPERM):
        verb = "read" if action == "read" else "write"
        return error(f"permission denied: cannot {verb} here", where=where,
                     fix="choose a path you may " + verb + ", or change its permissions")
    if code == errno.EISDIR:
        return error("is a directory, not a file", where=where, fix=f"give the path of {what}, not a folder")
    if code == errno.ENOTDIR:
        return error("a part of the path is a file, not a folder", where=where,
                     fix="check the path; every part before the file name must be a folder")
    if code == errno.EROFS:
        return error("the file system is read-only", where=where, fix="choose a path on a writable disk")
    if code in (errno.ENOSPC, errno.EDQUOT):
        return error("no space left on the disk", where=where, fix="free some space, or choose another disk")
    if code == errno.ENAMETOOLONG:
        return error("the path is too long", where=where, fix="choose a shorter path")
    if code == errno.ELOOP:
        return error("too many levels of symbolic links", where=where, fix="fix the symbolic link")
    reason = exc.strerror or type(exc).__name__
    return error(f"cannot {action} the file: {reason}", where=where, fix="check the path and its permissions")


# ---------------------------------------------------------------- reading

def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


@contextmanager
def open_regular_file(path: PathLike, error: type[UserError], what: str,
                      limit: int | None = None) -> Iterator[BinaryIO]:
    """Open a user's file for reading in binary mode; refuse anything but a regular file.

    O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; the
    fstat on the open descriptor then refuses it, so no check-then-open race is possible.
    """
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise os_error(exc, where, error, "read", what) from None
    except (ValueError, TypeError) as exc:  # an embedded NUL byte, say
        raise error(f"not a usable path ({exc})", where=where, fix=f"give the path of {what}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"is {_kind(info.st_mode)}, not a regular file", where=where,
                        fix=f"give the path of {what}")
        if limit is not None and info.st_size > limit:
            raise error(f"is {format_size(info.st_size)}, larger than the {format_size(limit)} "
                        f"allowed for {what}", where=where, fix=f"check that this is {what}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
        fd = -1
    finally:
        if fd >= 0:
            os.close(fd)
    with handle:
        yield handle


def read_user_bytes(path: PathLike, error: type[UserError], what: str, limit: int = TEXT_LIMIT) -> bytes:
    """The bytes of a regular file of at most `limit` bytes."""
    with open_regular_file(path, error, what, limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise os_error(exc, str(path), error, "read", what) from None
    if len(data) > limit:  # the file grew while we read it
        raise error(f"is larger than the {format_size(limit)} allowed for {what}", where=str(path),
                    fix=f"check that this is {what}")
    return data


def read_user_text(path: PathLike, error: type[UserError], what: str, limit: int = TEXT_LIMIT) -> str:
    """The UTF-8 text of a regular file; every problem raises `error` naming the file."""
    data = read_user_bytes(path, error, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"is not UTF-8 text (byte {exc.start} cannot be decoded)", where=str(path),
                    fix=f"give the path of {what}; is this a binary file?") from None


_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9_.+-]+")


def file_stem(text: str, limit: int = 80) -> str:
    """A file-name part made from user text (a program's name, say): no separators, no
    leading dot, nothing a shell or another OS would trip over, at most `limit` characters."""
    stem = _UNSAFE_IN_NAME.sub("_", text).lstrip(".")[:limit]
    return stem or "unnamed"


def format_size(n: float) -> str:
    """Bytes for people: 512 B, 1.5 KiB, 19.2 PiB."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    if isinstance(n, int) and n.bit_length() > 1000:  # beyond any float (a size from a 400-digit --dim)
        return f"2^{n.bit_length() - 1} B"
    value = float(n)
    for unit in units:
        if abs(value) < 1024 or unit == units[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} {units[-1]}"  # pragma: no cover (the loop always returns)


# ---------------------------------------------------------------- writing

_umask_lock = threading.Lock()
#: the name part of a temporary file kept from its target's name (the whole stays under 255 bytes)
_TEMP_NAME_PART = 100
#: `.<target name>.~<pid>-<host>-<random>.tmp`: the writer's pid and host say when it is stale
_TEMP_NAME = re.compile(r"^\.(?P<name>.*)\.~(?P<pid>[0-9]+)-(?P<host>[0-9a-f]{6})-[^.]*\.tmp$")


def current_umask() -> int:
    """The process umask (reading it means setting it, so briefly and under a lock)."""
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:6]


def temp_prefix(name: str) -> str:
    """The start of the name of this process's temporary files for the target `name`."""
    return f".{name[:_TEMP_NAME_PART]}.~{os.getpid()}-{_host_tag()}-"


def output_path(path: PathLike, error: type[UserError] = UserError) -> Path:
    """The file a write to a path *the user named* changes: a symbolic link the user owns is
    resolved (a dangling one names the file it will create), so the link stays and its target
    gets the content, as a shell's `>` would. A link someone else owns (planted in a shared
    folder such as /tmp) is refused rather than followed. Paths Navigator makes up itself
    (backups, caches, records) are never resolved: the writer replaces whatever is there."""
    target = Path(path)
    try:
        info = os.lstat(target)
    except (OSError, ValueError):
        return target
    if not stat.S_ISLNK(info.st_mode):
        return target
    if hasattr(os, "geteuid") and info.st_uid not in (os.geteuid(), 0):
        raise error("is a symbolic link owned by another user, so navigator does not write through it",
                    where=str(path), fix="remove the link, or choose another path")
    return Path(os.path.realpath(target))


def make_folders(folder: PathLike, mode: int = 0o777) -> None:
    """os.makedirs without its recursion (a path thousands of folders deep would exhaust
    Python's stack): the missing folders are created from the top down, one at a time.
    Raises OSError (FileExistsError when a file is in the way)."""
    path = os.path.abspath(os.fspath(folder))  # strings: a Path's parent costs its length, again per level
    missing = []
    while not os.path.isdir(path):
        if os.path.lexists(path):
            if missing:  # a file where a folder above the one asked for should be
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
            raise FileExistsError(errno.EEXIST, "exists and is not a folder", path)
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for step in reversed(missing):
        try:
            os.mkdir(step, mode)
        except FileExistsError:
            if not os.path.isdir(step):  # another process may create the same folders meanwhile
                raise


def ensure_folder(folder: PathLike, error: type[UserError] = UserError) -> Path:
    """Create `folder` (and its parents) if needed; clean errors for files in the way."""
    path = Path(folder)
    try:
        make_folders(path)
    except FileExistsError:
        raise error("exists and is not a folder", where=str(path), fix="give the path of a folder") from None
    except OSError as exc:
        raise os_error(exc, str(path), error, "create", "a folder") from None
    except ValueError as exc:  # an embedded NUL byte
        raise error(f"not a usable path ({exc})", where=str(path), fix="check the path") from None
    return path


def write_bytes_atomic(path: PathLike, data: bytes, *, error: type[UserError] = UserError,
                       executable: bool = False, follow_link: bool = False) -> None:
    """Write `data` to `path` atomically: a temporary file created beside it with O_EXCL and
    O_NOFOLLOW (tempfile.mkstemp), named after this process (`temp_prefix`), fsync'ed, then
    renamed over `path` with os.replace, which replaces a symbolic link rather than follow it.

    So whatever sits at `path` is replaced, never written through: a link planted where a
    cache entry or a backup goes cannot redirect the write to another file. Only for a path
    the user named is `follow_link` set: a link they own is then resolved once (see
    `output_path`) and its target replaced. A new file gets 0666 & ~umask (0777 & ~umask when
    `executable`); a rewritten regular file keeps its mode. A directory, a FIFO or a device at
    `path` is refused.
    """
    where = str(path)
    target = output_path(path, error) if follow_link else Path(path)
    try:
        existing = os.lstat(target)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise os_error(exc, where, error, "write") from None
    except ValueError as exc:  # an embedded NUL byte
        raise error(f"not a usable path ({exc})", where=where, fix="check the path") from None
    if existing is not None and stat.S_ISLNK(existing.st_mode):
        existing = None  # the link itself is replaced: its target is never touched
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise error("is a directory, not a file", where=where, fix="give the path of a file to write")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise error(f"is {_kind(existing.st_mode)}, not a regular file", where=where,
                    fix="give the path of a regular file to write")
    if existing is not None:
        mode = stat.S_IMODE(existing.st_mode)
    else:
        mode = (0o777 if executable else 0o666) & ~current_umask()
    parent = target.parent
    ensure_folder(parent, error)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(target.name), suffix=".tmp", dir=parent)
    except OSError as exc:
        raise os_error(exc, where, error, "write") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException as exc:  # KeyboardInterrupt too: no temporary file is left behind
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise os_error(exc, where, error, "write") from None
        raise
    if follow_link:  # a file the user named (an export): a killed writer of it left its temporary
        remove_stale_temps(parent, target.name)  # file here; bulk writes skip the folder scan


def write_text_atomic(path: PathLike, text: str, *, error: type[UserError] = UserError,
                      executable: bool = False, follow_link: bool = False) -> bytes:
    """Write `text` as UTF-8 atomically (see write_bytes_atomic); the bytes written are returned."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start:exc.end]
        raise error(f"the text to write holds {bad!r}, which is not valid Unicode (an unpaired surrogate)",
                    where=str(path), fix="remove that character from what you typed (e.g. --rationale)") from None
    write_bytes_atomic(path, data, error=error, executable=executable, follow_link=follow_link)
    return data


def remove_stale_temps(folder: PathLike, name_prefix: str = "") -> list[str]:
    """Remove the temporary files of writers that died before renaming them (a SIGKILL, a
    power cut): files named as `write_bytes_atomic` names them, whose target name starts with
    `name_prefix`, written on this host by a process that no longer runs. Best effort; the
    names removed are returned. Call it while holding the lock that serializes the writers."""
    removed = []
    host = _host_tag()
    try:
        entries = list(os.scandir(folder))
    except (OSError, ValueError):
        return removed
    for entry in entries:
        match = _TEMP_NAME.match(entry.name)
        if (match is None or not match["name"].startswith(name_prefix[:_TEMP_NAME_PART])
                or match["host"] != host or pid_alive(int(match["pid"]))):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:
            pass
    return removed


def pid_alive(pid: int) -> bool:
    """Whether a process of this host has this pid (a process of another user counts; on
    Windows, where os.kill(pid, 0) is no probe, every pid does, so nothing is taken for dead)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":  # os.kill(pid, 0) is no probe on Windows: keep the file
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except (OSError, OverflowError):
        return False
    return True
