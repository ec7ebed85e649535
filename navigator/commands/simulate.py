"""`eval` and `compare`: run schedules through the dataflow simulator (docs/simulator.md)."""

from __future__ import annotations

from fuseflow.support.errors import ScheduleError, UserError
from navigator.commands.options import add_policy_option, add_program_options, print_json, tensor_program_spec

EXACT_TOKEN_LIMIT = 20_000_000


def _add_sim_options(sub) -> None:
    add_policy_option(sub)
    sub.add_argument("--seed", type=int, default=None, help="seed for generated data (default: the program's)")
    sub.add_argument("--preset", metavar="NAME", help="generate the graph from this preset (cora, cora_ml, dblp, "
                                                      "ogb_collab) instead of the program's")


def _load(args):
    """Like load_program_args, with --preset replacing the program's graph preset."""
    import dataclasses

    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.data.synthetic import get_preset
    from fuseflow.cost.hardware import load_hardware
    from navigator.commands.options import parse_dims

    spec = tensor_program_spec(args)
    dims = parse_dims(args.dim)
    program = resolve_program(spec, dims)
    if args.preset:
        get_preset(args.preset)
        if args.data:
            raise UserError("--preset and --data both name the graph", where="--preset",
                            fix="give one of them")
        program = dataclasses.replace(program, data=dataclasses.replace(program.data, preset=args.preset))
    binding = bind(program, args.data, dims)
    return program, binding, load_hardware(args.hardware)


def cmd_eval(args) -> int:
    from fuseflow.lower import format_graph, to_dot
    from fuseflow.schedule import load_schedule, schedule_problems
    from simulator.evaluate import evaluate
    from simulator.report import format_report

    program, binding, hardware = _load(args)
    schedule = load_schedule(args.schedule, program)
    problems = schedule_problems(program, binding, schedule, dense_fixed=args.dense_order_fixed)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ScheduleError(first.message + more, field=first.field, rule=first.rule, where=args.schedule,
                            fix="`navigator validate` lists every problem; docs/schedule-json.md has the rules")
    if args.executor == "exact":
        from simulator.program_data import materialize
        from simulator.evaluate import run_schedule

        # Count the tokens with the fast executor first: the exact one needs about 3 s per million.
        probe, _ = run_schedule(program, binding, schedule, "fast", args.policy,
                                materialize(program, binding, args.seed), hardware, numerics=False)
        tokens = sum(c.data + c.stops for r in probe for c in r.run.counts.values())
        if tokens > EXACT_TOKEN_LIMIT:
            raise UserError(f"about {tokens:.3g} tokens, too many for the exact executor", where="--executor",
                            fix="use --executor fast, or shrink the problem with --dim")
    report = evaluate(program, binding, schedule, hardware, executor=args.executor, policy=args.policy,
                      seed=args.seed, check=not args.no_check)
    if args.dot:
        from fuseflow.support.files import write_text_atomic

        plans = [r.plan for r in report.regions]
        for index, plan in enumerate(plans):
            write_text_atomic(args.dot if len(plans) == 1 else f"{args.dot}.{index}", to_dot(plan))
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


def cmd_compare(args) -> int:
    from navigator.evaluation.baselines import compare_baselines
    from simulator.report import format_comparison

    from simulator.program_data import describe_inputs, materialize

    program, binding, hardware = _load(args)
    data = materialize(program, binding, args.seed)
    rows = compare_baselines(program, binding, hardware, policy=args.policy, parallel=args.parallel, data=data,
                             dense_fixed=args.dense_order_fixed)
    used = describe_inputs(program, binding, data)
    if args.save:
        from fuseflow.support.files import ensure_folder, file_stem
        from fuseflow.schedule import save_schedule

        folder = ensure_folder(args.save)
        for row in rows:
            if row["schedule"] is not None:
                save_schedule(folder / f"{file_stem(program.name)}_{row['name']}.json", program, row["schedule"])
    for row in rows:
        del row["schedule"]
    if args.json:
        print_json({"kind": "simulated", "program": program.name, "data": used, "policy": args.policy,
                    "parallel": args.parallel, "hardware": hardware.source, "baselines": rows})
    else:
        print(format_comparison(rows, program.name, args.policy, used))
    return 0


def register(subs) -> None:
    ev = subs.add_parser("eval", help="simulate a schedule: FLOPs, bytes, cycles, and a numerical check")
    ev.add_argument("schedule", help="schedule .json (FuseFlow single-region or multi-region form)")
    ev.add_argument("--program", help="program path or bundled name (default: the session's program)")
    add_program_options(ev, program_positional=False)
    _add_sim_options(ev)
    ev.add_argument("--executor", choices=("fast", "exact"), default="fast",
                    help="fast: vectorized counts (any size); exact: token by token (small inputs)")
    ev.add_argument("--no-check", action="store_true", help="skip the comparison with the numpy reference")
    ev.add_argument("--graph", action="store_true", help="also print each region's dataflow graph")
    ev.add_argument("--dot", metavar="FILE", help="write the dataflow graph as Graphviz DOT (FILE.N per region)")
    ev.set_defaults(run=cmd_eval)
    cmp_ = subs.add_parser("compare", help="unfused, per-layer and fully fused baselines side by side")
    add_program_options(cmp_)
    _add_sim_options(cmp_)
    cmp_.add_argument("--parallel", action="store_true",
                      help="fork each region's outermost dense level across the hardware lanes and give its "
                           "innermost level the widest stream shape")
    cmp_.add_argument("--save", metavar="DIR", help="write each baseline's schedule JSON into DIR")
    cmp_.set_defaults(run=cmd_compare)
