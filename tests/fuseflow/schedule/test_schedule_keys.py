"""Schedule JSON is never silently misread: every key is known at its level, or refused with
its path and the key it most likely meant; Honeybee's FuseFlow variants read as they mean."""

import copy
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.bundled import bundled_program_names, resolve_program
from fuseflow.support.errors import ScheduleError
from fuseflow.schedule import (RegionSchedule, Schedule, default_schedule, key_problems, schedule_from_json,
                               schedule_problems, schedule_to_json)
from fuseflow.schedule.schedule_keys import KNOWN_KEYS, LEVEL_TITLES
from tests.paths import DOCS

SCHEDULE_JSON_DOC = DOCS / "schedule-json.md"
ISSUE_EXAMPLE = {"stream-parallelizer": {"par_factor": [4, 1, 1]},
                 "stream-vectorizer": {"enable_block_sparse": True, "stream_shape": 16}}


@pytest.fixture(scope="module")
def spmm():
    return resolve_program("spmm")


def refusal(program, data) -> ScheduleError:
    with pytest.raises(ScheduleError) as info:
        schedule_from_json(program, data, "s.json")
    return info.value


def test_the_issue_example_is_refused_naming_every_misspelt_key(spmm):
    error = refusal(spmm, ISSUE_EXAMPLE)
    assert (error.field, error.rule, error.fix) == ("stream-parallelizer.par_factor", "known-keys",
                                                    "did you mean `par_factors`?")
    assert [(p.field, p.fix) for p in error.problems] == [
        ("stream-parallelizer.par_factor", "did you mean `par_factors`?"),
        ("stream-vectorizer.enable_block_sparse", "did you mean `enable-block-sparse`?"),
        ("stream-vectorizer.stream_shape", "did you mean `stream-shape`?")]
    assert "(and 2 more)" in str(error) and str(error).startswith("s.json: stream-parallelizer.par_factor: ")


def gcn_json() -> dict:
    program = resolve_program("gcn")
    return schedule_to_json(program, default_schedule(program, [["aggregate1", "transform1", "activate1"],
                                                                ["aggregate2", "transform2", "bias2"]]))


def _set(data: dict, path: tuple, key: str, value) -> dict:
    data = copy.deepcopy(data)
    target = data
    for step in path:
        target = target[step]
    target[key] = value
    return data


MULTI = [
    (("regions", 1, "stream-vectorizer"), "stream_shape", 16, "regions[1].stream-vectorizer.stream_shape",
     "did you mean `stream-shape`?"),
    (("regions", 0, "stream-vectorizer"), "Enable-Block-Sparse", True,
     "regions[0].stream-vectorizer.Enable-Block-Sparse", "did you mean `enable-block-sparse`?"),
    (("regions", 0, "stream-parallelizer"), "par_factor", [4, 1, 1, 1], "regions[0].stream-parallelizer.par_factor",
     "did you mean `par_factors`?"),
    (("regions", 0, "stream-parallelizer"), "par_factor", 4, "regions[0].stream-parallelizer.par_factor",
     "did you mean `par-factor`?"),
    (("regions", 0, "stream-parallelizer"), "parfactors", [1], "regions[0].stream-parallelizer.parfactors",
     "did you mean `par_factors`?"),
    (("regions", 0, "stream-parallelizer"), "stream-shape", 4, "regions[0].stream-parallelizer.stream-shape",
     "`stream-shape` belongs in `stream-vectorizer`"),
    (("regions", 0), "dataflow_ordering", "i k f h", "regions[0].dataflow_ordering",
     "did you mean `dataflow-ordering`?"),
    (("regions", 0), "opps", ["aggregate1"], "regions[0].opps", "did you mean `ops`?"),
    (("regions", 0), "sparse-annotations", {}, "regions[0].sparse-annotations",
     "`sparse-annotations` belongs in the top level of the multi-region form or in the top level of the "
     "single-region form"),
    ((), "dataflow-ordering", "i k f h", "dataflow-ordering",
     "`dataflow-ordering` belongs in the top level of the single-region form or in each entry of `regions`"),
    ((), "fusions", [], "fusions", "did you mean `fusion`?"),
    ((), "sparse_annotations", {}, "sparse_annotations", "did you mean `sparse-annotations`?"),
    ((), "colour", "blue", "colour", "the keys here are `format`, `version`, `program`, `fusion`, `regions`, "
                                     "`sparse-annotations`"),
]


@pytest.mark.parametrize("path,key,value,field,fix", MULTI, ids=[f"{m[1]}@{m[3]}" for m in MULTI])
def test_unknown_keys_in_the_multi_region_form(path, key, value, field, fix):
    error = refusal(resolve_program("gcn"), _set(gcn_json(), path, key, value))
    assert (error.field, error.rule, error.fix) == (field, "known-keys", fix)


SINGLE = [
    ({"dataflow-ordering": "i k j", "ops": ["spmm"]}, "ops", "`ops` belongs in each entry of `regions`"),
    ({"dataflow-ordering": "i k j", "program": "spmm"}, "program",
     "`program` belongs in the top level of the multi-region form"),
    ({"dataflow_ordering": "i k j"}, "dataflow_ordering", "did you mean `dataflow-ordering`?"),
    ({"region": [{"ops": ["spmm"]}]}, "region", "did you mean `regions`?"),
    ({"stream-vectoriser": {"stream-shape": 4}}, "stream-vectoriser", "did you mean `stream-vectorizer`?"),
]


@pytest.mark.parametrize("data,field,fix", SINGLE, ids=[s[1] for s in SINGLE])
def test_unknown_keys_in_the_single_region_form(spmm, data, field, fix):
    error = refusal(spmm, data)
    assert (error.field, error.rule, error.fix) == (field, "known-keys", fix)


# ---- the property: any valid schedule JSON with one key renamed to an unknown one is refused ----

FUSABLE = ["spmm", "sddmm", "gcn", "nested_matmul"]


@st.composite
def valid_schedule_json(draw):
    """A valid schedule JSON in one of the forms the reader accepts (Honeybee's variants included)."""
    name = draw(st.sampled_from(FUSABLE))
    program = resolve_program(name)
    multi = draw(st.booleans())
    if multi or name != "spmm":
        data = schedule_to_json(program, default_schedule(program))
        if draw(st.booleans()):
            data["sparse-annotations"] = {t: decl.is_sparse for t, decl in program.tensors.items()
                                          if draw(st.booleans())}
        return program, data
    region = {"dataflow-ordering": draw(st.sampled_from(["", "i k j", "i0,i2,i1"])),
              "stream-vectorizer": {"stream-shape": draw(st.sampled_from([1, 4, 16])),
                                    "enable-block-sparse": draw(st.booleans())}}
    region["stream-parallelizer"] = draw(st.sampled_from([
        {"par_factors": [draw(st.sampled_from([1, 2, 4])), 1, 1]},
        {"stream-level": 0, "par-factor": draw(st.sampled_from([1, 2, 4]))},
        {"stream-level": 2, "par-factor": 1}]))
    region["sparse-annotations"] = draw(st.sampled_from([None, {"A": True}, {"A": True, "B": False, "C": False}]))
    return program, region


def key_paths(data, prefix=()):
    """Every (path to an object, key) in `data`, outermost first."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield prefix, key
            yield from key_paths(value, prefix + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from key_paths(value, prefix + (index,))


def field_of(path: tuple, key: str) -> str:
    text = ""
    for step in path + (key,):
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


ALL_KEYS = {k.name for keys in KNOWN_KEYS.values() for k in keys}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_schedule_json(), st.data(),
       st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x24F), min_size=1, max_size=30))
def test_renaming_any_key_to_an_unknown_one_is_refused_naming_it(case, data, new_key):
    program, schedule_json = case
    assert schedule_problems(program, bind(program), schedule_from_json(program, schedule_json)) == []
    paths = list(key_paths(schedule_json))
    path, key = data.draw(st.sampled_from(paths))
    parent = schedule_json
    for step in path:
        parent = parent[step]
    annotation = path[-1:] == ("sparse-annotations",)
    # not a key of that level (for annotations: not a tensor), nor of its siblings, nor the form-deciding `regions`
    known_here = set(program.tensors) if annotation else ALL_KEYS
    if new_key in known_here or new_key in parent or new_key == "regions":
        return
    renamed = {(new_key if k == key else k): v for k, v in parent.items()}
    broken = copy.deepcopy(schedule_json)
    if path:
        holder = broken
        for step in path[:-1]:
            holder = holder[step]
        holder[path[-1]] = renamed
    else:
        broken = renamed
    error = refusal(program, broken)
    problems = getattr(error, "problems", [error])
    assert field_of(path, new_key) in [p.field for p in problems]
    assert {p.rule for p in problems} <= {"known-keys", "program-match"}


def test_every_key_navigator_writes_is_known():
    for name in bundled_program_names():
        program = resolve_program(name)
        assert key_problems(schedule_to_json(program, default_schedule(program))) == []


def test_the_docs_print_the_tables_the_reader_uses():
    text = SCHEDULE_JSON_DOC.read_text(encoding="utf-8")
    for level, keys in KNOWN_KEYS.items():
        title = LEVEL_TITLES[level]
        heading = f"### {title[0].upper()}{title[1:]}\n"
        assert heading in text, heading
        section = text.split(heading, 1)[1].split("\n#", 1)[0]
        rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| (.+) \|$", section, re.M)
        assert rows == [(k.name, k.kind, k.meaning) for k in keys]


# ---- Honeybee's variants ----

@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_the_single_level_parallelizer_maps_onto_its_level(level):
    program = resolve_program("gcn")
    data = gcn_json()
    data["regions"][1]["stream-parallelizer"] = {"stream-level": level, "par-factor": 2}
    region = schedule_from_json(program, data).regions[1]
    assert region.par_factors == tuple(2 if i == level else 1 for i in range(4))
    # written back in the canonical form, and read back equal
    again = schedule_to_json(program, schedule_from_json(program, data))
    assert again["regions"][1]["stream-parallelizer"] == {"par_factors": list(region.par_factors)}
    assert schedule_from_json(program, again) == schedule_from_json(program, data)


def test_a_factor_given_by_level_obeys_the_level_rules(spmm):
    # level 1 of i k j is k, which iterates A's compressed coordinates
    schedule = schedule_from_json(spmm, {"dataflow-ordering": "i k j",
                                         "stream-parallelizer": {"stream-level": 1, "par-factor": 2}})
    problems = schedule_problems(spmm, bind(spmm), schedule)
    assert [(p.field, p.rule) for p in problems] == [("regions[0].stream-parallelizer.par_factors[1]",
                                                      "par-compressed")]


PARALLELIZER_REFUSALS = [
    ({"stream-level": 3, "par-factor": 2}, "stream-parallelizer.stream-level", "par-level"),
    ({"stream-level": -1, "par-factor": 2}, "stream-parallelizer.stream-level", "par-level"),
    ({"stream-level": 0}, "stream-parallelizer.par-factor", "json-shape"),
    ({"par-factor": 4}, "stream-parallelizer.stream-level", "json-shape"),
    ({"stream-level": 0, "par-factor": 4, "par_factors": [4, 1, 1]}, "stream-parallelizer.stream-level",
     "json-shape"),
    ({"stream-level": True, "par-factor": 4}, "stream-parallelizer.stream-level", "json-shape"),
    ({"stream-level": 0, "par-factor": "4"}, "stream-parallelizer.par-factor", "json-shape"),
]


@pytest.mark.parametrize("par,field,rule", PARALLELIZER_REFUSALS, ids=[str(p[0]) for p in PARALLELIZER_REFUSALS])
def test_the_single_level_parallelizer_is_never_dropped(spmm, par, field, rule):
    error = refusal(spmm, {"dataflow-ordering": "i k j", "stream-parallelizer": par})
    assert (error.field, error.rule) == (field, rule)


def test_an_empty_ordering_is_the_default_order_and_commas_separate(spmm):
    default = schedule_from_json(spmm, {"dataflow-ordering": "i k j"})
    assert schedule_from_json(spmm, {"dataflow-ordering": ""}) == default
    assert schedule_from_json(spmm, {"dataflow-ordering": "i0,i2,i1"}) == default
    data = gcn_json()
    data["regions"][0]["dataflow-ordering"] = ""
    assert schedule_from_json(resolve_program("gcn"), data) == schedule_from_json(resolve_program("gcn"), gcn_json())
    # an order that is only blank is not the empty string: it names no variable
    schedule = schedule_from_json(spmm, {"dataflow-ordering": " "})
    assert schedule_problems(spmm, bind(spmm), schedule)[0].rule == "order-complete"


def test_sparse_annotations_agreeing_with_the_formats_are_accepted(spmm):
    plain = schedule_from_json(spmm, {"dataflow-ordering": "i k j"})
    for annotations in ({"A": True, "B": False, "C": False}, {"B": False}, {}, None):
        data = {"dataflow-ordering": "i k j", "sparse-annotations": annotations}
        assert schedule_from_json(spmm, data) == plain
    data = gcn_json()
    data["sparse-annotations"] = {"A": True, "X": False, "AX": False}
    assert schedule_from_json(resolve_program("gcn"), data).regions


ANNOTATION_REFUSALS = [
    ({"B": True}, "sparse-annotations.B", "sparse-annotations", "annotated sparse, but the program stores B dense"),
    ({"A": False}, "sparse-annotations.A", "sparse-annotations", "annotated dense, but the program stores A sparse"),
    ({"a": True}, "sparse-annotations.a", "program-match", "did you mean `A`?"),
    ({"t0": True}, "sparse-annotations.t0", "program-match", "the program's tensors are A, B, C"),
    ({"A": 1}, "sparse-annotations.A", "json-shape", "must be true (sparse) or false (dense)"),
    ([["A", True]], "sparse-annotations", "json-shape", "must be an object"),
]


@pytest.mark.parametrize("annotations,field,rule,fragment", ANNOTATION_REFUSALS,
                         ids=[a[1] + "-" + a[2] for a in ANNOTATION_REFUSALS])
def test_sparse_annotations_contradicting_the_program_are_refused(spmm, annotations, field, rule, fragment):
    error = refusal(spmm, {"dataflow-ordering": "i k j", "sparse-annotations": annotations})
    assert (error.field, error.rule) == (field, rule) and fragment in str(error)


def test_every_contradicting_annotation_is_listed(spmm):
    error = refusal(spmm, {"dataflow-ordering": "", "sparse-annotations": {"A": False, "B": True, "Q": True}})
    assert [p.field for p in error.problems] == ["sparse-annotations.A", "sparse-annotations.B",
                                                 "sparse-annotations.Q"]


def test_a_schedule_for_another_program_is_named_before_its_annotations():
    data = gcn_json()
    data["program"] = "spmm"
    data["sparse-annotations"] = {"W1": True}
    error = refusal(resolve_program("gcn"), data)
    assert (error.field, error.rule) == ("program", "program-match")


def test_what_honeybee_writes_reads_as_written(spmm):
    # Honeybee's FuseFlow library writes its schedule with json.dump(..., sort_keys=True).
    default = {"dataflow-ordering": "", "stream-parallelizer": {"par-factor": 1, "stream-level": 0},
               "stream-vectorizer": {"enable-block-sparse": False, "stream-shape": 16}}
    assert schedule_from_json(spmm, json.loads(json.dumps(default, sort_keys=True))) == Schedule(
        (RegionSchedule(("spmm",), ("i", "k", "j"), (1, 1, 1), 16, False),))
    annotated = {"dataflow-ordering": "i0 i2 i1", "sparse-annotations": {"A": True, "B": False, "C": False},
                 "stream-parallelizer": {"par_factors": [4, 1, 1]},
                 "stream-vectorizer": {"enable-block-sparse": True, "stream-shape": 16}}
    schedule = schedule_from_json(spmm, annotated)
    assert schedule == Schedule((RegionSchedule(("spmm",), ("i", "k", "j"), (4, 1, 1), 16, True),))
    assert schedule_problems(spmm, bind(spmm), schedule) == []


def test_a_null_ordering_is_refused_not_taken_for_the_default(spmm):
    error = refusal(spmm, {"dataflow-ordering": None})
    assert (error.field, error.rule, error.fix) == ("dataflow-ordering", "json-shape", '"" for the default order')
