"""The Textual application: sketch, menu, details, evaluation and history on one screen.

Every decision and figure comes from `navigator.tui.controller.Navigation`; this module only
lays it out, binds the keys and runs the slow work (cost hints, evaluation, strategies, the
model) in thread workers. A worker of a kind replaces the one running (exclusive groups), and
a result that arrives for a sketch that has changed since is dropped.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, OptionList, Static, Tree
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from fuseflow.support.errors import UserError, one_line
from navigator.tui.controller import Navigation, menu_context
from navigator.tui.safe_text import block, marked, plain
from navigator.tui.keys import APP_BINDINGS
from navigator.tui.palette import key_commands
from navigator.tui.screens import AutoDialog, ConfirmDialog, ExportDialog, HelpScreen, ProposalsScreen

#: menu rows drawn at most (a region may offer thousands of orders: `/` and `s` find the rest)
MENU_ROWS = 300
#: what each kind of background work is called in the status line
_BUSY = {"hints": "cost hints", "evaluation": "evaluating", "strategy": "strategy", "model": "asking the model"}
#: menu sort orders, in the order `s` cycles through them
SORTS = ("as listed", "by cost hint", "by count")
BAR_WIDTH = 24


class NavigatorApp(App):
    TITLE = "Navigator"
    CSS_PATH = "navigator.tcss"
    BINDINGS = APP_BINDINGS

    def __init__(self, navigation: Navigation, note: str | None = None, *, evaluate: bool = True):
        super().__init__()
        self.navigation = navigation
        self.note = note
        self.auto_evaluate = evaluate
        self.hole: int | None = None
        self.sort = 0
        self.filter_text = ""
        self.hints: dict[str, Any] = {}
        self.hints_for: tuple | None = None
        self.hints_pending: tuple | None = None
        self._history_shown: tuple[list, list] = ([], [])
        self.sub_title = one_line(navigation.title)

    # ---- layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Tree("sketch", id="sketch")
                yield OptionList(id="history")
            with Vertical(id="right"):
                yield Input(placeholder="filter the menu (escape clears)", id="filter")
                yield DataTable(id="menu", cursor_type="row", zebra_stripes=True)
                yield Static("", id="details", markup=False)
                yield Static("", id="evaluation", markup=False)
        yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sketch", Tree).border_title = "Sketch"
        self.query_one("#history", OptionList).border_title = "History (enter: undo to here)"
        self.query_one("#details", Static).border_title = "Details"
        self.query_one("#evaluation", Static).border_title = "Evaluation"
        table = self.query_one("#menu", DataTable)
        # the short columns first: labels and counts can be long, and the hint must stay in view at 80 columns
        table.add_columns("#", "", "est. cycles", "option", "completions")
        if self.note:
            self.notify(marked(self.note), title="Navigator")
        self.refresh_all()
        table.focus()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from key_commands(self)

    # ---- showing the state

    def refresh_all(self) -> None:
        nav = self.navigation
        holes = nav.open_holes()
        if self.hole not in holes:
            self.hole = holes[0] if holes else None
        self._show_sketch()
        self._show_menu()
        self._show_history()
        self._set_status()
        if self.auto_evaluate:
            self.action_evaluate()

    def _set_status(self, extra: str = "") -> None:
        nav = self.navigation
        hole = f"?{self.hole} selected · " if self.hole is not None else ""
        sort = f" · sorted {SORTS[self.sort]}" if self.sort else ""
        shown = f" · filter '{self.filter_text}'" if self.filter_text else ""
        busy = sorted({_BUSY[w.group] for w in self.workers if w.group in _BUSY and not w.is_finished})
        working = f" · working: {', '.join(busy)}… (x cancels)" if busy else ""
        self.query_one("#status", Static).update(plain(f"{hole}{nav.status()}{sort}{shown}{working}{extra}"))

    def _show_sketch(self) -> None:
        tree = self.query_one("#sketch", Tree)
        tree.clear()
        tree.root.expand()
        groups: dict[str | None, Any] = {}
        for row in self.navigation.sketch_rows():
            parent = tree.root
            if row.group is not None:
                parent = groups.get(row.group)
                if parent is None:
                    parent = groups[row.group] = tree.root.add(plain(f"region {row.group}"), expand=True)
            label = plain(f"▶ {row.label}") if row.hole is not None else plain(row.label)
            if row.hole is not None:
                label.stylize("bold reverse" if row.hole == self.hole else "bold")
            node = parent.add_leaf(label, data=row.hole)
            if row.hole is not None and row.hole == self.hole:
                tree.move_cursor(node)
        tree.root.set_label(plain(f"sketch ({len(self.navigation.open_holes())} open)"))

    def _rows(self):
        rows = self.navigation.options(self.hole) if self.hole is not None else []
        if self.filter_text:
            needle = self.filter_text.lower()
            rows = [r for r in rows if needle in r.label.lower() or needle in r.title.lower()]
        if SORTS[self.sort] == "by cost hint":
            rows.sort(key=lambda r: (self._hint_cycles(r.id), r.number))
        elif SORTS[self.sort] == "by count":
            rows.sort(key=lambda r: (-r.count_value, r.number))
        return rows

    def _hint_cycles(self, option_id: str) -> float:
        hint = self.hints.get(option_id)
        return hint.cycles if hint is not None else math.inf

    def _show_menu(self) -> None:
        table = self.query_one("#menu", DataTable)
        table.clear()
        nav = self.navigation
        if self.hole is None:
            table.border_title = "Menu: the sketch is complete (e: export)"
            self.query_one("#details", Static).update("")
            return
        menu = nav.menu(self.hole)
        key = (self.hole, nav.session.sketch)
        if self.hints_for != key and self.hints_pending != key:
            self.hints, self.hints_pending = {}, key
            self._compute_hints(self.hole, nav.session.sketch)
        ready = self.hints_for == key
        rows = self._rows()
        shared = menu_context(menu)
        shown = (f"{len(rows)} of {len(menu.options)} shown" if len(rows) <= MENU_ROWS
                 else f"first {MENU_ROWS} of {len(rows)} matching; / filters")
        table.border_title = marked(f"Menu ?{self.hole} : {menu.type}" + (f" [{shared}]" if shared else "")
                                     + f"  ({shown})")
        for row in rows[:MENU_ROWS]:
            mark = "default" if row.default else ("shortcut" if row.shortcut else "")
            hint = self.hints.get(row.id)
            hint_text = (f"~{hint.cycles:.3g}" + ("" if hint.exact else " (bound)")) if hint is not None else \
                ("-" if ready else "computing…")
            table.add_row(plain(row.number), plain(mark), plain(hint_text), plain(row.label), plain(row.count),
                          key=row.id)
        self._show_details()

    def _show_details(self) -> None:
        table = self.query_one("#menu", DataTable)
        details = self.query_one("#details", Static)
        if self.hole is None or table.row_count == 0:
            details.update("")
            return
        option_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        details.update(block(self.navigation.details(self.hole, option_id)))

    def _show_history(self) -> None:
        history = self.query_one("#history", OptionList)
        options: list[Option] = []
        last = 0
        for row in self.navigation.history():
            if row.undone:
                text = block(f"{row.number}. (undone) ?{row.hole} := {row.choice}  [{row.by}]")
                text.stylize("dim")
                options.append(Option(text, id=str(row.number)))
                continue
            last = len(options)
            lines = [f"{row.number}. ?{row.hole} := {row.choice}  [{row.by}]"]
            if row.rationale:
                lines.append(f"   why: {row.rationale}")
            if row.alternatives:
                shown = ", ".join(f"{label} ({count})" for label, count in row.alternatives[:4])
                more = len(row.alternatives) - 4
                lines.append(f"   not taken: {shown}" + (f" and {more} more" if more > 0 else ""))
            options.append(Option(block("\n".join(lines)), id=str(row.number)))
        rows = [option.id for option in options], [str(option.prompt) for option in options]
        shown_ids, shown_texts = self._history_shown
        same = 0  # the options already shown as they are (a step taken only appends)
        while same < min(len(shown_ids), len(rows[0])) and shown_texts[same] == rows[1][same]:
            same += 1
        if same < len(shown_ids):
            history.clear_options()
            same = 0
        history.add_options(options[same:])
        self._history_shown = rows
        if options:
            history.highlighted = last

    # ---- events

    @on(Tree.NodeSelected, "#sketch")
    def _sketch_selected(self, event: Tree.NodeSelected) -> None:
        if event.node.data is not None:
            self.hole = event.node.data
            self._show_menu()
            self._set_status()
            self.query_one("#menu", DataTable).focus()

    @on(DataTable.RowHighlighted, "#menu")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_details()

    @on(DataTable.RowSelected, "#menu")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._act(lambda: self.navigation.choose(self.hole, event.row_key.value))

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        self._show_menu()
        self._set_status()

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self.query_one("#menu", DataTable).focus()

    @on(OptionList.OptionSelected, "#history")
    def _history_selected(self, event: OptionList.OptionSelected) -> None:
        number = int(event.option.id)
        taken = len(self.navigation.session.steps)
        if number == taken:
            self.notify("that is the last step taken: nothing to undo or redo")
            return
        question = (f"Undo the {taken - number} step(s) after step {number}? (redo brings them back)"
                    if number < taken else f"Redo up to step {number} ({number - taken} step(s))?")

        def answer(yes: bool | None) -> None:
            if yes:
                self._act(lambda: self.navigation.go_to(number))

        self.push_screen(ConfirmDialog(question), answer)

    def on_worker_state_changed(self, event) -> None:
        """Say what runs in the background (the interface never waits for it)."""
        self._set_status()

    def action_cancel(self) -> None:
        """Cancel the running evaluation, strategy and model request (their results are dropped)."""
        running = [w for w in self.workers if w.group in ("evaluation", "strategy", "model") and not w.is_finished]
        for worker in running:
            worker.cancel()
        self.notify("cancelled: " + ", ".join(sorted({w.group for w in running})) if running else "nothing is running")
        if any(w.group == "evaluation" for w in running):
            self.query_one("#evaluation", Static).update(plain("evaluation cancelled (v: evaluate again)"))

    # ---- actions

    def _act(self, action) -> bool:
        """Run a quick action; any failure becomes a notification, never a crash."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - a user error, or a file that cannot be written
            self._failed("", exc)
            self.refresh_all()
            return False
        self.refresh_all()
        return True

    def action_choose(self) -> None:
        table = self.query_one("#menu", DataTable)
        if self.hole is None or table.row_count == 0:
            return
        option_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        self._act(lambda: self.navigation.choose(self.hole, option_id))

    def action_default(self) -> None:
        if self.hole is not None:
            self._act(lambda: self.navigation.take_default(self.hole))

    def action_undo(self) -> None:
        self._act(self.navigation.undo)

    def action_redo(self) -> None:
        self._act(self.navigation.redo)

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.add_class("shown")
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_class("shown") or self.filter_text:
            box.value = ""
            box.remove_class("shown")
            self.filter_text = ""
            self._show_menu()
            self._set_status()
            self.query_one("#menu", DataTable).focus()

    def action_sort(self) -> None:
        self.sort = (self.sort + 1) % len(SORTS)
        self._show_menu()
        self._set_status()

    def action_history(self) -> None:
        self.query_one("#history", OptionList).focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_auto(self) -> None:
        if self.hole is None:
            self.notify(marked("the sketch is complete: nothing to fill"))
            return
        hole = self.hole

        def run(choice) -> None:
            if choice is None:
                return
            strategy, scope = choice
            if strategy == "default" and scope == "hole":
                self.action_default()
                return
            self.notify(marked(f"{strategy} is filling ?{hole} ({scope})…"), timeout=3)
            self._plan(hole, strategy, scope)

        self.push_screen(AutoDialog(hole), run)

    @work(thread=True, exclusive=True, group="strategy")
    def _plan(self, hole: int, strategy: str, scope: str) -> None:
        worker = get_current_worker()
        try:
            planned = self.navigation.plan(hole, strategy, scope)
        except Exception as exc:  # noqa: BLE001 - any failure is shown, never a crash
            self.call_from_thread(self._failed, f"{strategy}", exc)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._take, planned)

    def _take(self, planned) -> None:
        if self._act(lambda: self.navigation.take(planned)):
            self.notify(marked(f"filled by {planned.strategy.name}: {planned.plan.rationale}"), timeout=6)

    def _failed(self, what: str, exc: Exception) -> None:
        text = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
        self.notify(marked(f"{what}: {text}" if what else text), severity="error", timeout=10)

    def action_model(self) -> None:
        if self.hole is None:
            self.notify(marked("the sketch is complete: nothing to ask"))
            return
        try:
            strategy = self.navigation.model()
        except UserError as exc:
            self.notify(marked(str(exc)), title="the model is not configured", severity="error", timeout=12)
            return
        self.notify(marked(f"asking {strategy.config.model} about ?{self.hole}…"), timeout=3)
        self._ask(strategy, self.hole)

    @work(thread=True, exclusive=True, group="model")
    def _ask(self, strategy, hole: int) -> None:
        worker = get_current_worker()
        try:
            proposals, sketch = self.navigation.propose(strategy, hole, "hole")
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._failed, "the model", exc)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._show_proposals, strategy, proposals, sketch)

    def _show_proposals(self, strategy, proposals, sketch) -> None:
        def answer(index: int | None) -> None:
            if index is not None and self._act(lambda: self.navigation.accept(strategy, proposals, sketch, index)):
                self.notify("the model's plan was taken" if index >= 0 else "the heuristic's plan was taken")

        self.push_screen(ProposalsScreen(proposals), answer)

    def action_export(self) -> None:
        nav = self.navigation
        name = nav.workspace.path.parent.parent / "schedule"

        def write(choice) -> None:
            if choice is None:
                return
            json_path, python_path, fill = choice
            try:
                written = nav.export(json_path, python_path, fill)
            except UserError as exc:
                self.notify(marked(str(exc)), severity="error", timeout=10)
                return
            self.notify(marked("wrote " + ", ".join(written)))

        self.push_screen(ExportDialog(nav.session.sketch.complete, f"{name}.json", f"{name}.py"), write)

    def action_evaluate(self) -> None:
        if self.navigation.workspace.is_problem:
            self.query_one("#evaluation", Static).update("a Honeybee problem: no simulator")
            return
        self.query_one("#evaluation", Static).update("evaluating… (the simulator runs in the background)")
        self._evaluate(self.navigation.session.sketch)

    @work(thread=True, exclusive=True, group="evaluation")
    def _evaluate(self, sketch) -> None:
        worker = get_current_worker()
        try:
            result = self.navigation.evaluate(cancelled=lambda: worker.is_cancelled)
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._failed, "evaluation", exc)
            return
        if not worker.is_cancelled and sketch == self.navigation.session.sketch:
            self.call_from_thread(self._show_evaluation, result)

    def _show_evaluation(self, result) -> None:
        lines = [f"{result.cycles:,.0f} cycles"
                 + (f" · {result.speedup:.2f}x over unfused defaults ({result.unfused_cycles:,.0f})"
                    if result.speedup else "")
                 + (f" · {result.completed_with_defaults} open hole(s) at their defaults"
                    if result.completed_with_defaults else ""),
                 f"{result.flops:.3g} FLOPs · {result.bytes:.3g} bytes · intensity {result.intensity:.3g} · "
                 f"{result.roofline} · check {result.check}"]
        largest = max((cycles for _, cycles in result.regions), default=0.0) or 1.0
        for ops, cycles in result.regions[:6]:
            bar = "█" * max(1, round(BAR_WIDTH * cycles / largest))
            lines.append(f"{bar:<{BAR_WIDTH}} {cycles:>12,.0f}  {ops}")
        if len(result.regions) > 6:
            lines.append(f"… and {len(result.regions) - 6} more regions")
        self.query_one("#evaluation", Static).update(block("\n".join(lines)))

    @work(thread=True, exclusive=True, group="hints")
    def _compute_hints(self, hole: int, sketch) -> None:
        worker = get_current_worker()
        try:
            hints = self.navigation.hints(hole)
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._failed, "cost hints", exc)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._hints_ready, hole, sketch, hints)

    def _hints_ready(self, hole: int, sketch, hints) -> None:
        if hole == self.hole and sketch == self.navigation.session.sketch:
            self.hints, self.hints_for = hints, (hole, sketch)
            cursor = self.query_one("#menu", DataTable).cursor_row
            self._show_menu()
            self.query_one("#menu", DataTable).move_cursor(row=cursor)

