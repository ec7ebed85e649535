"""navigator.honeybee.problem: what is recognised as a Honeybee problem, and its space."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseflow.program.binding import bind
from fuseflow.support.errors import ProgramError
from fuseflow.program.bundled import bundled_program_names, bundled_program_text, resolve_program
from navigator.fuseflow.facts import program_facts
from fuseflow.program.frontend import TOP_KEYS
from navigator.honeybee.problem import PROBLEM_KEYS, ProblemSpace
from navigator.honeybee.problem import is_honeybee_problem_document as is_problem_document
from navigator.honeybee.problem import is_honeybee_problem_file as is_problem_file
from navigator.lang.toml_source import parse_toml
from navigator.navigation.replay import replay
from navigator.navigation.sampling import UniformSampler
from tests.paths import DOCS

EXAMPLE = DOCS / "examples" / "honeybee"


@pytest.mark.parametrize("name", bundled_program_names())
def test_bundled_programs_are_tensor_programs_and_their_facts_are_problems(name, tmp_path):
    program_text = bundled_program_text(name)
    assert not is_problem_document(parse_toml(program_text, name, ProgramError))
    program = resolve_program(name)
    facts_text = program_facts(program, bind(program)).to_toml(f"facts of {name}")
    path = tmp_path / "facts.toml"
    path.write_text(facts_text, encoding="utf-8")
    assert is_problem_file(path)
    (tmp_path / "program.hb.toml").write_text(program_text, encoding="utf-8")
    assert not is_problem_file(tmp_path / "program.hb.toml")


def test_what_is_not_a_problem_file(tmp_path):
    assert not is_problem_file(tmp_path / "missing.hb.toml")
    assert not is_problem_file(tmp_path)  # a directory
    (tmp_path / "broken.hb.toml").write_text("[[Prop]\nname = ", encoding="utf-8")
    assert not is_problem_file(tmp_path / "broken.hb.toml")  # the loader reports the syntax error itself


@given(st.sets(st.sampled_from(sorted(PROBLEM_KEYS | TOP_KEYS | {"Type", "Function", "extra"}))))
def test_recognition_needs_a_problem_key_and_no_tensor_key(keys):
    doc = {key: {} for key in keys}
    assert is_problem_document(doc) == (bool(keys & PROBLEM_KEYS) and not keys & TOP_KEYS)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_sampled_expression_of_the_example_replays(seed):
    import random

    space = ProblemSpace.build(EXAMPLE / "pipeline.hb.toml", EXAMPLE / "pipeline.hblib.toml")
    sketch = UniformSampler(space.oracle).sample(random.Random(seed))
    expression = space.expression_of(sketch)
    report = replay(space.library, space.facts, expression, oracle=space.oracle)
    assert report.reached and len(report.rounds) == 4
