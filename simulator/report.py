"""Human-readable renderings of simulation reports and baseline comparisons."""

from __future__ import annotations


def _si(x: float) -> str:
    return f"{x:.4g}"


def format_report(report, schedule_name: str = "") -> str:
    d = report.to_dict()
    hw = report.hardware
    lines = [f"program {d['program']}{(' schedule ' + schedule_name) if schedule_name else ''} "
             f"({d['executor']} executor, policy {d['policy']}, hardware {d['hardware']})",
             f"  FLOPs {_si(d['flops'])}  bytes {_si(d['bytes'])}  intensity {d['intensity']:.3g} ops/byte  "
             f"{d['roofline']} (ridge {hw.ridge_intensity:.3g})",
             f"  cycles {_si(d['cycles'])}  ({d['seconds'] * 1e3:.4g} ms at {hw.clock_ghz:g} GHz)"]
    for r in d["regions"]:
        par = " ".join(map(str, r["par_factors"]))
        modes = []
        if r["stream_shape"] > 1:
            modes.append(f"vector {r['stream_shape']}")
        if r["block_sparse"]:
            modes.append("block")
        lines.append(f"  [{' '.join(r['ops'])}] order {r['order']} par {par}{' ' + ' '.join(modes) if modes else ''}: "
                     f"cycles {_si(r['cycles'])} (compute {_si(r['compute_cycles'])}, memory "
                     f"{_si(r['memory_cycles'])}, fill {r['fill_cycles']}; bound: {r['bottleneck']}), "
                     f"FLOPs {_si(r['flops'])}, read {_si(r['bytes_read'])} B, written {_si(r['bytes_written'])} B")
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


def format_comparison(rows: list[dict], program: str, policy: str) -> str:
    lines = [f"program {program} (policy {policy})",
             f"  {'baseline':<12} {'regions':>7} {'FLOPs':>11} {'bytes':>11} {'cycles':>11} {'speedup':>8}"]
    for row in rows:
        if row["cycles"] is None:
            lines.append(f"  {row['name']:<12} {len(row['fusion']):>7}  not simulated: {row['not_simulated']}")
            continue
        speedup = f"{row['speedup']:>7.2f}x" if row["speedup"] is not None else "     n/a"
        lines.append(f"  {row['name']:<12} {len(row['fusion']):>7} {row['flops']:>11.4g} {row['bytes']:>11.4g} "
                     f"{row['cycles']:>11.4g} {speedup}")
    for row in rows:
        groups = " | ".join(" ".join(g) for g in row["fusion"])
        lines.append(f"  {row['name']}: {groups}")
        if row.get("note"):
            lines.append(f"    {row['note']}")
    return "\n".join(lines)
