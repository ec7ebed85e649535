"""Confirming candidates with the simulator, through the batch engine (navigator.batch).

A search strategy hands complete sketches to a `SimulatorEvaluator`; each becomes a batch
`Task` (its schedule JSON under the session's program, data and dims) and runs with
`navigator.evaluation.tasks.run_task`, the one place that calls the simulator. So `--jobs N`
runs them in a local process pool and `--engine dask --scheduler ADDR` on a cluster, exactly
as `navigator batch` does; without either they run in this process (a pool costs more to start
than a few dozen small simulations take).

`budget` caps the simulations: a schedule already simulated is answered from memory and does
not count again. With `numerics=False` (what `beam` and `anneal` use) candidates run without
values: the cycles do not depend on them, and the numerical check runs once, on the schedule
the search chooses (`verify`). The simulator's cycles are a sum over regions (they run one after another and
each sees only what earlier ones stored), so every answer also carries each region's cycles:
a search can read many regions' changes off one simulation.
"""

from __future__ import annotations

import math
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

from navigator.auto.base import StrategyError

if TYPE_CHECKING:
    from navigator.evaluation.tasks import EvalConfig
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.synth import Sketch

#: simulations a search strategy runs when no --budget is given
DEFAULT_BUDGET = 36


@dataclass(frozen=True)
class Simulated:
    """One simulated schedule: its cycles (inf when it failed, with `error` saying why) and
    each region's cycles, by the region's ops joined with "+" (as the menus name regions)."""

    cycles: float
    regions: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def check_budget(budget: int | None, flag: str = "--budget") -> int | None:
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise StrategyError(f"{flag} must be a whole number of at least 1, not {budget!r}", where=flag,
                            fix=f"e.g. {flag} {DEFAULT_BUDGET}")
    return budget


class SimulatorEvaluator:
    """Simulates complete sketches of one schedule space, at most `budget` of them.

    Use it as a context manager: a process pool or dask client is opened on first need and
    closed on exit (on Ctrl-C too, without waiting for running simulations)."""

    def __init__(self, space: "ScheduleSpace", config: "EvalConfig", *, budget: int | None = DEFAULT_BUDGET,
                 engine: str = "local", jobs: int | None = None, scheduler: str | None = None,
                 timeout: float | None = None, numerics: bool = True):
        if scheduler and engine == "local":
            raise StrategyError("--scheduler is for --engine dask", where="--scheduler",
                                fix="add --engine dask, or leave out --scheduler")
        self.space, self.config = space, config
        #: what candidates run under: without numerics, no values and so no check
        self.candidate_config = config if numerics else replace(config, check=False)
        self.budget = check_budget(budget)
        self.engine, self.jobs, self.scheduler, self.timeout = engine, jobs, scheduler, timeout
        #: simulations run (answers from memory do not count)
        self.evaluations = 0
        self.failures = 0
        #: checked simulations of a chosen schedule (`verify`), not counted in `evaluations`
        self.checks = 0
        self._memo: dict[str, Simulated] = {}
        self._stack = ExitStack()
        self._executor = None

    def __enter__(self) -> "SimulatorEvaluator":
        return self

    def __exit__(self, *exc_info) -> None:
        self._stack.__exit__(*exc_info)

    @property
    def remaining(self) -> float:
        return math.inf if self.budget is None else self.budget - self.evaluations

    def evaluate(self, sketches: Sequence["Sketch"]) -> list[Simulated | None]:
        """Each sketch's simulation, in order; None for those the budget no longer covers."""
        from navigator.evaluation.tasks import Task
        from navigator.evaluation.result_keys import schedule_key

        answers: list[Simulated | None] = [None] * len(sketches)
        pending: dict[str, tuple[Task, list[int]]] = {}
        for index, sketch in enumerate(sketches):
            schedule = self._json(sketch)
            key = schedule_key(schedule)
            if key in self._memo:
                answers[index] = self._memo[key]
            elif key in pending:
                pending[key][1].append(index)
            elif len(pending) < self.remaining:
                pending[key] = (Task(key, f"candidate {key[:12]}", schedule, self.candidate_config, self.timeout),
                                [index])
        outcomes = self._run([task for task, _ in pending.values()])
        for (key, (_, indices)), outcome in zip(pending.items(), outcomes):
            self.evaluations += 1
            answer = _simulated(outcome)
            self.failures += not answer.ok
            self._memo[key] = answer
            for index in indices:
                answers[index] = answer
        return answers

    def verify(self, sketch: "Sketch") -> None:
        """Simulate a chosen schedule with values and the numerical check (when the configuration
        asks for one and its candidates ran without it); a failure is the search's error."""
        from navigator.evaluation.tasks import Task, run_task
        from navigator.evaluation.result_keys import schedule_key

        if not self.config.check or self.candidate_config is self.config:
            return
        schedule = self._json(sketch)
        key = schedule_key(schedule)
        # in this process: one simulation, and a search may have closed its pool by now
        outcome = run_task(Task(key, f"chosen {key[:12]}", schedule, self.config, self.timeout))
        self.checks += 1
        if outcome.get("status") != "ok":
            answer = _simulated(outcome)
            raise StrategyError(f"the chosen schedule fails when simulated with values ({answer.error})",
                                where="--auto", fix="report it: the search's candidates ran without values, "
                                "so a lowering or simulator bug shows only here")

    # ---- running tasks

    def _json(self, sketch: "Sketch") -> dict[str, Any]:
        from fuseflow.schedule import schedule_to_json

        return schedule_to_json(self.space.program, self.space.schedule_of(sketch))

    def _run(self, tasks: list) -> list[dict[str, Any]]:
        from navigator.evaluation.tasks import run_task

        if not tasks:
            return []
        if self.engine == "local" and (self.jobs is None or self.jobs == 1):
            return [run_task(task) for task in tasks]
        executor = self._open()
        futures = [executor.submit(run_task, task) for task in tasks]
        return [future.result() for future in futures]

    def _open(self):
        if self._executor is None:
            from navigator.batch.engines import open_executor

            handle = self._stack.enter_context(open_executor(self.engine, self.jobs, self.scheduler))
            self._executor = handle.executor
        return self._executor


def _simulated(outcome: dict[str, Any]) -> Simulated:
    if outcome.get("status") != "ok":
        error = outcome.get("error") or {}
        return Simulated(math.inf, {}, f"{error.get('kind', 'error')}: {error.get('message', 'failed')}")
    report = outcome["report"]
    regions: dict[str, float] = {}
    for region in report.get("regions", []):
        name = "+".join(region["ops"])
        regions[name] = regions.get(name, 0.0) + float(region["cycles"])
    return Simulated(float(report["cycles"]), regions)
