"""The schedules a batch evaluates: files (or folders of *.json), read and keyed up front.

A schedule that reads cleanly is keyed by the SHA-256 of its canonical multi-region JSON,
so the same schedule written in FuseFlow's single-region form, with other spacing or key
order, or under another file name gets the same key and is evaluated once. A file that
does not read is still a candidate: keyed by its canonical JSON (or raw bytes when it is
not JSON), with the problem recorded as its result.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from fuseflow.errors import UserError
from navigator.batch.records import schedule_key


@dataclass(frozen=True)
class Candidate:
    source: str
    key: str
    #: canonical multi-region schedule JSON; None when the file does not read as a schedule
    schedule: dict[str, Any] | None
    #: {"kind", "message", ...} when it does not read
    problem: dict[str, Any] | None = None


def schedule_files(paths: Iterable[str]) -> list[Path]:
    """Files as given, folders expanded to their *.json files (sorted); missing paths are usage errors."""
    files: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = sorted(p for p in path.glob("*.json") if p.is_file())
            if not found:
                raise UserError("folder holds no .json schedules", where=text,
                                fix="give schedule files, or a folder of them (navigator sample writes one)")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise UserError("no such schedule file or folder", where=text, fix="check the path")
    return files


def read_candidate(path: Path, program) -> Candidate:
    from fuseflow.errors import ScheduleError
    from fuseflow.schedule import schedule_from_json, schedule_to_json

    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Candidate(source, hashlib.sha256(source.encode()).hexdigest(), None,
                         {"kind": "bad-input", "message": f"{source}: cannot read: {exc.strerror}"})
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return Candidate(source, hashlib.sha256(raw).hexdigest(), None,
                         {"kind": "bad-input", "message": f"{source}: not JSON: {exc}"})
    try:
        schedule = schedule_from_json(program, data, source)
    except ScheduleError as exc:
        return Candidate(source, schedule_key(data), None,
                         {"kind": "invalid-schedule", "message": str(exc), "field": exc.field, "rule": exc.rule})
    except UserError as exc:
        return Candidate(source, schedule_key(data), None, {"kind": "bad-input", "message": str(exc)})
    canonical = schedule_to_json(program, schedule)
    return Candidate(source, schedule_key(canonical), canonical)


def collect_candidates(paths: Iterable[str], program) -> list[Candidate]:
    return [read_candidate(path, program) for path in schedule_files(paths)]
