"""Batch evaluation of many schedules, resumable, on any concurrent.futures.Executor.

    config = EvalConfig(ProgramSpec.from_user("gcn"))
    candidates = collect_candidates(["samples/"], program)
    with ResultsLog("results.jsonl") as results, open_executor("local", jobs=2) as (executor, slots):
        summary = run_batch(candidates, config, executor, results, slots=slots, timeout=60)

Results are JSON lines keyed by the SHA-256 of each schedule's canonical JSON; a rerun skips
the keys already in the file. A candidate's failure (bad file, illegal schedule, timeout,
crash, failed numerical check) is a record like any other, never an abort.
"""

from navigator.batch.candidates import Candidate, collect_candidates
from navigator.batch.engines import ENGINES, open_executor
from navigator.evaluation.tasks import EvalConfig, Task, run_task
from navigator.batch.records import ResultsLog
from navigator.evaluation.result_keys import canonical_json, schedule_key
from navigator.batch.runner import BatchSummary, run_batch

__all__ = [
    "BatchSummary", "Candidate", "ENGINES", "EvalConfig", "ResultsLog", "Task", "canonical_json",
    "collect_candidates", "open_executor", "run_batch", "run_task", "schedule_key",
]
