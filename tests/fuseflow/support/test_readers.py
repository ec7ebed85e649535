"""fuseflow.support.readers: JSON and TOML that crash or mislead Python's parsers are refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from fuseflow.support.errors import UserError
from fuseflow.support.readers import MAX_NESTING, nesting_depth, parse_json_text, parse_toml_text


@pytest.mark.parametrize("text, message", [
    ('{"a": NaN}', "holds NaN at line 1, which is not a finite number"),
    ('[Infinity]', "holds Infinity"),
    ('[-Infinity]', "holds -Infinity"),
    ('{"a":\n 1e999}', "holds 1e999 at line 2"),
    ('{"a": ' + "9" * 5000 + "}", "integer of thousands of digits at line 1"),
    ("[" * 100_000 + "]" * 100_000, f"more than {MAX_NESTING} levels deep"),
    ("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), f"more than {MAX_NESTING} levels deep"),
    ('{"a": 1,}', "invalid JSON at line 1, column 9"),
])
def test_json_that_python_mishandles_is_refused(text, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")) as exc:
        parse_json_text(text, "s.json")
    assert exc.value.where == "s.json" and exc.value.fix


def test_nesting_up_to_the_limit_is_accepted():
    text = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert nesting_depth(parse_json_text(text, "s.json")) == MAX_NESTING


@pytest.mark.parametrize("text, message", [
    ("a = " + "[" * 1000 + "]" * 1000, f"more than {MAX_NESTING} levels deep"),
    ("a = " + "7" * 5000, "integer of thousands of digits at line 1"),
    ("a = 1\na = 2", "duplicate name"),
    ("a = [", "TOML syntax error"),
    ("".join(f"[{'x.' * i}x]\n" for i in range(1, 80)), f"more than {MAX_NESTING} levels deep"),
])
def test_toml_that_python_mishandles_is_refused(text, message):
    with pytest.raises(UserError, match=message) as exc:
        parse_toml_text(text, "p.toml")
    assert exc.value.where == "p.toml" and exc.value.fix


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from('[]{}":,0123456789.eE-+ NaInfityul\\x\n'), max_size=200))
def test_any_text_either_parses_or_is_a_user_error(text):
    for parse in (parse_json_text, parse_toml_text):
        try:
            parse(text, "f")
        except UserError:
            pass


def test_files_holding_sketches_may_nest_as_deep_as_a_sketch(tmp_path):
    """A session's sketch nests three JSON levels per application; 64 levels would refuse the
    session of any program with more than about 16 regions."""
    import json

    from fuseflow.support.readers import dumps_deep
    from navigator.navigation.session_errors import SessionError
    from navigator.navigation.session_format import read_session_file
    from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING

    deep: dict = {"Hole": 0}
    for _ in range(MAX_SKETCH_DEPTH):
        deep = {"App": [{"name": "f", "metadata": {}, "arity": ["x"]}, {"x": deep}]}
    path = tmp_path / "session.json"
    path.write_text(dumps_deep({"format": "navigator-session", "version": 1, "steps": [], "sketch": deep},
                               SKETCH_JSON_NESTING))
    assert nesting_depth(read_session_file(path)["sketch"], SKETCH_JSON_NESTING) == 3 * MAX_SKETCH_DEPTH + 1
    too_deep = "[" * SKETCH_JSON_NESTING + "]" * SKETCH_JSON_NESTING  # inside the envelope: one more
    path.write_text('{"format": "navigator-session", "version": 1, "steps": [], "sketch": ' + too_deep + "}")
    with pytest.raises(SessionError, match=f"more than {SKETCH_JSON_NESTING} levels deep"):
        read_session_file(path)
