"""The results file: JSON lines, one per evaluated schedule, keyed by the schedule's hash.

Appends are whole lines: each record is encoded first, written with one os.write on an
O_APPEND descriptor, then fsync'ed, with Ctrl-C held back until the line is on disk. A
line cut short anyway (the machine lost power, the process was killed) can only be the
last one; opening the file again truncates it away and says so.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from fuseflow.errors import UserError


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8: equal data, equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def schedule_key(schedule_json: Any) -> str:
    """SHA-256 (hex) of a schedule's canonical JSON: the key of its result."""
    return hashlib.sha256(canonical_json(schedule_json).encode("utf-8")).hexdigest()


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
    """An append-only results file, locked (`<file>.lock`) while a batch writes it."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.records: dict[str, dict[str, Any]] = {}  # key -> latest record
        self.lines = 0
        self.repaired_bytes = 0
        self._lock = None
        self._fd: int | None = None

    def __enter__(self) -> "ResultsLog":
        from filelock import FileLock, Timeout

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(str(self.path.with_name(self.path.name + ".lock")))
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise UserError("another navigator batch is writing this file", where=str(self.path),
                            fix="wait for it, or write to another --out") from None
        try:
            self._read_and_repair()
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock is not None:
            self._lock.release()

    def _read_and_repair(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UserError(f"cannot read the results file: {exc.strerror}", where=str(self.path)) from None
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            os.truncate(self.path, cut)
            self.repaired_bytes = len(data) - cut
            data = data[:cut]
        for number, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
            if not isinstance(record, dict) or not isinstance(record.get("key"), str):
                raise UserError(f"line {number} is not a batch result record", where=str(self.path),
                                fix="write to another --out, or delete that line")
            self.records[record["key"]] = record
            self.lines += 1

    def append(self, record: dict[str, Any]) -> None:
        line = (canonical_json(json_safe(record)) + "\n").encode("utf-8")
        assert self._lock is not None, "use ResultsLog as a context manager"
        if self._fd is None:  # opened on the first record, so a run that fails early creates no file
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        with _interrupts_deferred():
            view = memoryview(line)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        self.records[record["key"]] = record
        self.lines += 1
