"""Every legality rule of a schedule, named: the one place the rules live.

The fact generator (navigator.fuseflow.facts), the validator below and the docs all read them
from here. The name in brackets appears in every rejection:
  [fusion-legal]    the fusion groups are a legal grouping (see fuseflow.analysis.fusion)
  [order-complete]  a region's order names each of its loop variables exactly once
  [order-legal]     the order is a linear extension of its sparse operands' storage orders
  [par-count]       one parallel factor per loop level
  [par-allowed]     each factor is in PAR_FACTORS
  [par-extent]      no factor exceeds its level's extent
  [par-compressed]  the factor is 1 on a level that iterates compressed coordinates
  [shape-allowed]   the stream shape is in STREAM_SHAPES
  [shape-fits]      the stream shape is 1 on a compressed innermost level, else at most its extent
                    (it then vectorizes every op's innermost dense level: vector_level)
  [block-formats]   block-sparse mode needs a sparse operand with two or more levels

The rules of the JSON itself are fuseflow.schedule.schedule_json's, checked while reading it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.program.binding import Binding
from fuseflow.support.errors import ScheduleError
from fuseflow.analysis.fusion import canonical, grouping_problem, region_problem
from fuseflow.program.ir import Program, Region, TensorDecl
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace, default_order
from fuseflow.schedule.schedules import RegionSchedule, Schedule

PAR_FACTORS = (1, 2, 4, 8, 16)
STREAM_SHAPES = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class Level:
    """One loop level of a region under a given order, with what the rules allow it (so it
    lives with the rules, not with the model)."""

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


def vector_level(region: Region, chain: tuple[str, ...]) -> str | None:
    """The level of one op's chain that a stream shape vectorizes: its innermost level that
    iterates no compressed coordinates (None when every level does). A dense level of another
    op keeps its own tiles: an extent below the shape makes one partial tile."""
    compressed = region.compressed_vars()
    return next((v for v in reversed(chain) if v not in compressed), None)


def block_sparse_allowed(region: Region) -> bool:
    return any("compressed" in o.formats and len(o.formats) >= 2 for o in region.operands)


def block_sparse_choices(region: Region) -> tuple[bool, ...]:
    return (False, True) if block_sparse_allowed(region) else (False,)


def sparse_annotation_problem(tensor: TensorDecl, sparse: bool) -> str | None:
    """Honeybee's `sparse-annotations` must agree with the program's formats, which are
    fixed: an annotation that contradicts them would describe another program."""
    if sparse == tensor.is_sparse:
        return None
    stored = ", ".join(tensor.formats)
    return (f"annotated {'sparse' if sparse else 'dense'}, but the program stores {tensor.name} "
            f"{'sparse' if tensor.is_sparse else 'dense'} (formats {stored})")


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
    fix: str | None = None

    def __str__(self) -> str:
        text = f"{self.field}: {self.message} [rule: {self.rule}]"
        return f"{text} ({self.fix})" if self.fix else text


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
