"""The fast TOML path gives exactly tomllib's result, or defers (None) to tomllib.

Documents are drawn from fact-file-like lines with many near misses: spacing, comments,
CRLF, escapes (valid and not), integers TOML rejects or reads differently, duplicate and
dotted keys, redefined tables, trailing commas, nested inline tables, control characters.
"""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from navigator.lang.toml_fast import parse_simple_toml

KEYS = ["name", "args", "a", "b", "level", "x-y", "1", "args.level", "a . b", '"q"', "a.b.c"]
SCALARS = ['"Prop"', '"i j"', '""', '"a, b = c"', '"tab\there"', '"e\\"q"', '"back\\\\s"',
           '"n\\n"', '"bad\\x"', '"uni\\u0041"', '"ctl\x01"', '"del\x7f"', "0", "-0", "-5",
           "12", "007", "+3", "1_000", "99999999999999999999", "1.5", "true", "false",
           "True", "'lit'", '"""ml"""', "[1, 2]", "1979-05-27"]
SEPARATORS = [" = ", "=", " =  ", "\t=\t"]
INDENTS = ["", " ", "\t"]


@st.composite
def inline_tables(draw):
    pairs = [f"{draw(st.sampled_from(KEYS))}{draw(st.sampled_from(SEPARATORS))}"
             f"{draw(st.sampled_from(SCALARS + ['{ z = 1 }']))}"
             for _ in range(draw(st.integers(0, 4)))]
    body = draw(st.sampled_from([", ", ",", " , "])).join(pairs)
    if draw(st.integers(0, 9)) == 0:
        body += ","
    return draw(st.sampled_from(["{ %s }", "{%s}", "{  %s  }"])) % body


@st.composite
def lines(draw):
    kind = draw(st.sampled_from(["header", "table", "kv", "kv", "kv", "inline", "inline",
                                 "blank", "comment", "junk"]))
    if kind == "header":
        return draw(st.sampled_from(["[[Prop]]", "[[ Prop ]]", "[[Goal]]", "[[a.b]]", "[[Prop]"]))
    if kind == "table":
        return draw(st.sampled_from(["[Goal]", "[ Goal ]", "[Prop]", "[args]", "[a]", "[Goal"]))
    if kind == "blank":
        return draw(st.sampled_from(["", "   ", "\t"]))
    if kind == "comment":
        return draw(st.sampled_from(["# note", "#", "  # indented", "# ctl \x02", "#\ttab"]))
    if kind == "junk":
        return draw(st.sampled_from(["name", "= 1", "name = ", "a = 1 b = 2", "\x00"]))
    key = draw(st.sampled_from(KEYS))
    value = draw(inline_tables()) if kind == "inline" else draw(st.sampled_from(SCALARS))
    comment = draw(st.sampled_from(["", "", " # c", "# c", "\t"]))
    indent = draw(st.sampled_from(INDENTS))
    return f"{indent}{key}{draw(st.sampled_from(SEPARATORS))}{value}{comment}"


@st.composite
def fact_blocks(draw):
    args = ", ".join(f"{k} = {draw(st.sampled_from(SCALARS[:9] + ['0', '-5', 'true']))}"
                     for k in draw(st.lists(st.sampled_from(["a", "b", "level", "x-y"]),
                                            max_size=4)))
    return f"[[Prop]]\nname = \"F\"\nargs = {{ {args} }}"


#: characters of generated names: letters, and the ones that end or escape a string
NAME_CHARACTERS = st.sampled_from(list("AbZ_- ") + ['"', "\\", "\\n", "\\u0041", "\t", "\x01"])


@st.composite
def dotted_fact_blocks(draw):
    """Blocks as Honeybee writes them: `args.KEY = VALUE` lines, names of any length."""
    name = "".join(draw(st.lists(NAME_CHARACTERS, max_size=300)))
    args = "\n".join(f"args.{k} = {draw(st.sampled_from(SCALARS[:9] + ['0', '-5', 'true']))}"
                     for k in draw(st.lists(st.sampled_from(["a", "b", "level", "x-y"]), max_size=4)))
    return f"[[Prop]]\nname = \"{name}\"\n{args}"


@st.composite
def documents(draw):
    parts = draw(st.lists(st.one_of(lines(), fact_blocks(), dotted_fact_blocks()), max_size=12))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = newline.join(parts)
    if draw(st.booleans()):
        text += newline
    return text


def strict(value):
    """A form in which True and 1 differ (dict equality would confuse them)."""
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strict(v) for v in value]
    return (type(value).__name__, value)


@settings(max_examples=200, deadline=None)
@given(text=documents())
def test_fast_toml_equals_tomllib_or_defers(text):
    fast = parse_simple_toml(text)
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert fast is None, "accepted a document TOML rejects"
        return
    if fast is not None:
        assert strict(fast) == strict(expected)


def test_fact_files_take_the_fast_path():
    text = ('# header\n[[Prop]]\nname = "P"\nargs = { s = "a, b = \\"c\\"", n = -3, b = true }\n'
            '[[Prop]]\nname = "P"\nargs = {  }\n[Goal]\nname = "T"\nargs = { x = 0 }\n')
    fast = parse_simple_toml(text)
    assert fast is not None and strict(fast) == strict(tomllib.loads(text))


def test_a_long_name_in_dotted_key_style_is_read_fast_and_right():
    # A 29-character Prop name in this style took 57 s (exponential backtracking); the
    # rule against such patterns is tests/navigator/lang/test_regex_backtracking.py.
    text = f'[[Prop]]\nname = "{"N" * 200}"\nargs.x = 1\nargs.y = "v w"\n\n[Goal]\nname = "G"\nargs.count = 3\n'
    fast = parse_simple_toml(text)
    assert fast is not None and strict(fast) == strict(tomllib.loads(text))
