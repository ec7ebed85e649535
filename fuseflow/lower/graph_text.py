"""Text and DOT renderings of a lowered region (the text form is pinned by golden tests)."""

from __future__ import annotations

from fuseflow.lower.plan import RegionPlan
from fuseflow.analysis.level_support import show


def format_graph(plan: RegionPlan) -> str:
    rs = plan.schedule
    par = " ".join(f"{v}x{f}" for v, f in plan.par.items()) or "none"
    modes = []
    if rs.stream_shape > 1:
        vectors = " ".join(f"{op.name}:{op.vector}" for op in plan.ops if op.vector) or "no level"
        modes.append(f"vector {rs.stream_shape} on {vectors}")
    if rs.block_sparse:
        modes.append("block " + " ".join(f"{v}/{c}" for v, c in plan.coarsen.items()))
    lines = [f"region [{' '.join(plan.region.ops)}] order {' '.join(rs.order)} policy {plan.policy}",
             f"  extents {' '.join(f'{v}={plan.extents[v]}' for v in rs.order)}; par {par}; "
             f"modes {', '.join(modes) or 'scalar'}"]
    by_op: dict[str | None, list] = {}
    for prim in plan.primitives:
        by_op.setdefault(prim.op, []).append(prim)
    for op in plan.ops:
        program_op = plan.program.op_by_name[op.name]
        lines.append(f"op {op.name}: {program_op.statement}  chain ({' '.join(op.chain)})")
        for level in op.levels:
            extra = ""
            if op.filters.get(level.var):
                extra = f"  filter {' '.join(op.filters[level.var])}"
            lines.append(f"  level {level.depth} {level.var}: {show(level.support)}{extra}")
        for prim in by_op.get(op.name, []):
            inputs = ",".join(f"p{i}" for i in prim.inputs)
            lines.append(f"  p{prim.pid:<3} {prim.kind:<8} {prim.label}" + (f"  <- {inputs}" if inputs else ""))
    return "\n".join(lines) + "\n"


_SHAPES = {"scan": "box", "dense": "box", "empty": "box", "intersect": "diamond", "union": "diamond",
           "leftjoin": "diamond", "locate": "ellipse", "repeat": "ellipse", "array": "cylinder",
           "alu": "circle", "reduce": "invtriangle", "spacc": "invtriangle", "crddrop": "octagon",
           "write": "folder", "fork": "trapezium", "join": "invtrapezium"}


def to_dot(plan: RegionPlan) -> str:
    lines = ["digraph region {", "  rankdir=TB;", '  node [fontname="monospace", fontsize=10];']
    for op in plan.ops:
        lines.append(f'  subgraph "cluster_{op.name}" {{ label="{op.name}";')
        for prim in plan.primitives:
            if prim.op == op.name:
                label = prim.label.replace('"', "'")
                lines.append(f'    p{prim.pid} [shape={_SHAPES.get(prim.kind, "box")}, label="p{prim.pid} {label}"];')
        lines.append("  }")
    for prim in plan.primitives:
        for src in prim.inputs:
            lines.append(f"  p{src} -> p{prim.pid};")
    lines.append("}")
    return "\n".join(lines) + "\n"
