"""The JSON forms of a schedule: writing them, and reading them with the rules of the JSON itself.

Two forms are read (docs/schedule-json.md): FuseFlow's single-region keys, and the
multi-region form Navigator writes, which names the program and its fusion groups. The name
in brackets appears in every rejection:
  [known-keys]      every key is one the schedule's format defines (fuseflow.schedule.schedule_keys)
  [par-level]       the single-level parallelizer's stream-level is a loop level of the region
  [sparse-annotations]  a tensor annotated sparse (or dense) is stored so by the program
  [program-match]   the schedule names this program, its ops and its tensors
  [fusion-legal]    the groups the JSON lists are a legal grouping (fuseflow.analysis.fusion)
  [json-shape]      the fields have the right JSON types
Reading applies none of the legality rules (fuseflow.schedule.rules): check_schedule does, and
schedule_problems lists every problem.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from fuseflow.support.files import write_text_atomic
from fuseflow.support.readers import load_json_file
from fuseflow.support.errors import ScheduleError, UserError, show_value
from fuseflow.analysis.fusion import grouping_problem, region_problem
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import default_order
from fuseflow.schedule.rules import Problem, sparse_annotation_problem
from fuseflow.schedule.schedule_keys import LEVEL_TITLES, closest_name, unknown_key_fix, unknown_keys
from fuseflow.schedule.schedules import RegionSchedule, Schedule

SCHEDULE_FORMAT = "navigator-schedule"
SCHEDULE_VERSION = 1


def _region_keys(rs: RegionSchedule) -> dict:
    return {
        "dataflow-ordering": " ".join(rs.order),
        "stream-parallelizer": {"par_factors": list(rs.par_factors)},
        "stream-vectorizer": {"enable-block-sparse": rs.block_sparse, "stream-shape": rs.stream_shape},
    }


def schedule_to_json(program: Program, schedule: Schedule) -> dict:
    """The multi-region form, which names the program and its fusion groups."""
    return {
        "format": SCHEDULE_FORMAT,
        "version": SCHEDULE_VERSION,
        "program": program.name,
        "fusion": [list(r.ops) for r in schedule.regions],
        "regions": [{"ops": list(r.ops), **_region_keys(r)} for r in schedule.regions],
    }


def save_schedule(path: str | Path, program: Program, schedule: Schedule) -> None:
    write_text_atomic(path, json.dumps(schedule_to_json(program, schedule), indent=2) + "\n")


class ScheduleReadError(ScheduleError):
    """Every problem found while reading one schedule JSON (unknown keys, annotations), so
    that `navigator validate` can list them all; the first one is the message."""

    def __init__(self, problems: list[Problem], where: str | None):
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first.message + more, field=first.field, rule=first.rule, where=where, fix=first.fix)
        self.problems = problems


SPARSE_ANNOTATIONS = "sparse-annotations"
#: The keys that make a JSON object without `regions` FuseFlow's single-region form.
SINGLE_REGION_KEYS = ("dataflow-ordering", "stream-parallelizer", "stream-vectorizer")
NESTED_LEVELS = ("stream-parallelizer", "stream-vectorizer")


def _fail(field_name: str, message: str, where: str | None, fix: str | None = None):
    raise ScheduleError(message, field=field_name, rule="json-shape", where=where,
                        fix=fix or "docs/schedule-json.md gives each key and its type")


def _path(prefix: str, key: str) -> str:
    # A key from a user's file, cut so that a field name stays one readable line.
    shown = key if len(key) <= 60 else key[:57] + "..."
    return f"{prefix}.{shown}" if prefix else shown


def key_problems(data: dict) -> list[Problem]:
    """[known-keys] for every object of the document, outermost first. A key the reader does
    not know would be ignored, and the default it leaves in place would be evaluated."""
    problems: list[Problem] = []

    def check(obj, level: str, prefix: str, also: tuple[str, ...] = ()) -> None:
        if not isinstance(obj, dict):
            return  # its type is the reader's [json-shape] problem
        for key in unknown_keys(obj, level):
            problems.append(Problem(_path(prefix, key), "known-keys",
                                    f"{LEVEL_TITLES[level]} has no key {show_value(key)}",
                                    unknown_key_fix(key, obj[key], level, also)))
        for nested in NESTED_LEVELS:
            if nested in obj:
                check(obj[nested], nested, _path(prefix, nested))

    if "regions" in data:
        check(data, "multi-region", "")
        if isinstance(data["regions"], list):
            for index, entry in enumerate(data["regions"]):
                check(entry, "region", f"regions[{index}]")
    else:
        check(data, "single-region", "", also=("multi-region",))
    return problems


def annotation_problems(program: Program, data: dict) -> list[Problem]:
    """Honeybee's `"sparse-annotations": {"T": true, ...}` against the program's tensors."""
    annotations = data.get(SPARSE_ANNOTATIONS)
    if annotations is None:  # Honeybee writes null when no tensor was annotated
        return []
    if not isinstance(annotations, dict):
        return [Problem(SPARSE_ANNOTATIONS, "json-shape", "must be an object: tensor name -> true (sparse) "
                        "or false (dense)")]
    problems = []
    for name, sparse in annotations.items():
        field_name = _path(SPARSE_ANNOTATIONS, name)
        tensor = program.tensors.get(name)
        if tensor is None:
            guess = closest_name(name, program.tensors)
            problems.append(Problem(field_name, "program-match", f"the program has no tensor {show_value(name)}",
                                    f"did you mean `{guess}`?" if guess else
                                    f"the program's tensors are {', '.join(program.tensors)}"))
        elif not isinstance(sparse, bool):
            problems.append(Problem(field_name, "json-shape", "must be true (sparse) or false (dense)"))
        else:
            issue = sparse_annotation_problem(tensor, sparse)
            if issue:
                problems.append(Problem(field_name, "sparse-annotations", issue,
                                        "a program's formats are fixed; annotate the tensor as the program "
                                        "stores it, or change its `format` in the program"))
    return problems


def _order_names(text: str) -> list[str]:
    # Spaces as Navigator and FuseFlow write it; commas as Honeybee's FuseFlow library may.
    return [name for name in re.split(r"[\s,]+", text) if name]


def _factors_from_keys(par: dict, levels_count: int, prefix: str, where) -> list[int]:
    """`par_factors`, or Honeybee's single-level form `stream-level` + `par-factor` mapped
    onto the level it names (every other level keeps factor 1)."""
    field_par = _path(prefix, "stream-parallelizer")
    single = [key for key in ("stream-level", "par-factor") if key in par]
    if single and "par_factors" in par:
        _fail(_path(field_par, single[0]), "par_factors and the single-level form (stream-level, par-factor) "
              "are both given", where, fix="give one of them")
    if len(single) == 1:
        missing = "par-factor" if single[0] == "stream-level" else "stream-level"
        _fail(_path(field_par, missing), f"the single-level form needs {missing} beside {single[0]}", where)
    if not single:
        factors = par.get("par_factors", [1] * levels_count)
        if not isinstance(factors, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in factors):
            _fail(_path(field_par, "par_factors"), "must be a list of integers", where)
        return factors
    for key in single:
        if not isinstance(par[key], int) or isinstance(par[key], bool):
            _fail(_path(field_par, key), "must be an integer", where)
    level = par["stream-level"]
    if not 0 <= level < levels_count:
        raise ScheduleError(f"stream level {level} is not a loop level of this region, which has "
                            f"{levels_count} (0 to {levels_count - 1}, outermost first)",
                            field=_path(field_par, "stream-level"), rule="par-level", where=where,
                            fix="the level indexes the region's dataflow order")
    factors = [1] * levels_count
    factors[level] = par["par-factor"]
    return factors


def _region_from_keys(program: Program, ops: tuple[str, ...], data: dict, prefix: str, where) -> RegionSchedule:
    if not isinstance(data, dict):
        _fail(prefix, "must be an object", where)
    issue = region_problem(program, ops)
    if issue:
        raise ScheduleError(issue, field=_path(prefix, "ops"), rule="fusion-legal", where=where)
    region = unify_region(program, ops)
    order_text = data.get("dataflow-ordering", "")
    if not isinstance(order_text, str):
        _fail(_path(prefix, "dataflow-ordering"), "must be a string of loop variables separated by spaces",
              where, fix='"" for the default order')
    if order_text == "":  # Honeybee writes "" for the compiler's default order
        order = default_order(region)
    else:
        order = tuple(region.resolve(name) or name for name in _order_names(order_text))
    par = data.get("stream-parallelizer", {})
    if not isinstance(par, dict):
        _fail(_path(prefix, "stream-parallelizer"), "must be an object with par_factors", where)
    factors = _factors_from_keys(par, len(region.vars), prefix, where)
    vec = data.get("stream-vectorizer", {})
    field_vec = _path(prefix, "stream-vectorizer")
    if not isinstance(vec, dict):
        _fail(field_vec, "must be an object", where)
    shape = vec.get("stream-shape", 1)
    if not isinstance(shape, int) or isinstance(shape, bool):
        _fail(_path(field_vec, "stream-shape"), "must be an integer", where)
    block = vec.get("enable-block-sparse", False)
    if not isinstance(block, bool):
        _fail(_path(field_vec, "enable-block-sparse"), "must be true or false", where)
    return RegionSchedule(region.ops, order, tuple(factors), shape, block)


def schedule_from_json(program: Program, data, where: str | None = None) -> Schedule:
    """Read either form: FuseFlow's single-region keys, or the multi-region form, with the
    variants Honeybee's FuseFlow library writes (docs/schedule-json.md). Any key outside
    fuseflow.schedule.schedule_keys is refused, never ignored."""
    if not isinstance(data, dict):
        _fail("(top level)", "a schedule is a JSON object", where)
    problems = key_problems(data)
    if problems:
        raise ScheduleReadError(problems, where)
    named = data.get("program")
    if named is not None and named != program.name:  # before the annotations, which name its tensors
        raise ScheduleError(f"the schedule was written for program {named!r}, not {program.name!r}",
                            field="program", rule="program-match", where=where,
                            fix="pass the program it was written for with --program")
    problems = annotation_problems(program, data)
    if problems:
        raise ScheduleReadError(problems, where)
    if "regions" not in data:
        if not any(key in data for key in SINGLE_REGION_KEYS):
            _fail("(top level)", "neither 'regions' (multi-region form) nor any of "
                  f"{', '.join(SINGLE_REGION_KEYS)} (FuseFlow's single-region form) is present", where)
        # FuseFlow's single-region form schedules the whole program as one fused region.
        ops = tuple(op.name for op in program.ops)
        issue = region_problem(program, ops)
        if issue:
            raise ScheduleError(f"the single-region form fuses every op, but {issue}", field="dataflow-ordering",
                                rule="fusion-legal", where=where, fix="use the multi-region form with 'regions'")
        return Schedule((_region_from_keys(program, ops, data, "", where),))
    if data.get("format", SCHEDULE_FORMAT) != SCHEDULE_FORMAT:
        _fail("format", f"expected {SCHEDULE_FORMAT!r}, got {data.get('format')!r}", where)
    if data.get("version", SCHEDULE_VERSION) != SCHEDULE_VERSION:
        _fail("version", f"unsupported version {data.get('version')!r}", where,
              fix=f"this Navigator reads version {SCHEDULE_VERSION}")
    regions = data["regions"]
    if not isinstance(regions, list) or not regions:
        _fail("regions", "must be a non-empty list", where)
    parsed = []
    for index, entry in enumerate(regions):
        prefix = f"regions[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("ops"), list) or not entry["ops"] \
                or not all(isinstance(o, str) for o in entry["ops"]):
            _fail(f"{prefix}.ops", "each region lists its ops as a non-empty list of op names", where)
        unknown = [o for o in entry["ops"] if o not in program.op_by_name]
        if unknown:
            raise ScheduleError(f"unknown op(s) {', '.join(unknown)}", field=f"{prefix}.ops", rule="program-match",
                                where=where, fix=f"the program's ops are: {', '.join(program.op_by_name)}")
        parsed.append((tuple(entry["ops"]), entry, prefix))
    fusion = data.get("fusion")
    grouping = tuple(ops for ops, _, _ in parsed)
    if fusion is not None:
        if not isinstance(fusion, list) or [tuple(g) if isinstance(g, list) else g for g in fusion] != list(grouping):
            _fail("fusion", "must list the same groups as the ops of 'regions', in the same order", where)
    issue = grouping_problem(program, grouping)
    if issue:
        raise ScheduleError(issue, field="fusion", rule="fusion-legal", where=where)
    return Schedule(tuple(_region_from_keys(program, ops, entry, prefix, where) for ops, entry, prefix in parsed))


def load_schedule(path: str | Path, program: Program) -> Schedule:
    where = str(path)
    data = load_json_file(path, UserError, "a schedule .json file")
    return schedule_from_json(program, data, where)
