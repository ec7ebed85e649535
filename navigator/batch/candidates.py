"""The schedules a batch evaluates: files (or folders of *.json), read and keyed up front.

A schedule that reads cleanly is keyed by the SHA-256 of its canonical multi-region JSON,
so the same schedule written in FuseFlow's single-region form, with other spacing or key
order, or under another file name gets the same key and is evaluated once. A file that
does not read is still a candidate, with the problem recorded as its result, and is keyed
by what could be read without the part that broke: its canonical JSON, else its bytes,
else (a FIFO, a device, a file too large or not readable) its path.
"""

from __future__ import annotations

import hashlib
import os
import stat
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from fuseflow.support.errors import UserError
from fuseflow.support.files import os_error, read_user_bytes
from fuseflow.support.readers import parse_json_text
from navigator.evaluation.result_keys import schedule_key

WHAT = "a schedule .json file"


@dataclass(frozen=True)
class Candidate:
    source: str
    key: str
    #: canonical multi-region schedule JSON; None when the file does not read as a schedule
    schedule: dict[str, Any] | None
    #: {"kind", "message", ...} when it does not read
    problem: dict[str, Any] | None = None


def schedule_files(paths: Iterable[str]) -> list[Path]:
    """Files as given, folders expanded to their *.json entries (sorted); missing paths are usage errors.

    Anything given that exists and is not a folder is a candidate, even a FIFO or a device:
    reading it fails, and that failure becomes its result.
    """
    files: list[Path] = []
    for text in paths:
        path = Path(text)
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise UserError("no such schedule file or folder", where=text, fix="check the path") from None
        except OSError as exc:
            raise os_error(exc, text, UserError, "read", "a schedule file or a folder of them") from None
        except ValueError:  # an embedded NUL byte
            raise UserError("not a usable path", where=text, fix="check the path") from None
        if stat.S_ISDIR(mode):
            files.extend(folder_schedules(path, text))
        else:
            files.append(path)
    return files


def folder_schedules(folder: Path, where: str) -> list[Path]:
    """The folder's entries named *.json that are not folders, sorted by name."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries
                           if entry.name.endswith(".json") and not entry.is_dir())
    except OSError as exc:
        raise os_error(exc, where, UserError, "read", "a folder of schedules") from None
    if not names:
        raise UserError("folder holds no .json schedules", where=where,
                        fix="give schedule files, or a folder of them (navigator sample writes one)")
    return [folder / name for name in names]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bad_input(source: str, key: str, message: str) -> Candidate:
    return Candidate(source, key, None, {"kind": "bad-input", "message": message})


def read_candidate(path: Path, program) -> Candidate:
    """Never raises for the file's content: every problem is the candidate's `problem`."""
    from fuseflow.support.errors import ScheduleError
    from fuseflow.schedule import schedule_from_json, schedule_to_json

    source = str(path)
    try:
        raw = read_user_bytes(path, UserError, WHAT)
    except UserError as exc:  # not a regular file, too large, not readable
        return _bad_input(source, _sha256(os.fsencode(path)), str(exc))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _bad_input(source, _sha256(raw), f"{source}: is not UTF-8 text (byte {exc.start} cannot be "
                                                f"decoded) (give the path of {WHAT}; is this a binary file?)")
    try:
        data = parse_json_text(text, source, UserError, WHAT)
    except UserError as exc:  # not JSON, NaN, a huge integer, deep nesting
        return _bad_input(source, _sha256(raw), str(exc))
    key = schedule_key(data)  # safe now: finite numbers, bounded nesting
    try:
        schedule = schedule_from_json(program, data, source)
        canonical = schedule_to_json(program, schedule)
    except ScheduleError as exc:
        return Candidate(source, key, None,
                         {"kind": "invalid-schedule", "message": str(exc), "field": exc.field, "rule": exc.rule})
    except UserError as exc:
        return _bad_input(source, key, str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug met by one file is that candidate's result, not the batch's end
        return Candidate(source, key, None, {"kind": "error", "message": f"{type(exc).__name__}: {exc}",
                                             "traceback": traceback.format_exc()[-4000:]})
    return Candidate(source, schedule_key(canonical), canonical)


def collect_candidates(paths: Iterable[str], program) -> list[Candidate]:
    return [read_candidate(path, program) for path in schedule_files(paths)]
