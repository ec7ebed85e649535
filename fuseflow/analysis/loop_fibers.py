"""Which coordinates each loop level of an op visits: the one rule the lowering
(fuseflow.lower.plan builds its merge trees from it) and the cost model (fuseflow.cost.estimate
counts its points from it) share.

For an op of a region, under its chain (fuseflow.analysis.contexts), a level `v` visits:

* its *support*: where the op's expression can be non-zero (fuseflow.analysis.level_support),
  with a leaf per input: a memory operand stored compressed at `v` is its fiber, an on-chip
  buffer is a fiber where its producer's support at `v` is not every coordinate, anything else
  supports every coordinate;
* intersected with its *demand filters*: an op that is not a region result, whose every
  in-region consumer intersects `v` with a sparse memory operand (the consumer multiplies by
  it, or is itself filtered by it), scans that operand too, provided the operand's parent
  levels are bound above `v` in the op's chain. In fully fused GCN, layer 1 then runs only for
  the neighbours `i` of row `i2`. Together with the hoisting of foreign loops (contexts), an op
  runs under another op's loop only at the coordinates its uses visit there.

`visited` names the memory operands whose stored fibers every visited coordinate lies in: the
top-level factors of the support, buffers replaced by what their producer visited. The cost
model thins its point counts by exactly these operands.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.analysis.contexts import Contexts
from fuseflow.analysis.level_support import ALL, Support, conjuncts, expression_support, fiber, s_and
from fuseflow.program.expr import Access
from fuseflow.program.ir import Program, Region


def memory_key(tensor: str, vars_: tuple[str, ...]) -> str:
    """The name of a tensor read from memory with its levels on region variables: `A(i,k)`."""
    return f"{tensor}({','.join(vars_)})"


def buffer_key(tensor: str) -> str:
    """The name of an on-chip buffer a producer of the region fills: `AX~`."""
    return f"{tensor}~"


@dataclass(frozen=True)
class OpInput:
    """One input access of an op, as the levels see it."""

    key: str
    tensor: str
    vars: tuple[str, ...]          # region variables of its storage levels (buffers: the kept chain)
    formats: tuple[str, ...]       # memory operands only
    producer: str | None           # buffers: the op that fills it


@dataclass(frozen=True)
class LoopFibers:
    support: dict[str, dict[str, Support]]           # op -> var -> support tree, filters included
    filters: dict[str, dict[str, tuple[str, ...]]]   # op -> var -> memory keys it is filtered by
    visited: dict[str, dict[str, frozenset[str]]]    # op -> var -> memory keys every coordinate lies in
    accesses: dict[str, dict[Access, OpInput]]       # op -> its input accesses

    def thinning(self, op: str) -> frozenset[str]:
        """Memory operands the op's points lie in, over its whole chain."""
        return frozenset().union(*self.visited[op].values()) if self.visited[op] else frozenset()


def region_accesses(program: Program, region: Region, ctx: Contexts) -> dict[str, dict[Access, OpInput]]:
    members = set(region.ops)
    out: dict[str, dict[Access, OpInput]] = {}
    for name in region.ops:
        op = program.op_by_name[name]
        mapping = region.op_vars[name]
        found: dict[Access, OpInput] = {}
        for access in op.inputs:
            producer = program.producer.get(access.tensor)
            if producer in members:
                keep = tuple(v for v in ctx.chain[producer] if v in ctx.chain[name])
                found[access] = OpInput(buffer_key(access.tensor), access.tensor, keep, (), producer)
            else:
                vars_ = tuple(mapping[v] for v in access.indices)
                found[access] = OpInput(memory_key(access.tensor, vars_), access.tensor, vars_,
                                        program.tensors[access.tensor].formats, None)
        out[name] = found
    return out


def loop_fibers(program: Program, region: Region, ctx: Contexts) -> LoopFibers:
    accesses = region_accesses(program, region, ctx)
    results = {r.tensor for r in region.results}
    consumers = {name: [c for c in region.ops if c != name and any(
        a.tensor == program.op_by_name[name].output.tensor for a in program.op_by_name[c].inputs)]
        for name in region.ops}
    filters = _demand_filters(program, region, ctx, accesses, consumers, results)
    support: dict[str, dict[str, Support]] = {}
    visited: dict[str, dict[str, frozenset[str]]] = {}
    for name in region.ops:
        op = program.op_by_name[name]
        support[name], visited[name] = {}, {}
        for var in ctx.chain[name]:
            sup = s_and(expression_support(op.expr, _leaf(accesses[name], var, support)),
                        *[fiber(k) for k in filters[name].get(var, ())])
            support[name][var] = sup
            keys: set[str] = set()
            for key in conjuncts(sup):
                if key.endswith("~"):
                    producer = next(a.producer for a in accesses[name].values() if a.key == key)
                    keys |= visited[producer].get(var, frozenset())
                else:
                    keys.add(key)
            visited[name][var] = frozenset(keys)
    return LoopFibers(support, filters, visited, accesses)


def _leaf(accesses: dict[Access, OpInput], var: str, support: dict[str, dict[str, Support]],
          buffers_dense: bool = False):
    def leaf(access: Access) -> Support:
        found = accesses[access]
        if var not in found.vars:
            return ALL
        if found.producer is not None:
            if buffers_dense or support[found.producer][var] == ALL:
                return ALL
            return fiber(found.key)
        return fiber(found.key) if found.formats[found.vars.index(var)] == "compressed" else ALL
    return leaf


def _demand_filters(program, region, ctx: Contexts, accesses, consumers, results) -> dict[str, dict[str, tuple]]:
    """Op -> variable -> keys of the memory operands it is filtered by, consumers first."""
    memory = {a.key: a for per_op in accesses.values() for a in per_op.values() if a.producer is None}
    filters: dict[str, dict[str, tuple[str, ...]]] = {}
    restrict: dict[str, dict[str, set[str]]] = {}
    for name in reversed(region.ops):
        chain = ctx.chain[name]
        op = program.op_by_name[name]
        reads = {a.key for a in accesses[name].values()}
        own = {v: conjuncts(expression_support(op.expr, _leaf(accesses[name], v, {}, buffers_dense=True)))
               for v in chain}
        chosen: dict[str, tuple[str, ...]] = {}
        users = consumers[name]
        if users and op.output.tensor not in results:
            for depth, v in enumerate(chain):
                common: set[str] | None = None
                for c in users:
                    passed = next(a.vars for a in accesses[c].values() if a.key == buffer_key(op.output.tensor))
                    got = restrict[c].get(v, set()) if v in passed else set()
                    common = got if common is None else common & got
                picks = []
                for key in sorted(common or ()):
                    parents = memory[key].vars[: memory[key].vars.index(v)]
                    if key not in reads and set(parents) <= set(chain[:depth]):
                        picks.append(key)
                if picks:
                    chosen[v] = tuple(picks)
        filters[name] = chosen
        restrict[name] = {v: own[v] | set(chosen.get(v, ())) for v in chain}
    return filters
