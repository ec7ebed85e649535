"""navigator.navigation.space: both kinds of space implement the Space protocol, and callers get
what they need by asking for a capability, never by asking which kind they hold."""

from __future__ import annotations

import json

import pytest

from fuseflow.support.errors import UserError
from harness.honeybee_examples import SCHED_STEPS
from navigator.auto import fill_open_holes, get_strategy
from navigator.navigation.session import Session
from navigator.navigation.space import ExportOrigin, Space
from navigator.workspace import ProgramSpec
from tests.paths import HARNESS_DATA


def _spaces():
    tensor = ProgramSpec.from_user("spmm", dims={"N": 8}).load()
    problem = ProgramSpec.from_user(str(HARNESS_DATA / "sched.hb.toml"),
                                    library=str(HARNESS_DATA / "sched.hblib.toml")).load()
    return {"tensor": tensor, "problem": problem}


@pytest.fixture(scope="module")
def loaded():
    return _spaces()


def _complete(space) -> Session:
    session = Session(space.library, space.facts, oracle=space.oracle)
    fill_open_holes(session, get_strategy("default"))
    return session


@pytest.mark.parametrize("kind", ["tensor", "problem"])
def test_both_kinds_are_spaces(loaded, kind):
    space = loaded[kind].space
    assert isinstance(space, Space)
    assert space.name == loaded[kind].name
    assert space.initial_sketch() == space.oracle.initial_sketch()
    assert isinstance(space.facts_fingerprint, str) and space.facts_fingerprint


def test_a_tensor_program_offers_every_capability(loaded):
    space = loaded["tensor"].space
    assert (space.noun, space.product) == ("program", "schedule")
    assert space.tensor_program is space.require_tensor_program("eval") is loaded["tensor"].program
    assert space.has_cost_model
    hints = space.hints(space.initial_sketch())
    assert hints and all(hint is not None for hint in hints.values())
    sketch = _complete(space).sketch
    document = space.document_of(sketch)
    assert json.loads(space.document_text(sketch)) == document and document["regions"]
    text, executable = space.export_file(sketch, "python", ExportOrigin(loaded["tensor"].spec, "s.json", "out.json"))
    assert executable and "EXPORT = json.loads(" in text and "out.json" in text
    with pytest.raises(UserError, match="--notebook writes the program of a Honeybee problem"):
        space.check_export(["json", "notebook"])


def test_a_problem_answers_for_what_it_lacks(loaded):
    space = loaded["problem"].space
    assert (space.noun, space.product) == ("problem", "expression")
    assert space.tensor_program is None and not space.has_cost_model
    assert space.hints(space.initial_sketch()) == {}
    with pytest.raises(UserError, match="`navigator eval` needs a tensor program"):
        space.require_tensor_program("eval")
    with pytest.raises(UserError, match="needs a tensor program"):
        loaded["problem"].program  # noqa: B018
    sketch = space.initial_sketch()
    for hole, option in SCHED_STEPS:
        sketch = space.oracle.step(sketch, hole, option)
    assert json.loads(space.document_text(sketch)) == space.document_of(sketch) == space.expression_of(sketch)
    assert space.export_file(sketch, "json", ExportOrigin(loaded["problem"].spec, "s.json"))[0] \
        == space.document_text(sketch)
    space.check_export(["json"])
