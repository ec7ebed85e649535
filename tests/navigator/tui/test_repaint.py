"""What a step repaints: the panes keep still what has not changed, the evaluation keeps the
figures before a step (and its height) until the new ones arrive, a failed evaluation says so,
and the background work starts once the step is on the screen."""

from __future__ import annotations

import threading

from textual.app import App, ComposeResult

from navigator.tui.controller import Navigation
from navigator.tui.widgets.evaluation_pane import RUNNING, EvaluationPane
from navigator.tui.widgets.text_box import TextBox
from tests.navigator.tui.test_pilot import SIZE, gcn_app, press, run, settle


class _OneBox(App):
    def compose(self) -> ComposeResult:
        yield TextBox("first", id="box")


def test_a_text_box_repaints_only_when_its_text_changes():
    async def scenario():
        app = _OneBox()
        async with app.run_test() as pilot:
            box = app.query_one(TextBox)
            updates: list[object] = []
            update = box.update
            box.update = lambda text, **kwargs: (updates.append(text), update(text, **kwargs))
            assert box.set_text("first") is False and updates == []
            assert box.set_text("second") is True and updates == ["second"]
            assert box.set_text("second") is False and updates == ["second"]
            await pilot.pause()
            assert str(box.render()) == "second"

    run(scenario())


def test_a_step_keeps_the_previous_figures_and_the_panes_height_until_the_new_ones_arrive(here, monkeypatch):
    gate = threading.Event()
    evaluate = Navigation.evaluate

    def held_back(self, **kwargs):
        gate.wait(30)
        return evaluate(self, **kwargs)

    async def scenario():
        app = gcn_app(evaluate=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            pane = app.query_one(EvaluationPane)
            before, height = pane.text, pane.region.height
            monkeypatch.setattr(Navigation, "evaluate", held_back)
            await pilot.press("enter")
            for _ in range(5):
                await pilot.pause()
            assert pane.border_subtitle == RUNNING
            assert pane.text == before                                  # the figures as they were
            assert all(span.style == "dim" for span in pane.query_one("#evaluation-totals", TextBox).shown.spans)
            assert pane.region.height == height
            gate.set()
            await settle(pilot)
            assert not pane.border_subtitle and "sim. cycles in" in pane.text
            assert not pane.query_one("#evaluation-totals", TextBox).shown.spans     # its own figures
            await press(pilot, "q")

    try:
        run(scenario())
    finally:
        gate.set()


def test_a_failed_evaluation_says_so_in_its_pane(here, monkeypatch):
    def broken(self, **kwargs):
        raise RuntimeError("the simulator fell over")

    async def scenario():
        app = gcn_app(evaluate=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            monkeypatch.setattr(Navigation, "evaluate", broken)
            await press(pilot, "enter")
            pane = app.query_one(EvaluationPane)
            assert pane.text.startswith("evaluation failed"), pane.text
            await press(pilot, "q")

    run(scenario())


def test_the_background_work_of_a_step_starts_once_the_step_is_painted(here):
    async def scenario():
        app = gcn_app(evaluate=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            started: list[tuple[str, int]] = []
            frames = [0]
            display = app._display

            def counted(screen, renderable) -> None:
                frames[0] += 1
                display(screen, renderable)

            app._display = counted
            for name in ("_evaluate", "_compute_hints"):
                worker = getattr(app, name)

                def recorded(*args, _worker=worker, _name=name):
                    started.append((_name, frames[0]))
                    return _worker(*args)

                setattr(app, name, recorded)
            shown = frames[0]
            await pilot.press("enter")            # the menu's enter: the step, told to the app at once
            await settle(pilot)
            assert len(app.navigation.session.steps) == 1
            assert started and all(frame > shown for _, frame in started), (shown, started)
            assert {name for name, _ in started} >= {"_evaluate", "_compute_hints"}
            await press(pilot, "q")

    run(scenario())


def test_enter_on_the_menu_takes_the_highlighted_option(here):
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            menu = app.query_one("#menu")
            await press(pilot, "down")
            wanted = menu.highlighted_option()
            await press(pilot, "enter")
            step = app.navigation.session.steps[0]
            assert (step.hole, step.option) == (0, wanted)
            await press(pilot, "q")

    run(scenario())

