"""Time to count the legal fusion groupings of deep GCNs with residual connections (3..64
layers, three ops each) by dynamic programming (fuseflow.fusion_count), and, for the small
ones, by enumeration (fuseflow.fusion.legal_groupings). Prints JSON."""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _deep_gcn import deep_gcn_program  # noqa: E402

from fuseflow.frontend import parse_program  # noqa: E402
from fuseflow.fusion import legal_groupings  # noqa: E402
from fuseflow.fusion_count import count_legal_groupings  # noqa: E402

LAYERS = (3, 4, 6, 8, 16, 32, 48, 64)
ENUMERATE_UP_TO = 4  # layers; 6 layers already take tens of seconds to enumerate


def measure(layers: int) -> dict:
    text = deep_gcn_program(layers)
    program = parse_program(text, f"deep_gcn_{layers}.toml")  # fresh: no memoized region checks
    start = time.perf_counter()
    count = count_legal_groupings(program)
    row = {"layers": layers, "ops": len(program.ops), "count": count,
           "seconds": round(time.perf_counter() - start, 4)}
    if layers <= ENUMERATE_UP_TO:
        program = parse_program(text, f"deep_gcn_{layers}.toml")
        start = time.perf_counter()
        row["enumerated"] = sum(1 for _ in legal_groupings(program))
        row["enumerate_seconds"] = round(time.perf_counter() - start, 4)
    return row


def main() -> dict:
    return {"benchmark": "fusion_count", "program": "deep GCN with residuals",
            "results": [measure(layers) for layers in LAYERS]}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
