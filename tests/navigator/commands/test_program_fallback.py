"""count, check, validate, replay (and facts) use the session's program when none is given."""

from __future__ import annotations

from tests.cli import SMALL_SPMM, assert_user_error


def test_commands_take_the_sessions_program(nav, cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "--auto", "default", "--subtree", ok=True)
    cli("export", "--json", "s.json", ok=True)
    count = nav.json("count", schema="count")
    assert count["program"] == "spmm" and count["schedules"] == 32
    check = nav.json("check", schema="check")
    assert check["program"] == "spmm" and check["dims"] == {"N": 2, "J": 2}
    validate = nav.json("validate", "s.json", schema="validate")
    assert validate["valid"] and validate["program"] == "spmm"
    replay = nav.json("replay", "s.json", schema="replay")
    assert replay["reached"] and replay["rounds"] == 15
    result = nav("count")
    assert result.returncode == 0 and "spmm: 32 schedules" in result.stdout
    assert "using the program of session .navigator/session.json: spmm (dims J=2 N=2)" in result.stderr
    facts = cli("facts", ok=True).stdout
    assert 'name = "spmm"' in facts


def test_explicit_program_and_dims_win(cli):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    assert cli.json("count", "sddmm", "--dim", "N=2", "--dim", "K=2", schema="count")["program"] == "sddmm"
    # --dim on top of the session's dims: J stays 2, N becomes 4
    assert cli.json("check", "--dim", "N=4", schema="check")["dims"] == {"N": 4, "J": 2}


def test_no_program_and_no_session(cli):
    assert_user_error(cli("count"), "no program given, and no session to take it from", "navigator start PROGRAM")
    assert_user_error(cli("validate", "s.json"), "no program given")
    assert_user_error(cli("replay", "s.json"), "replay needs the program (--program) or a fact file (--facts)")


def test_eval_takes_the_sessions_program_end_to_end(nav, cli):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    cli("export", "--json", "s.json", ok=True)
    result = nav("eval", "s.json")
    assert result.returncode == 0, result.stderr
    assert "program spmm schedule s.json" in result.stdout and "numerical check: passed" in result.stdout
    assert "using the program of session" in result.stderr


def test_validate_and_eval_take_the_program_the_schedule_names(cli, tmp_path):
    import json
    import shutil

    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    cli("export", "--json", "s.json", ok=True)
    shutil.rmtree(tmp_path / ".navigator")          # no session: the file names spmm, a bundled program
    result = cli("validate", "s.json", "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["program"] == "spmm"
    assert "using the bundled program spmm, which s.json names" in result.stderr
    estimate = cli("eval", "s.json", "--estimate", ok=True)
    assert "program spmm schedule s.json" in estimate.stdout
    cli("start", "gcn", ok=True)                    # a session on another program: the file's still wins
    assert cli("validate", "s.json", ok=True).stdout.startswith("s.json: valid schedule for spmm")
    data = json.loads((tmp_path / "s.json").read_text())
    (tmp_path / "t.json").write_text(json.dumps({**data, "program": "mine"}))
    mismatch = cli("validate", "t.json")             # a name the session's program does not have: invalid
    assert mismatch.returncode == 1 and "written for program 'mine', not 'gcn'" in mismatch.stderr
    shutil.rmtree(tmp_path / ".navigator")
    assert_user_error(cli("validate", "t.json"), "t.json: the schedule names program 'mine', which is not a "
                                                  "bundled program", "--program")
