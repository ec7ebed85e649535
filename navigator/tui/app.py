"""The Textual application: sketch, menu, details, evaluation and history on one screen.

Every decision and figure comes from `navigator.tui.controller.Navigation`; the panes
(`navigator.tui.widgets`) render it and post what the user picked, and this app composes them,
runs the actions and runs the slow work (cost hints, evaluation, strategies, the model) in
thread workers. A worker of a kind replaces the one running (exclusive groups), and a result
that arrives for a sketch that has changed since is dropped.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterable

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Header, Input
from textual.worker import get_current_worker

from fuseflow.support.errors import UserError, one_line
from navigator.tui.controller import Navigation
from navigator.tui.keys import APP_BINDINGS, NEEDS_A_HOLE, action_name
from navigator.tui.palette import key_commands
from navigator.tui.safe_text import marked
from navigator.tui.terminal_app import TerminalApp
from navigator.tui.wording import for_screen
from navigator.tui.screens import AutoDialog, ConfirmDialog, ExportDialog, GoToDialog, HelpScreen, ProposalsScreen
from navigator.tui.widgets.details_pane import DetailsPane
from navigator.tui.widgets.evaluation_pane import EvaluationPane
from navigator.tui.widgets.history_pane import HistoryPane
from navigator.tui.widgets.menu_pane import MenuFilter, MenuPane
from navigator.tui.widgets.sketch_pane import SketchFilter, SketchPane
from navigator.tui.widgets.status_line import StatusLine


#: the actions of the keys that act on an open hole
HOLE_ACTIONS = frozenset(action_name(command) for command in NEEDS_A_HOLE)


class NavigatorApp(TerminalApp):
    TITLE = "Navigator"
    CSS_PATH = "navigator.tcss"
    BINDINGS = APP_BINDINGS

    def __init__(self, navigation: Navigation, note: str | None = None, *, evaluate: bool = True):
        super().__init__()
        self.navigation = navigation
        self.note = note
        self.auto_evaluate = evaluate
        self.hole: int | None = None
        self.sub_title = one_line(navigation.title)
        #: worker group -> (what runs, when it started, its latest progress note)
        self._work_running: dict[str, tuple[str, float, str]] = {}
        #: whether the footer was last drawn for a complete sketch (its hole keys dimmed)
        self._footer_complete = False
        self._work_ticker = None

    # ---- layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield SketchFilter(id="sketch-filter")
                yield SketchPane(id="sketch")
                yield HistoryPane(id="history")
            with Vertical(id="right"):
                yield MenuFilter(id="filter")
                yield MenuPane(id="menu")
                yield DetailsPane(id="details")
                yield EvaluationPane(id="evaluation")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self.note:
            self.notify(marked(self.note), title="Navigator")
        self.refresh_all()
        self.query_one(MenuPane).focus()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own but Quit, Maximize and Minimize: the keys' entries run them (q saves the session)
        yield from (command for command in super().get_system_commands(screen)
                    if command.title not in ("Quit", "Maximize", "Minimize"))
        yield from key_commands(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys that act on an open hole are dimmed (and idle) once the sketch is complete."""
        if action in HOLE_ACTIONS and self.hole is None:
            return None
        return True

    # ---- showing the state

    def refresh_all(self) -> None:
        nav = self.navigation
        holes = nav.open_holes()
        if self.hole not in holes:
            self.hole = holes[0] if holes else None
        self.query_one(SketchPane).show(nav, self.hole)
        self._show_menu()
        self.query_one(HistoryPane).show(nav.history())
        self._set_status()
        if self.auto_evaluate:
            self.action_evaluate()

    def _set_status(self) -> None:
        try:
            self._show_status()
        except NoMatches:   # a timer or worker that ends while the app quits: the panes are gone
            return

    def _show_status(self) -> None:
        if (self.hole is None) != self._footer_complete:   # the footer follows the state (check_action)
            self._footer_complete = self.hole is None
            self.refresh_bindings()
        menu = self.query_one(MenuPane)
        self.query_one(StatusLine).show(self.hole, self.navigation.status(), menu.sorted_by, menu.filter_text,
                                        self.workers, self._work_running)

    def _show_menu(self) -> None:
        """The selected hole's menu (its cost hints asked for if they are not there yet) and details."""
        menu = self.query_one(MenuPane)
        sketch = self.navigation.session.sketch
        if self.hole is not None and menu.wants_hints(self.hole, sketch):
            self._after_paint(self._compute_hints, self.hole, sketch)
        menu.show(self.navigation, self.hole)
        self._show_details()
        self._mark_region()

    def _mark_region(self) -> None:
        """The evaluation marks the selected hole's region."""
        self.query_one(EvaluationPane).mark_region(self.query_one(SketchPane).hole_regions.get(self.hole))

    def _show_details(self) -> None:
        self.query_one(DetailsPane).show(self.navigation, self.hole, self.query_one(MenuPane).highlighted_option())

    # ---- what the panes say

    # A pane's message describes the state it was showing; a step (a key, a strategy's or the
    # model's result) may have changed it before the message is handled, so every selection
    # is checked against the state now and a stale one is ignored, saying so.

    def _stale(self, what: str) -> None:
        self.notify(marked(f"{what}: the selection was ignored"), severity="warning", timeout=4)

    @on(SketchPane.HoleSelected)
    def _hole_selected(self, event: SketchPane.HoleSelected) -> None:
        if event.hole not in self.navigation.open_holes():
            self._stale(f"?{event.hole} is filled already")
            self.refresh_all()
            return
        self.hole = event.hole
        self._show_menu()
        self._set_status()
        self.query_one(MenuPane).focus()

    @on(SketchPane.FilledSelected)
    def _filled_selected(self, event: SketchPane.FilledSelected) -> None:
        step = event.step
        if not 1 <= step <= len(self.navigation.session.steps):
            self._stale(f"step {step} is no longer taken")
            self.refresh_all()
            return
        question, back_to = self.navigation.reopen_question(step)
        taken = self.navigation.session.steps[step - 1]

        def answer(yes: bool | None) -> None:
            steps = self.navigation.session.steps
            if yes and len(steps) >= step and steps[step - 1] == taken:   # unchanged while asked
                self._act(lambda: self.navigation.go_to(back_to))

        self.push_screen(ConfirmDialog(question), answer)

    @on(Input.Changed, "#sketch-filter")
    def _sketch_filter_changed(self, event: Input.Changed) -> None:
        self.query_one(SketchPane).filter_text = event.value
        self.query_one(SketchPane).show(self.navigation, self.hole)

    @on(Input.Submitted, "#sketch-filter")
    def _sketch_filter_done(self, event: Input.Submitted) -> None:
        self.query_one(SketchPane).focus()

    @on(MenuPane.OptionHighlighted)
    def _option_highlighted(self, event: MenuPane.OptionHighlighted) -> None:
        self._show_details()

    @on(MenuPane.OptionChosen)
    def _option_chosen(self, event: MenuPane.OptionChosen) -> None:
        self._choose(event.hole, event.option_id)

    def _choose(self, hole: int | None, option_id: str | None) -> None:
        """Take `option_id` of `hole` if the hole is still open and still offers it."""
        if hole is None or option_id is None:
            return
        if hole not in self.navigation.open_holes():
            self._stale(f"?{hole} is filled already")
            return
        if all(row.id != option_id for row in self.navigation.options(hole)):
            self._stale(f"?{hole} no longer offers that option")
            return
        self._act(lambda: self.navigation.choose(hole, option_id))

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(MenuPane).filter_text = event.value
        self._show_menu()
        self._set_status()

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self.query_one(MenuPane).focus()

    @on(HistoryPane.StepSelected)
    def _step_selected(self, event: HistoryPane.StepSelected) -> None:
        if not self._history_shows(event.row):
            return
        number = event.row.number
        session = self.navigation.session
        taken, end = len(session.steps), session.forced_end(number)
        if end == taken:
            self.notify("that is the last step taken (with its forced steps): nothing to undo or redo")
            return
        forced = f" (and the {end - number} forced step(s) it caused)" if end > number else ""
        question = (f"Undo the {taken - end} step(s) after step {number}{forced}? (redo brings them back)"
                    if end < taken else f"Redo up to step {number}{forced}: {end - taken} step(s)?")

        def answer(yes: bool | None) -> None:
            if yes and self._history_shows(event.row):  # the history may have moved while asked
                self._act(lambda: self.navigation.go_to(number))

        self.push_screen(ConfirmDialog(question), answer)

    def _history_shows(self, row) -> bool:
        """Whether step `row.number` of the history is still the step that was selected."""
        rows = self.navigation.history()
        if not 1 <= row.number <= len(rows) or rows[row.number - 1] != row:
            self._stale(f"the history has changed since step {row.number} was selected")
            self.refresh_all()
            return False
        return True

    def on_worker_state_changed(self, event) -> None:
        """Say what runs in the background (the interface never waits for it)."""
        self._set_status()

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

    def _failed(self, what: str, exc: Exception) -> None:
        text = for_screen(str(exc)) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
        self.notify(marked(f"{what}: {text}" if what else text), severity="error", timeout=10)

    def action_choose(self) -> None:
        self._choose(self.hole, self.query_one(MenuPane).highlighted_option())

    def action_default(self) -> None:
        hole = self.hole
        if hole is None:
            return
        if hole not in self.navigation.open_holes():
            self._stale(f"?{hole} is filled already")
            self.refresh_all()
            return
        self._act(lambda: self.navigation.take_default(hole))

    def action_undo(self) -> None:
        self._act(self.navigation.undo)

    def action_redo(self) -> None:
        self._act(self.navigation.redo)

    def action_filter(self) -> None:
        self.query_one(MenuFilter).open()

    def action_clear_filter(self) -> None:
        sketch_box, sketch = self.query_one(SketchFilter), self.query_one(SketchPane)
        if (sketch_box.is_open or sketch.filter_text) and (sketch_box.has_focus or sketch.has_focus):
            sketch_box.close()
            sketch.filter_text = ""
            sketch.show(self.navigation, self.hole)
            sketch.focus()
            return
        box, menu = self.query_one(MenuFilter), self.query_one(MenuPane)
        if box.is_open or menu.filter_text:
            box.close()
            menu.filter_text = ""
            self._show_menu()
            self._set_status()
            menu.focus()

    def action_sort(self) -> None:
        self.query_one(MenuPane).cycle_sort()
        self._show_menu()
        self._set_status()

    def action_filter_sketch(self) -> None:
        self.query_one(SketchFilter).open()

    def _select_hole(self, hole: int) -> None:
        self.hole = hole
        self.query_one(SketchPane).show(self.navigation, hole)
        self._show_menu()
        self._set_status()

    def _hole_step(self, step: int) -> None:
        holes = self.navigation.open_holes_in_order()
        if not holes:
            self.notify("the sketch is complete: no open hole")
            return
        index = holes.index(self.hole) + step if self.hole in holes else 0
        self._select_hole(holes[index % len(holes)])

    def action_next_hole(self) -> None:
        self._hole_step(1)

    def action_previous_hole(self) -> None:
        self._hole_step(-1)

    def _region_step(self, step: int) -> None:
        sketch = self.query_one(SketchPane)
        found = sketch.region_step(step)
        if found is None:
            self.notify("no " + ("next" if step > 0 else "previous") + " region in the sketch")
            return
        index, hole = found
        if hole is not None:
            self._select_hole(hole)   # draws the sketch again: the region is found by its index
        sketch.move_to_region(index)
        sketch.focus()

    def action_next_region(self) -> None:
        self._region_step(1)

    def action_previous_region(self) -> None:
        self._region_step(-1)

    def action_go_to_hole(self) -> None:
        def go(hole: int | None) -> None:
            if hole is None:
                return
            if hole in self.navigation.open_holes():
                self._select_hole(hole)
                self.query_one(MenuPane).focus()
            elif hole < 0:
                self.notify("type a hole's number, e.g. 12 or ?12", severity="warning")
            else:
                self.notify(marked(f"?{hole} is not an open hole (open: {self.navigation.open_holes_text()})"),
                            severity="warning")

        self.push_screen(GoToDialog(), go)

    def action_history(self) -> None:
        self.query_one(HistoryPane).focus()

    def action_focus_sketch(self) -> None:
        self.query_one(SketchPane).focus()

    def action_focus_menu(self) -> None:
        self.query_one(MenuPane).focus()

    def action_focus_details(self) -> None:
        self.query_one(DetailsPane).focus()

    def action_focus_evaluation(self) -> None:
        self.query_one(EvaluationPane).focus()

    def action_focus_history(self) -> None:
        self.query_one(HistoryPane).focus()

    def action_maximize(self) -> None:
        """The focused pane over the whole screen, or back to the layout."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif self.focused is not None and not screen.maximize(self.focused):
            self.notify("this pane cannot be maximized", severity="warning")

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_cancel(self) -> None:
        """Cancel the running evaluation, simulations, strategy and model request (their results are dropped)."""
        running = [w for w in self.workers
                   if w.group in ("evaluation", "simulation", "strategy", "model") and not w.is_finished]
        for worker in running:
            worker.cancel()
        self.notify("cancelled: " + ", ".join(sorted({w.group for w in running})) if running else "nothing is running")
        if any(w.group == "evaluation" for w in running):
            self.query_one(EvaluationPane).show_cancelled()
        if any(w.group == "simulation" for w in running):
            self.query_one(MenuPane).simulation_cancelled()
            self._show_menu()

    def action_simulate(self) -> None:
        """Simulate the options of the selected hole in the background: the menu's sim. column."""
        if self.hole is None:
            self.notify(marked("the sketch is complete: no options to simulate"))
            return
        if not self.navigation.can_evaluate:
            self.notify(marked(f"a {self.navigation.kind_label} has no simulator"), severity="warning")
            return
        hole, sketch = self.hole, self.navigation.session.sketch
        try:
            order = self.navigation.simulation_order(hole)
        except Exception as exc:  # noqa: BLE001
            self._failed("simulation", exc)
            return
        self.query_one(MenuPane).simulating(hole, sketch, order)
        self._show_menu()
        self._simulate(hole, sketch)

    def action_auto(self) -> None:
        if self.hole is None:
            self.notify(marked("the sketch is complete: nothing to fill"))
            return
        hole = self.hole

        def run(choice) -> None:
            if choice is None:
                return
            if hole not in self.navigation.open_holes():  # filled while the dialog was open
                self._stale(f"?{hole} is filled already")
                return
            strategy, scope, options = choice
            if strategy == "llm":
                self._ask_model(hole, scope, **options)
                return
            if strategy == "default" and scope == "hole":
                self._act(lambda: self.navigation.take_default(hole))
                return
            self.notify(marked(f"{strategy} is filling ?{hole} ({scope})…"), timeout=3)
            self._begin("strategy", strategy)
            self._plan(hole, strategy, scope, options)

        self.push_screen(AutoDialog(hole), run)

    def action_model(self) -> None:
        if self.hole is None:
            self.notify(marked("the sketch is complete: nothing to ask"))
            return
        self._ask_model(self.hole, "hole")

    def _ask_model(self, hole: int, scope: str, **options) -> None:
        def progress(line: str) -> None:
            self.call_from_thread(self._note_progress, "model", line)

        try:
            strategy = self.navigation.model(progress=progress, **options)
        except UserError as exc:
            self.notify(marked(for_screen(str(exc))), title="the model is not configured", severity="error",
                        timeout=12)
            return
        self.notify(marked(f"asking {strategy.config.model} about ?{hole} ({scope})…"), timeout=3)
        self._begin("model", strategy.config.model)
        self._ask(strategy, hole, scope)

    # ---- progress of the long work: what runs, for how long, and where it is

    def _begin(self, group: str, what: str) -> None:
        self._work_running[group] = (what, time.monotonic(), "")
        if self._work_ticker is None:
            self._work_ticker = self.set_interval(0.25, self._tick)

    def _note_progress(self, group: str, note: str) -> None:
        if group in self._work_running:
            what, started, _ = self._work_running[group]
            self._work_running[group] = (what, started, note)
            self._set_status()

    def _tick(self) -> None:
        busy = {w.group for w in self.workers if not w.is_finished}
        for group in [g for g in self._work_running if g not in busy]:
            del self._work_running[group]
        if not self._work_running and self._work_ticker is not None:
            self._work_ticker.stop()
            self._work_ticker = None
        self._set_status()

    def action_export(self) -> None:
        nav = self.navigation
        name = nav.export_stem

        def write(json_path, python_path, fill) -> None:
            try:
                written = nav.export(json_path, python_path, fill)
            except UserError as exc:
                self.notify(marked(for_screen(str(exc))), severity="error", timeout=10)
                return
            self.notify(marked("wrote " + ", ".join(written)))

        def chosen(choice) -> None:
            if choice is None:
                return
            there = [path for path in choice[:2] if path and Path(path).exists()]
            if not there:
                write(*choice)
                return
            question = f"{' and '.join(there)} already exist{'s' * (len(there) == 1)}. Overwrite?"
            self.push_screen(ConfirmDialog(question), lambda yes: write(*choice) if yes else
                             self.notify("nothing was written"))

        self.push_screen(ExportDialog(nav.session.sketch.complete, f"{name}.json", f"{name}.py"), chosen)

    def action_evaluate(self) -> None:
        evaluation = self.query_one(EvaluationPane)
        if not self.navigation.can_evaluate:
            evaluation.show_no_simulator(self.navigation.kind_label)
            return
        evaluation.show_running()
        self._after_paint(self._evaluate, self.navigation.session.sketch)

    # ---- the slow work, in workers; each hands its result back on the app's thread

    def _after_paint(self, start_worker, *args) -> None:
        """Start a worker once the screen shows the change that asked for it: a worker thread
        shares the interpreter with the painting, which would otherwise wait for it."""
        self.call_after_refresh(start_worker, *args)

    @work(thread=True, exclusive=True, group="strategy")
    def _plan(self, hole: int, strategy: str, scope: str, options: dict | None = None) -> None:
        worker = get_current_worker()
        try:
            planned = self.navigation.plan(hole, strategy, scope, **(options or {}))
        except Exception as exc:  # noqa: BLE001 - any failure is shown, never a crash
            self.call_from_thread(self._failed, f"{strategy}", exc)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._take, planned)

    def _take(self, planned) -> None:
        if self._act(lambda: self.navigation.take(planned)):
            self.notify(marked(f"filled by {planned.strategy.name}: {planned.plan.rationale}"), timeout=6)

    @work(thread=True, exclusive=True, group="model")
    def _ask(self, strategy, hole: int, scope: str = "hole") -> None:
        worker = get_current_worker()
        try:
            proposals, sketch = self.navigation.propose(strategy, hole, scope)
            preview = self.navigation.fallback_preview(proposals, sketch) if proposals.fallback is not None else None
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._failed, "the model", exc)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._show_proposals, strategy, proposals, sketch, preview)

    def _show_proposals(self, strategy, proposals, sketch, preview: str | None = None) -> None:
        def answer(index: int | None) -> None:
            if index is not None and self._act(lambda: self.navigation.accept(strategy, proposals, sketch, index)):
                self.notify("the model's plan was taken" if index >= 0 else "the heuristic's plan was taken")

        self.push_screen(ProposalsScreen(proposals, preview), answer)

    @work(thread=True, exclusive=True, group="evaluation")
    def _evaluate(self, sketch) -> None:
        worker = get_current_worker()
        try:
            result = self.navigation.evaluate(cancelled=lambda: worker.is_cancelled)
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._evaluation_failed, sketch, exc)
            return
        if not worker.is_cancelled and sketch == self.navigation.session.sketch:
            self.call_from_thread(self._evaluated, result)

    def _evaluation_failed(self, sketch, exc: Exception) -> None:
        self._failed("evaluation", exc)
        if sketch == self.navigation.session.sketch:
            self.query_one(EvaluationPane).show_failed()

    def _evaluated(self, result) -> None:
        self.query_one(EvaluationPane).show_result(result)

    @work(thread=True, exclusive=True, group="simulation")
    def _simulate(self, hole: int, sketch) -> None:
        worker = get_current_worker()

        def arrived(entry) -> None:
            if not worker.is_cancelled:
                self.call_from_thread(self._simulated, hole, sketch, entry)

        try:
            self.navigation.simulate_options(hole, cancelled=lambda: worker.is_cancelled, progress=arrived)
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self._failed, "simulation", exc)

    def _simulated(self, hole: int, sketch, entry) -> None:
        from navigator.present.views import simulated_cell

        menu = self.query_one(MenuPane)
        menu.simulated_arrived(hole, sketch, entry.option, simulated_cell(entry))
        if hole == self.hole and sketch == self.navigation.session.sketch:
            cursor = menu.cursor_row
            self._show_menu()
            menu.move_cursor(row=cursor)

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
            menu = self.query_one(MenuPane)
            menu.hints_arrived(hole, sketch, hints)
            cursor = menu.cursor_row
            self._show_menu()
            menu.move_cursor(row=cursor)
