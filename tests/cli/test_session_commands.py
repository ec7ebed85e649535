"""start, show, fill, undo, redo, history.

Each command runs end to end through `python -m navigator` (the `nav` fixture) at least once;
the many small variations (option syntaxes, error messages) call navigator.cli.main in this
process (the `cli` fixture), which is the same code without the interpreter start-up.
"""

from __future__ import annotations

import json

from tests.cli.conftest import GOLDEN, SMALL_SPMM, assert_user_error, clean_env


def test_end_to_end_start_show_fill_undo_redo_history(nav, golden, tmp_path):
    start = nav("start", "spmm", *SMALL_SPMM, ok=True)
    assert (tmp_path / ".navigator" / "session.json").is_file()
    assert "started a session for spmm" in start.stderr
    golden(GOLDEN / "show_start.txt", nav("show", ok=True).stdout)
    nav("fill", "?0", "1", "--rationale", "the whole space", ok=True)
    steps = nav.json("fill", "1", "--auto", "default", "--subtree", schema="steps")
    assert steps["complete"] and len(steps["steps"]) == 14 and steps["steps"][0]["by"] == "default"
    undone = nav.json("undo", "2", schema="steps")
    assert [s["hole"] for s in undone["steps"]] == [14, 13]
    redone = nav.json("redo", schema="steps")
    assert redone["steps"][0]["hole"] == 13
    history = nav.json("history", schema="history")
    assert history["steps"][0]["rationale"] == "the whole space" and history["steps"][0]["by"] == "user"
    assert [s["hole"] for s in history["redo"]] == [14]
    text = nav("history", ok=True).stdout
    assert '1. ?0 := schedule{program="spmm"}' in text and "why: the whole space" in text
    assert "undone (`navigator redo` re-takes them, next first):" in text
    assert_user_error(nav("fill", "'?0'", "1"), "?0 is not an open hole", "open holes: ?14")


def test_show_golden_files(cli, golden):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
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
    assert data["completions"] == 33 and data["open_holes"] == [0] and not data["complete"]
    [root] = data["holes"]
    assert [o["number"] for o in root["options"]] == [1, 2]
    assert root["default"] == 1 and root["options"][0]["count"] == 32
    assert data["program"] == {"name": "spmm", "spec": "spmm", "bundled": True, "data": None,
                               "dims": {"J": 2, "N": 2}, "library": None, "kind": "tensor"}
    assert root["options"][0]["info"]["title"] == "Schedule the program"
    assert cli.json("start", "spmm", *SMALL_SPMM, "--force", schema="show")["steps"] == 0
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "--auto", "default", "--subtree", ok=True)
    done = cli.json("show", schema="show")
    assert done["complete"] and done["holes"] == [] and done["completions"] == 1


def test_fill_option_syntaxes(cli, spmm_session):
    cli("fill", "?0", "schedule", ok=True)                       # function name alone (one match)
    cli("fill", "?1", "--auto", "default", ok=True)
    cli("undo", ok=True)
    assert cli.json("show", schema="show")["can_redo"]
    cli("fill", "1", "1", ok=True)                                # menu number
    cli("fill", "2", 'region{grouping="spmm", index=0, count=1}', ok=True)  # option id copied from show
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
    assert_user_error(cli("fill", "?0", "7"), "?0 has no option 7", '1 schedule{program="spmm"}', "2 default_schedule")
    assert_user_error(cli("fill", "?0", "frobnicate"), "no option with function 'frobnicate'",
                      "valid options: 1 schedule")
    assert_user_error(cli("fill", "?3", "1"), "?3 is not an open hole", "open holes: ?0")
    assert_user_error(cli("fill", "x3", "1"), "cannot read hole 'x3'", "quote '?3'")
    assert_user_error(cli("fill", "?0"), "which option for ?0")
    assert_user_error(cli("fill", "?0", "1", "--auto", "default"), "not both")
    assert_user_error(cli("fill", "?0", "1", "--subtree"), "--subtree works with --auto")
    assert_user_error(cli("fill", "?0", "--auto", "beam"), "unknown strategy 'beam'", "known strategies: default")
    for hole, option in ((0, "1"), (1, "1"), (2, "1"), (3, "1"), (4, "1"), (5, "2"), (6, "1")):
        cli("fill", f"?{hole}", option, ok=True)
    assert_user_error(cli("fill", "?8", "par", "factor=3"), "offers no par with factor=3",
                      '1 par{region="spmm", var="i", factor=1}; 2 par{region="spmm", var="i", factor=2}')
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
