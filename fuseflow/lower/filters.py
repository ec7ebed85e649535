"""Demand filters: the operands an op scans only to compute the points its consumers use.

Which operands filter which level is decided by fuseflow.analysis.loop_fibers (the rule the
cost model counts by); here they become the op's `filter` inputs.
"""

from __future__ import annotations

from fuseflow.lower.inputs import Input


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
