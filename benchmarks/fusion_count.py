"""Time to count the legal fusion groupings of the bundled deep_gcn, a GCN with residual
connections, at 3..64 layers (`--dim layers=N`, three ops each) by dynamic programming
(fuseflow.analysis.fusion_count), and, for the small ones, by enumeration
(fuseflow.analysis.fusion.legal_groupings). Prints JSON."""

import json
import time

from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion import legal_groupings
from fuseflow.analysis.fusion_count import count_legal_groupings

LAYERS = (3, 4, 6, 8, 16, 32, 48, 64)
ENUMERATE_UP_TO = 4  # layers; 6 layers already take tens of seconds to enumerate


def measure(layers: int) -> dict:
    program = resolve_program("deep_gcn", {"layers": layers})  # fresh: no memoized region checks
    start = time.perf_counter()
    count = count_legal_groupings(program)
    row = {"layers": layers, "ops": len(program.ops), "count": count,
           "seconds": round(time.perf_counter() - start, 4)}
    if layers <= ENUMERATE_UP_TO:
        program = resolve_program("deep_gcn", {"layers": layers})
        start = time.perf_counter()
        row["enumerated"] = sum(1 for _ in legal_groupings(program))
        row["enumerate_seconds"] = round(time.perf_counter() - start, 4)
    return row


def main() -> dict:
    return {"benchmark": "fusion_count", "program": "deep_gcn (residual GCN), --dim layers=N",
            "results": [measure(layers) for layers in LAYERS]}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
