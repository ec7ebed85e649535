"""`navigator facts`, `count` and `replay` on real programs."""

import json

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule, default_schedule, save_schedule, schedule_to_json
from fuseflow.schedule.space_size import schedule_space_size
from navigator.cli import main
from navigator.lang import parse_facts
from navigator.fuseflow.schedule_space import ScheduleSpace
from navigator.fuseflow.bundled_library import load_scheduling_library

SMALL = ["--dim", "I=4", "--dim", "J=4", "--dim", "K=2", "--dim", "L=2"]


def test_facts_parse_with_the_library(capsys, tmp_path):
    assert main(["facts", "nested_matmul", *SMALL]) == 0
    text = capsys.readouterr().out
    library, _ = load_scheduling_library()
    facts = parse_facts(text, library, "nested.hb.toml")
    assert facts.goal.args == {"program": "nested_matmul"} or dict(facts.goal.args) == {"program": "nested_matmul"}
    out = tmp_path / "f.hb.toml"
    assert main(["facts", "nested_matmul", *SMALL, "-o", str(out)]) == 0
    assert out.read_text() == text


@pytest.mark.parametrize("name,dims", [("spmm", {}), ("sddmm", {}), ("nested_matmul", {"I": 4, "J": 4, "K": 2, "L": 2}),
                                       ("gcn", {"N": 2, "F": 1, "H": 2, "C": 1}),
                                       ("graphsage", {"N": 1, "F": 1, "H": 1, "C": 1}),
                                       ("deep_gcn", {"layers": 8}), ("transformer_block", {})])
def test_count_equals_closed_form(name, dims, capsys):
    """The engine counts over the region-by-region fusion states (fuseflow.analysis.fusion_steps); the closed
    form sums over the groupings by inclusion-exclusion (fuseflow.analysis.fusion_count): two computations."""
    args = ["count", name, "--json"] + [a for k, v in dims.items() for a in ("--dim", f"{k}={v}")]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    program = resolve_program(name, dims)
    assert data["schedules"] == schedule_space_size(program, bind(program, dims=dims))["schedules"]
    assert data["schedules"] == data["closed_form"]["schedules"]


def test_replay_reaches_a_schedule_and_reports_a_miss(tmp_path, capsys):
    program = resolve_program("nested_matmul")
    binding = bind(program, dims={"I": 4, "J": 4, "K": 2, "L": 2})
    space = ScheduleSpace.build(program, binding)
    schedule = Schedule((RegionSchedule(("matmul1", "matmul2"), ("i", "j", "k", "l"), (4, 1, 2, 2), 2, True),))
    target = tmp_path / "target.json"
    target.write_text(json.dumps(space.expression_of(schedule)))
    assert main(["replay", str(target), "--program", "nested_matmul", *SMALL, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reached"] and report["rounds"] == 17
    # The same schedule given as schedule JSON.
    as_schedule = tmp_path / "schedule.json"
    save_schedule(as_schedule, program, schedule)
    assert main(["replay", str(as_schedule), "--program", "nested_matmul", *SMALL]) == 0
    assert "reached in 17 rounds" in capsys.readouterr().out
    # A factor of 4 on an extent-2 level is not offered: replay stops and says where.
    bad = json.loads(json.dumps(space.expression_of(schedule)).replace('"factor": 2', '"factor": 4'))
    target.write_text(json.dumps(bad))
    assert main(["replay", str(target), "--program", "nested_matmul", *SMALL]) == 1
    out = capsys.readouterr().out
    assert "NOT reached" in out and "par" in out


def test_replay_needs_a_program_or_facts(tmp_path, capsys):
    target = tmp_path / "t.json"
    target.write_text('{"Hole": 0}')
    assert main(["replay", str(target)]) == 2
    assert "--program" in capsys.readouterr().err


def test_default_schedule_round_trips_through_the_space():
    program = resolve_program("spmm")
    space = ScheduleSpace.build(program, bind(program))
    schedule = default_schedule(program)
    assert space.schedule_of(space.sketch_of(schedule)) == schedule
    assert schedule_to_json(program, schedule)["regions"][0]["dataflow-ordering"] == "i k j"


@pytest.mark.parametrize("ordering,rule", [("{", "order-complete"), ("i j", "order-complete"),
                                           ("k i j", "order-legal")])
def test_replay_of_an_illegal_schedule_json_names_the_rule(tmp_path, capsys, ordering, rule):
    # Fuzz reproducer: an ordering of '{' reached the sketch builder and crashed with KeyError.
    program = resolve_program("spmm")
    data = schedule_to_json(program, default_schedule(program))
    data["regions"][0]["dataflow-ordering"] = ordering
    path = tmp_path / "sched.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path), "--program", "spmm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and f"[rule: {rule}]" in err and "navigator validate" in err
