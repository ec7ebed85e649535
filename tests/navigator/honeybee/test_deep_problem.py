"""Issue 21: a Honeybee problem whose programs nest hundreds of applications deep. Was: fill
saved a session that no command could open (RecursionError comparing the replayed sketch with
the saved one), and sample and export crashed the same way, from 330 applications deep on.

The commands run in this process under tests.deep_sketches.shallow_stack(): a recursion limit
a few hundred frames above the test's, far below what a walk recursing once per JSON level of
these sketches needs, so the fast tests catch a recursive walk at a depth that is quick to
navigate. The test marked slow runs the commands as a user does, at the engine's limit."""

from __future__ import annotations

import json

import pytest

from fuseflow.support.readers import json_equal, parse_json_text
from harness.honeybee_examples import DEEP, deep_facts_text, write_deep
from navigator.honeybee.codegen import notebook, python_program
from navigator.lang import parse_library
from navigator.synth import sketch_to_json
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING
from tests.deep_sketches import nat_chain, shallow_stack

#: applications under the goal in the fast tests: 3 JSON levels each, 360 in all
DEPTH = 120


def test_code_is_assembled_from_the_deepest_expression():
    library = parse_library(DEEP, "deep.hblib.toml")
    expression = sketch_to_json(nat_chain())
    with shallow_stack():
        program = python_program(library, expression)
        document = notebook(library, expression)
    assert program.count("# %% One more") == MAX_SKETCH_DEPTH - 1 and "NAT1199 = Nat(" in program  # GOAL, then NAT, NAT2, ...
    assert len(json.loads(document)["cells"]) > MAX_SKETCH_DEPTH


def test_the_problem_space_exports_the_deepest_expression(tmp_path):
    from navigator.honeybee.problem import ProblemSpace

    problem, library = write_deep(tmp_path, MAX_SKETCH_DEPTH - 1)
    space = ProblemSpace.build(problem, library)
    sketch = nat_chain()
    with shallow_stack():
        assert space.oracle.blocked(sketch) is None and space.oracle.count(sketch).value == 1
        text = space.export_file(sketch, "json", None)[0]
        assert json_equal(parse_json_text(text, "e.json", nesting=SKETCH_JSON_NESTING), sketch_to_json(sketch))
        assert space.export_file(sketch, "python", None)[0].count("print(") == MAX_SKETCH_DEPTH


def test_every_session_command_on_a_deep_problem(cli):
    """start, fill, show, history, export (JSON, Python, notebook), undo, redo, replay and
    sample on a problem DEPTH + 1 applications deep, each under the shallow stack."""
    write_deep(cli.cwd, DEPTH)
    problem = f"deep{DEPTH}.hb.toml"
    commands = [
        ("start", problem, "--library", "deep.hblib.toml"),
        ("fill", "?0", "--auto", "default", "--all"),
        ("show",), ("show", "--json"), ("show", "--verbose"), ("history",), ("history", "--json"),
        ("export", "--json", "e.json", "--python", "e.py", "--notebook", "e.ipynb"),
        ("undo",), ("show",), ("export", "--partial", "--json", "partial.json"), ("redo",), ("history", "--json"),
        ("replay", "e.json", "--facts", problem, "--library", "deep.hblib.toml", "--json"),
        ("sample", problem, "2", "--library", "deep.hblib.toml", "--out", "drawn", "--seed", "1"),
    ]
    outputs = {}
    for command in commands:
        with shallow_stack(room=300):
            outputs[command] = cli(*command, ok=True).stdout
    expression = json.loads((cli.cwd / "e.json").read_text(encoding="utf-8"))
    assert json.loads((cli.cwd / "partial.json").read_text(encoding="utf-8")) == expression
    assert json.loads(outputs[("show", "--json")])["sketch"]["expression"] == expression
    assert json.loads(outputs[commands[-2]])["reached"]
    assert len(json.loads(outputs[("history", "--json")])["steps"]) == DEPTH + 1
    assert (cli.cwd / "e.py").read_text(encoding="utf-8").count("print(") == DEPTH + 1
    assert len(list((cli.cwd / "drawn").glob("*.json"))) == 2


@pytest.mark.slow
def test_a_problem_as_deep_as_the_engine_allows_through_the_command_line(nav):
    """The reported case at the engine's limit: fill, then export and sample in fresh processes."""
    n = MAX_SKETCH_DEPTH - 1
    (nav.cwd / f"deep{n}.hb.toml").write_text(deep_facts_text(n), encoding="utf-8")
    (nav.cwd / "deep.hblib.toml").write_text(DEEP, encoding="utf-8")
    nav("start", f"deep{n}.hb.toml", "--library", "deep.hblib.toml", ok=True)
    nav("fill", "?0", "--auto", "default", "--all", ok=True, timeout=1200)
    nav("export", "--json", "e.json", "--python", "e.py", "--notebook", "e.ipynb", ok=True, timeout=1200)
    assert (nav.cwd / "e.py").read_text(encoding="utf-8").count("print(") == MAX_SKETCH_DEPTH
    nav("sample", f"deep{n}.hb.toml", "1", "--library", "deep.hblib.toml", "--out", "drawn", ok=True, timeout=1200)
    assert next((nav.cwd / "drawn").glob("*.json")).read_text(encoding="utf-8").count('"prev"') == 2 * (MAX_SKETCH_DEPTH - 1)  # in arity and as the argument
