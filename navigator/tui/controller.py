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

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from fuseflow.support.errors import UserError

if TYPE_CHECKING:
    from navigator.llm.strategy import LLMStrategy, Proposals
    from navigator.navigation.session import StepRecord
    from navigator.workspace.session_workspace import Workspace
    from navigator.synth import HoleMenu, MenuOption


@dataclass(frozen=True)
class SketchRow:
    """One line of the sketch view: a filled choice or an open hole, in a region's group."""

    group: str | None        # the region it belongs to ("aggregate1+transform1"), None: the schedule's
    label: str
    hole: int | None         # an open hole's number


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
class Evaluation:
    """The simulated figures of the current sketch (its open holes at their defaults)."""

    completed_with_defaults: int      # how many open holes took their default to evaluate it
    cycles: float
    flops: float
    bytes: float
    intensity: float
    roofline: str
    check: str
    regions: list[tuple[str, float]] = field(default_factory=list)   # (ops, cycles)
    unfused_cycles: float | None = None

    @property
    def speedup(self) -> float | None:
        return self.unfused_cycles / self.cycles if self.unfused_cycles and self.cycles else None


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
    def open(cls, path: Path, spec=None) -> tuple["Navigation", str]:
        """Resume the session at `path`, or start one for `spec` there; says which."""
        from navigator.workspace import create_workspace, open_workspace, session_exists
        from navigator.workspace.session_file import session_target

        target = session_target(path)
        if session_exists(target):
            workspace = open_workspace(target)
            if spec is not None and workspace.spec.describe() != spec.describe():
                raise UserError(f"a session for {workspace.spec.describe()} already exists here", where=str(target),
                                fix="open it with `navigator tui`, or give --session FILE for a new one")
            return cls(workspace), f"resumed {workspace.spec.describe()} from {workspace.path}"
        if spec is None:
            raise UserError("no session to resume here", where=str(target),
                            fix="give a program: navigator tui gcn (or navigator start PROGRAM first)")
        workspace = create_workspace(target, spec)
        return cls(workspace), f"started {spec.describe()} in {workspace.path}"

    # ---- what the screen shows

    @property
    def session(self):
        return self.workspace.session

    @property
    def title(self) -> str:
        return f"{self.workspace.spec.describe()} — {self.workspace.path}"

    def open_holes(self) -> list[int]:
        return [h.id for h in self.session.sketch.holes()]

    def status(self) -> str:
        session = self.session
        holes = self.open_holes()
        if session.sketch.complete:
            return f"complete: {len(session.steps)} steps (e: export)"
        return f"{len(holes)} open hole{'s' * (len(holes) != 1)}, {session.menus().total} completions"

    def sketch_rows(self) -> list[SketchRow]:
        """The sketch, flattened: every application and hole in order, grouped by the region its
        choice belongs to (a deep sketch stays a two-level view)."""
        from navigator.synth.sketch import App, Hole

        rows: list[SketchRow] = []
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
            rows.append(SketchRow(here, prefix + text, None))
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
        library = self.workspace.space.library if not self.workspace.is_problem else self.session.library
        options = self.menu(hole).options
        shared = _shared_metadata(options)
        for number, option in enumerate(options, 1):
            info = _info(library, option.function) if library is not None else {}
            count = option.count
            try:
                value = float(count.to_json())
            except (TypeError, ValueError, OverflowError):
                value = float("inf")
            rows.append(OptionRow(number, option.id, option.function, _label(option, shared), str(count), value,
                                  option.is_default, option.alias, str(info.get("title") or ""),
                                  str(info.get("description") or "")))
        return rows

    def hints(self, hole: int) -> dict[str, Any]:
        """Each option's cost hint (slow on large programs: run it in a worker)."""
        if self.workspace.is_problem:
            return {}
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
        metadata = option.metadata_dict()
        region = metadata.get("region")
        if region is not None and not self.workspace.is_problem:
            lines.extend(_region_lines(self.workspace.space.program, str(region), metadata))
        return "\n".join(line for line in lines if line is not None)

    def history(self) -> list[HistoryRow]:
        from navigator.present.choice import compact_labels, count_text
        from navigator.present.views import _figures_text

        session = self.session
        rows = []
        for number, record in enumerate(session.steps, 1):
            alternatives = session.alternatives(number - 1)
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
        session = self.session
        with session.atomic(), session.command() as records:
            session.apply(hole, option_id, by="user")
        self.workspace.save()
        return records

    def take_default(self, hole: int) -> list["StepRecord"]:
        from navigator.auto import Scope, fill, get_strategy

        return self._filled(lambda: fill(self.session, hole, get_strategy("default"), Scope.HOLE))

    def plan(self, hole: int, strategy: str, scope: str, **options: Any) -> "Planned":
        """A planning strategy's plan for the scope, made on the current sketch without taking
        it (a worker's job: `take` applies it if the sketch has not changed meanwhile)."""
        from navigator.auto import Scope, get_strategy
        from navigator.auto.base import StrategyContext

        chosen = get_strategy(strategy, **options)
        if not hasattr(chosen, "plan"):
            raise UserError(f"{strategy} fills one step at a time", where="auto", fix="run it with `take_default`")
        session = self.session
        space, evaluation = self._space_and_evaluation()
        sketch = session.sketch
        context = StrategyContext(session, session.menus(), space, evaluation, viewed=sketch)
        return Planned(chosen, chosen.plan(context, hole, Scope(scope)), sketch)

    def take(self, planned: "Planned") -> list["StepRecord"]:
        """Apply a plan made by `plan` (or `accept`), if the sketch is still the one it was made on."""
        from navigator.auto.driver import apply_plan

        session = self.session
        if session.sketch != planned.sketch:
            raise UserError("the sketch changed while the strategy was planning; its plan was dropped",
                            where="auto", fix="ask again")

        def take():
            with session.command() as records:
                apply_plan(session, planned.strategy, planned.plan)
            return records

        return self._filled(take)

    def model(self, **options: Any) -> "LLMStrategy":
        """The `llm` strategy for this session (configured as `navigator fill --auto llm` is),
        recording beside the session file."""
        from navigator.auto import get_strategy

        return get_strategy("llm", ambient={"record_beside": self.workspace.path}, **options)

    def propose(self, strategy: "LLMStrategy", hole: int, scope: str) -> tuple["Proposals", Any]:
        """The model's ranked plans for the scope, and the sketch they were made on (slow: a
        worker's job); nothing is taken."""
        from navigator.auto import Scope
        from navigator.auto.base import StrategyContext

        session = self.session
        space, evaluation = self._space_and_evaluation()
        sketch = session.sketch
        context = StrategyContext(session, session.menus(), space, evaluation, viewed=sketch)
        return strategy.propose(context, hole, Scope(scope)), sketch

    def accept(self, strategy: "LLMStrategy", proposals: "Proposals", sketch, index: int) -> list["StepRecord"]:
        """Take ranked plan `index` (-1: the fallback plan, when the model could not help)."""
        plan = proposals.fallback if index < 0 else strategy.plan_of(proposals, index)
        return self.take(Planned(strategy, plan, sketch))

    def undo(self) -> list["StepRecord"]:
        return self._changed(self.session.undo_command)

    def redo(self) -> list["StepRecord"]:
        return self._changed(self.session.redo_command)

    def undo_to(self, number: int) -> list["StepRecord"]:
        """Take back every step after step `number` (0: all of them)."""
        session = self.session
        if not 0 <= number <= len(session.steps):
            raise UserError(f"there is no step {number}", where="history", fix=f"steps are 1 to {len(session.steps)}")
        return self._changed(lambda: [session.undo() for _ in range(len(session.steps) - number)])

    def go_to(self, number: int) -> list["StepRecord"]:
        """Undo or redo until step `number` is the last one taken (0: before the first)."""
        session = self.session
        reachable = len(session.steps) + len(session.redo_steps)
        if not 0 <= number <= reachable:
            raise UserError(f"there is no step {number}", where="history", fix=f"steps are 0 to {reachable}")
        if number <= len(session.steps):
            return self.undo_to(number)
        return self._changed(lambda: [session.redo() for _ in range(number - len(session.steps))])

    def evaluate(self, *, cancelled: Callable[[], bool] = lambda: False) -> Evaluation:
        """Simulate the sketch, its open holes at their defaults, and the unfused defaults."""
        from fuseflow.schedule import default_schedule
        from navigator.auto.scope import complete_for_scoring
        from navigator.evaluation.tasks import EvalConfig, load_inputs, simulate

        if self.workspace.is_problem:
            raise UserError("a Honeybee problem has no simulator", where="evaluate",
                            fix="export its expression instead (e)")
        space, spec = self.workspace.space, self.workspace.spec
        sketch = self.session.sketch
        open_holes = len(sketch.holes())
        schedule = space.schedule_of(complete_for_scoring(space.oracle, sketch))
        inputs = load_inputs(spec, None, None)
        result = simulate(inputs, schedule, EvalConfig(spec))
        unfused = None
        if not cancelled():
            unfused = simulate(inputs, default_schedule(space.program), EvalConfig(spec, check=False))["cycles"]
        return Evaluation(open_holes, result["cycles"], result["flops"], result["bytes"],
                          result.get("intensity") or (result["flops"] / result["bytes"] if result["bytes"] else 0.0),
                          str(result.get("roofline", "")), _check_text(result),
                          [("+".join(r["ops"]), r["cycles"]) for r in result["regions"]], unfused)

    def export(self, json_path: str | None, python_path: str | None, fill_defaults: bool) -> list[str]:
        """Write the schedule JSON and/or the Python program; an incomplete sketch is refused
        unless `fill_defaults` (then the copy written takes the defaults; the session does not)."""
        from fuseflow.support.files import write_text_atomic
        from fuseflow.schedule import save_schedule
        from navigator.actions.export import complete_schedule, schedule_python
        from navigator.workspace import open_workspace

        if not json_path and not python_path:
            raise UserError("nothing to write", where="export", fix="give a path for the JSON or the Python program")
        copy = open_workspace(self.workspace.path)  # a copy: defaults taken for the export stay out of the session
        if copy.is_problem:
            return _export_problem(copy, json_path, python_path, fill_defaults)
        result = complete_schedule(copy.space, copy.session, partial=fill_defaults)
        written = []
        if json_path:
            save_schedule(json_path, copy.program, result.schedule)
            written.append(json_path)
        if python_path:
            spec = copy.spec
            text = schedule_python(result.schedule, program=spec.program, program_name=copy.program.name,
                                   data=spec.data, dims=spec.dims_dict, output=json_path, source=str(copy.path))
            write_text_atomic(python_path, text, executable=True)
            written.append(python_path)
        return written

    # ---- helpers

    def _space_and_evaluation(self):
        from navigator.evaluation.tasks import EvalConfig

        if self.workspace.is_problem:
            return None, None
        return self.workspace.space, EvalConfig(self.workspace.spec)

    def _filled(self, action: Callable[[], list["StepRecord"]]) -> list["StepRecord"]:
        session = self.session
        with session.atomic():
            records = action()
        self.workspace.save()
        return records

    def _changed(self, action: Callable[[], list["StepRecord"]]) -> list["StepRecord"]:
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


def _export_problem(copy: "Workspace", json_path: str | None, python_path: str | None, fill_defaults: bool) -> list[str]:
    """A Honeybee problem's expression in Honeybee's JSON form, and the program its library's
    code assembles (never run), as `navigator export` writes them."""
    from fuseflow.support.files import write_text_atomic
    from navigator.honeybee.codegen import has_code, python_program
    from navigator.commands.options import json_text
    from navigator.actions.export import complete_expression

    library = copy.space.library
    if python_path and not has_code(library):
        raise UserError("the library has no code to assemble (no [[Preamble]] and no info.code)", where="export",
                        fix="leave the Python path empty and export the expression's JSON")
    expression, _ = complete_expression(copy.space, copy.session, partial=fill_defaults)
    written = []
    if json_path:
        write_text_atomic(json_path, json_text(expression) + "\n")
        written.append(json_path)
    if python_path:
        write_text_atomic(python_path, python_program(library, expression))
        written.append(python_path)
    return written


def _label(option: "MenuOption", shared: dict | None = None) -> str:
    # is_default is said by the menu's default mark
    metadata = {k: v for k, v in option.metadata_dict().items()
                if k not in ("program", "is_default") and k not in (shared or {})}
    shown = ", ".join(f"{k}={v}" for k, v in metadata.items())
    return f"{option.function}{{{shown}}}" if shown else option.function


def _check_text(result: dict) -> str:
    check = result.get("check")
    if isinstance(check, dict):
        return "passed" if check.get("passed") else f"FAILED: {check.get('message', '')}"
    return str(check) if check is not None else "not checked"


def _region_lines(program, region: str, metadata: dict) -> list[str]:
    """The region's ops and operand formats; an order's loop nest, compressed levels marked."""
    from fuseflow.analysis.unification import unify_region

    ops = tuple(region.split("+"))
    try:
        unified = unify_region(program, ops)
    except Exception:  # a region name the program does not know: show nothing more
        return []
    compressed = {var for operand in unified.operands for var, fmt in zip(operand.vars, operand.formats)
                  if fmt == "compressed"}
    lines = [f"region {region}:"]
    for name in ops:
        op = program.op_by_name[name]
        lines.append(f"  {name}: {op.statement}")
    for operand in unified.operands:
        lines.append(f"  reads {operand.tensor}({','.join(operand.vars)}) [{','.join(operand.formats)}]")
    order = metadata.get("order")
    if order is not None:
        lines.append("loop nest (* compressed: iterates stored coordinates only):")
        for depth, var in enumerate(str(order).split()):
            extent = unified.var_dims.get(var, "")
            lines.append("  " * (depth + 1) + f"for {var}{'*' if var in compressed else ''} in {extent}")
    return lines
