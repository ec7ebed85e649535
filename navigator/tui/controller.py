"""The session as the terminal UI drives it, with no Textual in sight.

`Navigation` holds one workspace (the session file the CLI uses, under its lock while the UI
runs) and offers what the screen shows and does: the sketch as rows grouped by region, the
menu of a hole with its counts and cost hints, an option's details, the history with the
alternatives not taken, and every action (choose, default, strategies, the model, undo/redo,
undo to a step, evaluate, export). Each action saves the session at once, so quitting loses
nothing and the CLI sees every step. Every rule stays in the library modules it calls; the
widgets only display what this returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from fuseflow.support.errors import UserError
from navigator.present.choice import count_figure

if TYPE_CHECKING:
    from contextlib import ExitStack

    from navigator.actions.evaluate_sketch import Evaluation
    from navigator.llm.strategy import LLMStrategy, Proposals
    from navigator.navigation.step_log import StepRecord
    from navigator.workspace.session_workspace import Workspace
    from navigator.synth import HoleMenu, MenuOption


#: the latest steps whose options not taken the history shows
ALTERNATIVES_SHOWN = 40


@dataclass(frozen=True)
class SketchRow:
    """One line of the sketch view: a filled choice or an open hole, in a region's group."""

    group: str | None        # the region it belongs to ("aggregate1+transform1"), None: the schedule's
    label: str
    hole: int | None         # an open hole's number
    step: int | None = None  # a filled choice's step (from 1), which undo-to-before reopens


@dataclass(frozen=True)
class OptionRow:
    number: int
    id: str
    function: str
    label: str               # function{metadata}, shortened
    count: str
    count_value: float       # for sorting (inf when too large for a float)
    default: bool
    shortcut: bool
    title: str
    description: str


@dataclass(frozen=True)
class HistoryRow:
    number: int
    hole: int
    choice: str
    by: str
    rationale: str | None
    figures: str | None
    alternatives: tuple[tuple[str, str], ...]    # (label, count) of the options not taken
    undone: bool = False                          # on the redo stack: `go_to` re-takes it


@dataclass
class Planned:
    """A strategy's plan and the sketch it was made on."""

    strategy: Any
    plan: Any
    sketch: Any


class Navigation:
    """One session, opened for the UI."""

    def __init__(self, workspace: "Workspace"):
        self.workspace = workspace
        self._options_of: tuple = (None, [])

    # ---- opening

    @classmethod
    def open_held(cls, path: Path, spec, held: "ExitStack", on_wait: Callable[[str], None] | None = None,
                  progress: Callable[[str, int, int | None], None] | None = None) -> tuple["Navigation", str]:
        """`open`, read under the session's lock, which `held` keeps until the UI quits: a
        command that holds the lock first (a CLI `fill`) finishes, and its steps are read.
        `on_wait` hears who holds the lock while the UI waits for it."""
        from navigator.workspace import hold_session, session_exists
        from navigator.workspace.session_file import session_target

        target = session_target(path)
        if spec is None and not session_exists(target):
            return cls.open(target, spec)  # says there is nothing to resume, before a lock file is made
        held.enter_context(hold_session(target, on_wait=on_wait))
        return cls.open(target, spec, progress)

    @classmethod
    def open(cls, path: Path, spec=None,
             progress: Callable[[str, int, int | None], None] | None = None) -> tuple["Navigation", str]:
        """Resume the session at `path`, or start one for `spec` there; says which. `progress`
        hears a resume's phases (navigator.workspace.session_workspace.open_workspace)."""
        from navigator.workspace import create_workspace, open_workspace, session_exists
        from navigator.workspace.session_file import session_target

        target = session_target(path)
        if session_exists(target):
            workspace = open_workspace(target, progress=progress)
            if spec is not None and workspace.spec.describe() != spec.describe():
                raise UserError(f"a session for {workspace.spec.describe()} already exists here", where=str(target),
                                fix="open it with `navigator tui`, or give --session FILE for a new one")
            return cls(workspace), f"resumed {workspace.spec.describe()} from {workspace.path}"
        if spec is None:
            raise UserError("no session to resume here", where=str(target),
                            fix="give a program: navigator tui gcn (or navigator start PROGRAM first)")
        workspace = create_workspace(target, spec)
        return cls(workspace), f"started {spec.describe()} in {workspace.path}"

    def reload_if_changed(self) -> bool:
        """Read the session again if its file is no longer the version shown (saved by another
        writer, or edited); True when it was."""
        from navigator.workspace import open_workspace

        if not self.workspace.changed_on_disk():
            return False
        self.workspace = open_workspace(self.workspace.path)
        self._options_of = (None, [])
        return True

    def _fresh(self) -> None:
        """Before an action: an action chosen on a screen that showed another version of the
        session is not taken; the session is read again and the user chooses again."""
        if self.reload_if_changed():
            raise UserError("the session file changed on disk since the screen showed it; it was read again "
                            "and nothing was done", where=str(self.workspace.path),
                            fix="look at the session as it is now, and choose again")

    # ---- what the screen shows

    @property
    def session(self):
        return self.workspace.session

    @property
    def title(self) -> str:
        return f"{self.workspace.spec.describe()} — {self.workspace.path}"

    def open_holes(self) -> list[int]:
        return [h.id for h in self.session.sketch.holes()]

    def open_holes_in_order(self) -> list[int]:
        """The open holes in the order the sketch shows them."""
        return [row.hole for row in self.sketch_rows() if row.hole is not None]

    def open_holes_text(self, most: int = 12) -> str:
        holes = self.open_holes()
        shown = " ".join(f"?{h}" for h in holes[:most])
        return shown + (f" and {len(holes) - most} more" if len(holes) > most else "") if holes else "none"

    def status(self) -> str:
        session = self.session
        holes = self.open_holes()
        if session.sketch.complete:
            return f"complete: {len(session.steps)} steps (e: export)"
        return f"{len(holes)} open hole{'s' * (len(holes) != 1)}, {count_figure(session.menus().total)} completions"

    def sketch_rows(self) -> list[SketchRow]:
        """The sketch, flattened: every application and hole in order, grouped by the region its
        choice belongs to (a deep sketch stays a two-level view)."""
        from navigator.synth.sketch import App, Hole

        rows: list[SketchRow] = []
        fillers = self.session.fillers()
        stack: list[tuple[Any, str | None, str | None]] = [(self.session.sketch.root, None, None)]
        while stack:
            node, param, group = stack.pop()
            prefix = f"{param} = " if param else ""
            if isinstance(node, Hole):
                rows.append(SketchRow(group, f"{prefix}?{node.id} : {node.type}", node.id))
                continue
            assert isinstance(node, App)
            metadata = node.metadata_dict()
            region = metadata.get("region")
            here = str(region) if region is not None else group
            shown = {k: v for k, v in metadata.items() if k not in ("region", "program")}
            text = node.function + ("{" + ", ".join(f"{k}={v}" for k, v in shown.items()) + "}" if shown else "")
            rows.append(SketchRow(here, prefix + text, None, fillers.get(id(node))))
            stack.extend((child, name, here) for name, child in reversed(node.args))
        return rows

    def menu(self, hole: int) -> "HoleMenu":
        return self.session.menus().for_hole(hole)

    def options(self, hole: int) -> list[OptionRow]:
        """The menu's rows (memoized per sketch: a region may offer thousands of orders, and the
        screen asks again at every key)."""
        key = (hole, self.session.sketch)
        if self._options_of[0] != key:
            self._options_of = (key, self._option_rows(hole))
        return list(self._options_of[1])

    def _option_rows(self, hole: int) -> list[OptionRow]:
        from navigator.present.views import _info  # the library's title and description

        rows = []
        library = self.session.library
        options = self.menu(hole).options
        shared = _shared_metadata(options)
        for number, option in enumerate(options, 1):
            info = _info(library, option.function) if library is not None else {}
            count = option.count
            try:
                value = float(count.to_json())
            except (TypeError, ValueError, OverflowError):
                value = float("inf")
            rows.append(OptionRow(number, option.id, option.function, _label(option, shared), count_figure(count), value,
                                  option.is_default, option.alias, str(info.get("title") or ""),
                                  str(info.get("description") or "")))
        return rows

    def hints(self, hole: int) -> dict[str, Any]:
        """Each option's cost hint (slow on large programs: run it in a worker); none without a cost model."""
        found = self.workspace.space.hints(self.session.sketch, self.session.menus().only([hole]))
        return {option_id: hint for (_, option_id), hint in found.items()}

    def details(self, hole: int, option_id: str) -> str:
        """What an option means: the library's words, and for a region's choice the region's ops,
        operand formats and, for an order, the loop nest with compressed levels marked."""
        option = next((o for o in self.menu(hole).options if o.id == option_id), None)
        if option is None:
            return ""
        row = next(r for r in self.options(hole) if r.id == option_id)
        lines = [f"{row.label}", row.title, row.description, f"{row.count} completions beneath"
                 + (" · default" if row.default else "") + (" · shortcut" if row.shortcut else ""), ""]
        lines.extend(self.workspace.space.option_details(option))
        return "\n".join(line for line in lines if line is not None)

    def history(self) -> list[HistoryRow]:
        """Every step, the undone ones after them; the options not taken, for the latest
        ALTERNATIVES_SHOWN steps (`navigator history` lists them all)."""
        from navigator.present.choice import compact_labels, count_text
        from navigator.present.views import _figures_text

        session = self.session
        rows = []
        # the alternatives of the latest steps only: each needs the menus of the sketch at that
        # step, and a session of thousands of steps would have them all worked out again
        recent = len(session.steps) - ALTERNATIVES_SHOWN
        for number, record in enumerate(session.steps, 1):
            alternatives = session.alternatives(number - 1) if number > recent else ()
            labels = compact_labels(alternatives)
            rows.append(HistoryRow(number, record.hole, record.option, record.by, record.rationale,
                                   _figures_text(record.figures) if record.figures else None,
                                   tuple((label, count_text(o)) for o, label in zip(alternatives, labels))))
        for number, record in enumerate(session.redo_steps, len(session.steps) + 1):
            rows.append(HistoryRow(number, record.hole, record.option, record.by, record.rationale, None, (),
                                   undone=True))
        return rows

    # ---- actions (each saves the session)

    def choose(self, hole: int, option_id: str) -> list["StepRecord"]:
        from navigator.actions.fill import fill_hole

        self._fresh()
        return fill_hole(self.workspace, hole, option=option_id)

    def take_default(self, hole: int) -> list["StepRecord"]:
        from navigator.actions.fill import fill_hole
        from navigator.auto import get_strategy

        self._fresh()
        return fill_hole(self.workspace, hole, strategy=get_strategy("default"))

    def plan(self, hole: int, strategy: str, scope: str, **options: Any) -> "Planned":
        """A planning strategy's plan for the scope, made on the current sketch without taking
        it (a worker's job: `take` applies it if the sketch has not changed meanwhile)."""
        from navigator.actions.fill import plan_ahead
        from navigator.auto import Scope, get_strategy

        chosen = get_strategy(strategy, **options)
        if not hasattr(chosen, "plan"):
            raise UserError(f"{strategy} fills one step at a time", where="auto", fix="run it with `take_default`")
        return Planned(chosen, *plan_ahead(self.workspace, chosen, hole, Scope(scope)))

    def take(self, planned: "Planned") -> list["StepRecord"]:
        """Apply a plan made by `plan` (or `accept`), if the sketch is still the one it was made on."""
        from navigator.actions.fill import take_plan

        self._fresh()
        return take_plan(self.workspace, planned.strategy, planned.plan, planned.sketch)

    def model(self, progress: Callable[[str], None] | None = None, **options: Any) -> "LLMStrategy":
        """The `llm` strategy for this session (configured as `navigator fill --auto llm` is),
        recording beside the session file; `progress` hears each round of the exchange."""
        from navigator.auto import get_strategy

        return get_strategy("llm", ambient={"record_beside": self.workspace.path, "progress": progress}, **options)

    def fallback_preview(self, proposals: "Proposals", sketch, shown: int = 8) -> str:
        """The plan offered when the model could not help: its steps by option, and its est. and
        sim. cycles (the open holes it leaves at their defaults). Slow: a worker's job."""
        from navigator.actions.evaluate_sketch import evaluate_sketch
        from navigator.auto.scope import complete_for_scoring
        from navigator.auto.scoring import CostModelScorer
        from fuseflow.support.numbers import figure

        plan = proposals.fallback
        oracle = self.session.oracle
        planned = sketch
        for step in plan.steps:
            planned = oracle.step(planned, step.hole, step.option)
        steps = [f"?{step.hole} := {step.option}" for step in plan.steps]
        more = f" and {len(steps) - shown} more" if len(steps) > shown else ""
        lines = [f"the heuristic's plan, {len(steps)} step(s): " + ", ".join(steps[:shown]) + more]
        space = self.workspace.space
        if space.tensor_program is not None:
            cycles, bytes_ = CostModelScorer(space).score(complete_for_scoring(oracle, planned))
            simulated = evaluate_sketch(self.workspace, planned).cycles
            lines.append(f"est. {figure(cycles)} cycles, {figure(bytes_)} bytes · sim. {figure(simulated)} cycles")
        return "\n".join(lines)

    def propose(self, strategy: "LLMStrategy", hole: int, scope: str) -> tuple["Proposals", Any]:
        """The model's ranked plans for the scope, and the sketch they were made on (slow: a
        worker's job); nothing is taken."""
        from navigator.actions.fill import strategy_context
        from navigator.auto import Scope

        sketch = self.session.sketch
        return strategy.propose(strategy_context(self.workspace, sketch), hole, Scope(scope)), sketch

    def accept(self, strategy: "LLMStrategy", proposals: "Proposals", sketch, index: int) -> list["StepRecord"]:
        """Take ranked plan `index` (-1: the fallback plan, when the model could not help)."""
        plan = proposals.fallback if index < 0 else strategy.plan_of(proposals, index)
        return self.take(Planned(strategy, plan, sketch))

    def undo(self) -> list["StepRecord"]:
        return self._changed(self.session.undo_command)

    def redo(self) -> list["StepRecord"]:
        return self._changed(self.session.redo_command)

    def reopen_question(self, step: int) -> tuple[str, int]:
        """(the question, the step to go back to) that reopens the hole step `step` filled: undo
        back to before the step that caused it (itself, or the step that forced it)."""
        session = self.session
        cause = session.first_of_forced(step)
        record = session.steps[step - 1]
        why = f"?{record.hole} was forced by step {cause}" if cause != step else f"step {step} filled ?{record.hole}"
        later = len(session.steps) - cause + 1
        return f"{why}. Undo back to before step {cause} ({later} step(s); redo brings them back)?", cause - 1

    def go_to(self, number: int) -> list["StepRecord"]:
        """Undo or redo until step `number` is the last one taken (0: before the first), with
        the forced steps of its command (navigator.navigation.session.Session.go_to)."""
        return self._changed(lambda: self.session.go_to(number))

    @property
    def can_evaluate(self) -> bool:
        """Whether the space has a tensor program to simulate."""
        return self.workspace.space.tensor_program is not None

    @property
    def export_stem(self) -> Path:
        """Where the export dialog offers to write (`.json`, `.py` added): beside the session
        file, or beside the `.navigator/` folder that holds the default session."""
        folder = self.workspace.path.parent
        if folder.name == ".navigator":
            folder = folder.parent
        return folder / "schedule"

    @property
    def kind_label(self) -> str:
        """What the session navigates, in words: "Honeybee problem", or "program"."""
        return self.workspace.spec.space_kind.label or self.workspace.space.noun

    def simulate_options(self, hole: int, *, cancelled: Callable[[], bool] = lambda: False,
                         progress: Callable | None = None) -> list:
        """Simulate the options of `hole`, best hints first (navigator.actions.simulate_options)."""
        from navigator.actions.simulate_options import simulate_options

        return simulate_options(self.workspace, hole, cancelled=cancelled, progress=progress)

    def simulation_order(self, hole: int) -> list[str]:
        """The options `simulate_options` will simulate, in its order (to mark them at once)."""
        from navigator.actions.simulate_options import DEFAULT_LIMIT, ranked_options

        return [option.id for _, option in ranked_options(self.workspace, hole)[:DEFAULT_LIMIT]]

    def evaluate(self, *, cancelled: Callable[[], bool] = lambda: False) -> "Evaluation":
        """Simulate the sketch, its open holes at their defaults, and the unfused defaults."""
        from navigator.actions.evaluate_sketch import evaluate_sketch

        return evaluate_sketch(self.workspace, cancelled=cancelled)

    def export(self, json_path: str | None, python_path: str | None, fill_defaults: bool) -> list[str]:
        """Write the schedule JSON (a problem's expression) and/or the Python program; an incomplete
        sketch is refused unless `fill_defaults` (then the copy written takes the defaults; the
        session does not)."""
        from navigator.actions.export import ExportRequest, export_session
        from navigator.workspace import open_workspace

        if not json_path and not python_path:
            raise UserError("nothing to write", where="export", fix="give a path for the JSON or the Python program")
        copy = open_workspace(self.workspace.path)  # a copy: defaults taken for the export stay out of the session
        report = export_session(copy, ExportRequest({"json": json_path, "python": python_path},
                                                    partial=fill_defaults))
        return [path for _, path in report.written]

    # ---- helpers

    def _changed(self, action: Callable[[], list["StepRecord"]]) -> list["StepRecord"]:
        self._fresh()
        records = action()
        self.workspace.save()
        return records


def menu_context(menu: "HoleMenu") -> str:
    """What every option of a menu shares (said once, above the options)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(_shared_metadata(menu.options).items()) if k != "program")


def _shared_metadata(options) -> dict:
    if len(options) < 2:
        return {}
    first = options[0].metadata_dict()
    return {k: v for k, v in first.items() if all(o.metadata_dict().get(k) == v for o in options[1:])}


def _label(option: "MenuOption", shared: dict | None = None) -> str:
    # is_default is said by the menu's default mark
    metadata = {k: v for k, v in option.metadata_dict().items()
                if k not in ("program", "is_default") and k not in (shared or {})}
    shown = ", ".join(f"{k}={v}" for k, v in metadata.items())
    return f"{option.function}{{{shown}}}" if shown else option.function
