"""Quality of the fill-in strategies against the best known schedule (issue 12).

For each case (a program and its data) every strategy fills a fresh session (`fill` over
Scope.ALL) and the schedule it chose is simulated once more here, with the numerical check:

* per strategy (`default`, `heuristic`, `beam`, `anneal`, each with its default options):
  simulated cycles and whether the check passed, simulator and cost-model evaluations (the
  step's figures), wall time of the `fill` call (`heuristic` and `default`: best of 3, the
  first run pays for imports), `gap` = cycles / optimum - 1, and the speedup over the
  `unfused` and `fully_fused` baselines (navigator.evaluation.baselines, parallel) = baseline / cycles;
* the optimum: when the space holds at most `--exhaustive-limit` schedules (100,000), every
  distinct complete schedule is simulated ("exhaustive"). Otherwise a long anneal
  (`--long-budget` simulations, `--long-steps` cost-model moves, `--seed`) runs, and the
  optimum is the best of it and of every strategy's schedule, labelled with whoever found it
  ("best known: long anneal", "best known: beam (better than the long anneal)"). Such an
  optimum is only a bound: `optimum.exhaustive` says which kind it is;
* a summary: per strategy the geometric-mean speedup over unfused and over fully fused for the
  GCN and GraphSAGE cases, the worst gap, the most simulator evaluations and the longest wall
  time, and the issue's targets (beam within 2 % of the optimum with at most 36 simulations,
  heuristic within 15 % in at most 50 ms, in every case).

Cases: gcn and graphsage on Cora and Cora_ML (the real graphs, from the shared dataset folder:
`$NAVIGATOR_DATASETS`, else ../shared/datasets next to the repository or to its main worktree),
on synthetic DBLP- and OGB-Collab-shaped graphs (the programs' `[data] preset`), and
sparse_autoencoder and transformer_block on their default data. None of them has a space small
enough for the exhaustive optimum (the smallest, sparse_autoencoder, has ~7.7e9 programs).

    python benchmarks/autoschedule.py --quick          # gcn/cora, graphsage/cora, long anneal of 40: ~1 min
    python benchmarks/autoschedule.py --jobs 2 --out /tmp/autoschedule.json
    python benchmarks/autoschedule.py --cases 'gcn/*,graphsage/cora_ml' --strategies heuristic,beam
    python benchmarks/autoschedule.py --table /tmp/autoschedule.json   # the docs' markdown table
    python benchmarks/autoschedule.py --update /tmp/autoschedule.json --strategies heuristic --out /tmp/new.json

Expected run time of the full run on 2 cores (`--jobs 2`): the long anneal dominates (its
2000 cost-model moves take 1-1.5 min on graphsage and transformer_block; a checked simulation
takes ~0.1 s on Cora, ~0.4 s on the DBLP shape and ~2 s on the OGB-Collab shape). About
2.5 min per Cora/Cora_ML case, 1-3 min per default-data case, 5 min per DBLP case and 18 min
per OGB-Collab case: an hour in all; ~25 min without the OGB-Collab cases
(`--cases '*/cora*,*/default,*/dblp-*'`). `--jobs N` is
passed to beam, anneal and the long anneal (a process pool of N; N proposals per round, so
it changes their search too). `--out FILE` rewrites FILE atomically after every case, so a
run that dies keeps its finished cases. Progress goes to stderr, the JSON to stdout at the end.
"""

from __future__ import annotations

import argparse
import fnmatch
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._util import emit, stopwatch  # noqa: E402

STRATEGIES = ("default", "heuristic", "beam", "anneal")
#: runs of the cheap strategies; the fastest counts (the first pays for imports and caches)
CHEAP_REPEAT = {"default": 3, "heuristic": 3}
EXHAUSTIVE_LIMIT = 100_000
LONG_BUDGET, LONG_STEPS, LONG_SEED = 400, 2000, 1
QUICK_BUDGET, QUICK_STEPS = 40, 200
QUICK_CASES = "gcn/cora,graphsage/cora"
#: issue 12's targets
BEAM_GAP, BEAM_SIMULATIONS = 0.02, 36
HEURISTIC_GAP, HEURISTIC_SECONDS = 0.15, 0.050
BASELINES = ("unfused", "per_layer", "fully_fused")


@dataclass(frozen=True)
class Case:
    name: str
    program: str                 # bundled program name
    data_file: str | None = None  # a file of the shared dataset folder
    preset: str | None = None     # a graph preset replacing the program's "cora"


def all_cases() -> list[Case]:
    """Cheapest first, so a partial run still covers the most cases."""
    cases = [Case(f"{p}/{g}", p, data_file=f"{g}.npz") for g in ("cora", "cora_ml") for p in ("gcn", "graphsage")]
    cases += [Case(f"{p}/default", p) for p in ("sparse_autoencoder", "transformer_block")]
    cases += [Case(f"{p}/{label}-synthetic", p, preset=preset)
              for preset, label in (("dblp", "dblp"), ("ogb_collab", "ogb-collab")) for p in ("gcn", "graphsage")]
    return cases


def select_cases(patterns: str) -> list[Case]:
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    cases = [c for c in all_cases() if any(fnmatch.fnmatchcase(c.name, p) for p in wanted)]
    unmatched = [p for p in wanted if not any(fnmatch.fnmatchcase(c.name, p) for c in all_cases())]
    if unmatched or not cases:
        sys.exit(f"autoschedule: no case matches {', '.join(unmatched) or patterns!r}; "
                 f"cases: {', '.join(c.name for c in all_cases())}")
    return cases


def datasets_dir() -> Path:
    """$NAVIGATOR_DATASETS, else ../shared/datasets beside the repository, else beside the main
    worktree (a `git worktree` elsewhere shares the main tree's neighbours)."""
    tried = []
    if os.environ.get("NAVIGATOR_DATASETS"):
        tried.append(Path(os.environ["NAVIGATOR_DATASETS"]))
    tried.append(ROOT.parent / "shared" / "datasets")
    try:
        common = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        if common:
            tried.append(Path(common).parent.parent / "shared" / "datasets")
    except (OSError, subprocess.SubprocessError):
        pass
    for path in tried:
        if path.is_dir():
            return path.resolve()
    sys.exit(f"autoschedule: the shared dataset folder is not found (tried {', '.join(map(str, tried))}); "
             "set NAVIGATOR_DATASETS")


def spec_of(case: Case, scratch: Path):
    from navigator.workspace.spec import ProgramSpec

    if case.data_file is not None:
        path = datasets_dir() / case.data_file
        if not path.is_file():
            sys.exit(f"autoschedule: {path} is missing")
        return ProgramSpec.from_user(case.program, str(path))
    if case.preset is not None:
        text = (ROOT / "fuseflow" / "programs" / f"{case.program}.toml").read_text()
        replaced = text.replace('preset = "cora"', f'preset = "{case.preset}"')
        assert replaced != text, f"fuseflow/programs/{case.program}.toml has no preset = \"cora\" to replace"
        path = scratch / f"{case.program}-{case.preset}.toml"
        path.write_text(replaced)
        return ProgramSpec.from_user(str(path))
    return ProgramSpec.from_user(case.program)


def progress(message: str) -> None:
    print(f"[autoschedule {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---- running a strategy


def checked(spec, inputs, schedule) -> dict[str, Any]:
    from navigator.evaluation.tasks import EvalConfig, simulate

    with stopwatch() as elapsed:
        report = simulate(inputs, schedule, EvalConfig(spec, check=True))
    check = report.get("check") or {}
    return {"cycles": report["cycles"], "check_passed": check.get("passed"), "simulate_seconds": elapsed[0],
            "regions": [list(r.ops) for r in schedule.regions]}


def run_strategy(spec, space, inputs, name: str, options: dict[str, Any], repeat: int = 1) -> dict[str, Any]:
    """Fill a fresh session with the strategy (fastest of `repeat` runs counts), then simulate
    the schedule it chose with the check."""
    from navigator.auto import Scope, fill, get_strategy
    from navigator.evaluation.tasks import EvalConfig
    from navigator.navigation.session import Session

    walls = []
    for _ in range(repeat):
        session = Session(space.library, space.facts, oracle=space.oracle)
        strategy = get_strategy(name, **options)
        with stopwatch() as elapsed:
            records = fill(session, 0, strategy, Scope.ALL, space=space, evaluation=EvalConfig(spec))
        walls.append(elapsed[0])
    figures = (records[0].figures if records else None) or {}
    evaluated = figures.get("evaluated") or {}
    compared = figures.get("compared") or {}
    row = {"options": {k: v for k, v in options.items() if v is not None}, "wall_seconds": min(walls),
           "wall_seconds_runs": walls, "steps": len(records),
           "simulator_evaluations": evaluated.get("simulator", 0),
           "cost_model_evaluations": evaluated.get("cost_model", 0),
           **checked(spec, inputs, space.schedule_of(session.sketch))}
    reported = compared.get("best_simulated_cycles")
    if reported is not None:
        row["reported_cycles"] = reported
        if not math.isclose(reported, row["cycles"], rel_tol=1e-9):
            row["reported_cycles_mismatch"] = True
    for key in ("structures_simulated", "variants_simulated", "region_changes_adopted", "failed_simulations"):
        if key in compared:
            row[key] = compared[key]
    return row


def attempt(label: str, run) -> dict[str, Any]:
    """`run()`, or a row naming the exception (the benchmark goes on with the other strategies)."""
    try:
        return run()
    except Exception as exc:  # noqa: BLE001 - reported in the JSON and on stderr
        message = getattr(exc, "bare_message", None) or str(exc)
        progress(f"{label}: {type(exc).__name__}: {message}\n{traceback.format_exc()}")
        return {"error": f"{type(exc).__name__}: {message}"}


# ---- the optimum


def distinct_completions(space, limit: int):
    """Every distinct complete schedule of the space (by `space.schedule_of`), as sketches;
    the lowest open hole is filled first, every offered option in turn."""
    seen: dict[Any, Any] = {}
    stack = [space.initial_sketch()]
    while stack:
        sketch = stack.pop()
        if sketch.complete:
            schedule = space.schedule_of(sketch)
            if schedule not in seen:
                seen[schedule] = sketch
                if len(seen) > limit:
                    raise RuntimeError(f"more than {limit} distinct schedules")
            continue
        hole = sketch.lowest_hole().id
        for option in space.oracle.menus(sketch).for_hole(hole).options:
            stack.append(space.oracle.apply(sketch, option))
    return list(seen.values())


def exhaustive(spec, space, inputs, jobs: int | None, limit: int) -> dict[str, Any]:
    from navigator.auto.simulation import SimulatorEvaluator
    from navigator.evaluation.tasks import EvalConfig

    sketches = distinct_completions(space, limit)
    progress(f"  exhaustive: simulating {len(sketches)} distinct schedules")
    with stopwatch() as elapsed, SimulatorEvaluator(space, EvalConfig(spec), budget=None, jobs=jobs) as evaluator:
        results = evaluator.evaluate(sketches)
    ok = [(r.cycles, i) for i, r in enumerate(results) if r is not None and r.ok]
    if not ok:
        raise RuntimeError(f"none of the {len(sketches)} schedules simulated successfully")
    _, best = min(ok)
    return {"label": "exhaustive", "schedules": len(sketches), "failed": len(sketches) - len(ok),
            "wall_seconds": elapsed[0], **checked(spec, inputs, space.schedule_of(sketches[best]))}


def optimum(spec, space, inputs, strategies: dict[str, dict], args) -> dict[str, Any]:
    count = space.oracle.count(space.initial_sketch())
    out: dict[str, Any] = {"programs": count.to_json()}
    if count.value is not None and count.value <= args.exhaustive_limit:
        result = attempt("exhaustive", lambda: exhaustive(spec, space, inputs, args.jobs, args.exhaustive_limit))
        if "error" not in result:
            return {**out, "exhaustive": True, "label": "exhaustive", "found_by": "exhaustive",
                    "cycles": result["cycles"], "search": result}
        out["exhaustive_error"] = result["error"]
    options = {"budget": args.long_budget, "steps": args.long_steps, "seed": args.seed, "jobs": jobs_option(args)}
    progress(f"  long anneal: budget {args.long_budget}, {args.long_steps} steps, seed {args.seed}")
    long = attempt("long anneal", lambda: run_strategy(spec, space, inputs, "anneal", options))
    return best_known(out, long, strategies)


def best_known(out: dict[str, Any], long: dict[str, Any], strategies: dict[str, dict]) -> dict[str, Any]:
    """The optimum when the space is too large to simulate whole: the best of the long anneal
    and of every strategy's schedule, labelled with who found it."""
    label = f"long anneal ({long.get('simulator_evaluations', '?')} simulations)"
    found = [("long anneal", long["cycles"])] if "error" not in long and long.get("check_passed") is not False else []
    found += [(name, row["cycles"]) for name, row in strategies.items()
              if "error" not in row and row.get("check_passed") is not False]
    if not found:
        return {**out, "exhaustive": False, "label": label, "found_by": None, "cycles": None, "search": long}
    best_name, best_cycles = min(found, key=lambda item: (item[1], item[0] != "long anneal"))
    if best_name == "long anneal":
        verdict = "best known: long anneal"
    elif "error" in long:
        verdict = f"best known: {best_name} (the long anneal failed)"
    else:
        verdict = f"best known: {best_name} (better than the long anneal)"
    return {**out, "exhaustive": False, "label": label, "found_by": best_name, "verdict": verdict,
            "cycles": best_cycles, "search": long}


def jobs_option(args) -> int | None:
    return args.jobs if args.jobs and args.jobs > 1 else None


def strategy_options(name: str, args) -> dict[str, Any]:
    return {"jobs": jobs_option(args)} if name in ("beam", "anneal") else {}


# ---- one case


def run_case(case: Case, args, scratch: Path) -> dict[str, Any]:
    from navigator.evaluation.tasks import load_inputs
    from navigator.evaluation.baselines import compare_baselines

    with stopwatch() as loading:
        spec = spec_of(case, scratch)
        space = spec.load().space
        inputs = load_inputs(spec, None, None)
    progress(f"{case.name}: loaded in {loading[0]:.1f} s")
    result: dict[str, Any] = {"program": case.program, "data": case.data_file or case.preset or "default",
                              "load_seconds": loading[0]}

    previous = args.previous.get(case.name) if args.previous else None
    if previous is not None and "error" not in previous:
        return update_case(case, result, previous, spec, space, inputs, args)
    with stopwatch() as elapsed:
        rows = attempt("baselines", lambda: compare_baselines(inputs.program, inputs.binding, inputs.hardware,
                                                               parallel=True, data=inputs.data))
    baselines: dict[str, Any] = {}
    if isinstance(rows, list):
        for row in rows:
            baselines[row["name"]] = {"cycles": row["cycles"], "regions": row["fusion"], "note": row["note"],
                                      **({"not_simulated": row["not_simulated"]} if "not_simulated" in row else {})}
    else:
        baselines = rows
    result["baselines"] = baselines
    progress(f"{case.name}: baselines in {elapsed[0]:.1f} s: "
             + ", ".join(f"{k} {v['cycles']}" for k, v in baselines.items() if isinstance(v, dict)))

    strategies = run_strategies(case, spec, space, inputs, args)
    return with_gaps(case, result, baselines, strategies, optimum(spec, space, inputs, strategies, args))


def run_strategies(case: Case, spec, space, inputs, args) -> dict[str, dict]:
    strategies: dict[str, dict] = {}
    for name in args.strategies:
        options = strategy_options(name, args)
        row = attempt(f"{case.name} {name}", lambda: run_strategy(spec, space, inputs, name, options,
                                                                  CHEAP_REPEAT.get(name, 1)))
        strategies[name] = row
        progress(f"{case.name}: {name}: " + (row["error"] if "error" in row else
                 f"{row['cycles']:,.0f} cycles, check {row['check_passed']}, {row['simulator_evaluations']} sims, "
                 f"{row['wall_seconds']:.3f} s"))
    return strategies


def update_case(case: Case, result: dict[str, Any], previous: dict[str, Any], spec, space, inputs,
                args) -> dict[str, Any]:
    """`--update`: rerun only the chosen strategies; keep the earlier run's baselines, other
    strategies and long anneal, and take the optimum again over all of them."""
    strategies = {name: row for name, row in previous["strategies"].items() if name not in args.strategies}
    strategies.update(run_strategies(case, spec, space, inputs, args))
    strategies = dict(sorted(strategies.items(), key=lambda item: _listed(item[0])))
    earlier = previous["optimum"]
    if earlier.get("exhaustive"):
        best = earlier
    else:
        best = best_known({"programs": earlier["programs"], "updated": True}, earlier["search"], strategies)
    return with_gaps(case, result, previous["baselines"], strategies, best)


def _listed(name: str) -> tuple[int, str]:
    return (STRATEGIES.index(name) if name in STRATEGIES else len(STRATEGIES), name)


def with_gaps(case: Case, result: dict[str, Any], baselines: dict[str, Any], strategies: dict[str, dict],
              best: dict[str, Any]) -> dict[str, Any]:
    result["baselines"] = baselines
    result["optimum"] = best
    progress(f"{case.name}: optimum {best['cycles']} ({best.get('verdict', best['label'])})")
    for row in strategies.values():
        if "error" in row:
            continue
        row["gap"] = row["cycles"] / best["cycles"] - 1 if best["cycles"] else None
        for baseline in ("unfused", "fully_fused"):
            cycles = baselines.get(baseline, {}).get("cycles") if isinstance(baselines.get(baseline), dict) else None
            row[f"speedup_over_{baseline}"] = cycles / row["cycles"] if cycles and row["cycles"] else None
    for row in baselines.values():
        if isinstance(row, dict) and row.get("cycles") and best["cycles"]:
            row["gap"] = row["cycles"] / best["cycles"] - 1
    result["strategies"] = strategies
    return result


# ---- summary


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(cases: dict[str, dict], strategies: list[str]) -> dict[str, Any]:
    failed = sorted(case for case, result in cases.items() if "error" in result)
    cases = {case: result for case, result in cases.items() if "error" not in result}
    per_strategy: dict[str, Any] = {}
    for name in strategies:
        rows = {case: result["strategies"].get(name, {}) for case, result in cases.items()}
        good = {case: row for case, row in rows.items() if "error" not in row and row}
        entry: dict[str, Any] = {"cases": len(good), "errors": sorted(set(rows) - set(good))}
        for family in ("gcn", "graphsage"):
            members = [row for case, row in good.items() if case.startswith(family + "/")]
            for baseline in ("unfused", "fully_fused"):
                entry[f"geomean_speedup_over_{baseline}_{family}"] = geomean(
                    [row.get(f"speedup_over_{baseline}") for row in members])
        gaps = [(row["gap"], case) for case, row in good.items() if row.get("gap") is not None]
        entry["worst_gap"], entry["worst_gap_case"] = max(gaps) if gaps else (None, None)
        entry["max_simulator_evaluations"] = max((row["simulator_evaluations"] for row in good.values()), default=None)
        entry["max_wall_seconds"] = max((row["wall_seconds"] for row in good.values()), default=None)
        entry["all_checks_passed"] = all(row.get("check_passed") for row in good.values())
        per_strategy[name] = entry

    def meets(name: str, gap: float, test) -> bool | None:
        if name not in strategies or not cases or failed:
            return None
        rows = [result["strategies"].get(name, {}) for result in cases.values()]
        return all("error" not in row and row.get("gap") is not None and row["gap"] <= gap and test(row)
                   for row in rows)

    exhaustive = all(result["optimum"].get("exhaustive") for result in cases.values())
    return {
        "failed_cases": failed,
        "strategies": per_strategy,
        "optimum_kind": "exhaustive in every case" if exhaustive else
                        "best known (not proven optimal) in at least one case: gaps are against the best known",
        "targets": {
            f"beam_within_{BEAM_GAP:.0%}_with_at_most_{BEAM_SIMULATIONS}_simulations":
                meets("beam", BEAM_GAP, lambda r: r["simulator_evaluations"] <= BEAM_SIMULATIONS),
            f"heuristic_within_{HEURISTIC_GAP:.0%}_in_at_most_{HEURISTIC_SECONDS * 1000:.0f}_ms":
                meets("heuristic", HEURISTIC_GAP, lambda r: r["wall_seconds"] <= HEURISTIC_SECONDS),
        },
    }


def document(cases: dict[str, dict], args, started: float, finished: bool) -> dict[str, Any]:
    return {
        "config": {"cases": [c.name for c in args.case_list],
                   "strategies": getattr(args, "summary_strategies", None) or args.strategies,
                   "updated_from": str(args.update) if args.update else None, "rerun": args.strategies,
                   "long_budget": args.long_budget, "long_steps": args.long_steps, "seed": args.seed,
                   "jobs": args.jobs, "exhaustive_limit": args.exhaustive_limit, "quick": args.quick,
                   "cpus": os.cpu_count(), "load_average": os.getloadavg()},
        "complete": finished, "seconds": time.perf_counter() - started,
        "cases": cases, "summary": summarize(cases, getattr(args, "summary_strategies", None) or args.strategies),
    }


def write_atomically(path: Path, figures: dict[str, Any]) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(figures, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def markdown_table(figures: dict[str, Any]) -> str:
    """The docs' table (docs/strategies.md) from this script's JSON."""
    lines = ["| case | best known (by) | strategy | cycles | gap | simulations | cost-model evals | wall time "
             "| speedup over unfused | over fully fused |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, case in figures["cases"].items():
        if "error" in case:
            lines.append(f"| {name} | failed: {case['error']} |||||||||")
            continue
        best = case["optimum"]
        label = f"{best['cycles']:,.0f} ({best['found_by']})"
        for strategy, row in case["strategies"].items():
            if "cycles" not in row:
                continue
            over = [row.get(key) for key in ("speedup_over_unfused", "speedup_over_fully_fused")]
            lines.append(
                f"| {name} | {label} | {strategy} | {row['cycles']:,.0f} | {row['gap']:.1%} | "
                f"{row['simulator_evaluations']} | {row['cost_model_evaluations']} | "
                f"{_duration(row['wall_seconds'])} | " + " | ".join(f"{x:.2f}x" if x else "-" for x in over) + " |")
            name, label = "", ""
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--table":  # python benchmarks/autoschedule.py --table FILE.json
        import json

        print(markdown_table(json.loads(Path(sys.argv[2]).read_text())))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="comma list of case names or globs (default: all; --quick: "
                                        f"{QUICK_CASES}); cases: " + ", ".join(c.name for c in all_cases()))
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--long-budget", type=int, help=f"simulations of the long anneal ({LONG_BUDGET}; "
                                                        f"--quick: {QUICK_BUDGET})")
    parser.add_argument("--long-steps", type=int, help=f"cost-model moves of the long anneal ({LONG_STEPS}; "
                                                       f"--quick: {QUICK_STEPS})")
    parser.add_argument("--seed", type=int, default=LONG_SEED, help="seed of the long anneal")
    parser.add_argument("--jobs", type=int, default=1, help="simulation processes for beam, anneal, the long "
                                                            "anneal and the exhaustive optimum")
    parser.add_argument("--exhaustive-limit", type=int, default=EXHAUSTIVE_LIMIT,
                        help="largest space (programs) whose schedules are all simulated")
    parser.add_argument("--quick", action="store_true", help="smoke run: the Cora cases, a long anneal of "
                                                             f"{QUICK_BUDGET} simulations")
    parser.add_argument("--out", type=Path, help="also write the JSON here (atomically), after every case")
    parser.add_argument("--update", type=Path, metavar="FILE",
                        help="an earlier run's JSON: rerun only --strategies, keep its other rows, baselines and "
                             "long anneal, and take the optimum again")
    args = parser.parse_args()
    args.previous = None
    if args.update:
        import json

        earlier = json.loads(args.update.read_text())
        args.previous = earlier["cases"]
        ran = [s.strip() for s in args.strategies.split(",") if s.strip()]
        args.summary_strategies = list(dict.fromkeys(earlier["config"]["strategies"] + ran))
        if args.long_budget is None:
            args.long_budget = earlier["config"]["long_budget"]
        if args.long_steps is None:
            args.long_steps = earlier["config"]["long_steps"]
    args.long_budget = args.long_budget or (QUICK_BUDGET if args.quick else LONG_BUDGET)
    args.long_steps = args.long_steps if args.long_steps is not None else (QUICK_STEPS if args.quick else LONG_STEPS)
    args.case_list = select_cases(args.cases or (QUICK_CASES if args.quick else "*"))
    args.strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    from navigator.auto import strategy_names

    unknown = [s for s in args.strategies if s not in strategy_names()]
    if unknown:
        sys.exit(f"autoschedule: unknown strategies {', '.join(unknown)}; known: {', '.join(strategy_names())}")

    started = time.perf_counter()
    cases: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="autoschedule-") as scratch:
        for case in args.case_list:
            progress(f"{case.name}: starting")
            with stopwatch() as elapsed:
                cases[case.name] = attempt(case.name, lambda: run_case(case, args, Path(scratch)))
            if "error" not in cases[case.name]:
                cases[case.name]["seconds"] = elapsed[0]
                progress(f"{case.name}: done in {elapsed[0]:.0f} s: " + ", ".join(
                    f"{name} gap {row['gap']:.1%}" if row.get("gap") is not None else f"{name} -"
                    for name, row in cases[case.name]["strategies"].items()))
            if args.out:
                write_atomically(args.out, document(cases, args, started, finished=False))
    figures = document(cases, args, started, finished=True)
    if args.out:
        write_atomically(args.out, figures)
    emit(figures)


if __name__ == "__main__":
    main()
