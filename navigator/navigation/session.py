"""A navigation session: library + fact program + the log of steps taken.

Every rule of navigation lives here so the CLI and the TUI stay thin. A step is recorded
with its provenance (`by`: "user", "default", "forced" or "strategy:<name>"), an optional
rationale, a timestamp, the number of the command it belonged to and, for a step a planning
strategy took, the figures it weighed (docs/strategies.md#provenance). The step log is the
source of truth: replaying it from `?0` always gives the same sketch, because hole numbers
come from a counter that only grows. Undo pops steps onto a redo stack (one step, or every
step of the last command); any new step clears that stack.

Commands: the steps taken inside `with session.command():` (or by one `apply`) form one
undo unit. With `forced_steps`, a command ends by filling every open hole whose menu offers
exactly one option, until none is left (provenance "forced"). Such a step is part of every
completion, so it changes no count, no menu of another hole and no reachable schedule.

Session files are JSON (`{"format": "navigator-session", "version": 2, ...}`), written
atomically. Loading never modifies the file; it checks the format, replays the steps
against the library and facts given, checks the result against the saved sketch, and
checks that the undone steps on the redo stack replay too.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Mapping

from fuseflow.support.files import read_user_bytes, write_text_atomic
from fuseflow.support.readers import dumps_deep, parse_json_text
from navigator.synth.sketch import SKETCH_JSON_NESTING
from fuseflow.support.errors import UserError
from navigator.lang import FactProgram, Library
from navigator.lang.formula import Value, value_type_of
from navigator.synth import Menus, MenuOption, Oracle, Sketch, option_id, sketch_to_json
from navigator.synth.lookup_budget import MAX_AUTO_STEPS

SESSION_FORMAT = "navigator-session"
#: 2: steps may be "forced" and carry their command's number; the file records forced_steps
SESSION_VERSION = 2
FORCED = "forced"
_BY = re.compile(r"^(user|default|forced|strategy:[A-Za-z0-9_.\-]+)$")
_BY_FIX = 'use "user", "default", "forced" or "strategy:<name>"'


class SessionError(UserError):
    """A step cannot be taken, or a session file is unreadable, foreign or corrupted."""


class DamagedSessionError(SessionError):
    """The content of a session file is unusable: not JSON or not UTF-8, not a session, a
    malformed part, or steps that do not replay. The CLI adds how to recover
    (navigator.workspace.recovery)."""


_NOTHING_TO_UNDO = "the session is back at its start: `navigator history` lists its steps"
_NOTHING_TO_REDO = "redo re-takes what undo took back, and a fill after an undo clears it"


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
    #: the command the step belonged to (steps of one command are undone together); None in
    #: files written before commands were recorded, where each step is its own command
    command: int | None = None
    #: what a strategy weighed to take the step (navigator.auto.base.Plan.figures): how many
    #: candidates it evaluated and the figures it compared; None for steps no strategy chose
    figures: Mapping[str, Any] | None = field(default=None, hash=False)

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
        if self.command is not None:
            data["command"] = self.command
        if self.figures is not None:
            data["figures"] = dict(self.figures)
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
            raise DamagedSessionError(f"unknown provenance {data['by']!r}", where=f"{where}.by", fix=_BY_FIX)
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
        command = data.get("command")
        if command is not None and (not isinstance(command, int) or isinstance(command, bool) or command < 1):
            raise DamagedSessionError("command must be a positive whole number", where=f"{where}.command")
        figures = data.get("figures")
        if figures is not None and not _json_figures(figures):
            raise DamagedSessionError("figures must be a JSON object of numbers, strings and such objects",
                                      where=f"{where}.figures")
        record = StepRecord(hole, data["option"], data["function"], tuple(metadata.items()),
                            data["by"], rationale, timestamp, command, figures)
        if option_id(record.function, record.metadata) != record.option:
            raise DamagedSessionError(f"option {record.option!r} does not match its function and "
                                      "metadata", where=where, fix="the file was edited by hand or is corrupted")
        return record


def _json_figures(value: Any, depth: int = 0) -> bool:
    """A step's figures: an object of finite numbers, strings, booleans, null and such objects
    (three levels deep at most: {"compared": {"rules": {"widest stream shape": 2}}})."""
    if not isinstance(value, dict) or depth > 2:
        return False
    for key, item in value.items():
        if isinstance(item, dict):
            if not _json_figures(item, depth + 1):
                return False
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return False
        elif item is not None and not isinstance(item, (int, str, bool)):
            return False
    return True


def forced_steps_of(data: Mapping[str, Any]) -> bool:
    """A session file's forced_steps setting; files written before it existed take them."""
    return data.get("forced_steps", True) is True


def _unit_length(records: list[StepRecord]) -> int:
    """How many records at the end of `records` belong to the last one's command."""
    last = records[-1].command
    if last is None:
        return 1
    length = 0
    for record in reversed(records):
        if record.command != last:
            break
        length += 1
    return length


def session_text(data: dict[str, Any]) -> str:
    """The session file's JSON: indented, except the sketch, which is written on one line. A
    sketch nests three levels per application, and indenting a program of hundreds of regions
    would repeat thousands of spaces on each of its lines (42 MB for an unfused transformer12)."""
    marker = f"@sketch-{uuid.uuid4().hex}@"
    outline = json.dumps({**data, "sketch": marker}, indent=2, ensure_ascii=False, allow_nan=False)
    sketch = dumps_deep(data["sketch"], SKETCH_JSON_NESTING, ensure_ascii=False, allow_nan=False)
    return outline.replace(json.dumps(marker), sketch, 1)


class Session:
    """The state of one navigation: current sketch, step log, undo/redo, context."""

    def __init__(self, library: Library, facts: FactProgram, *, oracle: Oracle | None = None,
                 context: Mapping[str, Any] | None = None, clock: Callable[[], str] = _now,
                 forced_steps: bool = False):
        self.library = library
        self.facts = facts
        self.oracle = oracle if oracle is not None else Oracle(library, facts)
        #: free-form data saved with the session (must be JSON-serialisable)
        self.context: dict[str, Any] = dict(context or {})
        #: whether each command ends by filling the holes that offer exactly one option
        self.forced_steps = forced_steps
        self._clock = clock
        self._sketches: list[Sketch] = [self.oracle.initial_sketch()]
        self._steps: list[StepRecord] = []
        self._redo: list[StepRecord] = []
        self._command: int | None = None  # the number of the command under way

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

    @contextmanager
    def command(self) -> Iterator[list[StepRecord]]:
        """Make the steps taken inside one command, undone and redone as a unit.

        Yields a list that, once the block ends, holds every step the command took: its own
        and, with `forced_steps`, the forced steps that followed. Inside another command it
        joins that one. An exception ends the command without forced steps.
        """
        taken: list[StepRecord] = []
        first = len(self._steps)
        if self._command is not None:
            try:
                yield taken
            finally:
                taken.extend(self._steps[first:])
            return
        self._command = self._next_command()
        try:
            yield taken
            if self.forced_steps:
                self._take_forced()
        finally:
            self._command = None
            taken.extend(self._steps[first:])

    def settle(self) -> list[StepRecord]:
        """Take the forced steps the sketch has now (with `forced_steps`), as one command;
        e.g. right after a session starts."""
        with self.command() as taken:
            pass
        return taken

    def forced_options(self) -> list[MenuOption]:
        """The only option of each open hole that offers exactly one."""
        return [menu.options[0] for menu in self.menus().holes if len(menu.options) == 1]

    def _take_forced(self) -> None:
        # A forced option is part of every completion, so taking it leaves the other holes'
        # menus as they were: all of one round's forced options can be taken together.
        count = 0
        while True:
            forced = self.forced_options()
            if not forced:
                return
            for option in forced:
                if count >= MAX_AUTO_STEPS:
                    raise SessionError(f"{count:,} forced steps and holes with one option are still open",
                                       where=", ".join(self.library.sources) or "the library",
                                       fix="start the session with --no-forced")
                self._take(option, FORCED, None, self._clock())
                count += 1

    def _next_command(self) -> int:
        numbers = [r.command for r in (*self._steps, *self._redo) if r.command is not None]
        return max(numbers, default=0) + 1

    def apply(self, hole: int, option: str, *, by: str = "user",
              rationale: str | None = None, figures: Mapping[str, Any] | None = None) -> StepRecord:
        """Fill `hole` with the offered option whose id is `option` (a command of its own,
        unless inside `command()`); `figures`: what a strategy weighed (StepRecord.figures)."""
        chosen = self._offered(hole, option)
        with self.command():
            return self._take(chosen, by, rationale, self._clock(), figures=figures)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """All or nothing: on any exception (Ctrl-C included) the steps taken inside the block
        are taken back and the redo stack is restored, as if the block never ran."""
        sketches, steps, redo = len(self._sketches), len(self._steps), list(self._redo)
        try:
            yield
        except BaseException:
            del self._sketches[sketches:]
            del self._steps[steps:]
            self._redo = redo
            raise

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
            raise SessionError(f"?{hole} is not an open hole", fix=self.not_open_hint(hole))
        for menu in candidates:
            if menu.default is not None:
                with self.command():
                    return self._take(menu.default, "default", rationale, self._clock())
        target = f"?{hole}" if hole is not None else "any open hole"
        raise SessionError(f"{target} has no default option",
                           fix="mark one with default = ... on a [Function] in the library")

    def undo(self) -> StepRecord:
        """Take back the last step."""
        if not self._steps:
            raise SessionError("nothing to undo", fix=_NOTHING_TO_UNDO)
        record = self._steps.pop()
        self._sketches.pop()
        self._redo.append(record)
        return record

    def redo(self) -> StepRecord:
        """Re-take the last step undone, with its provenance, timestamp and command."""
        if not self._redo:
            raise SessionError("nothing to redo", fix=_NOTHING_TO_REDO)
        record = self._redo.pop()
        chosen = self._offered(record.hole, record.option)
        redo = self._redo
        self._take(chosen, record.by, record.rationale, record.timestamp, record.command, record.figures)
        self._redo = redo  # _take clears the redo stack; redo keeps the rest of it
        return self._steps[-1]

    def undo_command(self) -> list[StepRecord]:
        """Take back every step of the last command (its own and the forced ones), last first."""
        if not self._steps:
            raise SessionError("nothing to undo", fix=_NOTHING_TO_UNDO)
        return [self.undo() for _ in range(_unit_length(self._steps))]

    def redo_command(self) -> list[StepRecord]:
        """Re-take every step of the last command undone, in the order first taken."""
        if not self._redo:
            raise SessionError("nothing to redo", fix=_NOTHING_TO_REDO)
        return [self.redo() for _ in range(_unit_length(self._redo))]

    def alternatives(self, index: int) -> tuple[MenuOption, ...]:
        """The options offered at step `index`'s hole (from 0) that it did not take, in menu
        order, each with the completions it would have left."""
        record = self._steps[index]
        if record.by == FORCED:  # a forced step had no alternative
            return ()
        menu = self.oracle.menus(self._sketches[index]).for_hole(record.hole)
        return tuple(o for o in menu.options if o.id != record.option)

    def _is_open(self, hole: int) -> bool:
        return self.sketch.has_hole(hole)

    def not_open_hint(self, hole: int) -> str:
        """What to tell someone who named `hole` when it is not open: which step filled it
        (a forced step is easy to miss), then the open holes."""
        filled = next((i for i, r in enumerate(self._steps, 1) if r.hole == hole), None)
        source = f"step {filled} filled it ({self._steps[filled - 1].by}); " if filled else ""
        holes = self.sketch.holes()
        return source + ("the sketch is complete" if not holes else
                         "open holes: " + " ".join(f"?{h.id}" for h in holes))

    def _offered(self, hole: int, option: str) -> MenuOption:
        if not self._is_open(hole):
            raise SessionError(f"?{hole} is not an open hole", fix=self.not_open_hint(hole))
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

    def _take(self, chosen: MenuOption, by: str, rationale: str | None, timestamp: str,
              command: int | None = None, figures: Mapping[str, Any] | None = None) -> StepRecord:
        if not _BY.match(by):
            raise ValueError(f'by must be "user", "default", "forced" or "strategy:<name>", not {by!r}')
        record = StepRecord(chosen.hole, chosen.id, chosen.function, chosen.metadata, by,
                            rationale, timestamp, command if command is not None else self._command,
                            figures)
        self._sketches.append(self.oracle.apply(self.sketch, chosen))
        self._steps.append(record)
        self._redo = []
        return record

    # -- replay ---------------------------------------------------------------------

    @classmethod
    def from_steps(cls, library: Library, facts: FactProgram, steps, *,
                   oracle: Oracle | None = None, context: Mapping[str, Any] | None = None,
                   where: str = "steps", forced_steps: bool = False) -> "Session":
        """Replay a step log from ?0 as recorded (no step is added: forced steps are in the
        log); SessionError names the first step that is not offered."""
        session = cls(library, facts, oracle=oracle, context=context, forced_steps=forced_steps)
        for index, record in enumerate(steps):
            try:
                chosen = session._offered(record.hole, record.option)
            except SessionError as exc:
                raise DamagedSessionError(
                    f"step {index + 1} (?{record.hole} := {record.option}) cannot be replayed: "
                    f"{exc.bare_message}", where=f"{where}[{index}]",
                    fix="the library or fact file changed since the session was saved") from None
            session._take(chosen, record.by, record.rationale, record.timestamp, record.command,
                          record.figures)
        return session

    # -- files ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SESSION_FORMAT,
            "version": SESSION_VERSION,
            "sources": {"library": list(self.library.sources), "facts": self.facts.source},
            "forced_steps": self.forced_steps,
            "goal": {"type": self.facts.goal.type, "args": self.facts.goal.args_dict()},
            "steps": [s.to_dict() for s in self._steps],
            "redo": [s.to_dict() for s in self.redo_steps],
            "sketch": sketch_to_json(self.sketch),
            "complete": self.complete,
            "context": self.context,
        }

    def save(self, path: str | os.PathLike) -> None:
        try:
            text = session_text(self.to_dict())
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
        session = cls.from_steps(library, facts, steps, oracle=oracle, context=data.get("context", {}),
                                 where=f"{where}: steps", forced_steps=forced_steps_of(data))
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
