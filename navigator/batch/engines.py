"""Executors for `navigator batch`: a local process pool, or a dask cluster.

Anything implementing concurrent.futures.Executor works with run_batch; this module only
builds the two the command line offers and knows how to restart or stop them.
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import Executor, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from fuseflow.errors import UserError

ENGINES = ("local", "dask")


def _init_worker() -> None:
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


def _local_pool(jobs: int) -> ProcessPoolExecutor:
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker)
    # Start the workers now, before any progress-bar thread exists, so forking copies no thread.
    wait([pool.submit(_ready) for _ in range(jobs)])
    return pool


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers at once (a running candidate may take minutes; Ctrl-C should not wait)."""
    processes = list(getattr(pool, "_processes", {}).values())  # no public API for this
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
            raise UserError("--scheduler is for --engine dask", where="--scheduler")
        jobs = jobs or os.cpu_count() or 1
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
        finally:
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
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot reach the dask scheduler: {exc}", where=address,
                            fix="start it (dask scheduler / LocalCluster) or check the address") from None
        try:
            threads = sum(client.nthreads().values())
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
