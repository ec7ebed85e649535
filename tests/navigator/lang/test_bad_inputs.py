"""Bad libraries and fact files: each error names the file, the key and the problem."""

from __future__ import annotations

import pytest

from fuseflow.support.errors import UserError
from navigator.lang import FactError, LibraryError, load_facts, load_library, parse_library

GOOD_TYPES = """
[Prop.In]
params.x = "Int"
params.s = "Str"

[Type.A]
params.x = "Int"
params.s = "Str"
"""


def library_error(tmp_path, text: str) -> LibraryError:
    path = tmp_path / "bad.hblib.toml"
    path.write_text(text)
    with pytest.raises(LibraryError) as info:
        load_library(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, UserError)
    return info.value


def fact_error(tmp_path, facts: str, library: str = GOOD_TYPES + """
[Function.make]
params = {}
ret = "A"
condition = ["In { x = ret.x, s = ret.s }"]
""") -> FactError:
    lib = parse_library(library, "lib.hblib.toml")
    path = tmp_path / "bad.hb.toml"
    path.write_text(facts)
    with pytest.raises(FactError) as info:
        load_facts(path, lib)
    assert str(path) in str(info.value)
    return info.value


def test_unknown_type_suggests_a_close_name(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "AA"
ret = "A"
""")
    assert err.where.endswith("Function.f.params.a")
    assert "unknown type 'AA' for parameter 'a'" in str(err)
    assert "did you mean 'A'?" in str(err)


def test_unknown_return_type(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + '[Function.f]\nparams = {}\nret = "Nope"\n')
    assert err.where.endswith("Function.f.ret") and "unknown type 'Nope'" in str(err)


def test_duplicate_name_keeps_line_and_column(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params = {}
ret = "A"

[Function.f]
params = {}
ret = "A"
""")
    assert "duplicate name" in str(err)
    assert "[Function.f] is declared twice (at line 14, column 12)" in str(err)


def test_duplicate_name_across_library_files(tmp_path):
    first = tmp_path / "one.hblib.toml"
    second = tmp_path / "two.hblib.toml"
    first.write_text(GOOD_TYPES)
    second.write_text('[Type.A]\nparams = {}\n')
    with pytest.raises(LibraryError) as info:
        load_library([first, second])
    assert "duplicate name: Type 'A' is already declared in" in str(info.value)
    assert str(first) in str(info.value) and str(second) in str(info.value)


def test_prop_and_type_with_the_same_name(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + '[Type.In]\nparams.x = "Int"\n')
    assert "'In' is declared both as a Prop and as a Type" in str(err)
    assert err.where.endswith("Type.In")


def test_formula_that_does_not_parse_points_at_the_column(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "A"
ret = "A"
condition = ["ret.x = a.x", "ret.x < = a.x"]
""")
    assert err.where.endswith("Function.f.condition[1]")
    message = str(err)
    assert "formula does not parse at column 9, at '= a.x'" in message
    assert "\n" not in message  # the CLI prints every error on one line


def test_less_than_on_strings(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "A"
ret = "A"
condition = ["ret.s < a.s"]
""")
    assert "'<' compares integers only" in str(err) and "Str" in str(err)
    assert err.where.endswith("Function.f.condition[0]")


def test_less_or_equal_on_strings(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "A"
ret = "A"
condition = ['ret.s <= "z"']
""")
    assert "'<=' compares integers only" in str(err)


def test_field_that_does_not_exist(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "A"
ret = "A"
condition = ["ret.x = a.xx"]
""")
    assert "field 'xx' does not exist in 'a.xx'" in str(err)
    assert "did you mean 'x'?" in str(err)


def test_unknown_parameter_in_formula(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params.a = "A"
ret = "A"
condition = ["ret.x = b.x"]
""")
    assert "unknown parameter 'b'" in str(err) and "parameters are: a" in str(err)


def test_fact_pattern_field_that_does_not_exist(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params = {}
ret = "A"
condition = ["In { x = ret.x, y = 3 }"]
""")
    assert "field 'y' does not exist in Prop In" in str(err)


def test_comparison_of_different_types(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params = {}
ret = "A"
condition = ['ret.x = "three"']
""")
    assert "compares Int with Str" in str(err)


def test_wrong_value_type_name(tmp_path):
    err = library_error(tmp_path, '[Type.A]\nparams.x = "Integer"\n')
    assert "unknown value type 'Integer' for field 'x'" in str(err)
    assert err.where.endswith("Type.A.params.x")
    assert "Int" in err.fix


def test_toml_syntax_error_keeps_line_and_column(tmp_path):
    err = library_error(tmp_path, '[Type.A]\nparams.x = "Int"\nparams.y = \n')
    assert "TOML syntax error" in str(err) and "line 3, column" in str(err)


def test_parameter_of_a_prop_type(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + '[Function.f]\nparams.a = "In"\nret = "A"\n')
    assert "'In' is a Prop, not a Type" in str(err)


def test_bad_default_mark(tmp_path):
    err = library_error(tmp_path, GOOD_TYPES + """
[Function.f]
params = {}
ret = "A"
default = { y = 1 }
""")
    assert "field 'y' does not exist in return type A" in str(err)
    assert err.where.endswith("Function.f.default.y")


def test_goal_of_unknown_type(tmp_path):
    err = fact_error(tmp_path, '[Goal]\nname = "B"\nargs = {}\n')
    assert "goal of unknown type 'B'" in str(err)
    assert err.where.endswith("Goal.name")


def test_missing_goal(tmp_path):
    err = fact_error(tmp_path, '[[Prop]]\nname = "In"\nargs = { x = 1, s = "a" }\n')
    assert "missing [Goal]" in str(err)


def test_fact_of_unknown_prop(tmp_path):
    err = fact_error(tmp_path, '[[Prop]]\nname = "Inn"\nargs = { x = 1 }\n[Goal]\nname = "A"\n')
    assert "unknown Prop 'Inn'" in str(err) and "did you mean 'In'?" in str(err)
    assert err.where.endswith("Prop[0].name")


def test_fact_with_wrong_value_type(tmp_path):
    err = fact_error(tmp_path, '[[Prop]]\nname = "In"\nargs = { x = "1", s = "a" }\n'
                               '[Goal]\nname = "A"\n')
    assert "field 'x' of Prop In is Int, got Str \"1\"" in str(err)
    assert err.where.endswith("Prop[0].args.x")


def test_fact_with_a_float(tmp_path):
    err = fact_error(tmp_path, '[[Prop]]\nname = "In"\nargs = { x = 1.5, s = "a" }\n'
                               '[Goal]\nname = "A"\n')
    assert "got a float" in str(err)


def test_fact_missing_a_field(tmp_path):
    err = fact_error(tmp_path, '[[Prop]]\nname = "In"\nargs = { x = 1 }\n[Goal]\nname = "A"\n')
    assert "missing field 's'" in str(err)


def test_goal_field_that_does_not_exist(tmp_path):
    err = fact_error(tmp_path, '[Goal]\nname = "A"\nargs = { y = 1 }\n')
    assert "field 'y' does not exist in Type A" in str(err)


def test_single_bracket_prop_table(tmp_path):
    err = fact_error(tmp_path, '[Prop]\nname = "In"\n[Goal]\nname = "A"\n')
    assert "write each fact as [[Prop]]" in str(err)


def test_fact_file_toml_syntax_error(tmp_path):
    err = fact_error(tmp_path, '[Goal]\nname = "A\n')
    assert "TOML syntax error" in str(err) and "line 2" in str(err)


def test_missing_file(tmp_path):
    with pytest.raises(LibraryError, match="file not found"):
        load_library(tmp_path / "nope.hblib.toml")
