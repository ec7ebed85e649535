"""What `navigator check` reports about a program: regions, groupings, orders and cost."""

from __future__ import annotations

from fuseflow.program.binding import Binding
from fuseflow.cost.bounds import ScheduleBound
from fuseflow.cost.estimate import schedule_cost
from fuseflow.analysis.fusion import fully_fused, unfused
from fuseflow.analysis.fusion_steps import count_groupings
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.cost.hardware import Hardware
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace, default_order
from fuseflow.schedule import default_schedule
from fuseflow.support.numbers import figure


def program_summary(program: Program, binding: Binding, hw: Hardware, dense_fixed: bool = False) -> dict:
    fused = fully_fused(program)
    regions = []
    for group in fusion_steps(program).regions():
        region = unify_region(program, group)
        space = OrderSpace.of_region(region, dense_fixed)
        regions.append({
            "ops": list(group),
            "vars": {v: f"{region.var_dims[v]}={binding.extent(region.var_dims[v])}" for v in region.vars},
            "constraints": sorted(f"{a}<{b}" for a, b in space.pairs),
            "orders": space.count(),
            "default_order": " ".join(default_order(region)),
        })
    from navigator.fuseflow.data_statistics import data_statistics

    schedule = default_schedule(program)
    cost = schedule_cost(program, binding, schedule, hw, stats=data_statistics(program, binding))
    return {
        "program": program.name,
        "description": program.description,
        "data": binding.data_source,
        "dims": dict(binding.extents),
        "ops": [{"name": op.name, "expr": str(op.statement), "reduce": op.reduce} for op in program.ops],
        "groupings": {
            "count": count_groupings(program),  # the listing above names the regions; the count needs none
            "unfused": [list(g) for g in unfused(program)],
            "fully_fused": [list(g) for g in fused] if fused else None,
        },
        "regions": regions,
        "default_schedule": {"fusion": [list(r.ops) for r in schedule.regions], **cost.to_dict()},
        "dense_order_fixed": dense_fixed,
        "hardware": hw.source,
    }


def format_summary(summary: dict) -> str:
    lines = [f"program {summary['program']}: {summary['description']}",
             f"data: {summary['data']}",
             "dims: " + ", ".join(f"{k}={v}" for k, v in summary["dims"].items()),
             "ops:"]
    for op in summary["ops"]:
        reduce = f"  [reduce {op['reduce']}]" if op["reduce"] != "sum" else ""
        lines.append(f"  {op['name']:<12} {op['expr']}{reduce}")
    g = summary["groupings"]
    lines.append(f"legal fusion groupings: {g['count']}")
    lines.append("  unfused:     " + " | ".join(" ".join(x) for x in g["unfused"]))
    lines.append("  fully fused: " + (" ".join(g["fully_fused"][0]) if g["fully_fused"] else "illegal"))
    mode = " (dense storage orders fixed)" if summary["dense_order_fixed"] else ""
    lines.append(f"fusable regions and their legal dataflow orders{mode}:")
    for r in summary["regions"]:
        cons = ", ".join(r["constraints"]) or "none"
        lines.append(f"  [{' '.join(r['ops'])}] vars {' '.join(r['vars'])}: {r['orders']} orders "
                     f"(constraints: {cons}; default {r['default_order']})")
    d = summary["default_schedule"]
    lines.append(f"default schedule ({_regions(len(d['regions']))}, hardware: {summary['hardware']}), estimated by the "
                 "cost model (est.), not simulated (`navigator eval` simulates):")
    lines.append(f"  est. FLOPs {figure(d['flops'])}  bytes {figure(d['bytes'])}  intensity {figure(d['intensity'])} "
                 f"ops/byte (ridge {figure(d['ridge_intensity'])})")
    bound = ScheduleBound(d["roofline"], d["roofline_share"]).describe("est. cycles")
    lines.append(f"  {bound}; est. {figure(d['cycles'])} cycles (the sum of the regions')")
    for r in d["regions"]:
        lines.append(f"  [{' '.join(r['ops'])}] order {r['order']}: est. {figure(r['cycles'])} cycles, "
                     f"{r['roofline']}, bound by {r['bottleneck']}; FLOPs {figure(r['flops'])}, "
                     f"bytes read {figure(r['bytes_read'])}, written {figure(r['bytes_written'])}")
    return "\n".join(lines)


def _regions(count: int) -> str:
    return f"{count} region" + ("" if count == 1 else "s")
