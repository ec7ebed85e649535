"""Import every MLIR fixture (and deep generated models up to 200+ ops); prints the figures as JSON.

For each file: its op count and the median of `--repeat` imports (parse with the MLIR bindings,
translate, and read the program back with every check, fuseflow.program.frontend). The first
import of a process also loads the bindings (`bindings_load_seconds`, reported once). Target:
<= 1 s per file of up to 200 ops.

    python benchmarks/import.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _util import emit  # noqa: E402

MODELS = ROOT / "tests" / "fuseflow" / "program" / "mlir_models"
DIMS = {"spmm_chain": {"D1": 32}}
TARGET_SECONDS = 1.0
DEEP_LAYERS = (22, 67)   # 66 and 201 ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from fuseflow.program.frontend import parse_program
    from fuseflow.program.mlir import import_mlir_text
    from tests.mlir_models import deep_gcn_mlir

    started = time.perf_counter()
    from fuseflow.program.mlir.bindings import mlir_ir

    mlir_ir("benchmark")
    bindings = time.perf_counter() - started
    files = {p.name: (p.read_text(encoding="utf-8"), DIMS.get(p.stem, {})) for p in sorted(MODELS.glob("*.mlir"))}
    files.update({f"deep_gcn_{layers}.mlir (generated)": (deep_gcn_mlir(layers), {}) for layers in DEEP_LAYERS})
    rows = []
    for name, (text, dims) in files.items():
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            program = parse_program(import_mlir_text(text, name, dims), name, dims)
            times.append(time.perf_counter() - start)
        rows.append({"file": name, "ops": len(program.ops), "lines": text.count("\n"),
                     "median_seconds": round(statistics.median(times), 4), "max_seconds": round(max(times), 4)})
    worst = max(r["median_seconds"] for r in rows)
    emit({"benchmark": "import", "repeat": args.repeat, "bindings_load_seconds": round(bindings, 3),
          "files": rows, "target_seconds_per_file": TARGET_SECONDS,
          "worst_median_seconds": worst,
          "met": all(r["median_seconds"] <= TARGET_SECONDS for r in rows if r["ops"] <= 200)})


if __name__ == "__main__":
    main()
