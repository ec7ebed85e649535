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
from fuseflow.support.memo import named_memo


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


class _RegionFacts:
    """What does not depend on the order: each op's accesses, consumers, and a memo of its
    support per pattern of leaves (costing thousands of orders of one region stays cheap)."""

    def __init__(self, program: Program, region: Region):
        members = set(region.ops)
        self.results = {r.tensor for r in region.results}
        self.expr = {name: program.op_by_name[name].expr for name in region.ops}
        self.output = {name: program.op_by_name[name].output.tensor for name in region.ops}
        self.consumers = {name: [c for c in region.ops if c != name and any(
            a.tensor == self.output[name] for a in program.op_by_name[c].inputs)] for name in region.ops}
        #: op -> [(access, memory key and vars and formats, or producer)]
        self.inputs: dict[str, list[tuple[Access, str, tuple[str, ...], tuple[str, ...], str | None]]] = {}
        for name in region.ops:
            mapping = region.op_vars[name]
            found = []
            for access in program.op_by_name[name].inputs:
                producer = program.producer.get(access.tensor)
                if producer in members:
                    found.append((access, buffer_key(access.tensor), (), (), producer))
                else:
                    vars_ = tuple(mapping[v] for v in access.indices)
                    found.append((access, memory_key(access.tensor, vars_), vars_,
                                  program.tensors[access.tensor].formats, None))
            self.inputs[name] = found
        self._supports: dict[tuple, Support] = {}
        #: memory operands stored compressed somewhere: the only possible demand filters
        self.is_consumer = {name: any(name in users for users in self.consumers.values()) for name in region.ops}
        self.sparse = {key: vars_ for per_op in self.inputs.values() for _, key, vars_, formats, producer in per_op
                       if producer is None and "compressed" in formats}

    def support(self, name: str, leaves: tuple[Support, ...]) -> Support:
        key = (name, leaves)
        found = self._supports.get(key)
        if found is None:
            table = {access: leaf for (access, *_), leaf in zip(self.inputs[name], leaves)}
            found = self._supports[key] = expression_support(self.expr[name], table.__getitem__)
        return found


def _facts(program: Program, region: Region) -> _RegionFacts:
    memo = named_memo(program.memo, "loop_fibers")
    found = memo.get(region.ops)
    if found is None or found[0] is not region:
        found = memo[region.ops] = (region, _RegionFacts(program, region))
    return found[1]


def region_accesses(program: Program, region: Region, ctx: Contexts) -> dict[str, dict[Access, OpInput]]:
    facts = _facts(program, region)
    out: dict[str, dict[Access, OpInput]] = {}
    for name in region.ops:
        found: dict[Access, OpInput] = {}
        for access, key, vars_, formats, producer in facts.inputs[name]:
            if producer is not None:
                keep = tuple(v for v in ctx.chain[producer] if v in ctx.chain[name])
                found[access] = OpInput(key, access.tensor, keep, (), producer)
            else:
                found[access] = OpInput(key, access.tensor, vars_, formats, None)
        out[name] = found
    return out


def loop_fibers(program: Program, region: Region, ctx: Contexts) -> LoopFibers:
    facts = _facts(program, region)
    accesses = region_accesses(program, region, ctx)
    filters = _demand_filters(facts, region, ctx, accesses)
    support: dict[str, dict[str, Support]] = {}
    visited: dict[str, dict[str, frozenset[str]]] = {}
    for name in region.ops:
        support[name], visited[name] = {}, {}
        found = [accesses[name][access] for access, *_ in facts.inputs[name]]   # the order facts.support expects
        producer_of = {a.key: a.producer for a in found if a.producer is not None}
        for var in ctx.chain[name]:
            sup = facts.support(name, tuple(_leaf(a, var, support) for a in found))
            if filters[name].get(var):
                sup = s_and(sup, *[fiber(k) for k in filters[name][var]])
            support[name][var] = sup
            keys: set[str] = set()
            for key in conjuncts(sup):
                producer = producer_of.get(key)
                if producer is not None:
                    keys |= visited[producer].get(var, frozenset())
                else:
                    keys.add(key)
            visited[name][var] = frozenset(keys)
    return LoopFibers(support, filters, visited, accesses)


def _leaf(found: OpInput, var: str, support: dict[str, dict[str, Support]], buffers_dense: bool = False) -> Support:
    if var not in found.vars:
        return ALL
    if found.producer is not None:
        if buffers_dense or support[found.producer][var] == ALL:
            return ALL
        return fiber(found.key)
    return fiber(found.key) if found.formats[found.vars.index(var)] == "compressed" else ALL


def _demand_filters(facts: _RegionFacts, region: Region, ctx: Contexts, accesses) -> dict[str, dict[str, tuple]]:
    """Op -> variable -> keys of the memory operands it is filtered by, consumers first."""
    filters: dict[str, dict[str, tuple[str, ...]]] = {name: {} for name in region.ops}
    if not facts.sparse:
        return filters
    restrict: dict[str, dict[str, set[str]]] = {}
    for name in reversed(region.ops):
        chain = ctx.chain[name]
        found = [accesses[name][access] for access, *_ in facts.inputs[name]]
        chosen: dict[str, tuple[str, ...]] = {}
        users = facts.consumers[name]
        if users and facts.output[name] not in facts.results:
            reads = {a.key for a in found}
            passed_key = buffer_key(facts.output[name])
            passed = {c: next(a.vars for a in accesses[c].values() if a.key == passed_key) for c in users}
            for depth, v in enumerate(chain):
                common: set[str] | None = None
                for c in users:
                    got = restrict[c].get(v, set()) if v in passed[c] else set()
                    common = got if common is None else common & got
                    if not common:
                        break
                picks = []
                for key in sorted(common or ()):
                    vars_ = facts.sparse[key]
                    if key not in reads and set(vars_[: vars_.index(v)]) <= set(chain[:depth]):
                        picks.append(key)
                if picks:
                    chosen[v] = tuple(picks)
        filters[name] = chosen
        if facts.is_consumer[name]:
            restrict[name] = {}
            for v in chain:
                own = conjuncts(facts.support(name, tuple(_leaf(a, v, {}, buffers_dense=True) for a in found)))
                restrict[name][v] = (own | set(chosen.get(v, ()))) & facts.sparse.keys()
    return filters
