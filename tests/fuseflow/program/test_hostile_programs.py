"""Hostile but legal programs work end to end; hostile illegal ones exit 2 with one line (issue 9)."""

import tomllib

import pytest

from navigator.fuseflow.facts import GeneratedFacts, toml_string
from fuseflow.program.frontend import parse_program
from tests.cli import assert_user_error

from tests.fuseflow.program.test_bad_programs import BAD_PROGRAMS

# Python keywords and builtins as program, dimension, tensor, op and index names: they are data
# everywhere (fact files, schedule JSON, the exported script), never code.
KEYWORDS = '''name = "class"
description = "keywords as names, and a ünïcödé description"
[dims]
def = 4
None = 3
[tensors]
lambda = { shape = ["def", "def"], format = ["dense", "compressed"], source = "random", density = 0.5 }
import = { shape = ["def", "None"], source = "random" }
[[ops]]
name = "yield"
expr = "return(for,in) = lambda(for,if) * import(if,in)"
[[ops]]
name = "True"
expr = "pass(for,in) = relu(return(for,in)) + 1"
'''


def test_keywords_as_names_run_through_check_facts_count_and_eval(cli, tmp_path):
    from fuseflow.schedule import default_schedule, save_schedule

    (tmp_path / "kw.toml").write_text(KEYWORDS, encoding="utf-8")
    assert "[yield] order" in cli("check", "kw.toml", ok=True).stdout
    facts = tomllib.loads(cli("facts", "kw.toml", ok=True).stdout)
    assert facts["Goal"]["args"]["program"] == "class"
    assert "class:" in cli("count", "kw.toml", ok=True).stdout
    program = parse_program(KEYWORDS)
    save_schedule(tmp_path / "s.json", program, default_schedule(program))
    result = cli("eval", "s.json", "--program", "kw.toml", "--executor", "exact", ok=True)
    assert "numerical check: passed" in result.stdout


def test_a_file_name_that_is_no_program_name_gives_a_safe_default():
    program = parse_program(KEYWORDS.replace('name = "class"\n', ""), "/tmp/my prog\n(v2)\x1b.toml")
    assert program.name == "my_prog__v2__"


def test_fact_strings_escape_every_control_character():
    text = "".join(chr(c) for c in range(0x80)) + "ünï\u2028"
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == text
    facts = GeneratedFacts(goal=("Schedule", {"program": 'a"b\\c'}))
    facts.add("Program", name="p\nq")
    parsed = tomllib.loads(facts.to_toml("from file /tmp/a\x01b\x7f.npz\nsecond line\x0bthird"))
    assert parsed["Prop"][0]["args"]["name"] == "p\nq" and parsed["Goal"]["args"]["program"] == 'a"b\\c'


HOSTILE = [b for b in BAD_PROGRAMS if b[0] in (
    "nan density", "inf density", "extent 10**30", "huge seed", "negative seed", "reduction of the wrong type",
    "dimension name with a newline", "op reads its own declared output", "op named like another tensor",
    "program name with a slash", "empty op name", "2000 unary minus")]


@pytest.mark.parametrize("description,text,fragments", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_programs_exit_2_with_one_line(cli, tmp_path, description, text, fragments):
    (tmp_path / "bad.toml").write_text(text, encoding="utf-8")
    for command in ("check", "facts"):
        assert_user_error(cli(command, "bad.toml"), "bad.toml", fragments[0])


def test_a_hostile_program_in_a_subprocess(tmp_path):
    """The same through `python -m navigator`, as a user runs it."""
    import subprocess
    import sys

    (tmp_path / "bad.toml").write_text(HOSTILE[0][1], encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "navigator", "check", "bad.toml"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert_user_error(result, "bad.toml:", HOSTILE[0][2][0])
