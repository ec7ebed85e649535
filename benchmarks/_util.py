"""Small helpers shared by the benchmark scripts: timing and JSON output."""

from __future__ import annotations

import json
import statistics
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """`with stopwatch() as t: ...` then `t[0]` holds the elapsed seconds."""
    box: list[float] = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values) if values else 0.0,
        "p95": percentile(values, 0.95),
        "max": max(values, default=0.0),
    }


def emit(figures: dict[str, Any]) -> None:
    """Print the figures as one JSON document on stdout."""
    json.dump(figures, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
