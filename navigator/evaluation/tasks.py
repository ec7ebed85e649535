"""One candidate's evaluation, as it runs on a worker. The one place that calls the simulator.

`run_task` never raises for a candidate's own failure: it returns an outcome whose
`error.kind` says what went wrong. Workers keep the program, binding, hardware and generated
data of the last configurations they saw, so only their first task pays for loading.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from navigator.workspace.spec import ProgramSpec, file_hash

#: error kinds a result record may carry
ERROR_KINDS = ("bad-input", "invalid-schedule", "timeout", "check-failed", "worker-crash", "error")
#: the longest per-candidate timeout (about 11.6 days); setitimer cannot take much more
MAX_TIMEOUT_SECONDS = 1_000_000


class CandidateTimeout(Exception):
    pass


@dataclass(frozen=True)
class EvalConfig:
    """Everything a result depends on besides the schedule itself."""

    spec: ProgramSpec
    hardware: str | None = None
    policy: str = "accumulate"
    executor: str = "fast"
    seed: int | None = None
    check: bool = True

    def identity(self) -> dict[str, Any]:
        """The configuration with content hashes of its files (so an edited file is a new run)."""
        from navigator.navigation.fingerprint import content_hash

        text, _ = self.spec.program_text()
        hardware = file_hash(self.hardware) if self.hardware else None
        return {"program": self.spec.program, "program_hash": content_hash(text), "data": self.spec.data,
                "data_hash": file_hash(self.spec.data) if self.spec.data else None,
                "dims": self.spec.dims_dict, "hardware": self.hardware, "hardware_hash": hardware,
                "policy": self.policy, "executor": self.executor, "seed": self.seed, "check": self.check}

    def run_id(self) -> str:
        from navigator.evaluation.result_keys import canonical_json

        return hashlib.sha256(canonical_json(self.identity()).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Task:
    key: str
    source: str
    schedule: dict[str, Any]
    config: EvalConfig
    timeout: float | None = None


@dataclass
class Inputs:
    program: Any
    binding: Any
    hardware: Any
    data: Any
    reference: Any = None  # the numpy reference result, computed by the first checked candidate


@lru_cache(maxsize=4)
def load_inputs(spec: ProgramSpec, hardware_path: str | None, seed: int | None) -> Inputs:
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import load_bound_program
    from simulator.program_data import materialize

    program, binding = load_bound_program(spec.program, spec.data, spec.dims_dict)
    return Inputs(program, binding, load_hardware(hardware_path), materialize(program, binding, seed))


def ensure_reference(inputs: Inputs) -> None:
    """Compute the numpy reference result once: it is the same for every candidate of a batch,
    and a worker forked after this inherits it."""
    from simulator.reference import evaluate_program

    if inputs.reference is None:
        inputs.reference = evaluate_program(inputs.program, inputs.data.arrays, inputs.binding.extents)


def simulate(inputs: Inputs, schedule, config: EvalConfig) -> dict[str, Any]:
    """simulator.evaluate on cached inputs; its report as a dict."""
    from simulator.evaluate import evaluate

    if config.check:
        ensure_reference(inputs)
    report = evaluate(inputs.program, inputs.binding, schedule, inputs.hardware, executor=config.executor,
                      policy=config.policy, seed=config.seed, check=config.check, data=inputs.data,
                      reference=inputs.reference)
    return report.to_dict()


def simulated_cycles(inputs: Inputs, schedule, config: EvalConfig) -> dict[str, Any]:
    """`{"cycles": …}`, or `{"problem": …}` when the fast executor refuses the schedule as too large."""
    from simulator.fast import TooLarge

    try:
        return {"cycles": simulate(inputs, schedule, config)["cycles"]}
    except TooLarge as exc:
        return {"problem": exc.bare_message}


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise CandidateTimeout after `seconds` (SIGALRM; only in a main thread, e.g. a pool worker).

    Elsewhere (threads of a dask worker), and for a limit beyond MAX_TIMEOUT_SECONDS, this does
    nothing and the coordinator's deadline applies.
    """
    usable = (seconds is not None and 0 < seconds <= MAX_TIMEOUT_SECONDS and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise CandidateTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _metrics(report: dict[str, Any]) -> dict[str, Any]:
    keys = ("flops", "bytes", "compulsory_bytes", "logical_bytes", "spill_bytes", "intensity", "roofline", "cycles",
            "seconds")
    return {k: report[k] for k in keys if k in report}


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def failure(kind: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "message": message, **extra}


def run_task(task: Task) -> dict[str, Any]:
    """Evaluate one candidate; the outcome part of its result record."""
    from fuseflow.support.errors import ScheduleError, UserError
    from fuseflow.schedule import schedule_from_json

    started = time.perf_counter()
    outcome: dict[str, Any] = {"status": "failed", "error": None, "metrics": None, "report": None}
    try:
        inputs = load_inputs(task.config.spec, task.config.hardware, task.config.seed)
        schedule = schedule_from_json(inputs.program, task.schedule, task.source)
        with time_limit(task.timeout):
            report = simulate(inputs, schedule, task.config)
        outcome["report"] = report
        outcome["metrics"] = _metrics(report)
        check = report.get("check")
        if check is not None and not check.get("passed", True):
            outcome["error"] = failure("check-failed", "the simulated result differs from the numpy reference "
                                       f"(max relative error {check.get('max_relative_error')})")
        else:
            outcome["status"] = "ok"
    except CandidateTimeout:
        outcome["error"] = failure("timeout", f"did not finish within {task.timeout:g} s")
    except ScheduleError as exc:
        outcome["error"] = failure("invalid-schedule", str(exc), field=exc.field, rule=exc.rule)
    except UserError as exc:
        outcome["error"] = failure("bad-input", str(exc))
    except (Exception, SystemExit) as exc:  # a candidate's crash is data, not the end of the batch
        outcome["error"] = failure("error", f"{type(exc).__name__}: {exc}",
                                   traceback=traceback.format_exc()[-4000:])
    outcome["seconds"] = time.perf_counter() - started
    outcome["worker"] = worker_name()
    return outcome
