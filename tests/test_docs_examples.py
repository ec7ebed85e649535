"""Every example in docs/ runs: programs load, schedules validate, python blocks execute."""

import json
import re
from pathlib import Path

import pytest

from fuseflow.binding import bind
from fuseflow.bundled import resolve_program
from fuseflow.frontend import parse_program
from fuseflow.schedule import schedule_from_json, schedule_problems

DOCS = Path(__file__).resolve().parents[1] / "docs"
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
        program = resolve_program(kind.split("program=")[1])
        schedule = schedule_from_json(program, json.loads(body))
        assert schedule_problems(program, bind(program), schedule) == []
    elif kind == "example":
        exec(compile(body, "doc-example", "exec"), {})
    else:
        pytest.fail(f"unknown example kind {kind!r}")


def test_docs_have_examples():
    kinds = {p.values[0].split()[0] for p in examples()}
    assert {"example-program", "example-schedule", "example"} <= kinds
