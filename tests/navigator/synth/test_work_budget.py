"""The engine's work budget under threads: the TUI asks for menus on its main thread while a
worker plans, so each thread's outermost operation renews the budget and the nesting count of
one thread never leaks into another's."""

from __future__ import annotations

import threading

import pytest

from fuseflow.support.memory import ResourceError
from navigator.synth.lookup_budget import WorkBudget


def test_nested_operations_share_and_outermost_renews():
    budget = WorkBudget(limit=1000, where="lib")
    with budget.operation():
        budget.spend(600, "f")
        with budget.operation():
            with pytest.raises(ResourceError):
                budget.spend(600, "f")  # the nested one shares what is left
    with budget.operation():
        budget.spend(900, "f")  # a new outermost operation has the whole limit again


def test_threads_keep_their_own_nesting():
    budget = WorkBudget(limit=10_000_000, where="lib")
    start = threading.Barrier(8)

    def work():
        start.wait()
        for _ in range(2000):
            with budget.operation():
                with budget.operation():
                    budget.spend(1, "f")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert budget._depths == {}
    with budget.operation():
        assert budget.left == budget.limit
