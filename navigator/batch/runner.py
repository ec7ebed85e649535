"""Run candidates on an executor, writing one result record per schedule as each finishes.

At most `slots` candidates are in flight, so a submitted candidate starts at once and its
deadline can be counted from submission. Workers enforce the timeout themselves where they
can (SIGALRM in pool processes); the coordinator's deadline, a little later, covers the rest
(threads of a dask worker). When a process pool breaks (a worker died), the candidates it
held are retried one at a time on a fresh pool, so the one that kills its worker is found
and recorded as `worker-crash` without blaming the others.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, CancelledError, Executor, Future, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from navigator.batch.candidates import Candidate
from navigator.evaluation.tasks import EvalConfig, Task, failure, run_task
from navigator.batch.records import ResultsLog

POLL_SECONDS = 0.25
#: the coordinator's deadline is this factor of --timeout plus GRACE_SECONDS
DEADLINE_FACTOR = 1.5
GRACE_SECONDS = 5.0


@dataclass
class BatchSummary:
    files: int = 0
    unique: int = 0
    duplicates: int = 0
    skipped: int = 0  # already in the results file
    evaluated: int = 0  # records written by this run
    ok: int = 0
    failed: int = 0
    failures: Counter = field(default_factory=Counter)
    remaining: int = 0  # left for a later run (interrupted or aborted)
    repaired_bytes: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    aborted: str | None = None
    #: keys of this run's candidates whose latest record is a failure (this run or an earlier one)
    failed_keys: list[str] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return self.evaluated / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "unique": self.unique, "duplicates": self.duplicates,
                "skipped": self.skipped, "evaluated": self.evaluated, "ok": self.ok, "failed": self.failed,
                "failures": dict(sorted(self.failures.items())), "remaining": self.remaining,
                "repaired_bytes": self.repaired_bytes, "seconds": self.seconds,
                "schedules_per_second": self.throughput, "interrupted": self.interrupted,
                "aborted": self.aborted, "failed_total": len(self.failed_keys)}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _problem_outcome(problem: dict[str, Any]) -> dict[str, Any]:
    return {"status": "failed", "error": problem, "metrics": None, "report": None, "seconds": 0.0,
            "worker": None}


def run_batch(candidates: Iterable[Candidate], config: EvalConfig, executor: Executor, results: ResultsLog, *,
              slots: int, timeout: float | None = None, engine: str = "custom", retry_failed: bool = False,
              on_record: Callable[[dict[str, Any]], None] | None = None,
              restart: Callable[[], Executor] | None = None,
              abort: Callable[[], None] | None = None) -> BatchSummary:
    """Evaluate every candidate not yet in `results`; returns when all are recorded or on Ctrl-C.

    `restart` (optional) returns a fresh executor after the current one broke; `abort`
    (optional) stops running work at once after Ctrl-C (e.g. terminates pool processes).
    """
    started = time.perf_counter()
    candidates = list(candidates)
    run_id = config.run_id()
    program = config.spec.program
    summary = BatchSummary(files=len(candidates))

    def write(candidate: Candidate, outcome: dict[str, Any]) -> None:
        record = {"key": candidate.key, "schedule": candidate.source, "program": program, "run": run_id,
                  "engine": engine, "finished": _now(), **outcome}
        try:
            results.append(record)
        except (TypeError, ValueError) as exc:  # an outcome that is not JSON: a bug, kept as this candidate's result
            outcome = _problem_outcome(failure("error", f"the result could not be written as JSON: "
                                                        f"{type(exc).__name__}: {exc}"))
            record = {**record, **outcome}
            results.append(record)
        summary.evaluated += 1
        if outcome["status"] == "ok":
            summary.ok += 1
        else:
            summary.failed += 1
            summary.failures[outcome["error"]["kind"]] += 1
        if on_record is not None:
            on_record(record)

    todo: list[Candidate] = []
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.key in seen:
            summary.duplicates += 1
            continue
        seen.add(candidate.key)
        done = results.records.get(candidate.key)
        if done is not None and not (retry_failed and done.get("status") != "ok"):
            summary.skipped += 1
            continue
        todo.append(candidate)
    summary.unique = len(seen)

    pending: deque[Candidate] = deque()
    for candidate in todo:
        if candidate.problem is not None:
            write(candidate, _problem_outcome(candidate.problem))
        else:
            pending.append(candidate)

    suspects: deque[Candidate] = deque()  # to rerun one at a time after a broken pool
    running: dict[Future, tuple[Candidate, float, bool]] = {}  # future -> (candidate, submitted, alone)
    deadline = timeout * DEADLINE_FACTOR + GRACE_SECONDS if timeout else None

    def submit_next(queue: deque[Candidate], alone: bool) -> None:
        """Submit the queue's first candidate; it leaves the queue only once the executor took it."""
        candidate = queue[0]
        future = executor.submit(run_task, Task(candidate.key, candidate.source, candidate.schedule, config, timeout))
        queue.popleft()
        running[future] = (candidate, time.monotonic(), alone)

    try:
        while executor is not None and (pending or running or suspects):
            try:
                if suspects and not running:
                    submit_next(suspects, True)
                while pending and not suspects and len(running) < slots:
                    submit_next(pending, False)
            except BrokenExecutor as exc:
                # The pool broke since the last wait. Futures still running fail at the next wait,
                # which restarts it; with none running, restart it here.
                if not running:
                    executor = restart() if restart is not None else None
                    if executor is None:
                        summary.aborted = f"the executor broke ({str(exc) or type(exc).__name__}) and cannot be restarted"
                    continue
            except Exception as exc:  # e.g. a dask client that lost its scheduler: stop, the rest can resume
                summary.aborted = f"the executor refused work ({type(exc).__name__}: {exc})"
                break
            done, _ = wait(list(running), timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            broken: list[tuple[Candidate, bool]] = []
            reason = ""
            for future in done:
                candidate, _, alone = running.pop(future)
                try:
                    write(candidate, future.result())
                except BrokenExecutor as exc:
                    broken.append((candidate, alone))
                    reason = str(exc) or type(exc).__name__
                except CancelledError:
                    pending.appendleft(candidate)
                except Exception as exc:  # e.g. a dask worker that died (KilledWorker)
                    write(candidate, _problem_outcome(failure("worker-crash", f"{type(exc).__name__}: {exc}")))
            if broken:
                # Everything still running on the broken pool is lost too.
                broken += [(candidate, alone) for candidate, _, alone in running.values()]
                running.clear()
                for candidate, alone in broken:
                    if alone:  # it ran by itself, so it is the one that killed its worker
                        write(candidate, _problem_outcome(failure("worker-crash", f"the worker died: {reason}")))
                    else:
                        suspects.append(candidate)
                executor = restart() if restart is not None else None
                if executor is None:
                    summary.aborted = f"the executor broke ({reason}) and cannot be restarted"
            if deadline is not None:
                now = time.monotonic()
                for future, (candidate, submitted, _) in list(running.items()):
                    if now - submitted > deadline:
                        future.cancel()
                        del running[future]
                        write(candidate, _problem_outcome(failure(
                            "timeout", f"no result within {deadline:g} s (--timeout {timeout:g} s plus grace); "
                                       "the worker could not be interrupted")))
    except KeyboardInterrupt:
        summary.interrupted = True
        for future in running:
            future.cancel()
        if abort is not None:
            abort()
    summary.remaining = len(pending) + len(running) + len(suspects)
    summary.repaired_bytes = results.repaired_bytes
    summary.seconds = time.perf_counter() - started
    summary.failed_keys = [key for key in seen
                           if key in results.records and results.records[key].get("status") != "ok"]
    return summary
