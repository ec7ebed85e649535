"""Lower one scheduled region to a SAM-style dataflow graph.

Every op of the region becomes a sub-graph that iterates its own chain of loop variables
(see `contexts`). At each level of the chain:

* inputs whose storage level for the variable is compressed are *scanned* (a level scanner
  turns each parent reference into a fiber of coordinates and child references, closing the
  fiber with a stop token), and their fibers are merged by intersecters and unioners
  following the op's support expression (see `support`);
* a level that every coordinate supports is iterated by a *dense* iterator;
* a compressed input whose fiber the merge does not need (e.g. `S` in `exp(S - m)`) is
  joined in by a *left join*, so its value is found where it exists and is 0 elsewhere;
* inputs with a dense level there *locate* (compute the child reference), and inputs
  without the variable *repeat* their reference (or their value, once it has been read).

At the leaf, *arrays* read values, *ALUs* evaluate the expression, and the op's value stream
leaves through a *reducer* (or a sparse accumulator, when the reduced variable is not the
innermost) into a *writer*: to memory for a region result, or to an on-chip buffer that a
consumer scans like any other input.

Demand filters: an op that only feeds consumers which intersect a level with a sparse
operand (a GCN layer 1 feeding `A(i2,i) * H1(i,h)`) scans that operand too, so it computes
only the rows that are used. An op whose result leaves the region is never filtered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from fuseflow.program.expr import FUNCTION_FLOPS, Access, Call, Const, Expr, Neg, Statement, bind_extents
from fuseflow.program.ir import Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.contexts import Contexts, eliminated_modes, region_contexts
from fuseflow.analysis.loop_fibers import loop_fibers
from fuseflow.lower.filters import filter_inputs
from fuseflow.lower.inputs import Input, buffer_key, memory_key
from fuseflow.analysis.level_support import ALL, Support, leaves
from fuseflow.schedule import RegionSchedule

WRITE = "memory"


#: what each primitive kind is, in words (the table in docs/simulator.md, "The graph")
PRIMITIVE_KINDS = {
    "dense": "level iterator", "empty": "level iterator", "scan": "compressed level scanner",
    "intersect": "intersecter", "union": "unioner", "leftjoin": "left joiner", "locate": "dense locator",
    "repeat": "repeater", "array": "value reader", "alu": "ALU", "reduce": "reducer",
    "spacc": "sparse accumulator", "crddrop": "coordinate dropper", "write": "level writer",
    "fork": "lane fork", "join": "lane join",
}


@dataclass
class Primitive:
    pid: int
    kind: str
    op: str | None
    label: str
    inputs: tuple[int, ...] = ()
    var: str | None = None
    flops: int = 1                # arithmetic operations per value an ALU computes (gelu counts 9)

    def describe(self) -> str:
        """`p6 (the level iterator dense f [0,1433) of aggregate1)`: the name `eval --graph` lists it by."""
        return f"p{self.pid} (the {PRIMITIVE_KINDS.get(self.kind, self.kind)} {self.label} of {self.op})"


@dataclass
class Node:
    """A node of a level's merge tree: a scanner, a dense/empty iterator, or a joiner."""

    pid: int
    kind: str                     # "scan" | "dense" | "empty" | "and" | "or"
    key: str | None = None
    children: tuple["Node", ...] = ()


@dataclass
class Level:
    depth: int
    var: str
    extent: int
    support: Support
    iterator: Node
    leftjoins: list[tuple[int, int, str]] = field(default_factory=list)   # (scan pid, join pid, key)
    locates: list[tuple[int, str, tuple[int, ...]]] = field(default_factory=list)  # (pid, key, levels)
    repeats: list[tuple[int, str, str]] = field(default_factory=list)     # (pid, key, "ref"|"value")
    reads: list[tuple[int, str]] = field(default_factory=list)            # (pid, key)
    fork: int | None = None
    material: bool = True


@dataclass
class Edge:
    """The op's value stream leaving for a consumer's buffer or for memory."""

    target: str                   # consumer op, or WRITE
    tensor: str
    chain: tuple[str, ...]        # kept variables, loop order
    modes: dict[str, str]         # eliminated variable -> "sum" | "max" | "last"
    storage: tuple[str, ...]      # variables in storage order
    formats: tuple[str, ...]      # one per storage level
    extents: tuple[int, ...]
    reduce_pid: int | None
    drop_pid: int | None
    write_pid: int


@dataclass
class OpPlan:
    name: str
    expr: Expr
    reduce: str
    chain: tuple[str, ...]
    inputs: dict[str, Input]
    access_key: dict[Access, str]
    levels: list[Level]
    resolve: dict[str, dict[int, tuple[int, ...]]]   # input -> depth -> storage levels resolved there
    read_depth: dict[str, int]                       # input -> depth of its value read (-1: at the root)
    root_reads: list[tuple[int, str]]
    alus: dict[int, int]                             # id(expr node) -> pid
    value_pid: int                                   # primitive whose stream carries the op's values
    join: int | None
    edges: list[Edge]
    filters: dict[str, tuple[str, ...]]
    is_result: bool
    coarsen: dict[str, int] = field(default_factory=dict)   # elements per token of each level of its streams
    vector: str | None = None                                # the level its stream shape vectorizes


@dataclass
class RegionPlan:
    program: Program
    region: Region
    schedule: RegionSchedule
    policy: str
    extents: dict[str, int]
    par: dict[str, int]
    coarsen: dict[str, int]       # block mode: the levels of block-sparse operands (each op: OpPlan.coarsen)
    ops: list[OpPlan]
    primitives: list[Primitive]
    contexts: Contexts
    #: what each level visits (fuseflow.analysis.loop_fibers), as the graph was built from it
    fibers: object = None

    @property
    def order(self) -> tuple[str, ...]:
        return self.schedule.order

    def op(self, name: str) -> OpPlan:
        return next(p for p in self.ops if p.name == name)


class _Builder:
    def __init__(self):
        self.primitives: list[Primitive] = []

    def add(self, kind: str, op: str | None, label: str, inputs=(), var=None, flops: int = 1) -> int:
        pid = len(self.primitives)
        self.primitives.append(Primitive(pid, kind, op, label, tuple(i for i in inputs if i is not None), var,
                                         flops))
        return pid


def lower_region(program: Program, binding, rs: RegionSchedule, policy: str = "accumulate",
                 block_size: int = 4) -> RegionPlan:
    """The dataflow graph of one region under its schedule (order, par factors, vector, block)."""
    region = unify_region(program, rs.ops)
    extents = {v: binding.extent(d) for v, d in region.var_dims.items()}
    ctx = region_contexts(program, region, rs.order, policy)
    par = {v: f for v, f in zip(rs.order, rs.par_factors) if f > 1}
    coarsen = _coarsening(program, region, rs, block_size)
    members = set(region.ops)
    results = {r.tensor for r in region.results}
    consumers = {name: [c for c in region.ops if c != name and any(
        a.tensor == program.op_by_name[name].output.tensor for a in program.op_by_name[c].inputs)]
        for name in region.ops}

    # Inputs of every op (buffers get their formats once the producer's supports are known).
    raw_inputs: dict[str, dict[str, Input]] = {}
    access_key: dict[str, dict[Access, str]] = {}
    for name in region.ops:
        op = program.op_by_name[name]
        mapping = region.op_vars[name]
        inputs: dict[str, Input] = {}
        keys: dict[Access, str] = {}
        for access in op.inputs:
            vars_ = tuple(mapping[v] for v in access.indices)
            producer = program.producer.get(access.tensor)
            if producer in members:
                key = buffer_key(access.tensor)
                keep = [v for v in ctx.chain[producer] if v in ctx.chain[name]]
                inputs[key] = Input(key, "buffer", access.tensor, tuple(keep), (), tuple(extents[v] for v in keep),
                                    producer)
            else:
                decl = program.tensors[access.tensor]
                key = memory_key(access.tensor, vars_)
                inputs[key] = Input(key, "memory", access.tensor, vars_, decl.formats,
                                    tuple(extents[v] for v in vars_))
            keys[access] = key
        raw_inputs[name] = inputs
        access_key[name] = keys

    fibers = loop_fibers(program, region, ctx)
    filters = fibers.filters
    for name in region.ops:
        raw_inputs[name].update(filter_inputs(raw_inputs, filters[name]))

    # Pass 2 (producers first): supports, buffer formats, and the graph.
    builder = _Builder()
    plans: list[OpPlan] = []
    final_support: dict[str, dict[str, Support]] = {}
    material_of: dict[str, dict[str, bool]] = {}
    write_pid: dict[tuple[str, str], int] = {}
    for name in region.ops:
        op = program.op_by_name[name]
        bound = bind_extents(op.expr, binding.extents)  # the ALUs take an extent as the number it is bound to
        if bound is not op.expr:
            op = replace(op, statement=Statement(op.output, bound))
        chain = ctx.chain[name]
        inputs = {}
        for key, inp in raw_inputs[name].items():
            if inp.kind == "buffer":
                sup = final_support[inp.producer]
                fmts = tuple("dense" if sup[v] == ALL else "compressed" for v in inp.vars)
                depends = tuple(material_of[inp.producer][v] for v in inp.vars)
                inp = Input(key, "buffer", inp.tensor, inp.vars, fmts, inp.extents, inp.producer, depends)
            inputs[key] = inp
        plan = _plan_op(builder, program, region, name, op, chain, inputs, access_key[name], filters[name],
                        fibers.support[name], extents, par, write_pid, op.output.tensor in results)
        plan.vector = _vector_level(region, chain) if rs.stream_shape > 1 else None
        plan.coarsen = _op_coarsening(coarsen, plan.vector, rs.stream_shape)
        _mark_material(plan)
        final_support[name] = {lv.var: lv.support for lv in plan.levels}
        material_of[name] = {lv.var: lv.material for lv in plan.levels}
        plans.append(plan)
        # Edges need the consumer chains and this op's supports.
        for c in consumers[name]:
            keep = raw_inputs[c][buffer_key(op.output.tensor)].vars
            fmts = tuple("dense" if final_support[name][v] == ALL else "compressed" for v in keep)
            plan.edges.append(_edge(builder, ctx, plan, c, op.output.tensor, keep, keep, fmts, extents))
            write_pid[(name, c)] = plan.edges[-1].write_pid
        if op.output.tensor in results:
            decl = program.tensors[op.output.tensor]
            storage = tuple(region.op_vars[name][v] for v in op.output_vars)
            keep = tuple(v for v in chain if v in storage)
            plan.edges.append(_edge(builder, ctx, plan, WRITE, op.output.tensor, keep, storage, decl.formats,
                                    extents))
    return RegionPlan(program, region, rs, policy, extents, par, coarsen, plans, builder.primitives, ctx, fibers)


def is_block_sparse(formats: tuple[str, ...]) -> bool:
    """An operand block mode tiles (and stores as blocks): sparse, with two or more levels."""
    return "compressed" in formats and len(formats) >= 2


def block_edges(plan: RegionPlan, inp: Input) -> tuple[int, ...] | None:
    """The block edge of each storage level of an operand the region stores as blocks (the
    tile edge of its variable), or None when it is stored entry by entry. A demand filter,
    which reads the first levels of an operand, gets the edges of the whole operand."""
    if not plan.schedule.block_sparse or inp.kind == "buffer":
        return None
    operand = next((o for o in plan.region.operands
                    if o.tensor == inp.tensor and o.vars[:len(inp.vars)] == inp.vars), None)
    if operand is None or not is_block_sparse(operand.formats):
        return None
    return tuple(plan.coarsen.get(v, 1) for v in operand.vars)


def _coarsening(program: Program, region: Region, rs: RegionSchedule, block_size: int) -> dict[str, int]:
    """Variables whose tokens carry a block in block mode: the levels of block-sparse operands."""
    coarsen: dict[str, int] = {}
    if rs.block_sparse:
        for operand in region.operands:
            if is_block_sparse(operand.formats):
                edge = program.tensors[operand.tensor].block or block_size
                for v in operand.vars:
                    coarsen[v] = max(coarsen.get(v, 1), edge)
    return coarsen


def _vector_level(region: Region, chain: tuple[str, ...]) -> str | None:
    from fuseflow.schedule.rules import vector_level   # the rules load numpy; opening fuseflow.lower must not

    return vector_level(region, chain)


def _op_coarsening(blocks: dict[str, int], vector: str | None, shape: int) -> dict[str, int]:
    """One op's tiles: the blocks, and its vectorized level (fuseflow.schedule.rules.vector_level)."""
    coarsen = dict(blocks)
    if vector is not None:
        coarsen[vector] = max(coarsen.get(vector, 1), shape)
    return coarsen


def _resolution(inp: Input, chain: tuple[str, ...]) -> dict[int, tuple[int, ...]]:
    """Depth -> storage levels whose reference becomes computable there (all their variables bound)."""
    position = {v: i for i, v in enumerate(chain)}
    out: dict[int, list[int]] = {}
    bound = -1
    for level, v in enumerate(inp.vars):
        bound = max(bound, position[v])
        out.setdefault(bound, []).append(level)
    return {d: tuple(levels) for d, levels in out.items()}


def _plan_op(builder: _Builder, program, region, name, op, chain, inputs, keys, filters, supports, extents, par,
             write_pid, is_result) -> OpPlan:
    resolve = {k: _resolution(inp, chain) for k, inp in inputs.items()}
    # The last depth at which an input's reference is needed: its value read, or (filters) its last level.
    read_depth = {k: max(resolve[k], default=-1) for k in inputs}
    ref_src: dict[str, int | None] = {}
    val_src: dict[str, int | None] = {}
    root_reads: list[tuple[int, str]] = []
    for key, inp in inputs.items():
        src = write_pid.get((inp.producer, name)) if inp.kind == "buffer" else None
        ref_src[key] = src
        if inp.kind != "filter" and read_depth[key] == -1:
            pid = builder.add("array", name, f"read {key}", (src,))
            root_reads.append((pid, key))
            val_src[key] = pid
    levels: list[Level] = []
    merged_src: int | None = None
    for depth, var in enumerate(chain):
        support = supports[var]     # fuseflow.analysis.loop_fibers: the rule the cost model counts by
        scans: dict[str, int] = {}

        def scan(key: str) -> int:
            inp = inputs[key]
            level = inp.vars.index(var)
            pid = builder.add("scan", name, f"scan {inp.tensor}.{var} ({inp.kind}, level {level}, compressed)",
                              (ref_src[key],), var)
            scans[key] = pid
            return pid

        def build(sup: Support) -> Node:
            kind = sup[0]
            if kind == "fiber":
                return Node(scan(sup[1]), "scan", sup[1])
            if kind == "all":
                return Node(builder.add("dense", name, f"dense {var} [0,{extents[var]})", (merged_src,), var),
                            "dense")
            if kind == "empty":
                return Node(builder.add("empty", name, f"empty {var}", (merged_src,), var), "empty")
            children = tuple(build(part) for part in sup[1:])
            node = children[0]
            # A binary joiner tree, left to right.
            for child in children[1:]:
                label = "intersect" if kind == "and" else "union"
                node = Node(builder.add(label, name, f"{label} {var}", (node.pid, child.pid), var), kind, None,
                            (node, child))
            return node

        iterator = build(support)
        level = Level(depth, var, extents[var], support, iterator)
        merged = iterator.pid
        in_tree = set(leaves(support))
        for key, inp in inputs.items():
            here = resolve[key].get(depth, ())
            compressed = [s for s in here if inp.formats[s] == "compressed"]
            assert not compressed or here == (inp.vars.index(var),), "compressed levels are concordant"
            if compressed and key not in in_tree:
                spid = scan(key)
                jpid = builder.add("leftjoin", name, f"leftjoin {var} <- {inp.tensor}", (merged, spid), var)
                level.leftjoins.append((spid, jpid, key))
                merged = jpid
        if par.get(var, 1) > 1:
            # The fork deals this level's coordinates to lanes; everything below runs per lane.
            level.fork = builder.add("fork", name, f"fork {var} x{par[var]}", (merged,), var)
            merged = level.fork
        for key, inp in inputs.items():
            here = resolve[key].get(depth, ())
            if key in scans:
                ref_src[key] = merged
            elif here:
                pid = builder.add("locate", name, f"locate {inp.tensor}.{var}", (ref_src[key], merged), var)
                level.locates.append((pid, key, here))
                ref_src[key] = pid
            elif depth < read_depth[key]:
                pid = builder.add("repeat", name, f"repeat ref {inp.tensor} over {var}", (ref_src[key], merged), var)
                level.repeats.append((pid, key, "ref"))
                ref_src[key] = pid
            elif depth > read_depth[key] and inp.kind != "filter":
                pid = builder.add("repeat", name, f"repeat value {inp.tensor} over {var}",
                                  (val_src[key], merged), var)
                level.repeats.append((pid, key, "value"))
                val_src[key] = pid
            if depth == read_depth[key] and inp.kind != "filter":
                pid = builder.add("array", name, f"read {inp.tensor} values", (ref_src[key],), var)
                level.reads.append((pid, key))
                val_src[key] = pid
        merged_src = merged
        levels.append(level)
    alus: dict[int, int] = {}

    def alu(expr: Expr) -> int | None:
        if isinstance(expr, Access):
            return val_src[keys[expr]]
        if isinstance(expr, Const):
            return None
        if isinstance(expr, (Call, Neg)):
            arg = alu(expr.arg)
            label = expr.func if isinstance(expr, Call) else "neg"
            flops = FUNCTION_FLOPS[expr.func] if isinstance(expr, Call) else 1
            pid = builder.add("alu", name, f"alu {label}", (arg,), chain[-1], flops)
        else:
            lhs, rhs = alu(expr.lhs), alu(expr.rhs)
            consts = [str(e) for e in (expr.lhs, expr.rhs) if isinstance(e, Const)]
            label = f"alu {expr.op}" + (f" {' '.join(consts)}" if consts else "")
            pid = builder.add("alu", name, label, (lhs, rhs), chain[-1])
        alus[id(expr)] = pid
        return pid

    value = alu(op.expr)
    if value is None:
        value = builder.add("alu", name, f"alu const {op.expr}", (merged_src,), chain[-1])
        alus[id(op.expr)] = value
    join = None
    if any(lv.fork is not None for lv in levels):
        join = builder.add("join", name, "join lanes", (value,), chain[-1])
        value = join
    return OpPlan(name, op.expr, op.reduce, chain, inputs, keys, levels, resolve, read_depth, root_reads, alus,
                  value, join, [], filters, is_result)


def _edge(builder: _Builder, ctx: Contexts, plan: OpPlan, target: str, tensor: str, keep, storage, formats,
          extents) -> Edge:
    modes = eliminated_modes(ctx, plan.name, set(keep))
    reduce_pid = None
    src = plan.value_pid
    if modes:
        eliminated = [v for v in plan.chain if v in modes]
        suffix = tuple(plan.chain[len(plan.chain) - len(eliminated):]) == tuple(eliminated)
        kind = "reduce" if suffix else "spacc"
        what = " ".join(f"{modes[v]} {v}" for v in eliminated)
        reduce_pid = builder.add(kind, plan.name, f"{kind} {what} -> ({' '.join(keep)})", (src,))
        src = reduce_pid
    drop_pid = None
    if any(f == "compressed" for f in formats[:-1]):
        drop_pid = builder.add("crddrop", plan.name, "drop empty fibers", (src,))
        src = drop_pid
    where = "memory" if target == WRITE else f"buffer for {target}"
    layout = " ".join(f"{v}:{f[0]}" for v, f in zip(storage, formats))
    write_pid = builder.add("write", plan.name, f"write {tensor} [{layout}] to {where}", (src,))
    return Edge(target, tensor, tuple(keep), modes, tuple(storage), tuple(formats),
                tuple(extents[v] for v in storage), reduce_pid, drop_pid, write_pid)


def _mark_material(plan: OpPlan) -> None:
    """A level is material when its coordinates depend on data: a sparse support, a left join,
    or a variable that a deeper compressed level of some input depends on. The other levels
    are full ranges, which the fast executor keeps symbolic."""
    needed: set[int] = set()
    position = {v: i for i, v in enumerate(plan.chain)}
    for key, inp in plan.inputs.items():
        for lvls in plan.resolve[key].values():
            for s in lvls:
                if inp.formats[s] == "compressed":
                    needed.update(position[v] for t, v in enumerate(inp.vars[:s]) if inp.level_depends(t))
    for level in plan.levels:
        level.material = level.support != ALL or bool(level.leftjoins) or level.depth in needed
