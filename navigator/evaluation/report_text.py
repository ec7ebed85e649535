"""Human-readable renderings of simulation reports and baseline comparisons.

Every figure says what it is: these are simulated (the estimate of `navigator check` is
labelled as one in navigator.fuseflow.summary), the data they ran on is named, a region's cycles are
written as the sum they are, and its bound names the term that set them (docs/simulator.md,
"Reading the output").
"""

from __future__ import annotations

from fuseflow.cost.bounds import ScheduleBound
from fuseflow.support.numbers import figure


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
    overlapped = ", ".join(f"{name} {figure(value)}" for name, value in hidden.values())
    stall = _STALL_TERMS.get(r.get("queue_model"), "").format(stall=r.get("queue_stall", 1.0))
    return (f"cycles {figure(r['cycles'])} = {figure(r['bound_cycles'])} {term} + {r['fill_cycles']} pipeline fill; "
            f"overlapped with it: {overlapped}{stall}")


#: how a bounded queue's stall entered the slowest primitive (simulator.timing.queue_model)
_STALL_TERMS = {"stepped": "; queue stall x{stall:.3f} (pipeline stepped)",
                "bound": "; queue stall not stepped (too many tokens: the cycles are a lower bound)",
                "not modelled": "; queue stall not modelled (with bounded queues the estimate is a lower bound)"}


def format_estimate(d: dict, schedule_name: str = "") -> str:
    """`eval --estimate`'s text: the cost model's figures in the simulated report's layout."""
    lines = [f"program {d['program']}{(' schedule ' + schedule_name) if schedule_name else ''}: estimated by the "
             f"cost model, not simulated (policy {d['policy']}, hardware {d['hardware']}; drop --estimate to "
             "simulate)",
             f"  data: {d['data']}",
             f"  FLOPs {figure(d['flops'])}  bytes {figure(d['bytes'])} estimated  intensity {figure(d['intensity'])} "
             f"ops/byte (ridge {figure(d['ridge_intensity'])})",
             f"  {ScheduleBound(d['roofline'], d['roofline_share']).describe('est. cycles')}",
             f"  est. cycles {figure(d['cycles'])}: the sum of the {len(d['regions'])} regions', each predicted by "
             "the simulator's rules on counts predicted from the data's statistics"]
    for r in d["regions"]:
        lines.append(f"  [{' '.join(r['ops'])}] order {r['order']} par {' '.join(map(str, r['par_factors']))}"
                     f"{_modes(r)}: {r['roofline']}")
        lines.append(f"    est. {region_breakdown(r)}")
        lines.append(f"    FLOPs {figure(r['flops'])}, bytes read {figure(r['bytes_read'])}, "
                     f"written {figure(r['bytes_written'])} (estimated)")
    return "\n".join(lines)


def _modes(r: dict) -> str:
    modes = ([f"vector {r['stream_shape']}"] if r["stream_shape"] > 1 else []) + (["block"] if r["block_sparse"] else [])
    return " " + " ".join(modes) if modes else ""


def format_report(report, schedule_name: str = "") -> str:
    d = report.to_dict()
    hw = report.hardware
    lines = [f"program {d['program']}{(' schedule ' + schedule_name) if schedule_name else ''}: simulated "
             f"({d['executor']} executor, policy {d['policy']}, hardware {d['hardware']})",
             f"  data: {d['data']}",
             f"  FLOPs {figure(d['flops'])}  bytes {figure(d['bytes'])} simulated (compulsory {figure(d['compulsory_bytes'])})"
             f"  intensity {figure(d['intensity'])} ops/byte (ridge {figure(hw.ridge_intensity)})",
             f"  {ScheduleBound(d['roofline'], d['roofline_share']).describe()}",
             f"  sim. cycles {figure(d['cycles'])}: the sum of the {len(d['regions'])} regions', which run one after another "
             f"({d['seconds'] * 1e3:.4g} ms at {hw.clock_ghz:g} GHz)"]
    for r in d["regions"]:
        par = " ".join(map(str, r["par_factors"]))
        lines.append(f"  [{' '.join(r['ops'])}] order {r['order']} par {par}{_modes(r)}: {r['roofline']}")
        lines.append(f"    {region_breakdown(r)}")
        spilled = f", spilled {figure(r['spill_bytes'])}" if r.get("spill_bytes") else ""
        lines.append(f"    FLOPs {figure(r['flops'])}, bytes read {figure(r['bytes_read'])}, "
                     f"written {figure(r['bytes_written'])} (simulated); on chip {figure(r['onchip_bytes'])} bytes{spilled}")
    c = d["counters"]
    lines.append("  counters: " + ", ".join(f"{k} {figure(v)}" for k, v in c.items()))
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


def describe_backend(backend: dict) -> list[str]:
    """The lines that state what `compare` ran on (navigator.evaluation.runs.backend_settings)."""
    hw = backend["hardware"]
    depth = hw["queue_depth"] or "unbounded"
    lines = [f"  hardware {hw['source']}: {hw['lanes']} lanes, {hw['peak_ops_per_cycle']:g} ops/cycle, "
             f"{hw['memory_bytes_per_cycle']:g} DRAM bytes/cycle, {hw['onchip_buffer_bytes']:,} bytes on chip, "
             f"queue depth {depth}",
             f"  orders: {backend['orders']}"]
    lines += [f"  {name}: {text}" for name, text in backend["settings"].items()]
    return lines


_CELL = 34   # width of one setting's columns


def _setting_cells(row: dict | None, figures: str) -> str:
    if row is None or row["cycles"] is None:
        reason = "not simulated" if row is None else f"not simulated: {row['not_simulated']}"
        return f"{reason[:_CELL - 2]:<{_CELL}}"
    if figures == "cycles":
        speedup = f"{row['speedup']:.2f}x" if row["speedup"] is not None else "n/a"
        return f"{figure(row['cycles']):>11} {speedup:>8} {row['roofline']:<13}"
    return f"{figure(row['flops']):>11} {figure(row['bytes']):>11}{'':<11}"


def format_comparison(by_setting: dict[str, list[dict]], program: str, backend: dict, data: str = "") -> str:
    """The baselines under each setting side by side: cycles, speedup over that setting's
    unfused and bound, then FLOPs and bytes; then each baseline's grouping."""
    lines = [f"program {program}: simulated ({backend['executor']} executor, policy {backend['policy']}); "
             "cycles and bytes are simulated, not estimated"]
    if data:
        lines.append(f"  data: {data}")
    lines += describe_backend(backend)
    settings = list(by_setting)
    names = [row["name"] for row in next(iter(by_setting.values()))]
    width = max(12, *(len(n) for n in names))
    rows = {s: {row["name"]: row for row in by_setting[s]} for s in settings}
    lines.append(f"  {'':<{width}} {'':>7}  " + " ".join(f"{'── ' + s + ' ──':^{_CELL}}" for s in settings).rstrip())
    lines.append(f"  {'baseline':<{width}} {'regions':>7}  "
                 + " ".join(f"{'cycles':>11} {'speedup':>8} {'bound':<13}" for _ in settings).rstrip())
    first = rows[settings[0]]
    for name in names:
        cells = " ".join(_setting_cells(rows[s].get(name), "cycles") for s in settings)
        lines.append(f"  {name:<{width}} {len(first[name]['fusion']):>7}  {cells}".rstrip())
    lines.append(f"  {'':<{width}} {'':>7}  " + " ".join(f"{'FLOPs':>11} {'bytes':>11}{'':<11}" for _ in settings).rstrip())
    for name in names:
        cells = " ".join(_setting_cells(rows[s].get(name), "work") for s in settings)
        lines.append(f"  {name:<{width}} {'':>7}  {cells}".rstrip())
    for name in names:
        row = first[name]
        groups = " | ".join(" ".join(g) for g in row["fusion"])
        lines.append(f"  {name}: {groups}")
        if row.get("note"):
            lines.append(f"    {row['note']}")
    return "\n".join(lines)
