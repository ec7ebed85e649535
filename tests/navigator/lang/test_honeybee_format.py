"""Honeybee-format libraries load unchanged; Navigator's extensions are a strict superset."""

from __future__ import annotations

from navigator.lang import Comparison, DefaultMark, parse_facts, parse_library

# Written in the style of Honeybee's own libraries: params = {}, info tables with nested
# keys, [[Preamble]] code blocks, multi-line formulas, facts with [Prop.args] sub-tables.
HONEYBEE_STYLE = '''
[[Preamble]]
content = """import os"""

[Prop.P_Program]
params.path = "Str"
params.loops = "Int"
info.title = "A program"
info.param_titles.path = "Path to the program"

[Type.Program]
params.path = "Str"
params.loops = "Int"
info.title = "@intermediate:A program"
info.code = """@dataclass
class Program:
    path: str"""

[Type.Done]
params = {}

[Function.F_Program]
params = {}
ret = "Program"
condition = [
    """P_Program {
        path = ret.path,
        loops = ret.loops
    }"""
]
info.title = "Load the program"

[Function.finish]
params.p = "Program"
ret = "Done"
condition = ["1 < p.loops"]
info.hyperparameters = [{ name = "k", default = "3", comment = "a knob" }]
info.code = """print(p.path)"""
'''

HONEYBEE_FACTS = '''
[Goal]
name = 'Done'

    [Goal.args]

[[Prop]]
name = 'P_Program'

    [Prop.args]
    loops = 3
    path = 'a.mlir'
'''


def test_honeybee_style_library_and_facts_load():
    library = parse_library(HONEYBEE_STYLE)
    assert library.warnings == ()
    assert list(library.functions) == ["F_Program", "finish"]
    assert library.preamble[0]["content"] == "import os"
    assert library.props["P_Program"].info["param_titles"]["path"] == "Path to the program"
    assert library.types["Program"].info["code"].startswith("@dataclass")
    assert library.functions["finish"].info["hyperparameters"][0]["name"] == "k"
    assert library.functions["F_Program"].title == "Load the program"
    facts = parse_facts(HONEYBEE_FACTS, library)
    assert facts.goal.type == "Done" and facts.goal.args == ()
    assert facts.facts[0].values == ("a.mlir", 3)  # the Prop's field order, not the file's


def test_parameters_keep_the_order_written():
    library = parse_library('''
[Type.A]
params = {}
[Function.f]
params.zeta = "A"
params.alpha = "A"
params.mid = "A"
ret = "A"
''')
    assert library.functions["f"].param_names == ("zeta", "alpha", "mid")


def test_extensions():
    library = parse_library('''
[Prop.P]
params.a = "Int"
params.b = "Int"
[Type.A]
params.x = "Int"
[Function.f]
params = {}
ret = "A"
condition = ["P { a = ret.x }", "ret.x <= 4", "-1 < ret.x"]
default = { x = 2 }
[Function.g]
params = {}
ret = "A"
condition = "ret.x = 1"
default = true
''')
    f = library.functions["f"]
    assert f.condition[1] == Comparison("<=", f.condition[1].left, f.condition[1].right)
    assert f.default == DefaultMark(((("x", 2),),))
    assert library.functions["g"].default == DefaultMark(((),))
    assert any("single string" in w for w in library.warnings)


def test_unknown_keys_are_ignored_with_a_warning():
    library = parse_library('''
[Type.A]
params = {}
colour = "red"
[Fucntion.f]
ret = "A"
[Function.g]
params = {}
ret = "A"
conditon = []
''')
    warnings = "\n".join(library.warnings)
    assert "unknown top-level key 'Fucntion' ignored (did you mean 'Function'?)" in warnings
    assert "Function.g: unknown key 'conditon' ignored (did you mean 'condition'?)" in warnings
    assert "Type.A: unknown key 'colour' ignored" in warnings


def test_goal_may_constrain_only_some_fields():
    library = parse_library('[Type.A]\nparams.x = "Int"\nparams.y = "Str"\n')
    facts = parse_facts('[Goal]\nname = "A"\nargs = { y = "s" }\n', library)
    assert facts.goal.args == (("y", "s"),)
