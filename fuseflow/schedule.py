"""Schedules: the model, the JSON forms, and every legality rule.

This module is the one place the rules live. The fact generator (fuseflow.facts), the
validator below and the docs all read them from here.

Rules (the name in brackets appears in every rejection):
  [fusion-legal]    the fusion groups are a legal grouping (see fuseflow.fusion)
  [order-complete]  a region's order names each of its loop variables exactly once
  [order-legal]     the order is a linear extension of its sparse operands' storage orders
  [par-count]       one parallel factor per loop level
  [par-allowed]     each factor is in PAR_FACTORS
  [par-extent]      no factor exceeds its level's extent
  [par-compressed]  the factor is 1 on a level that iterates compressed coordinates
  [shape-allowed]   the stream shape is in STREAM_SHAPES
  [shape-fits]      the stream shape is 1 on a compressed innermost level, else at most its extent
  [block-formats]   block-sparse mode needs a sparse operand with two or more levels
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from fuseflow.files import write_text_atomic
from fuseflow.readers import load_json_file
from fuseflow.binding import Binding
from fuseflow.errors import ScheduleError, UserError
from fuseflow.fusion import canonical, grouping_problem, region_problem
from fuseflow.ir import Program, Region, unify_region
from fuseflow.orders import OrderSpace, default_order

PAR_FACTORS = (1, 2, 4, 8, 16)
STREAM_SHAPES = (1, 2, 4, 8, 16)
SCHEDULE_FORMAT = "navigator-schedule"
SCHEDULE_VERSION = 1


@dataclass(frozen=True)
class RegionSchedule:
    ops: tuple[str, ...]
    order: tuple[str, ...]
    par_factors: tuple[int, ...]
    stream_shape: int = 1
    block_sparse: bool = False


@dataclass(frozen=True)
class Schedule:
    regions: tuple[RegionSchedule, ...]

    @property
    def grouping(self) -> tuple[tuple[str, ...], ...]:
        return tuple(r.ops for r in self.regions)


@dataclass(frozen=True)
class Level:
    """One loop level of a region under a given order."""

    position: int
    var: str
    extent: int
    compressed: bool

    @property
    def allowed_par_factors(self) -> tuple[int, ...]:
        return allowed_par_factors(self.extent, self.compressed)


# ---- the rules, as functions the validator, the fact generator and the docs share ----

def allowed_par_factors(extent: int, compressed: bool) -> tuple[int, ...]:
    if compressed:
        return (1,)
    return tuple(f for f in PAR_FACTORS if f <= extent)


def levels(region: Region, order: tuple[str, ...], binding: Binding) -> list[Level]:
    compressed = region.compressed_vars()
    return [Level(i, v, binding.extent(region.var_dims[v]), v in compressed) for i, v in enumerate(order)]


def allowed_stream_shapes(innermost: Level) -> tuple[int, ...]:
    if innermost.compressed:
        return (1,)
    return tuple(s for s in STREAM_SHAPES if s <= innermost.extent)


def block_sparse_allowed(region: Region) -> bool:
    return any("compressed" in o.formats and len(o.formats) >= 2 for o in region.operands)


def block_sparse_choices(region: Region) -> tuple[bool, ...]:
    return (False, True) if block_sparse_allowed(region) else (False,)


# ---- defaults ----

def default_grouping(program: Program) -> tuple[tuple[str, ...], ...]:
    """The compiler's default: every op in its own region."""
    return tuple((op.name,) for op in program.ops)


def default_region_schedule(region: Region) -> RegionSchedule:
    order = default_order(region)
    return RegionSchedule(region.ops, order, (1,) * len(order), 1, False)


def default_schedule(program: Program, grouping=None) -> Schedule:
    grouping = canonical(program, grouping or default_grouping(program))
    return Schedule(tuple(default_region_schedule(unify_region(program, g)) for g in grouping))


# ---- validation ----

@dataclass(frozen=True)
class Problem:
    field: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message} [rule: {self.rule}]"


def schedule_problems(program: Program, binding: Binding, schedule: Schedule,
                      dense_fixed: bool = False) -> list[Problem]:
    """Every rule the schedule breaks; empty when it is legal."""
    problems: list[Problem] = []
    grouping_issue = grouping_problem(program, schedule.grouping)
    if grouping_issue:
        return [Problem("fusion", "fusion-legal", grouping_issue)]
    for index, rs in enumerate(schedule.regions):
        problems += region_problems(program, binding, rs, f"regions[{index}]", dense_fixed)
    return problems


def region_problems(program: Program, binding: Binding, rs: RegionSchedule, prefix: str,
                    dense_fixed: bool = False) -> list[Problem]:
    issue = region_problem(program, rs.ops)
    if issue:
        return [Problem(f"{prefix}.ops", "fusion-legal", issue)]
    region = unify_region(program, rs.ops)
    space = OrderSpace.of_region(region, dense_fixed)
    field_order = f"{prefix}.dataflow-ordering"
    if sorted(rs.order) != sorted(region.vars):
        missing = [v for v in region.vars if v not in rs.order]
        extra = [v for v in rs.order if v not in region.vars]
        detail = []
        if missing:
            detail.append(f"missing {' '.join(missing)}")
        if extra:
            detail.append(f"unknown or repeated {' '.join(extra)}")
        return [Problem(field_order, "order-complete",
                        f"the order must name each loop variable once ({'; '.join(detail)}); "
                        f"the region's variables are {' '.join(region.vars)}")]
    problems: list[Problem] = []
    broken = space.violated(rs.order)
    if broken:
        problems.append(Problem(field_order, "order-legal",
                                f"{broken[1]} is iterated before {broken[0]}, but a sparse operand stores "
                                f"{broken[1]} at a compressed level below {broken[0]}"))
    lvls = levels(region, rs.order, binding)
    field_par = f"{prefix}.stream-parallelizer.par_factors"
    if len(rs.par_factors) != len(lvls):
        problems.append(Problem(field_par, "par-count",
                                f"{len(rs.par_factors)} factors given for {len(lvls)} loop levels"))
    else:
        for level, factor in zip(lvls, rs.par_factors):
            where = f"{field_par}[{level.position}]"
            if factor not in PAR_FACTORS:
                problems.append(Problem(where, "par-allowed",
                                        f"factor {factor} is not one of {', '.join(map(str, PAR_FACTORS))}"))
            elif level.compressed and factor != 1:
                problems.append(Problem(where, "par-compressed",
                                        f"level {level.var} iterates compressed coordinates, so its factor must be 1"))
            elif factor > level.extent:
                problems.append(Problem(where, "par-extent",
                                        f"factor {factor} exceeds the extent {level.extent} of level {level.var}"))
    field_shape = f"{prefix}.stream-vectorizer.stream-shape"
    if rs.stream_shape not in STREAM_SHAPES:
        problems.append(Problem(field_shape, "shape-allowed",
                                f"stream shape {rs.stream_shape} is not one of {', '.join(map(str, STREAM_SHAPES))}"))
    elif lvls and rs.stream_shape not in allowed_stream_shapes(lvls[-1]):
        inner = lvls[-1]
        why = ("the innermost level iterates compressed coordinates" if inner.compressed
               else f"the innermost level {inner.var} has extent {inner.extent}")
        problems.append(Problem(field_shape, "shape-fits", f"stream shape {rs.stream_shape} does not fit: {why}"))
    if rs.block_sparse and not block_sparse_allowed(region):
        problems.append(Problem(f"{prefix}.stream-vectorizer.enable-block-sparse", "block-formats",
                                "no operand of this region is sparse with two or more levels, so there are no blocks"))
    return problems


def check_schedule(program: Program, binding: Binding, schedule: Schedule, where: str | None = None) -> None:
    problems = schedule_problems(program, binding, schedule)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ScheduleError(first.message + more, field=first.field, rule=first.rule, where=where,
                            fix="docs/schedule-json.md explains each rule; `navigator validate` lists every problem")


# ---- JSON ----

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


def _fail(field_name: str, message: str, where: str | None, fix: str | None = None):
    raise ScheduleError(message, field=field_name, rule="json-shape", where=where, fix=fix)


def _region_from_keys(program: Program, ops: tuple[str, ...], data: dict, prefix: str, where) -> RegionSchedule:
    if not isinstance(data, dict):
        _fail(prefix, "must be an object", where)
    known = {"ops", "dataflow-ordering", "stream-parallelizer", "stream-vectorizer"}
    for key in data:
        if key not in known:
            _fail(f"{prefix}.{key}", "unknown key", where, fix=f"expected: {', '.join(sorted(known))}")
    issue = region_problem(program, ops)
    if issue:
        raise ScheduleError(issue, field=f"{prefix}.ops", rule="fusion-legal", where=where)
    region = unify_region(program, ops)
    order_text = data.get("dataflow-ordering")
    if order_text is None:
        order = default_order(region)
    else:
        if not isinstance(order_text, str):
            _fail(f"{prefix}.dataflow-ordering", "must be a string of loop variables separated by spaces", where)
        order = tuple(region.resolve(name) or name for name in order_text.split())
    par = data.get("stream-parallelizer", {})
    if not isinstance(par, dict):
        _fail(f"{prefix}.stream-parallelizer", "must be an object with par_factors", where)
    factors = par.get("par_factors", [1] * len(order))
    if not isinstance(factors, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in factors):
        _fail(f"{prefix}.stream-parallelizer.par_factors", "must be a list of integers", where)
    vec = data.get("stream-vectorizer", {})
    if not isinstance(vec, dict):
        _fail(f"{prefix}.stream-vectorizer", "must be an object", where)
    shape = vec.get("stream-shape", 1)
    if not isinstance(shape, int) or isinstance(shape, bool):
        _fail(f"{prefix}.stream-vectorizer.stream-shape", "must be an integer", where)
    block = vec.get("enable-block-sparse", False)
    if not isinstance(block, bool):
        _fail(f"{prefix}.stream-vectorizer.enable-block-sparse", "must be true or false", where)
    return RegionSchedule(region.ops, order, tuple(factors), shape, block)


def schedule_from_json(program: Program, data, where: str | None = None) -> Schedule:
    """Read either form: FuseFlow's single-region keys, or the multi-region form."""
    if not isinstance(data, dict):
        _fail("(top level)", "a schedule is a JSON object", where)
    if "regions" not in data:
        if "dataflow-ordering" not in data:
            _fail("(top level)", "neither 'regions' (multi-region form) nor 'dataflow-ordering' "
                  "(FuseFlow single-region form) is present", where)
        # FuseFlow's single-region form schedules the whole program as one fused region.
        ops = tuple(op.name for op in program.ops)
        issue = region_problem(program, ops)
        if issue:
            raise ScheduleError(f"the single-region form fuses every op, but {issue}", field="dataflow-ordering",
                                rule="fusion-legal", where=where, fix="use the multi-region form with 'regions'")
        return Schedule((_region_from_keys(program, ops, data, "(region)", where),))
    if data.get("format", SCHEDULE_FORMAT) != SCHEDULE_FORMAT:
        _fail("format", f"expected {SCHEDULE_FORMAT!r}, got {data.get('format')!r}", where)
    if data.get("version", SCHEDULE_VERSION) != SCHEDULE_VERSION:
        _fail("version", f"unsupported version {data.get('version')!r}", where,
              fix=f"this Navigator reads version {SCHEDULE_VERSION}")
    named = data.get("program")
    if named is not None and named != program.name:
        raise ScheduleError(f"the schedule was written for program {named!r}, not {program.name!r}",
                            field="program", rule="program-match", where=where,
                            fix="pass the program it was written for with --program")
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
