"""Demand filters: an op computes only the points its consumers use.

An op that is not a region result and whose every in-region consumer intersects a level with
a sparse memory operand (the consumer multiplies by it, or is itself filtered by it) scans
that operand too and intersects with it, provided the operand's parent levels are already
bound above that level in the op's chain. In fully fused GCN, layer 1 then runs only for the
neighbours `i` of row `i2` (the cost model assumes the same thinning).
"""

from __future__ import annotations

from fuseflow.analysis.contexts import Contexts
from fuseflow.lower.inputs import Input, buffer_key, leaf_support
from fuseflow.lower.level_support import conjuncts, expression_support


def demand_filters(program, region, ctx: Contexts, inputs: dict[str, dict[str, Input]], access_key, consumers,
                   results) -> dict[str, dict[str, tuple[str, ...]]]:
    """Op -> variable -> keys of the memory operands it is filtered by, consumers first."""
    filters: dict[str, dict[str, tuple[str, ...]]] = {}
    restrict: dict[str, dict[str, set[str]]] = {}
    memory = {k: i for name in region.ops for k, i in inputs[name].items() if i.kind == "memory"}
    for name in reversed(region.ops):
        chain = ctx.chain[name]
        op = program.op_by_name[name]
        own = {v: conjuncts(expression_support(op.expr, leaf_support(inputs[name], access_key[name], v,
                                                                      buffers_dense=True)))
               for v in chain}
        chosen: dict[str, tuple[str, ...]] = {}
        users = consumers[name]
        if users and op.output.tensor not in results:
            for depth, v in enumerate(chain):
                common: set[str] | None = None
                for c in users:
                    passed = inputs[c][buffer_key(op.output.tensor)].vars
                    got = restrict[c].get(v, set()) if v in passed else set()
                    common = got if common is None else common & got
                picks = []
                for key in sorted(common or ()):
                    parents = memory[key].vars[: memory[key].vars.index(v)]
                    if key not in inputs[name] and set(parents) <= set(chain[:depth]):
                        picks.append(key)
                if picks:
                    chosen[v] = tuple(picks)
        filters[name] = chosen
        restrict[name] = {v: own[v] | set(chosen.get(v, ())) for v in chain}
    return filters


def filter_inputs(inputs: dict[str, dict[str, Input]], filters: dict[str, tuple[str, ...]]) -> dict[str, Input]:
    """The filter operands of one op, cut after the deepest level it filters on."""
    memory = {k: i for per_op in inputs.values() for k, i in per_op.items() if i.kind == "memory"}
    deepest: dict[str, int] = {}
    for v, keys in filters.items():
        for key in keys:
            deepest[key] = max(deepest.get(key, -1), memory[key].vars.index(v))
    out = {}
    for key, last in deepest.items():
        operand = memory[key]
        cut = slice(0, last + 1)
        out[key] = Input(key, "filter", operand.tensor, operand.vars[cut], operand.formats[cut], operand.extents[cut])
    return out
