"""Honeybee's code generator (navigator/honeybee/codegen.py): order, names, substitution, safety."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.honeybee import codegen
from navigator.honeybee.codegen import CodegenError
from navigator.lang import parse_library
from navigator.synth.json_form import sketch_from_json
from tests.paths import HARNESS_DATA, NAVIGATOR_DATA

DATA = NAVIGATOR_DATA / "codegen"
GOLDEN = Path(__file__).parent / "golden"
LIBRARY_TEXT = (DATA / "pipeline.hblib.toml").read_text(encoding="utf-8")
EXPRESSION = json.loads((DATA / "pipeline.json").read_text(encoding="utf-8"))


def library(text: str = LIBRARY_TEXT):
    return parse_library(text, "pipeline.hblib.toml")


def order_step(region, order):
    return {"App": [{"name": "choose_order", "metadata": {"region": region, "order": order},
                     "arity": []}, {}]}


def combine(first, second, fused=True):
    return {"App": [{"name": "combine", "metadata": {"fused": fused}, "arity": ["first", "second"]},
                    {"first": first, "second": second}]}


def test_program_matches_golden(golden):
    golden(GOLDEN / "codegen_pipeline.py.txt", codegen.python_program(library(), EXPRESSION))


def test_notebook_matches_golden(golden):
    golden(GOLDEN / "codegen_pipeline.ipynb.txt", codegen.notebook(library(), EXPRESSION))


def test_steps_come_in_post_order_with_fresh_names():
    program = codegen.python_program(library(), EXPRESSION)
    first = program.index("ORDER = Order(")
    second = program.index("ORDER2 = Order(")
    goal = program.index("GOAL = Schedule(")
    assert first < second < goal
    # placeholders name the step's own result and its arguments
    assert 'json.dump({"orders": [ORDER.order, ORDER2.order], "fused": GOAL.fused}, out)' in program
    assert 'print(f"region {ORDER2.region}: order {ORDER2.order}")' in program
    # Preamble first, then the code of the types used, last used first
    assert program.index("class Dir") < program.index("class Schedule") < program.index("class Order")
    assert "__hb_" not in program


def test_sketch_and_json_give_the_same_program():
    lib = library()
    sketch = sketch_from_json(EXPRESSION, lib, "Schedule")
    assert codegen.python_program(lib, sketch) == codegen.python_program(lib, EXPRESSION)
    assert codegen.python_program(lib, sketch.root) == codegen.python_program(lib, EXPRESSION)


def test_type_var_name_and_constant_case():
    assert codegen.constant_case("DataflowOrder") == "DATAFLOW_ORDER"
    assert codegen.constant_case("par-level") == "PAR_LEVEL"
    assert codegen.constant_case("HTTPServer2") == "HTTP_SERVER_2"
    assert codegen.python_identifier("class") == "class_"
    assert codegen.python_identifier("x = 1; import os") == "x___1__import_os"
    assert codegen.python_identifier("9lives") == "_9lives"


def test_a_variable_never_reuses_goal():
    text = LIBRARY_TEXT.replace('info.title = "A dataflow order for one region"',
                                'info.title = "A dataflow order for one region"\ninfo.var_name = "GOAL"')
    program = codegen.python_program(library(text), EXPRESSION)
    assert "GOAL2 = Order(" in program and "GOAL3 = Order(" in program
    assert program.count("GOAL = ") == 1


def test_holes_are_refused():
    expression = combine(order_step(0, "i"), {"Hole": 4})
    with pytest.raises(CodegenError, match=r"still has holes \(\?4\)") as info:
        codegen.python_program(library(), expression)
    assert info.value.fix


def test_a_function_without_code_is_refused_with_its_key():
    text = LIBRARY_TEXT.replace("info.title = \"Write the schedule\"\n", "")
    text = text[:text.rindex("info.code")]
    with pytest.raises(CodegenError, match="function combine has no code") as info:
        codegen.notebook(library(text), EXPRESSION)
    assert info.value.where == "pipeline.hblib.toml: Function.combine.info.code"


@pytest.mark.parametrize("broken, key", [
    ("    x = 1\n  y = 2", "Function.choose_order.info.code"),
    ("x = '\\u0000'\0", "Function.choose_order.info.code"),
    ("def f(:", "Function.choose_order.info.code"),
])
def test_library_code_that_does_not_parse_is_refused(broken, key):
    lib = library()
    decl = lib.functions["choose_order"]
    object.__setattr__(decl, "info", {**decl.info, "code": broken})
    with pytest.raises(CodegenError, match="not valid Python") as info:
        codegen.python_program(lib, EXPRESSION)
    assert info.value.where == f"pipeline.hblib.toml: {key}"


def test_a_preamble_that_does_not_parse_is_refused():
    text = LIBRARY_TEXT.replace("import json", "import json)")
    with pytest.raises(CodegenError, match=r"line 1") as info:
        codegen.python_program(library(text), EXPRESSION)
    assert info.value.where == "pipeline.hblib.toml: Preamble[0].content"


def test_a_bad_hyperparameter_is_refused():
    text = LIBRARY_TEXT.replace('default = "True"', 'default = "True\\nimport os"')
    with pytest.raises(CodegenError) as info:
        codegen.python_program(library(text), EXPRESSION)
    assert info.value.where.endswith("Function.choose_order.info.hyperparameters[0].default")


def test_has_code():
    assert codegen.has_code(library())
    plain = (HARNESS_DATA / "sched.hblib.toml").read_text(encoding="utf-8")
    assert not codegen.has_code(parse_library(plain))


def test_notebook_is_nbformat_4_with_one_code_cell_per_step():
    document = json.loads(codegen.notebook(library(), EXPRESSION))
    assert (document["nbformat"], document["nbformat_minor"]) == (4, 5)
    code = [c for c in document["cells"] if c["cell_type"] == "code"]
    # parameters + initialization + three applications
    assert len(code) == 5
    ids = [c["id"] for c in document["cells"]]
    assert len(set(ids)) == len(ids)
    for cell in document["cells"]:
        assert set(cell) >= {"cell_type", "id", "metadata", "source"}
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    assert code[1]["metadata"] == {"jupyter": {"source_hidden": True}}
    ast.parse("\n\n".join("".join(c["source"]) for c in code))


# Any text at all, including quotes, backslashes, line breaks, NUL and lone surrogates.
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=ANY_TEXT, second=ANY_TEXT, region=st.integers(-10**30, 10**30), fused=st.booleans())
def test_any_metadata_gives_a_program_that_parses(first, second, region, fused):
    expression = combine(order_step(region, first), order_step(0, second), fused)
    program = codegen.python_program(library(), expression)
    tree = ast.parse(program)
    # the values come back exactly, as literals of the constructor calls
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "Order"]
    orders = [next(ast.literal_eval(k.value) for k in call.keywords if k.arg == "order")
              for call in calls]
    assert orders == [first, second]
    notebook = json.loads(codegen.notebook(library(), expression))
    ast.parse("\n\n".join("".join(c["source"]) for c in notebook["cells"]
                          if c["cell_type"] == "code"))


TOML_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=100, deadline=None)
@given(title=TOML_TEXT, var_name=TOML_TEXT, citation=TOML_TEXT)
def test_any_library_text_outside_code_keeps_the_program_parsing(title, var_name, citation):
    lib = library()
    order = lib.functions["choose_order"]
    object.__setattr__(order, "info", {**order.info, "title": title, "description": citation})
    schedule = lib.functions["combine"]
    object.__setattr__(schedule, "info", {**schedule.info, "citation": citation})
    order_type = lib.types["Order"]
    object.__setattr__(order_type, "info", {**order_type.info, "var_name": var_name})
    program = codegen.python_program(lib, EXPRESSION)
    ast.parse(program)
    for line in program.splitlines():
        if line.startswith("# %%"):
            assert line.isprintable()
    notebook = json.loads(codegen.notebook(lib, EXPRESSION))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            assert "<" not in "".join(cell["source"])


@pytest.mark.parametrize("expression", [{"App": 5}, {"App": []}, [1], {"Hole": "x"}, {"App": [{"name": "nope"}, {}]}])
def test_a_malformed_expression_is_a_user_error(expression):
    from fuseflow.support.errors import UserError

    with pytest.raises(UserError):
        codegen.python_program(library(), expression)
