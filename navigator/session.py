"""A navigation session: library + fact program + the log of steps taken.

Every rule of navigation lives here so the CLI and the TUI stay thin. A step is recorded
with its provenance (`by`: "user", "default" or "strategy:<name>"), an optional rationale
and a timestamp. The step log is the source of truth: replaying it from `?0` always gives
the same sketch, because hole numbers come from a counter that only grows. Undo pops the
last step onto a redo stack; any new step clears that stack.

Session files are JSON (`{"format": "navigator-session", "version": 1, ...}`), written
atomically. Loading never modifies the file; it checks the format, replays the steps
against the library and facts given, checks the result against the saved sketch, and
checks that the undone steps on the redo stack replay too.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from fuseflow.files import read_user_bytes, write_text_atomic
from fuseflow.readers import parse_json_text
from navigator.synth.sketch import SKETCH_JSON_NESTING
from fuseflow.errors import UserError
from navigator.lang import FactProgram, Library
from navigator.lang.formula import Value, value_type_of
from navigator.synth import Menus, MenuOption, Oracle, Sketch, option_id, sketch_to_json

SESSION_FORMAT = "navigator-session"
SESSION_VERSION = 1
_BY = re.compile(r"^(user|default|strategy:[A-Za-z0-9_.\-]+)$")


class SessionError(UserError):
    """A step cannot be taken, or a session file is unreadable, foreign or corrupted."""


class DamagedSessionError(SessionError):
    """The content of a session file is unusable: not JSON or not UTF-8, not a session, a
    malformed part, or steps that do not replay. The CLI adds how to recover
    (navigator.session_files.recovery)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class StepRecord:
    """One step of the log."""

    hole: int
    option: str
    function: str
    metadata: tuple[tuple[str, Value], ...]
    by: str = "user"
    rationale: str | None = None
    timestamp: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "hole": self.hole,
            "option": self.option,
            "function": self.function,
            "metadata": dict(self.metadata),
            "by": self.by,
            "timestamp": self.timestamp,
        }
        if self.rationale is not None:
            data["rationale"] = self.rationale
        return data

    @staticmethod
    def from_dict(data: Any, where: str) -> "StepRecord":
        if not isinstance(data, dict):
            raise DamagedSessionError("a step must be a JSON object", where=where)
        hole = data.get("hole")
        if not isinstance(hole, int) or isinstance(hole, bool) or hole < 0:
            raise DamagedSessionError("step has no valid hole number", where=f"{where}.hole")
        for key in ("option", "function", "by"):
            if not isinstance(data.get(key), str):
                raise DamagedSessionError(f"step has no {key} string", where=f"{where}.{key}")
        if not _BY.match(data["by"]):
            raise DamagedSessionError(f"unknown provenance {data['by']!r}", where=f"{where}.by",
                                      fix='use "user", "default" or "strategy:<name>"')
        metadata = data.get("metadata", {})
        if not isinstance(metadata, dict) or any(value_type_of(v) is None for v in metadata.values()):
            raise DamagedSessionError("step metadata must map fields to ints, strings or booleans",
                                      where=f"{where}.metadata")
        rationale = data.get("rationale")
        if rationale is not None and not isinstance(rationale, str):
            raise DamagedSessionError("rationale must be a string", where=f"{where}.rationale")
        timestamp = data.get("timestamp", "")
        if not isinstance(timestamp, str):
            raise DamagedSessionError("timestamp must be a string", where=f"{where}.timestamp")
        record = StepRecord(hole, data["option"], data["function"], tuple(metadata.items()),
                            data["by"], rationale, timestamp)
        if option_id(record.function, record.metadata) != record.option:
            raise DamagedSessionError(f"option {record.option!r} does not match its function and "
                                      "metadata", where=where, fix="the file was edited by hand or is corrupted")
        return record


class Session:
    """The state of one navigation: current sketch, step log, undo/redo, context."""

    def __init__(self, library: Library, facts: FactProgram, *, oracle: Oracle | None = None,
                 context: Mapping[str, Any] | None = None, clock: Callable[[], str] = _now):
        self.library = library
        self.facts = facts
        self.oracle = oracle if oracle is not None else Oracle(library, facts)
        #: free-form data saved with the session (must be JSON-serialisable)
        self.context: dict[str, Any] = dict(context or {})
        self._clock = clock
        self._sketches: list[Sketch] = [self.oracle.initial_sketch()]
        self._steps: list[StepRecord] = []
        self._redo: list[StepRecord] = []

    # -- state ----------------------------------------------------------------------

    @property
    def sketch(self) -> Sketch:
        return self._sketches[-1]

    @property
    def steps(self) -> tuple[StepRecord, ...]:
        return tuple(self._steps)

    @property
    def redo_steps(self) -> tuple[StepRecord, ...]:
        """Steps `redo` would re-take, next one first."""
        return tuple(reversed(self._redo))

    @property
    def complete(self) -> bool:
        return self.sketch.complete

    @property
    def can_undo(self) -> bool:
        return bool(self._steps)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def menus(self) -> Menus:
        return self.oracle.menus(self.sketch)

    # -- steps ----------------------------------------------------------------------

    def apply(self, hole: int, option: str, *, by: str = "user",
              rationale: str | None = None) -> StepRecord:
        """Fill `hole` with the offered option whose id is `option`."""
        chosen = self._offered(hole, option)
        return self._take(chosen, by, rationale, self._clock())

    def apply_option(self, chosen: MenuOption, *, by: str = "user",
                     rationale: str | None = None) -> StepRecord:
        return self.apply(chosen.hole, chosen.id, by=by, rationale=rationale)

    def apply_default(self, hole: int | None = None, *, rationale: str | None = None) -> StepRecord:
        """Fill `hole` (or the first open hole that has one) with its default option."""
        menus = self.menus()
        if hole is None:
            candidates = list(menus.holes)
        elif self._is_open(hole):
            candidates = [menus.for_hole(hole)]
        else:
            raise SessionError(f"?{hole} is not an open hole", fix=self._open_holes_hint())
        for menu in candidates:
            if menu.default is not None:
                return self._take(menu.default, "default", rationale, self._clock())
        target = f"?{hole}" if hole is not None else "any open hole"
        raise SessionError(f"{target} has no default option",
                           fix="mark one with default = ... on a [Function] in the library")

    def undo(self) -> StepRecord:
        if not self._steps:
            raise SessionError("nothing to undo")
        record = self._steps.pop()
        self._sketches.pop()
        self._redo.append(record)
        return record

    def redo(self) -> StepRecord:
        if not self._redo:
            raise SessionError("nothing to redo")
        record = self._redo.pop()
        chosen = self._offered(record.hole, record.option)
        redo = self._redo
        self._take(chosen, record.by, record.rationale, record.timestamp)
        self._redo = redo  # _take clears the redo stack; redo keeps the rest of it
        return self._steps[-1]

    def _is_open(self, hole: int) -> bool:
        return self.sketch.has_hole(hole)

    def _open_holes_hint(self) -> str:
        holes = self.sketch.holes()
        if not holes:
            return "the sketch is complete"
        return "open holes: " + ", ".join(f"?{h.id}" for h in holes)

    def _offered(self, hole: int, option: str) -> MenuOption:
        if not self._is_open(hole):
            raise SessionError(f"?{hole} is not an open hole", fix=self._open_holes_hint())
        menu = self.menus().for_hole(hole)
        chosen = menu.option(option)
        if chosen is None:
            offered = [o.id for o in menu.options]
            close = [o for o in offered if o.split("{")[0] == option.split("{")[0]][:5]
            hint = ("offered with that function: " + ", ".join(close)) if close else (
                f"{len(offered)} options are offered at ?{hole}" if offered else
                f"nothing is offered at ?{hole}")
            raise SessionError(f"{option!r} is not offered at ?{hole}", fix=hint)
        return chosen

    def _take(self, chosen: MenuOption, by: str, rationale: str | None, timestamp: str) -> StepRecord:
        if not _BY.match(by):
            raise ValueError(f'by must be "user", "default" or "strategy:<name>", not {by!r}')
        record = StepRecord(chosen.hole, chosen.id, chosen.function, chosen.metadata, by,
                            rationale, timestamp)
        self._sketches.append(self.oracle.apply(self.sketch, chosen))
        self._steps.append(record)
        self._redo = []
        return record

    # -- replay ---------------------------------------------------------------------

    @classmethod
    def from_steps(cls, library: Library, facts: FactProgram, steps, *,
                   oracle: Oracle | None = None, context: Mapping[str, Any] | None = None,
                   where: str = "steps") -> "Session":
        """Replay a step log from ?0; SessionError names the first step that is not offered."""
        session = cls(library, facts, oracle=oracle, context=context)
        for index, record in enumerate(steps):
            try:
                chosen = session._offered(record.hole, record.option)
            except SessionError as exc:
                raise DamagedSessionError(
                    f"step {index + 1} (?{record.hole} := {record.option}) cannot be replayed: "
                    f"{exc.bare_message}", where=f"{where}[{index}]",
                    fix="the library or fact file changed since the session was saved") from None
            session._take(chosen, record.by, record.rationale, record.timestamp)
        return session

    # -- files ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SESSION_FORMAT,
            "version": SESSION_VERSION,
            "sources": {"library": list(self.library.sources), "facts": self.facts.source},
            "goal": {"type": self.facts.goal.type, "args": self.facts.goal.args_dict()},
            "steps": [s.to_dict() for s in self._steps],
            "redo": [s.to_dict() for s in self.redo_steps],
            "sketch": sketch_to_json(self.sketch),
            "complete": self.complete,
            "context": self.context,
        }

    def save(self, path: str | os.PathLike) -> None:
        try:
            text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:  # an object JSON cannot hold, or NaN / infinity
            raise SessionError(f"session context is not JSON-serialisable: {exc}",
                               where=str(path)) from None
        write_text_atomic(path, text + "\n", error=SessionError)

    @staticmethod
    def read_file(path: str | os.PathLike) -> dict[str, Any]:
        """Read and check a session file's envelope without a library (e.g. to find sources)."""
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
        for key, kind in (("steps", list), ("redo", list), ("context", dict)):
            if key in data and not isinstance(data[key], kind):
                raise DamagedSessionError(f"corrupted session file: {key} must be a JSON "
                                          f"{'array' if kind is list else 'object'}",
                                          where=f"{where}: {key}")
        if "steps" not in data:
            raise DamagedSessionError("corrupted session file: no steps", where=where)
        return data

    @classmethod
    def load(cls, path: str | os.PathLike, library: Library, facts: FactProgram, *,
             oracle: Oracle | None = None, check_sketch: bool = True) -> "Session":
        return cls.from_data(cls.read_file(path), str(path), library, facts, oracle=oracle,
                             check_sketch=check_sketch)

    @staticmethod
    def records_of(data: Mapping[str, Any], where: str) -> tuple[list[StepRecord], list[StepRecord]]:
        """The step log and the redo stack (next step first) of a file `read_file` accepted."""
        steps = [StepRecord.from_dict(s, f"{where}: steps[{i}]") for i, s in enumerate(data["steps"])]
        redo = [StepRecord.from_dict(s, f"{where}: redo[{i}]") for i, s in enumerate(data.get("redo", []))]
        return steps, redo

    @classmethod
    def from_data(cls, data: Mapping[str, Any], where: str, library: Library, facts: FactProgram, *,
                  oracle: Oracle | None = None, check_sketch: bool = True) -> "Session":
        """The session a file's content (from `read_file`) describes, every step checked.

        The steps are replayed from ?0, and so are the undone ones on the redo stack, so a
        stack that no longer replays is refused now rather than at a later `redo`. With
        `check_sketch`, the result must equal the sketch saved in the file.
        """
        steps, redo = cls.records_of(data, where)
        goal = data.get("goal")
        if isinstance(goal, dict) and goal.get("type") not in (None, facts.goal.type):
            raise DamagedSessionError(f"the session navigates toward {goal.get('type')}, but the fact "
                                      f"program's goal is {facts.goal.type}", where=f"{where}: goal",
                                      fix="load it with the fact program it was saved with")
        session = cls.from_steps(library, facts, steps, oracle=oracle,
                                 context=data.get("context", {}), where=f"{where}: steps")
        saved = data.get("sketch")
        if check_sketch and saved is not None and saved != sketch_to_json(session.sketch):
            raise DamagedSessionError("replaying the steps does not give the sketch saved in the file",
                                      where=f"{where}: sketch",
                                      fix="the file was edited by hand or is corrupted")
        session._redo = list(reversed(redo))
        session._check_redo(f"{where}: redo")
        return session

    def _check_redo(self, where: str) -> None:
        """Re-take every undone step, then undo them again; name the first that is not offered."""
        taken = 0
        try:
            for index, record in enumerate(self.redo_steps):
                try:
                    self.redo()
                except SessionError as exc:
                    raise DamagedSessionError(
                        f"undone step {index + 1} (?{record.hole} := {record.option}) cannot be replayed: "
                        f"{exc.bare_message}", where=f"{where}[{index}]",
                        fix="the library or fact file changed since the session was saved, or the file "
                            "was edited") from None
                taken += 1
        finally:
            for _ in range(taken):
                self.undo()
