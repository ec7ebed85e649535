"""Every example in docs/ runs: programs load, schedules validate, python blocks execute."""

import json
import re

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.support.errors import ScheduleError
from fuseflow.program.frontend import parse_program
from fuseflow.schedule import schedule_from_json, schedule_problems
from tests.paths import DOCS

BLOCK = re.compile(r"^```(\w+) ([^\n]*)\n(.*?)^```", re.S | re.M)


def examples():
    found = []
    for path in sorted(DOCS.glob("*.md")):
        for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
            found.append(pytest.param(match.group(2).strip(), match.group(3), id=f"{path.name}:{match.group(2)}"))
    return found


@pytest.mark.parametrize("kind,body", examples())
def test_doc_example(kind, body):
    if kind == "example-program":
        program = parse_program(body, "doc.toml")
        assert program.ops
    elif kind == "example-ops":
        header = '[dims]\nN = 4\nC = 3\n[tensors]\nZ = { shape = ["N", "C"], source = "random" }\n'
        assert len(parse_program(header + body, "doc.toml").ops) >= 1
    elif kind.startswith("example-schedule"):
        # `program=NAME`, and optionally what the first region reads as: `order=i,k,j`, `par_factors=4,1,1`
        attrs = dict(word.split("=", 1) for word in kind.split()[1:])
        program = resolve_program(attrs["program"])
        schedule = schedule_from_json(program, json.loads(body))
        assert schedule_problems(program, bind(program), schedule) == []
        if "order" in attrs:
            assert schedule.regions[0].order == tuple(attrs["order"].split(","))
        if "par_factors" in attrs:
            assert schedule.regions[0].par_factors == tuple(int(f) for f in attrs["par_factors"].split(","))
    elif kind.startswith("example-refused"):
        # `program=NAME rule=RULE field=FIELD`: reading the schedule is refused under that rule, naming that field
        attrs = dict(word.split("=", 1) for word in kind.split()[1:])
        with pytest.raises(ScheduleError) as refused:
            schedule_from_json(resolve_program(attrs["program"]), json.loads(body))
        assert (refused.value.rule, refused.value.field) == (attrs["rule"], attrs["field"])
    elif kind == "example":
        exec(compile(body, "doc-example", "exec"), {})
    else:
        pytest.fail(f"unknown example kind {kind!r}")


def test_docs_have_examples():
    kinds = {p.values[0].split()[0] for p in examples()}
    assert {"example-program", "example-schedule", "example-refused", "example"} <= kinds
