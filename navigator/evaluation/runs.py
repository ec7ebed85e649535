"""Simulate what a user names: one schedule (`navigator eval`), or the baselines side by side
(`navigator compare`). With navigator.evaluation.tasks (a batch's candidates and the TUI's
sketch), this package is where the navigator calls the simulator."""

from __future__ import annotations

from typing import Any

from fuseflow.support.errors import ScheduleError, UserError

#: the exact executor runs about 3 s per million tokens: more than this is refused
EXACT_TOKEN_LIMIT = 20_000_000


def simulate_schedule(program, binding, schedule, hardware, *, where: str, executor: str = "fast",
                      policy: str = "accumulate", seed: int | None = None, check: bool = True,
                      dense_fixed: bool = False):
    """simulator.evaluate.Report of a schedule read from `where`, after its legality (the first
    problem, with a count of the others) and, for the exact executor, its size are checked."""
    from simulator.evaluate import evaluate

    check_legal(program, binding, schedule, where, dense_fixed)
    if executor == "exact":
        _check_exact_size(program, binding, schedule, hardware, policy, seed)
    return evaluate(program, binding, schedule, hardware, executor=executor, policy=policy, seed=seed, check=check)


def check_legal(program, binding, schedule, where: str, dense_fixed: bool = False) -> None:
    """ScheduleError naming the schedule's first problem (with a count of the others)."""
    from fuseflow.schedule import schedule_problems

    problems = schedule_problems(program, binding, schedule, dense_fixed=dense_fixed)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ScheduleError(first.message + more, field=first.field, rule=first.rule, where=where,
                            fix="`navigator validate` lists every problem; docs/schedule-json.md has the rules")


def estimate_schedule(program, binding, schedule, hardware, *, where: str, policy: str = "accumulate",
                      dense_fixed: bool = False) -> dict[str, Any]:
    """The cost model's figures for a legal schedule read from `where`, in the simulated
    report's form (`"kind": "estimated"`): what `check` and the cost hints compute for it."""
    from fuseflow.cost.estimate import schedule_cost
    from navigator.fuseflow.data_statistics import data_statistics

    check_legal(program, binding, schedule, where, dense_fixed)
    cost = schedule_cost(program, binding, schedule, hardware, policy, data_statistics(program, binding))
    summary = cost.to_dict()
    regions = [{"ops": entry["ops"], "order": entry["order"], "par_factors": list(rs.par_factors),
                "stream_shape": rs.stream_shape, "block_sparse": rs.block_sparse,
                **{k: v for k, v in entry.items() if k not in ("ops", "order")}}
               for rs, entry in zip(schedule.regions, summary.pop("regions"))]
    return {"kind": "estimated", "program": program.name, "data": binding.data_source, "policy": policy,
            "hardware": hardware.source, **summary,
            "seconds": cost.cycles / (hardware.clock_ghz * 1e9), "regions": regions}


def _check_exact_size(program, binding, schedule, hardware, policy: str, seed: int | None) -> None:
    """Count the tokens with the fast executor first: the exact one would take too long."""
    from simulator.evaluate import run_schedule
    from simulator.program_data import materialize

    probe, _ = run_schedule(program, binding, schedule, "fast", policy, materialize(program, binding, seed),
                            hardware, numerics=False)
    tokens = sum(c.data + c.stops for r in probe for c in r.run.counts.values())
    if tokens > EXACT_TOKEN_LIMIT:
        raise UserError(f"about {tokens:.3g} tokens, too many for the exact executor", where="--executor",
                        fix="use --executor fast, or shrink the problem with --dim")


def compare_programs_baselines(program, binding, hardware, *, policy: str, settings=("defaults", "parallel"),
                               seed: int | None, dense_fixed: bool = False, orders: int | None = None
                               ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """The baselines' rows (navigator.evaluation.baselines) under each setting, on the same data,
    and a description of that data. `orders`: orders simulated per region (None: the default
    shortlist; 0: every legal order)."""
    from navigator.evaluation.baselines import SHORTLIST, compare_baselines

    orders = SHORTLIST if orders is None else (None if orders == 0 else orders)
    from simulator.program_data import describe_inputs, materialize

    data = materialize(program, binding, seed)
    rows = {setting: compare_baselines(program, binding, hardware, policy=policy, parallel=setting == "parallel",
                                       data=data, dense_fixed=dense_fixed, orders=orders)
            for setting in settings}
    return rows, describe_inputs(program, binding, data)


def backend_settings(hardware, policy: str, settings, orders: int | None = None) -> dict[str, Any]:
    """What `compare` ran on: the executor, the policy, every hardware key, how orders were
    chosen, and what each setting does."""
    import dataclasses

    from navigator.evaluation.baselines import SHORTLIST, describe_setting, order_choice

    keys = {k: v for k, v in dataclasses.asdict(hardware).items() if k != "source"}
    return {"executor": "fast", "policy": policy, "hardware": {"source": hardware.source, **keys},
            "orders": order_choice(SHORTLIST if orders is None else (orders or None)), "settings": {s: describe_setting(s, hardware) for s in settings}}
