"""Executors for `navigator batch`: a local process pool, or a dask cluster.

Anything implementing concurrent.futures.Executor works with run_batch; this module only
builds the two the command line offers and knows how to restart or stop them.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from fuseflow.support.errors import UserError
from navigator.process.crash import describe

ENGINES = ("local", "dask")
#: --jobs above this many workers per CPU is refused: the simulation is CPU-bound, so more
#: processes only share the same cores, each with its own memory
JOBS_PER_CPU = 4


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, e.g. in a container), else all of them."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _init_worker(parent: int, death_signal: bool) -> None:
    from navigator.batch.lifeline import die_with_parent

    # A worker outliving a killed coordinator would wait on its queue forever.
    die_with_parent(parent, death_signal)
    # Ctrl-C goes to the whole foreground process group; only the coordinator handles it,
    # so that it can write its last records and stop the pool in order.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One job is one core: a BLAS pool per worker would oversubscribe the machine (and costs
    # more in spinning threads than it saves on these small products).
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=1)


def _ready() -> int:
    return os.getpid()


@dataclass
class ExecutorHandle:
    executor: Executor
    slots: int
    engine: str
    restart: Callable[[], Executor] | None = None
    abort: Callable[[], None] | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _pool_context():
    """fork where there is one (workers inherit the loaded inputs), else spawn: either way the
    workers are children of this process, which die_with_parent relies on."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _local_pool(jobs: int) -> ProcessPoolExecutor:
    # The kernel's parent-death signal follows the forking thread: only arm it when that is the main one.
    death_signal = threading.current_thread() is threading.main_thread()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(), initializer=_init_worker,
                               initargs=(os.getpid(), death_signal))
    try:
        # Start the workers now, before any progress-bar thread exists, so forking copies no thread.
        started = [pool.submit(_ready) for _ in range(jobs)]
        wait(started)
        for future in started:
            future.result()
    except (OSError, BrokenExecutor) as exc:  # out of processes, memory or file descriptors
        _terminate(pool)
        raise UserError(f"cannot start {jobs} worker processes: {exc}", where="--jobs",
                        fix="use a smaller --jobs, or check the process and memory limits (ulimit -u)") from None
    return pool


def check_local_jobs(jobs: int) -> None:
    limit = JOBS_PER_CPU * usable_cpus()
    if jobs > limit:
        raise UserError(f"{jobs} worker processes is more than this machine can use ({usable_cpus()} CPUs; at "
                        f"most {limit} are allowed)", where="--jobs",
                        fix=f"use --jobs {usable_cpus()} (one per CPU) or fewer, or --engine dask for a cluster")


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers at once (a running candidate may take minutes; Ctrl-C should not wait)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API; None after shutdown
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


@contextmanager
def open_executor(engine: str = "local", jobs: int | None = None,
                  scheduler: str | None = None) -> Iterator[ExecutorHandle]:
    if engine == "local":
        if scheduler:
            raise UserError("--scheduler is for --engine dask", where="--scheduler",
                            fix="add --engine dask, or leave out --scheduler")
        jobs = jobs or usable_cpus()
        check_local_jobs(jobs)
        state = {"pool": _local_pool(jobs)}

        def restart() -> Executor:
            _terminate(state["pool"])
            state["pool"] = _local_pool(jobs)
            return state["pool"]

        aborted = []

        def abort() -> None:
            aborted.append(True)
            _terminate(state["pool"])

        try:
            yield ExecutorHandle(state["pool"], jobs, "local", restart, abort, {"jobs": jobs})
        except BaseException:
            # The run stopped on an error (say, a full disk): do not wait for running candidates.
            if not aborted:
                abort()
            raise
        if not aborted:
            state["pool"].shutdown(wait=True, cancel_futures=True)
        return
    if engine == "dask":
        address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS")
        if not address:
            raise UserError("--engine dask needs the scheduler's address", where="--scheduler",
                            fix="e.g. --scheduler tcp://127.0.0.1:8786 (or set DASK_SCHEDULER_ADDRESS)")
        try:
            from distributed import Client
        except ImportError:
            raise UserError("dask.distributed is not installed", where="--engine dask",
                            fix="pip install 'dask[distributed]'") from None
        try:
            client = Client(address, timeout=15)
        except Exception as exc:  # noqa: BLE001 - a malformed address raises ValueError, TypeError, ...
            raise UserError(f"cannot reach the dask scheduler: {describe(exc)}", where=address,
                            fix="start it (dask scheduler / LocalCluster) or check the address, "
                                "e.g. tcp://127.0.0.1:8786") from None
        try:
            try:
                threads = sum(client.nthreads().values())
            except Exception as exc:  # noqa: BLE001 - the address answered, but not as a dask scheduler
                raise UserError(f"cannot ask the dask scheduler for its workers: {describe(exc)}", where=address,
                                fix="check that the address is a dask scheduler's") from None
            if threads == 0:
                raise UserError("the dask cluster has no workers", where=address, fix="start some workers")
            executor = client.get_executor(pure=False)
            yield ExecutorHandle(executor, jobs or threads, "dask", None, None,
                                 {"scheduler": address, "threads": threads})
            executor.shutdown(wait=False)
        finally:
            client.close()
        return
    raise UserError(f"unknown engine {engine!r}", where="--engine", fix=f"choose one of: {', '.join(ENGINES)}")
