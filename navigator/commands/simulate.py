"""`eval` and `compare`: run schedules through the dataflow simulator (docs/simulator.md)."""

from __future__ import annotations

import argparse

from navigator.commands.options import (add_policy_option, add_program_options, load_program_args, print_json,
                                       program_named_by)


def _add_sim_options(sub) -> None:
    add_policy_option(sub)
    sub.add_argument("--seed", type=int, default=None, help="seed for generated data (default: the program's)")
    sub.add_argument("--preset", metavar="NAME", help="generate the graph from this preset (cora, cora_ml, dblp, "
                                                      "ogb_collab) instead of the program's")


def cmd_eval(args) -> int:
    from fuseflow.lower import format_graph, to_dot
    from fuseflow.schedule import load_schedule
    from navigator.evaluation.report_text import format_report
    from navigator.evaluation.runs import simulate_schedule

    program_named_by(args, args.schedule)
    program, binding, hardware = load_program_args(args)
    schedule = load_schedule(args.schedule, program)
    if args.estimate:
        return _print_estimate(args, program, binding, schedule, hardware)
    report = simulate_schedule(program, binding, schedule, hardware, where=args.schedule,
                               executor=args.executor or "fast",
                               policy=args.policy, seed=args.seed, check=not args.no_check,
                               dense_fixed=args.dense_order_fixed)
    if args.dot:
        from fuseflow.support.files import write_text_atomic

        plans = [r.plan for r in report.regions]
        for index, plan in enumerate(plans):
            write_text_atomic(args.dot if len(plans) == 1 else f"{args.dot}.{index}", to_dot(plan),
                              follow_link=len(plans) == 1)  # --dot names the one file
    if args.json:
        data = report.to_dict()
        data["schedule"] = args.schedule
        if args.graph:
            data["graphs"] = [format_graph(r.plan) for r in report.regions]
        print_json(data)
    else:
        if args.graph:
            for r in report.regions:
                print(format_graph(r.plan))
        print(format_report(report, args.schedule))
    failed = report.check is not None and not report.check.passed
    return 1 if failed else 0


def _print_estimate(args, program, binding, schedule, hardware) -> int:
    from fuseflow.support.errors import UserError
    from navigator.evaluation.report_text import format_estimate
    from navigator.evaluation.runs import estimate_schedule

    simulated_only = [flag for flag, given in (("--executor", args.executor), ("--graph", args.graph),
                                               ("--dot", args.dot), ("--no-check", args.no_check)) if given]
    if simulated_only:
        raise UserError(f"--estimate runs no simulation, so {simulated_only[0]} has nothing to act on",
                        where=simulated_only[0], fix=f"drop {simulated_only[0]}, or drop --estimate to simulate")
    figures = estimate_schedule(program, binding, schedule, hardware, where=args.schedule, policy=args.policy,
                                dense_fixed=args.dense_order_fixed)
    if args.json:
        print_json({**figures, "schedule": args.schedule})
    else:
        print(format_estimate(figures, args.schedule))
    return 0


def cmd_compare(args) -> int:
    from navigator.evaluation.baselines import SETTINGS
    from navigator.evaluation.report_text import format_comparison
    from navigator.evaluation.runs import backend_settings, compare_programs_baselines

    program, binding, hardware = load_program_args(args)
    settings = SETTINGS if args.setting == "both" else (args.setting,)
    by_setting, used = compare_programs_baselines(program, binding, hardware, policy=args.policy, settings=settings,
                                                  seed=args.seed, dense_fixed=args.dense_order_fixed,
                                                  orders=args.orders)
    if args.save:
        from fuseflow.support.files import ensure_folder, file_stem
        from fuseflow.schedule import save_schedule

        folder = ensure_folder(args.save)
        for setting, rows in by_setting.items():
            suffix = "" if setting == "defaults" else f"_{setting}"
            for row in rows:
                if row["schedule"] is not None:
                    save_schedule(folder / f"{file_stem(program.name)}_{row['name']}{suffix}.json", program,
                                  row["schedule"])
    for rows in by_setting.values():
        for row in rows:
            del row["schedule"]
    backend = backend_settings(hardware, args.policy, settings, args.orders)
    if args.json:
        print_json({"kind": "simulated", "program": program.name, "data": used, "policy": args.policy,
                    "backend": backend,
                    "settings": {s: {"description": backend["settings"][s], "baselines": rows}
                                 for s, rows in by_setting.items()}})
    else:
        print(format_comparison(by_setting, program.name, backend, used))
    return 0


def register(subs) -> None:
    ev = subs.add_parser("eval", help="simulate a schedule: FLOPs, bytes, cycles, and a numerical check")
    ev.add_argument("schedule", help="schedule .json (FuseFlow single-region or multi-region form)")
    ev.add_argument("--program", help="program path or bundled name (default: the session's, or the bundled program "
                                      "the schedule names)")
    add_program_options(ev, program_positional=False)
    _add_sim_options(ev)
    ev.add_argument("--executor", choices=("fast", "exact"), default=None,
                    help="fast (default): vectorized counts (any size); exact: token by token (small inputs)")
    ev.add_argument("--estimate", action="store_true",
                    help="print the cost model's figures for the schedule instead of simulating it")
    ev.add_argument("--no-check", action="store_true", help="skip the comparison with the numpy reference")
    ev.add_argument("--graph", action="store_true", help="also print each region's dataflow graph")
    ev.add_argument("--dot", metavar="FILE", help="write the dataflow graph as Graphviz DOT (FILE.N per region)")
    ev.set_defaults(run=cmd_eval)
    cmp_ = subs.add_parser("compare", help="unfused, per-layer and fully fused baselines side by side")
    add_program_options(cmp_)
    _add_sim_options(cmp_)
    cmp_.add_argument("--setting", choices=("both", "defaults", "parallel"), default="both",
                      help="defaults: par factors 1 and scalar streams; parallel: fork each region's outermost "
                           "dense level across the hardware lanes and give its innermost level the widest stream "
                           "shape; both (default): side by side")
    cmp_.add_argument("--parallel", dest="setting", action="store_const", const="parallel",
                      help="the parallel setting only (same as --setting parallel)")
    cmp_.add_argument("--orders", type=_order_count, default=None, metavar="N|all",
                      help="orders simulated per region: the N best-estimated (default 6) or all legal ones "
                           "(slower; the estimate can miss the fastest order)")
    cmp_.add_argument("--save", metavar="DIR", help="write each baseline's schedule JSON into DIR")
    cmp_.set_defaults(run=cmd_compare)


def _order_count(text: str) -> int:
    """`--orders`: a positive count, or `all` (0)."""
    if text == "all":
        return 0
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive count or 'all', got {text!r}")
    return int(text)
