"""The session file: a session's state and step log as JSON, written and read back.

Session files are JSON (`{"format": "navigator-session", "version": 2, ...}`), written
atomically. Loading never modifies the file; it checks the format, replays the steps
against the library and facts given, checks the result against the saved sketch, and
checks that the undone steps on the redo stack replay too.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Callable, Mapping

from fuseflow.support.files import read_user_bytes, write_text_atomic
from fuseflow.support.readers import dumps_deep, json_equal, parse_json_text
from navigator.lang import FactProgram, Library
from navigator.navigation.session import Session
from navigator.navigation.session_errors import DamagedSessionError, SessionError
from navigator.navigation.step_log import StepRecord
from navigator.synth import Oracle, sketch_to_json
from navigator.synth.sketch import SKETCH_JSON_NESTING

SESSION_FORMAT = "navigator-session"
#: 2: steps may be "forced" and carry their command's number; the file records forced_steps
SESSION_VERSION = 2


def forced_steps_of(data: Mapping[str, Any]) -> bool:
    """A session file's forced_steps setting; files written before it existed take them."""
    return data.get("forced_steps", True) is True


# -- writing ------------------------------------------------------------------------


def session_to_dict(session: Session) -> dict[str, Any]:
    return {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "sources": {"library": list(session.library.sources), "facts": session.facts.source},
        "forced_steps": session.forced_steps,
        "goal": {"type": session.facts.goal.type, "args": session.facts.goal.args_dict()},
        "steps": [s.to_dict() for s in session.steps],
        "redo": [s.to_dict() for s in session.redo_steps],
        "sketch": sketch_to_json(session.sketch),
        "complete": session.complete,
        "context": session.context,
    }


def session_text(data: dict[str, Any]) -> str:
    """The session file's JSON: indented, except the sketch, which is written on one line. A
    sketch nests three levels per application, and indenting a program of hundreds of regions
    would repeat thousands of spaces on each of its lines (42 MB for an unfused transformer12)."""
    marker = f"@sketch-{uuid.uuid4().hex}@"
    outline = json.dumps({**data, "sketch": marker}, indent=2, ensure_ascii=False, allow_nan=False)
    sketch = dumps_deep(data["sketch"], SKETCH_JSON_NESTING, ensure_ascii=False, allow_nan=False)
    return outline.replace(json.dumps(marker), sketch, 1)


def save_session(session: Session, path: str | os.PathLike) -> bytes:
    """Write `session` to `path` atomically: a reader sees the old file or the new one. The
    bytes written are returned."""
    try:
        text = session_text(session_to_dict(session))
    except (TypeError, ValueError) as exc:  # an object JSON cannot hold, or NaN / infinity
        raise SessionError(f"session context is not JSON-serialisable: {exc}",
                           where=str(path)) from None
    return write_text_atomic(path, text + "\n", error=SessionError)


# -- reading ------------------------------------------------------------------------


def read_session_file(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check a session file's envelope without a library (e.g. to find sources)."""
    return read_session_bytes(path)[1]


def read_session_bytes(path: str | os.PathLike) -> tuple[bytes, dict[str, Any]]:
    """read_session_file, and the bytes it read (a save keeps them as the backup without
    reading the file again)."""
    where = str(path)
    raw = read_user_bytes(path, SessionError, "a navigator session file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedSessionError(f"corrupted session file: not UTF-8 text (byte {exc.start} cannot be decoded)",
                                  where=where) from None
    try:
        data = parse_json_text(text, where, SessionError, "a navigator session file",
                               nesting=SKETCH_JSON_NESTING)
    except SessionError as exc:
        raise DamagedSessionError(f"corrupted session file: {exc.bare_message}", where=where,
                                  fix="restore it from a backup, or start again with `navigator start --force`"
                                  ) from None
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise SessionError("not a navigator session file (no \"format\": "
                           f"\"{SESSION_FORMAT}\")", where=where,
                           fix="name a session file with --session FILE; `navigator start` makes one")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise DamagedSessionError("corrupted session file: missing or invalid version",
                                  where=f"{where}: version")
    if version > SESSION_VERSION:
        raise SessionError(f"session file version {version} is newer than this navigator "
                           f"reads (version {SESSION_VERSION})", where=f"{where}: version",
                           fix="upgrade navigator")
    if version < 1:
        raise DamagedSessionError(f"unsupported session file version {version}",
                                  where=f"{where}: version")
    if "forced_steps" in data and not isinstance(data["forced_steps"], bool):
        raise DamagedSessionError("corrupted session file: forced_steps must be true or false",
                                  where=f"{where}: forced_steps")
    for key, kind in (("steps", list), ("redo", list), ("context", dict)):
        if key in data and not isinstance(data[key], kind):
            raise DamagedSessionError(f"corrupted session file: {key} must be a JSON "
                                      f"{'array' if kind is list else 'object'}",
                                      where=f"{where}: {key}")
    if "steps" not in data:
        raise DamagedSessionError("corrupted session file: no steps", where=where)
    return raw, data


def load_session(path: str | os.PathLike, library: Library, facts: FactProgram, *,
                 oracle: Oracle | None = None, check_sketch: bool = True) -> Session:
    """The session saved at `path`, replayed against `library` and `facts` (see session_from_data)."""
    return session_from_data(read_session_file(path), str(path), library, facts, oracle=oracle,
                             check_sketch=check_sketch)


def records_of(data: Mapping[str, Any], where: str) -> tuple[list[StepRecord], list[StepRecord]]:
    """The step log and the redo stack (next step first) of a file `read_session_file` accepted."""
    steps = [StepRecord.from_dict(s, f"{where}: steps[{i}]") for i, s in enumerate(data["steps"])]
    redo = [StepRecord.from_dict(s, f"{where}: redo[{i}]") for i, s in enumerate(data.get("redo", []))]
    return steps, redo


def session_from_data(data: Mapping[str, Any], where: str, library: Library, facts: FactProgram, *,
                      oracle: Oracle | None = None, check_sketch: bool = True,
                      progress: Callable[[int, int], None] | None = None, base: Session | None = None) -> Session:
    """The session a file's content (from `read_session_file`) describes, every step checked.

    The steps are replayed from ?0, and so are the undone ones on the redo stack, so a
    stack that no longer replays is refused now rather than at a later `redo`. With
    `check_sketch`, the result must equal the sketch saved in the file. `base`, a session
    replayed earlier on this library, facts and oracle, spares replaying the steps the file's
    log begins with that `base` took too (Session.from_base).
    """
    steps, redo = records_of(data, where)
    goal = data.get("goal")
    if isinstance(goal, dict) and goal.get("type") not in (None, facts.goal.type):
        raise DamagedSessionError(f"the session navigates toward {goal.get('type')}, but the fact "
                                  f"program's goal is {facts.goal.type}", where=f"{where}: goal",
                                  fix="load it with the fact program it was saved with")
    if base is not None and base.library is library and base.facts is facts and base.oracle is oracle:
        session = Session.from_base(base, steps, context=data.get("context", {}), where=f"{where}: steps",
                                    forced_steps=forced_steps_of(data), redo=redo)
    else:
        session = Session.from_steps(library, facts, steps, oracle=oracle, context=data.get("context", {}),
                                     where=f"{where}: steps", forced_steps=forced_steps_of(data), redo=redo,
                                     progress=progress)
    saved = data.get("sketch")
    if check_sketch and saved is not None \
            and not json_equal(saved, sketch_to_json(session.sketch)):
        raise DamagedSessionError("replaying the steps does not give the sketch saved in the file",
                                  where=f"{where}: sketch",
                                  fix="the file was edited by hand or is corrupted")
    _check_redo(session, f"{where}: redo")
    return session


def _check_redo(session: Session, where: str) -> None:
    """Re-take every undone step, then undo them again; name the first that is not offered."""
    taken = 0
    try:
        for index, record in enumerate(session.redo_steps):
            try:
                session.redo()
            except SessionError as exc:
                raise DamagedSessionError(
                    f"undone step {index + 1} (?{record.hole} := {record.option}) cannot be replayed: "
                    f"{exc.bare_message}", where=f"{where}[{index}]",
                    fix="the library or fact file changed since the session was saved, or the file "
                        "was edited") from None
            taken += 1
    finally:
        for _ in range(taken):
            session.undo()
