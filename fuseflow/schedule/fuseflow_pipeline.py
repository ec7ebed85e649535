"""A schedule as FuseFlow's compiler takes it: pass options of its `sam-opt` pipeline.

The compiler compiles each fused region as one `func.func` and takes no schedule file:
  - the dataflow order is an index into the compiler's own list of orders (compiler_orders):
    a depth-first walk over the region's logical index variables `i0, i1, …` (Region.vars'
    order) that tries them in increasing id, keeps every input operand's levels in storage
    order (dense and compressed alike), and stops at its first ORDER_CAP orders; index 0 is
    what the compiler takes when not asked;
  - `--stream-parallelizer="stream-level=L par-factor=F"` once per level whose factor is above
    1, where L is the level variable's logical id, not its position in the order;
  - `--stream-vectorizer="stream-shape=S enable-block-sparse"`, given only when it changes
    something (a shape above 1, or block-sparse mode), `enable-block-sparse` only when on.
An order the compiler does not list gets a note and the listed order closest to it: the one
with the fewest pairs of variables in the other order (Kendall tau distance), the lowest
index among equals. docs/fuseflow-pipeline.md describes the document pipeline_document writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import islice

from fuseflow.analysis.orders import OrderSpace
from fuseflow.analysis.unification import unify_region
from fuseflow.program.binding import Binding
from fuseflow.program.ir import Program, Region
from fuseflow.schedule.schedules import RegionSchedule, Schedule

PIPELINE_FORMAT = "fuseflow-pipeline"
PIPELINE_VERSION = 1
#: the compiler lists this many orders at most
ORDER_CAP = 21
COMPILER = "sam-opt"
#: the conversion whose order list the index picks from; it comes before the stream passes
CONVERSION = "--linalg-to-sam"


# ---- the compiler's orders ----

def compiler_space(region: Region) -> OrderSpace:
    """The orders the compiler considers: every operand's levels nest in storage order."""
    return OrderSpace.of_region(region, dense_fixed=True)


def compiler_orders(region: Region) -> tuple[tuple[str, ...], ...]:
    """The compiler's list of orders for `region`, as region variable names: its first ORDER_CAP
    orders in lexicographic order of logical ids. Empty when the operands' storage orders
    contradict each other (no order keeps them all)."""
    space = compiler_space(region)
    # The walk never reaches a dead end when the constraints are acyclic (a variable whose
    # predecessors are placed can always be placed), so it costs ORDER_CAP paths; a cycle
    # would make it try every prefix of the other variables, so it is ruled out first.
    if not _has_order(space):
        return ()
    return tuple(islice(space, ORDER_CAP))


def _has_order(space: OrderSpace) -> bool:
    prefix: tuple[str, ...] = ()
    while len(prefix) < len(space.vars):
        choices = space.next_choices(prefix)
        if not choices:
            return False
        prefix += (choices[0],)
    return True


def order_index(region: Region, order: tuple[str, ...]) -> int | None:
    """The index of `order` in the compiler's list, or None when it is not listed."""
    orders = compiler_orders(region)
    return orders.index(tuple(order)) if tuple(order) in orders else None


def inversions(order: tuple[str, ...], other: tuple[str, ...]) -> int:
    """Kendall tau distance: the pairs of variables that the two orders nest the other way."""
    position = {v: i for i, v in enumerate(other)}
    placed = [position[v] for v in order]
    return sum(1 for i in range(len(placed)) for j in range(i + 1, len(placed)) if placed[i] > placed[j])


@dataclass(frozen=True)
class Closest:
    index: int
    order: tuple[str, ...]
    inversions: int


def closest_order(region: Region, order: tuple[str, ...]) -> Closest | None:
    """The listed order with the fewest inversions against `order`, the lowest index among
    equals; None when the compiler lists none."""
    return _closest(compiler_orders(region), tuple(order))


def _closest(listed: tuple[tuple[str, ...], ...], order: tuple[str, ...]) -> Closest | None:
    scored = [Closest(i, candidate, inversions(order, candidate)) for i, candidate in enumerate(listed)]
    return min(scored, key=lambda c: (c.inversions, c.index), default=None)


def unlisted_note(region: Region, order: tuple[str, ...]) -> str:
    """Why the compiler does not list `order`."""
    return _unlisted_note(region, compiler_orders(region), tuple(order))


def _unlisted_note(region: Region, listed: tuple[tuple[str, ...], ...], order: tuple[str, ...]) -> str:
    names = " ".join(order)
    if not listed:
        stored = "; ".join(f"{o.tensor}: {' '.join(o.vars)}" for o in region.operands if len(o.vars) > 1)
        return (f"the compiler lists no order for this region: no order keeps every operand's levels in storage "
                f"order ({stored})")
    broken = compiler_space(region).violated(order)
    if broken is not None:
        before, after = broken
        tensor = next(o.tensor for o in region.operands if (before, after) in zip(o.vars, o.vars[1:]))
        return (f"the order {names} is not among the compiler's orders: {tensor} stores {before} above {after}, "
                f"and the compiler keeps every operand's levels, dense ones too, in storage order")
    return (f"the order {names} keeps every operand's storage order but comes after the first {ORDER_CAP} "
            f"orders the compiler lists")


# ---- the pass options ----

def logical_id(region: Region, var: str) -> int:
    return region.vars.index(var)


def parallelizer_options(region: Region, rs: RegionSchedule) -> list[str]:
    """One `--stream-parallelizer` per level with a factor above 1, outermost first, naming the
    level's variable by its logical id."""
    return [f"--stream-parallelizer=stream-level={logical_id(region, var)} par-factor={factor}"
            for var, factor in zip(rs.order, rs.par_factors) if factor > 1]


def vectorizer_options(rs: RegionSchedule) -> list[str]:
    """`--stream-vectorizer`, unless the schedule keeps the compiler's default (shape 1, no
    block-sparse mode), which the pass would not change."""
    if rs.stream_shape == 1 and not rs.block_sparse:
        return []
    return [f"--stream-vectorizer=stream-shape={rs.stream_shape}" + (" enable-block-sparse" if rs.block_sparse else "")]


def command_line(options: list[str]) -> str:
    """`sam-opt` with the options, each quoted as one argument of a POSIX shell. An option's
    text is made of fixed words and integers, so quoting its value is enough."""
    words = [COMPILER, CONVERSION]
    for option in options:
        name, _, value = option.partition("=")
        words.append(f'{name}="{value}"' if " " in value else option)
    return " ".join(words)


# ---- the document ----

def region_pipeline(program: Program, binding: Binding, number: int, rs: RegionSchedule) -> dict:
    """One region's entry in the document (docs/fuseflow-pipeline.md)."""
    region = unify_region(program, rs.ops)
    order = tuple(rs.order)
    ops = []
    for name in rs.ops:
        op = program.op_by_name[name]
        entry = {"name": name, "statement": str(op.statement)}
        if op.origin is not None:  # imported from MLIR: the model's file, line and op
            entry["origin"] = op.origin
        ops.append(entry)
    variables = [{"id": region.alias(v), "name": v, "dimension": region.var_dims[v],
                  "extent": binding.extent(region.var_dims[v])} for v in region.vars]
    options = parallelizer_options(region, rs) + vectorizer_options(rs)
    listed = compiler_orders(region)
    document = {
        "region": number,
        "function": function_name(number),
        "ops": ops,
        "variables": variables,
        "order": {"names": list(order), "ids": [region.alias(v) for v in order]},
        "orders_listed": len(listed),
        "order_index": listed.index(order) if order in listed else None,
    }
    if document["order_index"] is None:
        document["note"] = _unlisted_note(region, listed, order)
        closest = _closest(listed, order)
        document["closest_order"] = None if closest is None else {
            "index": closest.index, "names": list(closest.order), "ids": [region.alias(v) for v in closest.order],
            "inversions": closest.inversions}
    document["pass_options"] = options
    document["command"] = command_line(options)
    return document


def function_name(number: int) -> str:
    """The `func.func` a region is in the module `--fuseflow-mlir` writes."""
    return f"region_{number}"


def regions_mlir(program: Program, binding: Binding, schedule: Schedule) -> str:
    """The schedule's fused regions as MLIR, one func.func each (fuseflow.program.mlir.write_mlir)."""
    from fuseflow.program.mlir.write_mlir import regions_module

    regions = [unify_region(program, rs.ops) for rs in schedule.regions]
    return regions_module(program, binding.extents, regions, [function_name(n) for n in range(len(regions))])


def pipeline_document(program: Program, binding: Binding, schedule: Schedule) -> dict:
    """The whole schedule as the compiler's pass options, one entry per fused region (one
    `func.func` each), in the schedule's order."""
    return {
        "format": PIPELINE_FORMAT,
        "version": PIPELINE_VERSION,
        "program": program.name,
        "regions": [region_pipeline(program, binding, number, rs) for number, rs in enumerate(schedule.regions)],
    }


def pipeline_text(program: Program, binding: Binding, schedule: Schedule) -> str:
    """pipeline_document as the text of its file."""
    return json.dumps(pipeline_document(program, binding, schedule), indent=2) + "\n"
