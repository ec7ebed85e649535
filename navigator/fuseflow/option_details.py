"""What an option of the FuseFlow library means in the program: the region it schedules (its
ops and its operands' formats) and, for a dataflow order, the loop nest it makes."""

from __future__ import annotations

from typing import Any, Mapping


def region_details(program, region: str, metadata: Mapping[str, Any]) -> list[str]:
    """The region's ops and operand formats; an order's loop nest, compressed levels marked."""
    from fuseflow.analysis.unification import unify_region

    ops = tuple(region.split("+"))
    try:
        unified = unify_region(program, ops)
    except Exception:  # a region name the program does not know: show nothing more
        return []
    compressed = {var for operand in unified.operands for var, fmt in zip(operand.vars, operand.formats)
                  if fmt == "compressed"}
    lines = [f"region {region}:"]
    for name in ops:
        op = program.op_by_name[name]
        lines.append(f"  {name}: {op.statement}")
    for operand in unified.operands:
        lines.append(f"  reads {operand.tensor}({','.join(operand.vars)}) [{','.join(operand.formats)}]")
    order = metadata.get("order")
    if order is not None:
        lines.append("loop nest (* compressed: iterates stored coordinates only):")
        for depth, var in enumerate(str(order).split()):
            extent = unified.var_dims.get(var, "")
            lines.append("  " * (depth + 1) + f"for {var}{'*' if var in compressed else ''} in {extent}")
    return lines
