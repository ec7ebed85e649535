"""Time to count, and to enumerate the first 1000 of, the legal orders of a ten-variable
chained-matmul region. Prints JSON. Target: the count in under 100 ms."""

import itertools
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _chain import chained_matmul_program  # noqa: E402

from fuseflow.program.frontend import parse_program  # noqa: E402
from fuseflow.analysis.unification import unify_region  # noqa: E402
from fuseflow.analysis.orders import OrderSpace  # noqa: E402


def main(repeats: int = 7) -> dict:
    program = parse_program(chained_matmul_program(10), "chain.toml")
    region = unify_region(program, tuple(op.name for op in program.ops))
    count_times, enum_times = [], []
    count = None
    for _ in range(repeats):
        space = OrderSpace.of_region(region)  # fresh: no memoized counts
        start = time.perf_counter()
        count = space.count()
        count_times.append(time.perf_counter() - start)
        space = OrderSpace.of_region(region)
        start = time.perf_counter()
        first = list(itertools.islice(iter(space), 1000))
        enum_times.append(time.perf_counter() - start)
        assert len(first) == min(1000, count)
    result = {
        "benchmark": "orders",
        "region_vars": len(region.vars),
        "constraints": len(OrderSpace.of_region(region).pairs),
        "legal_orders": count,
        "count_seconds_median": statistics.median(count_times),
        "count_seconds_max": max(count_times),
        "enumerate_1000_seconds_median": statistics.median(enum_times),
        "target_count_seconds": 0.1,
        "meets_target": statistics.median(count_times) < 0.1,
        "repeats": repeats,
    }
    return result


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
