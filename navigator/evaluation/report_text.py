"""Human-readable renderings of simulation reports and baseline comparisons.

Every figure says what it is: these are simulated (the estimate of `navigator check` is
labelled as one in navigator.fuseflow.summary), the data they ran on is named, a region's cycles are
written as the sum they are, and its bound names the term that set them (docs/simulator.md,
"Reading the output").
"""

from __future__ import annotations

from fuseflow.cost.bounds import ScheduleBound


def _si(x: float) -> str:
    return f"{x:.4g}"


#: what each region bound means, for the breakdown line
_BOUND_TERMS = {"memory": "memory (DRAM lines at the memory bandwidth, plus the latency of gathers)",
                "arithmetic": "arithmetic (ALU operations at peak_ops_per_cycle)"}


def region_breakdown(r: dict) -> str:
    """`cycles X = B (what B is) + F pipeline fill; overlapped: ...` for one region's dict."""
    bound = r["bound"]
    term = _BOUND_TERMS.get(bound) or f"slowest primitive: {r['bottleneck']}"
    hidden = {"primitive": ("slowest primitive", r["compute_cycles"]), "memory": ("memory", r["memory_cycles"]),
              "arithmetic": ("arithmetic", r["arithmetic_cycles"])}
    del hidden[bound]
    overlapped = ", ".join(f"{name} {_si(value)}" for name, value in hidden.values())
    return (f"cycles {_si(r['cycles'])} = {_si(r['bound_cycles'])} {term} + {r['fill_cycles']} pipeline fill; "
            f"overlapped with it: {overlapped}")


def format_report(report, schedule_name: str = "") -> str:
    d = report.to_dict()
    hw = report.hardware
    lines = [f"program {d['program']}{(' schedule ' + schedule_name) if schedule_name else ''}: simulated "
             f"({d['executor']} executor, policy {d['policy']}, hardware {d['hardware']})",
             f"  data: {d['data']}",
             f"  FLOPs {_si(d['flops'])}  bytes {_si(d['bytes'])} simulated (compulsory {_si(d['compulsory_bytes'])})"
             f"  intensity {d['intensity']:.3g} ops/byte (ridge {hw.ridge_intensity:.3g})",
             f"  {ScheduleBound(d['roofline'], d['roofline_share']).describe()}",
             f"  cycles {_si(d['cycles'])}: the sum of the {len(d['regions'])} regions', which run one after another "
             f"({d['seconds'] * 1e3:.4g} ms at {hw.clock_ghz:g} GHz)"]
    for r in d["regions"]:
        par = " ".join(map(str, r["par_factors"]))
        modes = []
        if r["stream_shape"] > 1:
            modes.append(f"vector {r['stream_shape']}")
        if r["block_sparse"]:
            modes.append("block")
        lines.append(f"  [{' '.join(r['ops'])}] order {r['order']} par {par}{' ' + ' '.join(modes) if modes else ''}: "
                     f"{r['roofline']}")
        lines.append(f"    {region_breakdown(r)}")
        spilled = f", spilled {_si(r['spill_bytes'])}" if r.get("spill_bytes") else ""
        lines.append(f"    FLOPs {_si(r['flops'])}, bytes read {_si(r['bytes_read'])}, "
                     f"written {_si(r['bytes_written'])} (simulated); on chip {_si(r['onchip_bytes'])} bytes{spilled}")
    c = d["counters"]
    lines.append("  counters: " + ", ".join(f"{k} {_si(v)}" for k, v in c.items()))
    check = d["check"]
    if check is None:
        lines.append("  numerical check: not run")
    else:
        verdict = "passed" if check["passed"] else "FAILED"
        failed = [t for t, ok in check["tensors"].items() if not ok]
        extra = f" (mismatch in {', '.join(failed)})" if failed else ""
        lines.append(f"  numerical check: {verdict}, max relative error {check['max_relative_error']:.2g} "
                     f"against the numpy reference{extra}")
    return "\n".join(lines)


def format_comparison(rows: list[dict], program: str, policy: str, data: str = "") -> str:
    lines = [f"program {program}: simulated (fast executor, policy {policy}); cycles and bytes are simulated, "
             "not estimated"]
    if data:
        lines.append(f"  data: {data}")
    lines.append(f"  {'baseline':<12} {'regions':>7} {'FLOPs':>11} {'bytes':>11} {'cycles':>11} {'speedup':>8}  bound")
    for row in rows:
        if row["cycles"] is None:
            lines.append(f"  {row['name']:<12} {len(row['fusion']):>7}  not simulated: {row['not_simulated']}")
            continue
        speedup = f"{row['speedup']:>7.2f}x" if row["speedup"] is not None else "     n/a"
        lines.append(f"  {row['name']:<12} {len(row['fusion']):>7} {row['flops']:>11.4g} {row['bytes']:>11.4g} "
                     f"{row['cycles']:>11.4g} {speedup}  {row['roofline']}")
    for row in rows:
        groups = " | ".join(" ".join(g) for g in row["fusion"])
        lines.append(f"  {row['name']}: {groups}")
        if row.get("note"):
            lines.append(f"    {row['note']}")
    return "\n".join(lines)
