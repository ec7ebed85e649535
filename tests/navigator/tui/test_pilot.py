"""The TUI driven by keys alone (Textual's Pilot): gcn from ?0 to an exported schedule with one
hole filled by `heuristic` and one by the model (served from 127.0.0.1), a Honeybee problem to
completion, sessions moving between the CLI and the TUI, and errors shown, never raised."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from harness.llm_server import Behaviour
from navigator.workspace import ProgramSpec
from navigator.tui.app import NavigatorApp
from navigator.tui.controller import Navigation
from navigator.tui.screens import AutoDialog, ExportDialog, HelpScreen, ProposalsScreen
from tests.navigator.llm.conftest import SECRET, files_holding
from tests.paths import HARNESS_DATA

SESSION = Path(".navigator/session.json")
SIZE = (100, 30)


def gcn_app(evaluate: bool = False) -> NavigatorApp:
    navigation, note = Navigation.open(SESSION, ProgramSpec.from_user("gcn", None, {}, None))
    return NavigatorApp(navigation, note, evaluate=evaluate)


async def settle(pilot) -> None:
    """Wait for the workers (hints, evaluation, strategies, the model) and the repaint."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def run(coroutine):
    return asyncio.run(coroutine)


def test_gcn_by_keys_to_an_exported_schedule(here, model):
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            nav = app.navigation
            await settle(pilot)
            await press(pilot, "enter")                      # ?0: schedule
            await press(pilot, "enter")                      # ?1: fuse region by region
            hole = app.hole
            await press(pilot, "l")                          # ask the model about the region hole
            assert isinstance(app.screen, ProposalsScreen), app.screen
            await press(pilot, "enter")                      # take its best plan
            assert nav.session.steps[-1].by == "strategy:llm" or any(
                s.by == "strategy:llm" for s in nav.session.steps)
            assert not nav.session.sketch.has_hole(hole)
            await press(pilot, "a")                          # auto: heuristic, this hole
            assert isinstance(app.screen, AutoDialog)
            await press(pilot, "enter")
            assert any(s.by == "strategy:heuristic" for s in nav.session.steps)
            for _ in range(200):                             # the rest by default
                if nav.session.sketch.complete:
                    break
                await pilot.press("d")
                await pilot.pause()
            assert nav.session.sketch.complete
            await press(pilot, "e")
            assert isinstance(app.screen, ExportDialog)
            await press(pilot, "enter")
            await press(pilot, "q")
        return app

    app = run(scenario())
    exported = here / "schedule.json"
    assert exported.is_file() and (here / "schedule.py").is_file()
    from navigator.cli import main

    assert main(["validate", str(exported), "--program", "gcn"]) == 0  # the validator accepts it
    # the session on disk is the TUI's, with every step's provenance
    saved = json.loads((here / SESSION).read_text())
    assert len(saved["steps"]) == len(app.navigation.session.steps)
    assert files_holding(here, SECRET) == []


def test_export_asks_before_overwriting_and_refuses_the_session_file(here):
    from navigator.tui.screens.confirm_dialog import ConfirmDialog

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "down", "enter")               # default_schedule: complete at once
            assert app.navigation.session.sketch.complete
            await press(pilot, "e", "enter")                  # written
            exported = here / "schedule.json"
            first = exported.stat().st_mtime_ns
            exported.write_text("mine")
            await press(pilot, "e", "enter")                  # exists: asked
            assert isinstance(app.screen, ConfirmDialog)
            assert "schedule.json and" in str(app.screen.query_one("#question").render())
            await press(pilot, "n")
            assert exported.read_text() == "mine"
            await press(pilot, "e", "enter", "y")
            assert exported.read_text() != "mine" and exported.stat().st_mtime_ns != first
            await press(pilot, "e")
            app.screen.query_one("#json").value = str(here / SESSION)
            app.screen.query_one("#python").value = ""
            await press(pilot, "enter", "y")
            assert any("session" in n.message and n.severity == "error" for n in app._notifications)
            assert json.loads((here / SESSION).read_text())["steps"]
            await press(pilot, "q")

    run(scenario())


def test_the_auto_dialog_takes_options_at_the_cli_defaults_and_speaks_the_screens_words(here):
    from navigator.auto.exhaustive import DEFAULT_LIMIT
    from navigator.auto.simulation import DEFAULT_BUDGET

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "a")
            dialog = app.screen
            assert isinstance(dialog, AutoDialog)
            strategies = dialog.query_one("#strategy")
            strategies._nodes[1].value = True                 # beam: budget and jobs at the CLI's defaults
            await settle(pilot)
            assert dialog.query_one("#budget").value == str(DEFAULT_BUDGET) and dialog.query_one("#jobs").value == "1"
            assert dialog.query_one("#limit").disabled
            dialog.query_one("#budget").value = "0"
            await press(pilot, "enter")                       # refused in the dialog, which stays
            assert app.screen is dialog and "budget" in str(dialog.query_one("#problem").render())
            strategies._nodes[3].value = True                 # exhaustive: its limit
            await settle(pilot)
            assert dialog.query_one("#limit").value == str(DEFAULT_LIMIT) and dialog.query_one("#budget").disabled
            dialog.query_one("#scope")._nodes[2].value = True  # all: far more completions than the limit
            await press(pilot, "enter")
            errors = [n.message for n in app._notifications if n.severity == "error"]
            assert errors and "more than the limit 10,000" in errors[-1] and "--" not in errors[-1]
            await press(pilot, "q")

    run(scenario())


def test_the_model_from_the_auto_dialog_shows_its_round_and_time_then_its_plans(here, model):
    from harness.fake_model import best_answer
    from harness.llm_server import Behaviour
    from navigator.tui.widgets.status_line import StatusLine

    model.responder = lambda request: Behaviour(content=best_answer(request), delay=1.0)

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            await press(pilot, "enter", "enter")              # schedule, then region by region
            hole = app.hole
            await press(pilot, "a")
            app.screen.query_one("#strategy")._nodes[5].value = True   # the model
            await pilot.pause()
            await pilot.press("enter")
            for _ in range(40):                               # while it waits for the model
                await pilot.pause(0.05)
                status = str(app.query_one(StatusLine).render())
                if "round 1 of" in status:
                    break
            assert "asking the model fake (question 1, round 1 of" in status and " s " in status
            await settle(pilot)
            assert isinstance(app.screen, ProposalsScreen)
            shown = " ".join(str(widget.render()) for widget in app.screen.query("Static"))
            assert "chose ?" in shown and ":= " in shown              # the options by name, not the prompt's ids
            await press(pilot, "enter")
            assert not app.navigation.session.sketch.has_hole(hole)
            await press(pilot, "q")

    run(scenario())


def test_when_the_model_cannot_help_the_fallback_plan_is_shown_with_its_figures(here, model):
    from harness.llm_server import Behaviour

    model.responder = lambda request: Behaviour(content="this is not a plan")

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            await press(pilot, "enter", "enter", "l")
            screen = app.screen
            assert isinstance(screen, ProposalsScreen) and screen.proposals.fallback is not None
            preview = str(screen.query_one("#preview").render())
            assert "the heuristic's plan" in preview and ":=" in preview
            assert "est. " in preview and "sim. " in preview
            await press(pilot, "enter")
            assert any(s.by == "strategy:heuristic" for s in app.navigation.session.steps)
            await press(pilot, "q")

    run(scenario())


def test_honeybee_problem_to_completion(here):
    for name in ("sched.hb.toml", "sched.hblib.toml"):
        shutil.copy(HARNESS_DATA / name, here / name)

    async def scenario():
        navigation, _ = Navigation.open(SESSION, ProgramSpec.from_user("sched.hb.toml", None, {}, "sched.hblib.toml"))
        app = NavigatorApp(navigation)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for _ in range(100):
                if navigation.session.sketch.complete:
                    break
                await press(pilot, "enter")
            assert navigation.session.sketch.complete
            assert navigation.export("expression.json", None, False) == ["expression.json"]
            await press(pilot, "q")

    run(scenario())
    from navigator.cli import main

    exported = json.loads((here / "expression.json").read_text())
    assert main(["export", "--json", "cli.json"]) == 0  # the same expression as the CLI exports
    assert json.loads((here / "cli.json").read_text()) == exported


def test_a_cli_session_resumes_in_the_tui_and_back(here, cli_in):
    cli_in("start", "gcn")
    cli_in("fill", "?0", "1")
    cli_in("fill", "?1", "1")

    async def tui_steps():
        navigation, note = Navigation.open(SESSION)
        assert note.startswith("resumed gcn")
        app = NavigatorApp(navigation, note)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert len(navigation.session.steps) == 2
            await press(pilot, "d", "d", "u", "r")
            await press(pilot, "q")
        return [(s.hole, s.option, s.by) for s in navigation.session.steps]

    in_tui = run(tui_steps())
    history = json.loads(cli_in("history", "--json"))["steps"]
    assert [(s["hole"], s["option"], s["by"]) for s in history] == in_tui
    cli_in("undo")
    remaining = json.loads(cli_in("history", "--json"))["steps"]

    async def reopened():
        navigation, _ = Navigation.open(SESSION)
        app = NavigatorApp(navigation)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "q")
        return [(s.hole, s.option, s.by) for s in navigation.session.steps]

    assert run(reopened()) == [(s["hole"], s["option"], s["by"]) for s in remaining]


def test_errors_are_notifications_not_crashes(here, llm_server):  # noqa: F811
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "l")                          # no model configured
            assert any("no model is configured" in n.message for n in app._notifications)
            await press(pilot, "u")                          # nothing to undo
            await press(pilot, "question_mark")
            assert isinstance(app.screen, HelpScreen)
            shown = " ".join(str(w.render()) for w in app.screen.query("Static"))
            for word in ("est.", "sim.", "completions", "unfused_default_orders"):
                assert word in shown
            await press(pilot, "escape")
            await press(pilot, "slash", "z", "z", "z")       # a filter that matches nothing
            assert app.query_one("#menu").row_count == 0
            await press(pilot, "enter", "escape")
            await press(pilot, "q")
        return app

    run(scenario())


def test_an_unreachable_or_failing_model_is_shown(here, model):
    model.responder = lambda request: Behaviour(status=401)

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "l")
            assert any("OPENAI_API_KEY" in n.message for n in app._notifications)
            assert not isinstance(app.screen, ProposalsScreen)
            assert len(app.navigation.session.steps) == 0
            await press(pilot, "q")

    run(scenario())


def test_works_at_80x24_and_without_colour(here, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def scenario():
        app = gcn_app(evaluate=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.no_color
            assert app.query_one("#menu").row_count == 2
            await press(pilot, "enter", "enter")
            assert "evaluating" not in app.query_one("#evaluation").text
            await press(pilot, "q")

    run(scenario())


def test_history_undoes_and_redoes_to_any_step(here):
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            nav = app.navigation
            await settle(pilot)
            await press(pilot, "enter", "enter", "d", "d")
            taken = len(nav.session.steps)
            assert taken >= 4
            await press(pilot, "h")                          # the history, at its last step
            history = app.query_one("#history")
            assert history.has_focus and history.highlighted == taken - 1
            history.highlighted = 0                          # step 1
            await press(pilot, "enter", "y")
            assert len(nav.session.steps) == 1 and len(nav.session.redo_steps) == taken - 1
            history.focus()
            history.highlighted = history.option_count - 1   # the last undone step: redo everything
            await press(pilot, "enter", "y")
            assert len(nav.session.steps) == taken and not nav.session.redo_steps
            await press(pilot, "v", "x")                     # evaluate, then cancel it
            assert any(n.message.startswith("cancelled") or n.message == "nothing is running"
                       for n in app._notifications)
            await press(pilot, "q")

    run(scenario())


def test_undo_to_a_step_keeps_the_forced_steps_it_caused(here):
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            nav = app.navigation
            await settle(pilot)
            await press(pilot, "enter", "d", "d", "d", "d")   # step 3 (?2's default) forces six more
            steps = nav.session.steps
            assert [s.by for s in steps[3:9]] == ["forced"] * 6 and len(steps) > 9
            await press(pilot, "h")
            app.query_one("#history").highlighted = 2        # step 3
            await press(pilot, "enter")
            assert "and the 6 forced step(s) it caused" in str(app.screen.query_one("#question").render())
            await press(pilot, "y")
            assert len(nav.session.steps) == 9 and nav.session.steps[-1].by == "forced"
            assert all(len(menu.options) > 1 for menu in nav.session.menus().holes)
            await press(pilot, "q")

    run(scenario())


def test_holes_and_regions_by_keys_a_filtered_sketch_and_a_reopened_choice(here):
    from navigator.tui.widgets.sketch_pane import SketchPane

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            nav = app.navigation
            await settle(pilot)
            await press(pilot, "enter", "d", "d", "d")        # schedule, fuse, then regions aggregate1 and transform1
            holes = nav.open_holes_in_order()
            assert len(holes) >= 4 and app.hole == holes[0]
            await press(pilot, "n", "n")
            assert app.hole == holes[2]
            await press(pilot, "p")
            assert app.hole == holes[1]
            await press(pilot, "p", "p")                      # wraps round
            assert app.hole == holes[-1]
            sketch = app.query_one(SketchPane)
            await press(pilot, "[")                           # regions: the cursor goes to one
            assert sketch.region_of_cursor() is not None
            first = sketch.region_of_cursor()
            await press(pilot, "]") if first == 0 else await press(pilot, "[")
            assert sketch.region_of_cursor() != first
            await press(pilot, "g")
            await pilot.press(*f"?{holes[3]}", "enter")
            await settle(pilot)
            assert app.hole == holes[3]
            await press(pilot, "g")
            await pilot.press("9", "9", "9", "enter")
            await settle(pilot)
            assert app.hole == holes[3] and any("?999 is not an open hole" in n.message for n in app._notifications)
            await press(pilot, "f")
            await pilot.press(*"transform1")
            await settle(pilot)
            regions = [str(node.label) for node in sketch.root.children if node.children]
            assert regions == ["region transform1"]
            assert all("transform1" in str(node.label) for node in sketch.root.children if not node.children)
            await press(pilot, "escape")
            assert sketch.filter_text == "" and not app.query_one("#sketch-filter").is_open
            taken = len(nav.session.steps)
            filled = [node for node in sketch.root.children if node.data and node.data[0] == "step"]
            assert filled and filled[0].data == ("step", 1)   # schedule{program="gcn"}: step 1
            sketch.focus()
            sketch.move_cursor(filled[0])
            await press(pilot, "enter")
            assert "step 1 filled ?0" in str(app.screen.query_one("#question").render())
            await press(pilot, "y")
            assert len(nav.session.steps) == 0 and len(nav.session.redo_steps) == taken
            await press(pilot, "q")

    run(scenario())


def test_panes_focus_by_keys_maximize_and_the_evaluation_scrolls_sorts_and_marks(here):
    from navigator.tui.widgets.details_pane import DetailsPane
    from navigator.tui.widgets.evaluation_pane import EvaluationPane

    async def scenario():
        app = gcn_app(evaluate=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            evaluation = app.query_one(EvaluationPane)
            lines = evaluation.text.splitlines()
            assert "sim. cycles in 6 region(s)" in lines[0]
            rows = [line for line in lines if "%" in line and "." in line[:4]]
            cycles = [int(line.split()[2].replace(",", "")) for line in rows]
            assert len(rows) == 6 and cycles == sorted(cycles, reverse=True)   # the bottleneck first
            for key, pane in (("f2", "#sketch"), ("f4", "#details"), ("f5", "#evaluation"), ("f6", "#history"),
                              ("f3", "#menu")):
                await press(pilot, key)
                assert app.focused is app.query_one(pane), key
            await press(pilot, "f5", "o")                   # program order
            numbers = [line.split(".")[0].strip(" ▸") for line in evaluation.text.splitlines() if "%" in line]
            assert numbers == ["1", "2", "3", "4", "5", "6"] and "in program order" in evaluation.border_title
            await press(pilot, "end")                       # it scrolls; the totals stay in view
            assert evaluation.scroll_y > 0 and evaluation.query_one("#evaluation-totals").region.height > 0
            await press(pilot, "f10")
            assert app.screen.maximized is evaluation
            await press(pilot, "f10")
            assert app.screen.maximized is None
            await press(pilot, "f3", "enter", "d", "d")     # schedule, fuse, region aggregate1: its hole marked
            assert app.hole is not None and evaluation.marked_region == "aggregate1"
            assert any(line.startswith("▸") and line.endswith("aggregate1") for line in evaluation.text.splitlines())
            await press(pilot, "f4")
            assert isinstance(app.focused, DetailsPane) and app.focused.text
            await press(pilot, "q")

    run(scenario())


def test_the_footer_dims_what_needs_a_hole_once_the_sketch_is_complete(here):
    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.check_action("default", ()) is True
            app.navigation.choose(0, app.navigation.options(0)[1].id)   # default_schedule: complete at once
            app.refresh_all()
            await settle(pilot)
            assert app.hole is None
            for action in ("default", "auto", "model", "simulate", "next_hole", "go_to_hole"):
                assert app.check_action(action, ()) is None, action
            assert app.check_action("export", ()) is True and app.check_action("undo", ()) is True
            await press(pilot, "q")

    run(scenario())


def test_every_key_is_in_the_command_palette(here):
    from navigator.tui.keys import KEYS

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            titles = [command.title for command in app.get_system_commands(app.screen)]
            for key, action, _ in KEYS:                     # every key once (tab too), and one Quit
                assert titles.count(f"{action.capitalize()} ({key})") == 1, (key, titles)
            assert sum("quit" in title.lower() for title in titles) == 1
            await press(pilot, "enter")                     # one step, then undo it from the palette
            assert len(app.navigation.session.steps) == 1
            await press(pilot, "ctrl+p")
            for character in "Undo (u)":
                await pilot.press(character if character != " " else "space")
            await settle(pilot)
            await press(pilot, "enter")
            assert len(app.navigation.session.steps) == 0
            await press(pilot, "q")

    run(scenario())


def test_a_menu_of_thousands_of_orders_draws_a_page_and_filters(here):
    async def scenario():
        navigation, _ = Navigation.open(SESSION, ProgramSpec.from_user("graphsage", None, {}, None))
        navigation.choose(0, navigation.options(0)[0].id)
        largest = next(o for o in navigation.options(1) if o.function == "largest_fusion")
        navigation.choose(1, largest.id)
        while len(navigation.menu(navigation.open_holes()[0]).options) < 1000:
            navigation.take_default(navigation.open_holes()[0])
        offered = len(navigation.menu(navigation.open_holes()[0]).options)
        app = NavigatorApp(navigation)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            table = app.query_one("#menu")
            assert table.row_count == 300 and f"first 300 of {offered} matching" in str(table.border_title)
            await press(pilot, "slash", *"order=i")          # orders whose outer loop is i
            title = str(table.border_title)
            matching = int(title.split(" of ")[1].split()[0]) if "matching" in title else table.row_count
            assert 0 < matching < offered and table.row_count == min(300, matching), title
            await press(pilot, "escape", "s")                 # back to all, sorted by cost hint
            assert table.row_count == 300
            await press(pilot, "q")

    run(scenario())


def test_the_sketch_pane_of_a_deep_problem(here, cli_in):
    """Issue 21: a session 121 applications deep (363 JSON levels) opens, and its sketch pane is
    built, with a recursion limit far below a frame per level."""
    from harness.honeybee_examples import write_deep
    from navigator.tui.widgets.sketch_pane import SketchPane
    from tests.deep_sketches import shallow_stack

    write_deep(here, 120)
    cli_in("start", "deep120.hb.toml", "--library", "deep.hblib.toml")
    cli_in("fill", "?0", "--auto", "default", "--all")
    with shallow_stack(room=300):
        navigation, _ = Navigation.open(SESSION)
        rows = navigation.sketch_rows()
    assert len(rows) == 121 and rows[0].label == "succ{n=120}" and rows[-1].label == "prev = zero{n=0}"

    async def scenario():
        app = NavigatorApp(navigation)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            tree = app.query_one(SketchPane)
            assert [str(node.label) for node in tree.root.children] == [f"✓ {row.label}" for row in rows]
            await press(pilot, "q")

    run(scenario())


def test_m_fills_the_sim_column_in_the_background_and_a_revisit_is_free(here, monkeypatch):
    """`m` on gcn's fusion hole: each option simulated with the heuristic for the rest, the
    cycles in the menu's sim. column beside est.; `m` again finds them kept (no new simulation)."""
    import navigator.actions.simulate_options as simulate_options

    monkeypatch.setenv("NAVIGATOR_CACHE", "off")
    simulate_options._memory.clear()

    async def scenario():
        app = gcn_app()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await press(pilot, "enter")                      # ?0: schedule; the fusion hole is next
            table = app.query_one("#menu")
            assert all(str(table.get_row_at(r)[3]) == "-" for r in range(table.row_count))
            await press(pilot, "m")
            cells = [str(table.get_row_at(r)[3]) for r in range(table.row_count)]
            assert all(c.replace(",", "").isdigit() for c in cells), cells
            hints = [str(table.get_row_at(r)[2]) for r in range(table.row_count)]
            assert all(h.replace(",", "").isdigit() for h in hints), hints
            found = app.navigation.simulate_options(app.hole)
            assert found and all(entry.cached for entry in found)
            await press(pilot, "q")

    run(scenario())


def test_resuming_reports_its_progress_to_the_terminal(here, cli_in):
    """A resume says what it does from the start (the program's space, then the steps replayed,
    to the last), so a long session never opens onto a blank screen (navigator.tui.launch)."""
    from navigator.tui.launch import opening_progress

    cli_in("start", "gcn")
    cli_in("fill", "?0", "--auto", "default", "--subtree")
    heard = []
    navigation, note = Navigation.open(SESSION, progress=lambda what, done, total: heard.append((what, done, total)))
    steps = len(navigation.session.steps)
    assert note.startswith("resumed") and steps > 0
    assert heard[0][0].startswith("loading gcn") and heard[0][2] is None
    replayed = [(done, total) for what, done, total in heard if what == "replaying its steps"]
    assert replayed[0] == (0, steps) and replayed[-1] == (steps, steps)
    assert [done for done, _ in replayed] == sorted(done for done, _ in replayed)
    with opening_progress() as progress:              # stderr is not a terminal under pytest: no bar
        assert progress is None
