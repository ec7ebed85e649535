"""Every message on stderr is one line, whatever a user's file names: control characters
taken from a file (newlines, escape sequences) are shown escaped (fuseflow.support.errors.one_line,
printed through navigator.process.console)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from fuseflow.program.bundled import resolve_program
from fuseflow.support.errors import one_line
from fuseflow.schedule import default_schedule, schedule_to_json
from tests.cli import assert_user_error


@given(st.text())
def test_one_line_leaves_no_control_character(text):
    shown = one_line(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" for c in shown)
    assert shown.splitlines() == [shown] or shown == ""


def test_printable_text_is_unchanged():
    assert one_line("régions[0].ops: 'x' ∉ {a, b}") == "régions[0].ops: 'x' ∉ {a, b}"


def test_an_op_named_crlf_is_shown_escaped(cli, tmp_path):
    # Fuzz reproducer: an op name of "\r\n" in a schedule split the error over two lines.
    program = resolve_program("gcn")
    data = schedule_to_json(program, default_schedule(program))
    data["regions"][0]["ops"] = ["\r\n"]
    (tmp_path / "sched.json").write_text(json.dumps(data))
    result = cli("eval", "sched.json", "--program", "gcn", "--no-check")
    assert_user_error(result, "unknown op(s) \\r\\n", "[rule: program-match]")


def test_a_prop_named_crlf_is_shown_escaped(cli, tmp_path):
    # Fuzz reproducer: a fact file's Prop named "\r\n" reached the message's fix text raw.
    (tmp_path / "facts.hb.toml").write_text('[[Prop]]\nname = "\\r\\n"\nargs = {}\n\n[Goal]\nname = "Schedule"\n'
                                            'args = { program = "spmm" }\n')
    (tmp_path / "t.json").write_text('{"Hole": 0}')
    assert_user_error(cli("replay", "t.json", "--facts", "facts.hb.toml"), "facts.hb.toml", "\\r\\n")


def test_a_path_with_a_newline_and_an_escape_is_shown_escaped(cli):
    assert_user_error(cli("validate", "a\nb\x1b[2J.json", "--program", "spmm"), "a\\nb\\x1b[2J.json")


def test_an_empty_path_is_still_named(cli):
    # Fuzz finding: `--data ''` printed "file not found" with no location at all.
    assert_user_error(cli("check", "spmm", "--data", ""), "'': file not found")
