"""A navigation session: library + fact program + the log of steps taken (its state).

Every rule of navigation lives here so the CLI and the TUI stay thin. The state is the
current sketch, the step log (navigator.navigation.step_log: the trace, the source of truth)
and the redo stack; saving and loading are navigator.navigation.session_format's, so this
module knows no files. Undo pops steps onto the redo stack (one step, or every step of the
last command); any new step clears that stack.

Commands: the steps taken inside `with session.command():` (or by one `apply`) form one
undo unit. With `forced_steps`, a command ends by filling every open hole whose menu offers
exactly one option, until none is left (provenance "forced"). Such a step is part of every
completion, so it changes no count, no menu of another hole and no reachable schedule.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Mapping, Sequence

from navigator.lang import FactProgram, Library
from navigator.navigation.session_errors import DamagedSessionError, SessionError
from navigator.navigation.step_log import FORCED, StepRecord, is_provenance
from navigator.synth import Menus, MenuOption, Oracle, Sketch
from navigator.synth.inhabitation import gc_paused
from navigator.synth.lookup_budget import MAX_AUTO_STEPS

#: a replay reports its progress every this many steps
REPLAY_REPORT = 50
_NOTHING_TO_UNDO = "the session is back at its start: `navigator history` lists its steps"
_NOTHING_TO_REDO = "redo re-takes what undo took back, and a fill after an undo clears it"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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
            with gc_paused():   # a command may take thousands of steps: trees, no cycles to collect
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
              rationale: str | None = None, figures: Mapping[str, Any] | None = None,
              expected: Sketch | None = None) -> StepRecord:
        """Fill `hole` with the offered option whose id is `option` (a command of its own,
        unless inside `command()`); `figures`: what a strategy weighed (StepRecord.figures).
        `expected`: the sketch a strategy reached with this step while planning, taken instead
        of the one the step builds when the two are the same tree (the oracle knows its menus)."""
        chosen = self._offered(hole, option)
        with self.command():
            return self._take(chosen, by, rationale, self._clock(), figures=figures, expected=expected)

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

    def fillers(self) -> dict[int, int]:
        """id() of each application in the current sketch -> the number (from 1) of the step that
        filled its hole. Each step fills one hole with an application whose parameters become
        fresh holes numbered on from the sketch's counter (Sketch.fill), so walking the steps in
        order finds every hole's place."""
        from navigator.synth.sketch import App

        node_of: dict[int, Any] = {0: self.sketch.root}
        counter = 1
        found: dict[int, int] = {}
        for number, record in enumerate(self._steps, start=1):
            node = node_of.pop(record.hole, None)
            if not isinstance(node, App):   # a session whose steps do not build this tree: no mapping
                return found
            found[id(node)] = number
            for index, (_, child) in enumerate(node.args):
                node_of[counter + index] = child
            counter += len(node.args)
        return found

    def first_of_forced(self, number: int) -> int:
        """The step that caused forced step `number` (the last step of its command before it
        that is not forced); `number` itself when it is not forced."""
        while number > 1 and self._steps[number - 1].by == FORCED \
                and self._steps[number - 2].command == self._steps[number - 1].command:
            number -= 1
        return number

    def forced_end(self, number: int) -> int:
        """Step `number` with the forced steps right after it in its command (the holes it left
        with one option): the last of them, over the steps taken and those undo took back
        (0 stays 0)."""
        timeline = [*self._steps, *reversed(self._redo)]
        if not 0 <= number <= len(timeline):
            raise SessionError(f"there is no step {number}", fix=f"steps are 0 (the start) to {len(timeline)}")
        if number:
            command = timeline[number - 1].command
            while (command is not None and number < len(timeline) and timeline[number].command == command
                   and timeline[number].by == FORCED):
                number += 1
        return number

    def go_to(self, number: int) -> list[StepRecord]:
        """Undo or redo until step `number` (from 1; 0: before the first) is the last one taken,
        with the forced steps it caused (`forced_end`), as undoing a command takes them with it.
        Returns the records undone or redone, in that order."""
        number = self.forced_end(number)
        if number <= len(self._steps):
            return [self.undo() for _ in range(len(self._steps) - number)]
        return [self.redo() for _ in range(number - len(self._steps))]

    def alternatives(self, index: int) -> tuple[MenuOption, ...]:
        """The options offered at step `index`'s hole (from 0) that it did not take, in menu
        order, each with the completions it would have left."""
        record = self._steps[index]
        if index > 0:  # asked in order (history), each sketch's menus follow from the one before
            self.oracle.follow(self._sketches[index - 1], self._steps[index - 1].hole, self._sketches[index])
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
              command: int | None = None, figures: Mapping[str, Any] | None = None,
              expected: Sketch | None = None) -> StepRecord:
        if not is_provenance(by):
            raise ValueError(f'by must be "user", "default", "forced" or "strategy:<name>", not {by!r}')
        record = StepRecord(chosen.hole, chosen.id, chosen.function, chosen.metadata, by,
                            rationale, timestamp, command if command is not None else self._command,
                            figures)
        sketch = self.oracle.apply(self.sketch, chosen)
        if expected is not None and expected.next_hole == sketch.next_hole and expected.root == sketch.root:
            sketch = expected   # the same tree, whose menus the oracle may know already
        self._sketches.append(sketch)
        self._steps.append(record)
        self._redo = []
        return record

    # -- replay ---------------------------------------------------------------------

    @classmethod
    def from_steps(cls, library: Library, facts: FactProgram, steps, *,
                   oracle: Oracle | None = None, context: Mapping[str, Any] | None = None,
                   where: str = "steps", forced_steps: bool = False,
                   redo: Sequence[StepRecord] = (),
                   progress: Callable[[int, int], None] | None = None) -> "Session":
        """Replay a step log from ?0 as recorded (no step is added: forced steps are in the
        log); SessionError names the first step that is not offered. `redo` (next step
        first) goes back on the redo stack as it is: `redo()` checks a step when it re-takes it.
        `progress(done, total)` hears how far the replay is, every REPLAY_REPORT steps and at the end."""
        session = cls(library, facts, oracle=oracle, context=context, forced_steps=forced_steps)
        steps = list(steps)
        with gc_paused():
            session._replay(steps, where, progress)
        session._redo = list(reversed(redo))
        if progress is not None:
            progress(len(steps), len(steps))
        return session

    @classmethod
    def from_base(cls, base: "Session", steps, *, context: Mapping[str, Any] | None = None,
                  where: str = "steps", forced_steps: bool = False, redo: Sequence[StepRecord] = ()) -> "Session":
        """`from_steps` on the same library, facts and oracle as `base`, a session replayed
        earlier: the steps both logs begin with are not replayed again (the same records from
        ?0 under the same oracle take the same sketches), only those after them. `base` is
        not changed."""
        steps = list(steps)
        common, limit = 0, min(len(base._steps), len(steps))
        while common < limit and base._steps[common] == steps[common]:
            common += 1
        session = cls(base.library, base.facts, oracle=base.oracle, context=context, forced_steps=forced_steps)
        session._sketches = base._sketches[:common + 1]
        session._steps = base._steps[:common]
        with gc_paused():
            session._replay(steps[common:], where, None, first=common)
        session._redo = list(reversed(redo))
        return session

    def _replay(self, steps: list[StepRecord], where: str, progress: Callable[[int, int], None] | None,
                first: int = 0) -> None:
        session = self
        for index, record in enumerate(steps, start=first):
            if progress is not None and index % REPLAY_REPORT == 0:
                progress(index, len(steps))
            try:
                chosen = session._offered(record.hole, record.option)
            except SessionError as exc:
                raise DamagedSessionError(
                    f"step {index + 1} (?{record.hole} := {record.option}) cannot be replayed: "
                    f"{exc.bare_message}", where=f"{where}[{index}]",
                    fix="the library or fact file changed since the session was saved") from None
            session._take(chosen, record.by, record.rationale, record.timestamp, record.command,
                          record.figures)
