"""start, show, fill, undo, redo, history.

Each command runs end to end through `python -m navigator` (the `nav` fixture) at least once;
the many small variations (option syntaxes, error messages) call navigator.cli.main in this
process (the `cli` fixture), which is the same code without the interpreter start-up.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import SMALL_SPMM, assert_user_error, clean_env

GOLDEN = Path(__file__).parent / "golden"


def test_end_to_end_start_show_fill_undo_redo_history(nav, golden, tmp_path):
    start = nav("start", "spmm", *SMALL_SPMM, ok=True)
    assert (tmp_path / ".navigator" / "session.json").is_file()
    assert "started a session for spmm" in start.stderr
    golden(GOLDEN / "show_start.txt", nav("show", ok=True).stdout)
    # ?0 is chosen; the nine holes that then offer one option each are filled for the user
    filled = nav.json("fill", "?0", "1", "--rationale", "the whole space", schema="steps")
    assert [s["by"] for s in filled["steps"]] == ["user"] + ["forced"] * 9
    assert {s["command"] for s in filled["steps"]} == {1}
    assert filled["open_holes"] == [5, 7, 9] and filled["completions"] == 32
    steps = nav.json("fill", "5", "--auto", "default", "--subtree", schema="steps")
    assert [(s["hole"], s["by"]) for s in steps["steps"]] == [(5, "default"), (13, "default"), (14, "default")]
    nav("fill", "?7", "2", ok=True)
    undone = nav.json("undo", schema="steps")  # the last command: one step
    assert [s["hole"] for s in undone["steps"]] == [7]
    undone = nav.json("undo", schema="steps")  # the subtree fill, as one command
    assert [s["hole"] for s in undone["steps"]] == [14, 13, 5] and undone["open_holes"] == [5, 7, 9]
    undone = nav.json("undo", "2", schema="steps")  # N single steps, splitting a command
    assert [s["hole"] for s in undone["steps"]] == [12, 11]
    redone = nav.json("redo", schema="steps")  # what is left of the command on top: ?11 and ?12
    assert [s["hole"] for s in redone["steps"]] == [11, 12]
    redone = nav.json("redo", "1", schema="steps")
    assert [s["hole"] for s in redone["steps"]] == [5]
    history = nav.json("history", schema="history")
    assert history["steps"][0]["rationale"] == "the whole space" and history["steps"][0]["by"] == "user"
    assert history["steps"][0]["alternatives"] == [{"id": 'default_schedule{program="spmm"}', "count": 1}]
    assert history["steps"][1]["by"] == "forced" and history["steps"][1]["alternatives"] == []
    assert [a["count"] for a in history["steps"][-1]["alternatives"]] == [8, 8]  # the orders not taken at ?5
    assert [s["hole"] for s in history["redo"]] == [13, 14, 7]
    text = nav("history", ok=True).stdout
    assert '1. ?0 := schedule{program="spmm"}' in text and "why: the whole space" in text
    assert 'not taken: default_schedule{program="spmm"} (1)' in text
    assert "by forced at " in text and ", command 1" in text
    assert "undone (`navigator redo` re-takes them, next first):" in text
    assert_user_error(nav("fill", "'?0'", "1"), "?0 is not an open hole", "open holes: ?7 ?9 ?13")


def test_show_golden_files(cli, golden):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "1", "--auto", "default", ok=True)
    cli("fill", "h2", "--auto", "default", ok=True)
    golden(GOLDEN / "show_two_holes.txt", cli("show", ok=True).stdout)
    cli("fill", "3", "--auto", "default", ok=True)
    golden(GOLDEN / "show_hole_5.txt", cli("show", "--hole", "?5", ok=True).stdout)
    cli("fill", "4", "--auto", "default", "--subtree", ok=True)
    cli("fill", "5", "--auto", "default", "--subtree", ok=True)
    cli("fill", "6", "--auto", "default", "--subtree", ok=True)
    golden(GOLDEN / "show_complete.txt", cli("show", ok=True).stdout)


def test_show_json_schema_and_numbers(cli, spmm_session):
    data = cli.json("show", schema="show")
    assert data["completions"] == 32 and data["open_holes"] == [0] and not data["complete"]
    [root] = data["holes"]
    assert [o["number"] for o in root["options"]] == [1, 2]
    assert root["default"] == 1 and root["options"][0]["count"] == 32
    # default_schedule is a shortcut: offered with its one program, not part of the 32
    assert [(o["function"], o["count"], o["alias"]) for o in root["options"]] == [
        ("schedule", 32, False), ("default_schedule", 1, True)]
    assert data["program"] == {"name": "spmm", "spec": "spmm", "bundled": True, "data": None,
                               "dims": {"J": 2, "N": 2}, "library": None, "kind": "tensor"}
    assert root["options"][0]["info"]["title"] == "Schedule the program"
    assert cli.json("start", "spmm", *SMALL_SPMM, "--force", schema="show")["steps"] == 0
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    done = cli.json("show", schema="show")
    assert done["complete"] and done["holes"] == [] and done["completions"] == 1


def test_fill_option_syntaxes(cli, spmm_session):
    cli("fill", "?0", "schedule", ok=True)                       # function name alone (one match)
    cli("fill", "?1", "--auto", "default", ok=True)
    cli("undo", ok=True)
    assert cli.json("show", schema="show")["can_redo"]
    cli("fill", "1", "1", ok=True)                                # menu number
    cli("fill", "2", 'region{state="from spmm", region="spmm", is_default=true}', ok=True)  # option id from show
    cli("fill", "3", "--auto", "default", ok=True)
    cli("fill", "4", "--auto", "default", ok=True)
    cli("fill", "5", "order", "order=i k j", ok=True)             # FUNCTION FIELD=VALUE
    cli("fill", "6", "--auto", "default", ok=True)
    cli("fill", "7", "vectorize{shape=2}", ok=True)               # FUNCTION{FIELD=VALUE}
    cli("fill", "8", "par(factor=2)", "--rationale", "two lanes on j", ok=True)  # FUNCTION(FIELD=VALUE)
    history = cli.json("history", schema="history")
    by_hole = {s["hole"]: s for s in history["steps"]}
    assert by_hole[5]["metadata"]["order"] == "i k j" and by_hole[7]["metadata"]["shape"] == 2
    assert by_hole[8]["metadata"]["factor"] == 2 and by_hole[8]["rationale"] == "two lanes on j"
    assert by_hole[0]["by"] == "user" and by_hole[3]["by"] == "default"
    assert history["redo"] == []  # a new step cleared the redo stack


def test_invalid_choices_exit_2_and_list_valid_options(cli, spmm_session):
    assert_user_error(cli("fill", "?0", "7"), "?0 has no option 7",
                      "choose 1 to 2: 1. schedule (32)  2. default_schedule (1))")
    assert_user_error(cli("fill", "?0", "frobnicate"), "no option with function 'frobnicate'",
                      "valid options: 1. schedule (32)  2. default_schedule (1))")
    assert_user_error(cli("fill", "?3", "1"), "?3 is not an open hole", "open holes: ?0")
    assert_user_error(cli("fill", "x3", "1"), "cannot read hole 'x3'", "quote '?3'")
    assert_user_error(cli("fill", "?0"), "which option for ?0")
    assert_user_error(cli("fill", "?0", "1", "--auto", "default"), "not both")
    assert_user_error(cli("fill", "?0", "1", "--subtree"), "--subtree works with --auto")
    assert_user_error(cli("fill", "?0", "--auto", "bean"), "unknown strategy 'bean'", "known strategies: anneal, beam, default")
    for hole, option in ((0, "1"), (1, "1"), (2, "1"), (3, "1"), (4, "1"), (5, "2"), (6, "1")):
        cli("fill", f"?{hole}", option, ok=True)
    assert_user_error(cli("fill", "?8", "par", "factor=3"), "offers no par with factor=3",
                      "valid options: 1. par{factor=1} (8)  2. par{factor=2} (8))")
    assert_user_error(cli("fill", "?8", "par", "lanes=2"), "par has no field 'lanes'", "region, var, factor")
    assert_user_error(cli("fill", "?8", "par"), "matches 2 options at ?8")
    assert_user_error(cli("fill", "?8", "par", "factor"), "cannot read 'factor'")
    assert_user_error(cli("undo", "0"), "at least 1")
    assert_user_error(cli("redo"), "nothing to redo")
    assert_user_error(cli("show", "--hole", "?99"), "?99 is not an open hole")


def test_session_option_and_environment(nav, cli, tmp_path):
    cli("start", "sddmm", "--dim", "N=4", "--dim", "K=2", "--session", "a/one.json", ok=True)
    assert (tmp_path / "a" / "one.json").is_file()
    assert cli.json("show", "--session", "a/one.json", schema="show")["program"]["name"] == "sddmm"
    env = clean_env(NAVIGATOR_SESSION=str(tmp_path / "a" / "one.json"))
    assert nav.json("show", env=env, schema="show")["program"]["name"] == "sddmm"
    assert_user_error(cli("show"), ".navigator/session.json: no session file here", "navigator start PROGRAM")
    assert not (tmp_path / ".navigator").exists()  # a failed command creates nothing
    assert_user_error(cli("start", "sddmm", "--session", "a/one.json"), "a session already exists here", "--force")
    assert_user_error(cli("start", "no_such_program"), "unknown program 'no_such_program'")


def test_gcn_with_small_dims(cli):
    cli("start", "gcn", "--dim", "N=4", "--dim", "F=4", "--dim", "H=2", "--dim", "C=2", ok=True)
    show = cli.json("show", schema="show")
    assert show["holes"][0]["options"][0]["count"] == 225208675008  # `navigator count gcn` with these dims
    cli("fill", "?0", "1", ok=True)
    assert cli.json("fill", "?1", "--auto", "default", "--subtree", schema="steps")["complete"]
    exported = json.loads(cli("export", ok=True).stdout)
    assert exported["program"] == "gcn" and len(exported["regions"]) == 6  # default grouping: unfused


# ---------------------------------------------------------------- forced steps, commands, listings

def test_fill_reports_the_forced_steps_it_caused(cli, golden):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    golden(GOLDEN / "fill_forced.txt", cli("fill", "?0", "1", ok=True).stdout)
    assert [s["by"] for s in cli.json("history", schema="history")["steps"]] == ["user"] + ["forced"] * 9
    assert_user_error(cli("fill", "?1", "1"), "?1 is not an open hole", "step 2 filled it (forced); open holes: ?5 ?7 ?9")


def test_no_forced_is_recorded_in_the_session_and_respected_by_later_fills(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    session = tmp_path / ".navigator" / "session.json"
    assert json.loads(session.read_text())["forced_steps"] is False
    filled = cli.json("fill", "?0", "1", schema="steps")
    assert len(filled["steps"]) == 1 and filled["open_holes"] == [1]
    assert len(cli.json("fill", "?1", "1", schema="steps")["steps"]) == 1
    cli("start", "spmm", *SMALL_SPMM, "--force", ok=True)
    assert json.loads(session.read_text())["forced_steps"] is True
    assert len(cli.json("fill", "?0", "1", schema="steps")["steps"]) == 10


def test_forced_steps_change_no_count_and_no_schedule(cli, tmp_path):
    """The same choices, with and without forced steps: the same counts and the same schedule."""
    names = ("forced.json", "by-hand.json")
    for name, extra in zip(names, ([], ["--no-forced"])):
        cli("start", "spmm", *SMALL_SPMM, *extra, "--session", name, ok=True)
        cli("fill", "?0", "1", "--session", name, ok=True)
    shown = [cli.json("show", "--session", name, schema="show") for name in names]
    assert shown[0]["completions"] == shown[1]["completions"] == 32
    assert len(shown[0]["open_holes"]) == 3 and shown[1]["open_holes"] == [1]
    for name in names:
        while not (show := cli.json("show", "--session", name, schema="show"))["complete"]:
            cli("fill", str(show["open_holes"][0]), "--auto", "default", "--subtree", "--session", name, ok=True)
    exported = [json.loads(cli("export", "--session", name, ok=True).stdout) for name in names]
    assert exported[0] == exported[1]


def test_undo_and_redo_without_n_take_whole_commands(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?5", "--auto", "default", "--subtree", ok=True)
    undone = cli.json("undo", schema="steps")
    assert [s["hole"] for s in undone["steps"]] == [14, 13, 5] and undone["history_length"] == 10
    undone = cli.json("undo", schema="steps")
    assert len(undone["steps"]) == 10 and undone["open_holes"] == [0] and undone["completions"] == 32
    redone = cli.json("redo", schema="steps")
    assert len(redone["steps"]) == 10 and redone["steps"][0]["hole"] == 0 and redone["open_holes"] == [5, 7, 9]
    assert len(cli.json("redo", schema="steps")["steps"]) == 3
    assert_user_error(cli("redo"), "nothing to redo")


def test_the_session_the_commands_leave_round_trips(cli, tmp_path):
    """What start, fill (by hand and by a strategy), undo and redo write loads back, replays and
    saves as the same file."""
    from navigator.navigation.roundtrip import verify_session_roundtrip
    from navigator.workspace import open_workspace

    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "1", "--rationale", "the whole space", ok=True)
    cli("fill", "?5", "--auto", "heuristic", "--subtree", ok=True)
    cli("fill", "?7", "--auto", "default", ok=True)
    cli("undo", ok=True)
    cli("undo", "1", ok=True)
    session = open_workspace(tmp_path / ".navigator" / "session.json").session
    assert session.forced_steps and len(session.redo_steps) == 2
    verify_session_roundtrip(session)


def test_an_invalid_option_lists_at_most_ten_options(cli):
    cli("start", "gcn", "--dim", "N=4", "--dim", "F=4", "--dim", "H=2", "--dim", "C=2", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "fuse", ok=True)
    cli("fill", "?2", "6", ok=True)  # every op in one region: its order hole ?5 offers 120 orders
    for typed in (["999"], ["frobnicate"]):
        result = cli("fill", "?5", *typed)
        assert_user_error(result, "1. order{order=", "  2. order{order=", "and 110 more: `navigator show --hole 5`")
        listed = result.stderr.split("1. order{", 1)[1]
        assert listed.count(". order{") == 9 and "region=" not in listed  # shared fields left out
    assert len(cli.json("show", "--hole", "5", schema="show")["holes"][0]["options"]) == 120


def test_history_golden_with_alternatives_and_commands(cli, golden):
    import re

    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "1", "--rationale", "the whole space", ok=True)
    cli("fill", "?5", "order", "order=i k j", ok=True)
    cli("fill", "?7", "--auto", "default", ok=True)
    cli("fill", "?13", "2", ok=True)
    cli("undo", ok=True)
    text = re.sub(r"\d{4}-\d\d-\d\dT[0-9:.]+Z", "<time>", cli("history", ok=True).stdout)
    golden(GOLDEN / "history_forced.txt", text)


def test_undo_and_redo_beyond_the_log_name_the_session_and_the_fix(cli):
    # Found by the fuzz harness: "nothing to undo" had neither the session nor a fix, and
    # `undo 100` on a 13-step log said "nothing to undo" after taking back nothing.
    cli("start", "spmm", "--dim", "J=2", ok=True)
    cli("fill", "?0", "1", ok=True)
    steps = len(cli.json("history")["steps"])
    assert_user_error(cli("undo", "100"), ".navigator/session.json: 100 steps to undo, but there are only "
                      f"{steps}", f"`navigator undo {steps}` takes back all of them")
    assert_user_error(cli("redo"), ".navigator/session.json: nothing to redo (redo re-takes")
    cli("undo", str(steps), ok=True)
    assert_user_error(cli("undo"), ".navigator/session.json: nothing to undo (the session is back at its start")
    assert_user_error(cli("redo", str(steps + 1)), f"there are only {steps}", "re-takes all of them")


def test_undo_and_redo_to_a_step_take_its_forced_steps_with_it(cli):
    def taken() -> tuple[list[str], int]:
        history = json.loads(cli("history", "--json", ok=True).stdout)
        return [step["by"] for step in history["steps"]], len(history["redo"])

    cli("start", "gcn", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "--auto", "default", ok=True)
    cli("fill", "?2", "--auto", "default", ok=True)     # step 3, and the forced steps 4 to 9 it caused
    cli("fill", "?5", "--auto", "default", ok=True)
    cli("fill", "?7", "--auto", "default", ok=True)
    assert taken()[0][2:9] == ["default"] + ["forced"] * 6
    cli("undo", "--to", "3", ok=True)
    assert taken() == (["user", "default", "default"] + ["forced"] * 6, 2)
    assert_user_error(cli("undo", "--to", "12"), "step 12 is not taken", "navigator redo --to 12")
    assert_user_error(cli("redo", "--to", "2"), "step 2 is taken already", "navigator undo --to 2")
    assert_user_error(cli("undo", "2", "--to", "1"), "not both")
    cli("undo", "--to", "5", ok=True)                     # a forced step: the ones after it stay too
    assert len(taken()[0]) == 9
    cli("redo", "--to", "10", ok=True)
    assert taken()[1] == 1
    cli("undo", "--to", "0", ok=True)
    assert taken() == ([], 11)
