"""File access for user-named files: atomic writes, and reads with clear errors."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write `text` to a temporary file beside `path`, fsync it, then rename over `path`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


def read_user_text(path: str | os.PathLike, error: type, what: str) -> str:
    """Read a file the user named; a missing or unreadable file raises `error` naming it."""
    where = str(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("file not found", where=where, fix=f"give the path of {what}") from None
    except IsADirectoryError:
        raise error("is a directory, not a file", where=where, fix=f"give the path of {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read the file: {exc}", where=where) from None
