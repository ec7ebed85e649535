"""The results file: JSON lines, one per evaluated schedule, keyed by the schedule's hash.

Appends are whole lines: each record is encoded first, written with one os.write on an
O_APPEND descriptor, then fsync'ed, with Ctrl-C held back until the line is on disk. A
line cut short anyway (the machine lost power, the process was killed) can only be the
last one: the next run checks that the rest is a results file and that line the start of
a record, and cuts it away before its first append (navigator.batch.results_file).
"""

from __future__ import annotations

import errno
import json
import math
import os
import signal
import stat
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from fuseflow.support.errors import UserError
from fuseflow.support.files import ensure_folder, os_error, output_path
from navigator.batch.results_file import file_stamp, read_results_file
from navigator.evaluation.result_keys import canonical_json


def json_safe(value: Any) -> Any:
    """Replace inf/nan (not JSON) by None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT until the block ends (main thread only; elsewhere signals never arrive)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            raise KeyboardInterrupt


class ResultsLog:
    """An append-only results file, locked (`<file>.lock`) while a batch writes it.

    Entering reads and checks an existing file without changing it (a file that is not a
    results file is refused as it is); the first append creates a new file, or first cuts
    away a last line an interrupted run left half-written.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.records: dict[str, dict[str, Any]] = {}  # key -> latest record
        self.lines = 0
        #: bytes of a last line an interrupted run cut short: removed before the first append
        self.partial_bytes = 0
        #: bytes of such a line that this log has removed
        self.repaired_bytes = 0
        self._whole_bytes = 0
        self._lock = None
        self._fd: int | None = None
        self._target = self.path

    @property
    def where(self) -> str:
        return str(self.path)

    def __enter__(self) -> "ResultsLog":
        self._target = output_path(self.path)  # appends follow a symbolic link; so does the lock
        content = read_results_file(self._target, self.where)
        ensure_folder(self._target.parent)
        self._lock = acquire_lock(self._target.with_name(self._target.name + ".lock"), self.where)
        try:
            self._fd = self._open(create=False)
            now = file_stamp(os.fstat(self._fd)) if self._fd is not None else None
            if now != (content.stamp if content else None):  # written while we waited for the lock
                content = read_results_file(self._target, self.where)
            if content is not None:
                self.records, self.lines = content.records, content.lines
                self._whole_bytes, self.partial_bytes = content.whole_bytes, content.partial_bytes
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _open(self, create: bool) -> int | None:
        """A descriptor appending to the file (None when it does not exist and `create` is false)."""
        flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            # 0o666: the kernel applies the umask, as for any new file
            fd = os.open(self._target, flags | (os.O_CREAT if create else 0), 0o666)
        except FileNotFoundError:
            if not create:
                return None
            raise
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a FIFO nobody reads
                raise UserError("is a named pipe (FIFO), not a regular file", where=self.where,
                                fix="give --out the path of a results file") from None
            raise os_error(exc, self.where, UserError, "write", "a results file") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise UserError("is not a regular file", where=self.where, fix="give --out the path of a results file")
        return fd

    def append(self, record: dict[str, Any]) -> None:
        line = encode_record(record)
        assert self._lock is not None, "use ResultsLog as a context manager"
        try:
            if self._fd is None:  # opened on the first record, so a run that fails early creates no file
                self._fd = self._open(create=True)
            if self.partial_bytes:
                os.ftruncate(self._fd, self._whole_bytes)
                self.repaired_bytes, self.partial_bytes = self.partial_bytes, 0
            with _interrupts_deferred():
                view = memoryview(line)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                os.fsync(self._fd)
        except OSError as exc:
            raise os_error(exc, self.where, UserError, "write", "a results file") from None
        self.records[record["key"]] = record
        self.lines += 1


def encode_record(record: dict[str, Any]) -> bytes:
    """One line of canonical JSON. Text that is not valid Unicode (a file name of undecodable
    bytes) is written as JSON escapes, so the file stays UTF-8. TypeError/ValueError for data
    that is not JSON."""
    data = json_safe(record)
    try:
        return (canonical_json(data) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")


def acquire_lock(path: Path, where: str):
    """Hold the lock file `path`; clean errors when another batch holds it or it cannot be made."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise UserError("another navigator batch is writing this file", where=where,
                        fix="wait for it, or write to another --out") from None
    except OSError as exc:
        reason = os_error(exc, str(path), UserError, "create", "a lock file").bare_message
        raise UserError(f"cannot create the lock file: {reason}", where=str(path),
                        fix="batch locks --out with this file beside it; make that folder writable and "
                            "the path free, or choose another --out") from None
    return lock
