"""Schedule JSON: FuseFlow's keys load as they are, round trips, and every rule's rejection."""

import json

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.support.errors import ScheduleError
from fuseflow.program.frontend import parse_program
from fuseflow.schedule import (RegionSchedule, Schedule, default_schedule, load_schedule, save_schedule,
                               schedule_from_json, schedule_problems, schedule_to_json)
from navigator.cli import main

# A ten-variable fused region, to load FuseFlow's example keys exactly as FuseFlow writes them.
CHAIN = '''name = "chain"
[dims]
D = 32
[tensors]
A = { shape = ["D", "D"], format = ["dense", "compressed"], source = "random", density = 0.2 }
''' + "\n".join(f'B{k} = {{ shape = ["D", "D"], source = "random" }}' for k in range(1, 9)) + "\n" + "\n".join(
    f'[[ops]]\nname = "m{k}"\nexpr = "T{k}(a,b) = {"A" if k == 1 else f"T{k-1}"}(a,c) * B{k}(c,b)"'
    for k in range(1, 9)) + "\n"

FUSEFLOW_EXAMPLE = {"dataflow-ordering": "i0 i1 i2 i4 i5 i6 i7 i8 i9 i3",
                    "stream-parallelizer": {"par_factors": [1, 1, 1, 1, 1, 4, 1, 1, 1, 4]},
                    "stream-vectorizer": {"enable-block-sparse": True, "stream-shape": 1}}


@pytest.fixture(scope="module")
def chain():
    program = parse_program(CHAIN, "chain.toml")
    return program, bind(program)


def test_fuseflow_single_region_keys_load_as_they_are(chain):
    program, binding = chain
    schedule = schedule_from_json(program, FUSEFLOW_EXAMPLE)
    assert len(schedule.regions) == 1 and len(schedule.regions[0].order) == 10
    assert schedule.regions[0].par_factors == (1, 1, 1, 1, 1, 4, 1, 1, 1, 4)
    assert schedule.regions[0].block_sparse is True
    problems = schedule_problems(program, binding, schedule)
    # Every rejection, if any, names a field and a rule.
    assert all(p.field and p.rule for p in problems)


def test_round_trip(tmp_path):
    program = resolve_program("gcn")
    schedule = default_schedule(program, [["aggregate1", "transform1", "activate1"],
                                          ["aggregate2", "transform2", "bias2"]])
    path = tmp_path / "s.json"
    save_schedule(path, program, schedule)
    assert load_schedule(path, program) == schedule
    assert json.loads(path.read_text())["fusion"] == [list(r.ops) for r in schedule.regions]


def gcn_with(region0: dict | None = None, **top):
    program = resolve_program("gcn")
    data = schedule_to_json(program, default_schedule(program))
    if region0:
        data["regions"][0].update(region0)
    data.update(top)
    return program, data


BAD_SCHEDULES = [
    ("illegal order", {"dataflow-ordering": "k i f"}, "regions[0].dataflow-ordering", "order-legal"),
    ("missing var", {"dataflow-ordering": "i k"}, "regions[0].dataflow-ordering", "order-complete"),
    ("unknown var", {"dataflow-ordering": "i k z"}, "regions[0].dataflow-ordering", "order-complete"),
    ("par count", {"stream-parallelizer": {"par_factors": [1, 1]}}, "par_factors", "par-count"),
    ("par not allowed", {"stream-parallelizer": {"par_factors": [3, 1, 1]}}, "par_factors[0]", "par-allowed"),
    ("par on compressed", {"stream-parallelizer": {"par_factors": [1, 2, 1]}}, "par_factors[1]", "par-compressed"),
    ("shape not allowed", {"stream-vectorizer": {"stream-shape": 3, "enable-block-sparse": False}},
     "stream-shape", "shape-allowed"),
]


@pytest.mark.parametrize("description,change,field,rule", BAD_SCHEDULES, ids=[b[0] for b in BAD_SCHEDULES])
def test_rule_rejections_name_field_and_rule(description, change, field, rule):
    program, data = gcn_with(change)
    binding = bind(program)
    schedule = schedule_from_json(program, data)
    problems = schedule_problems(program, binding, schedule)
    assert problems, description
    assert field in problems[0].field and problems[0].rule == rule


def test_extent_and_fit_rules():
    program = resolve_program("gcn")
    binding = bind(program, dims={"H": 4})
    rs = RegionSchedule(("transform1",), ("i", "f", "h"), (1, 1, 8), 8, False)
    regions = default_schedule(program).regions
    problems = schedule_problems(program, binding, Schedule(regions[:1] + (rs,) + regions[2:]))
    rules = {p.rule for p in problems}
    assert rules == {"par-extent", "shape-fits"}


def test_block_sparse_needs_a_sparse_operand():
    program = resolve_program("gcn")
    rs = RegionSchedule(("transform1",), ("i", "f", "h"), (1, 1, 1), 1, True)
    problems = schedule_problems(program, bind(program), Schedule((default_schedule(program).regions[0], rs)
                                                                  + default_schedule(program).regions[2:]))
    assert [p.rule for p in problems] == ["block-formats"]


BAD_JSON = [
    ("wrong program", {"program": "spmm"}, "program-match", "written for program 'spmm'"),
    ("illegal fusion", {"fusion": None, "regions": [{"ops": ["aggregate1", "activate1"]}, {"ops": ["transform1"]},
                                                     {"ops": ["aggregate2", "transform2", "bias2"]}]},
     "fusion-legal", "not connected"),
    ("unknown op", {"fusion": None, "regions": [{"ops": ["conv"]}]}, "program-match", "unknown op(s) conv"),
    ("op twice", {"fusion": None, "regions": [{"ops": ["aggregate1"]}, {"ops": ["aggregate1"]}]},
     "fusion-legal", "appears in groups"),
    ("bad version", {"version": 7}, "json-shape", "unsupported version"),
]


@pytest.mark.parametrize("description,top,rule,fragment", BAD_JSON, ids=[b[0] for b in BAD_JSON])
def test_bad_schedule_json(description, top, rule, fragment):
    program, data = gcn_with(**{k: v for k, v in top.items() if v is not None})
    if top.get("fusion", 0) is None:
        data.pop("fusion")
    with pytest.raises(ScheduleError) as info:
        schedule_from_json(program, data, "s.json")
    assert info.value.rule == rule and fragment in str(info.value)


def test_validate_cli_exit_codes(tmp_path, capsys):
    program, data = gcn_with({"dataflow-ordering": "k i f"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["validate", str(bad), "--program", "gcn"]) == 1
    assert "order-legal" in capsys.readouterr().err
    good = tmp_path / "good.json"
    save_schedule(good, program, default_schedule(program))
    assert main(["validate", str(good), "--program", "gcn", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    assert main(["validate", str(broken), "--program", "gcn"]) == 2
    err = capsys.readouterr().err
    assert "broken.json" in err and "line 1" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps(gcn_with(program="spmm")[1]))
    assert main(["validate", str(other), "--program", "gcn"]) == 1  # a rule (program-match) broken: invalid, not unreadable
    assert "program-match" in capsys.readouterr().err
