"""Navigator's cycles against an external SAM reference harness, on random matrices. Prints JSON.

    python benchmarks/sam_parity.py --sam-harness /path/to/harness.py
    python benchmarks/sam_parity.py --sam-harness DIR --matrices 12 --seed 0 --depths 0 2

The reference is not part of this repository. `--sam-harness` names a Python file (or a
directory holding `harness.py`) that defines

    sam_cycles(kernel: str, data: dict, depth: int | None) -> int

the cycles of the Sparse Abstract Machine's Python simulator (its test loop's `time_cnt`, the
cycle in which every writer has taken its done token) for one kernel, with queues of `depth`
tokens (`None`: unbounded, back-pressure off). `data` holds `A` (scipy CSR, N x N), `B` (a
dense N x J array, or for `spgemm` a CSR N x N matrix) and `D` (dense N x J). Kernels:

  spmm_ikj       C = A B, B dense, Gustavson order i k j (a sparse accumulator)
  spmm_ijk       C = A B, B dense, inner-product order i j k (a reducer)
  spgemm         C = A B, both CSR, order i k j
  sddmm_fused    C = A o (B D^T) as one op, order i j k
  sddmm_unfused  T = B D^T (dense, order i j k), then C = A o T: the sum of both graphs

Navigator runs the same kernels (programs below) with the exact executor, one lane, scalar
streams, and memory (bandwidth and latency) and arithmetic that never bind, so its cycles are the pipeline's. The JSON
gives, per kernel and depth, Navigator / SAM (median, min, max), and, per depth, whether both
pick the same faster SpMM order on each matrix.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import emit  # noqa: E402

KERNELS = ("spmm_ikj", "spmm_ijk", "spgemm", "sddmm_fused", "sddmm_unfused")

_A = 'A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.1 }'
PROGRAMS = {
    "spmm": f"""name = "spmm_random"
[dims]
N = 8
J = 4
[tensors]
{_A}
B = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
[[ops]]
name = "spmm"
expr = "C(i,j) = A(i,k) * B(k,j)"
""",
    "spgemm": f"""name = "spgemm"
[dims]
N = 8
[tensors]
{_A}
B = {{ shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.1 }}
C = {{ shape = ["N", "N"], format = ["dense", "compressed"] }}
[[ops]]
name = "spgemm"
expr = "C(i,j) = A(i,k) * B(k,j)"
""",
    "sddmm_fused": f"""name = "sddmm_one_op"
[dims]
N = 8
J = 4
[tensors]
{_A}
B = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
D = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
C = {{ shape = ["N", "N"], format = ["dense", "compressed"] }}
[[ops]]
name = "sddmm"
expr = "C(i,j) = A(i,j) * B(i,k) * D(j,k)"
""",
    "sddmm_unfused": f"""name = "sddmm_two_ops"
[dims]
N = 8
J = 4
[tensors]
{_A}
B = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
D = {{ shape = ["N", "J"], format = ["dense", "dense"], source = "random" }}
C = {{ shape = ["N", "N"], format = ["dense", "compressed"] }}
[[ops]]
name = "dense_mm"
expr = "T(i,j) = B(i,k) * D(j,k)"
[[ops]]
name = "sample"
expr = "C(i,j) = A(i,j) * T(i,j)"
""",
}
#: kernel -> (program, its regions as (ops, order))
SCHEDULES = {
    "spmm_ikj": ("spmm", [(("spmm",), "i k j")]),
    "spmm_ijk": ("spmm", [(("spmm",), "i j k")]),
    "spgemm": ("spgemm", [(("spgemm",), "i k j")]),
    "sddmm_fused": ("sddmm_fused", [(("sddmm",), "i j k")]),
    "sddmm_unfused": ("sddmm_unfused", [(("dense_mm",), "i j k"), (("sample",), "i j")]),
}


def load_harness(path: str):
    where = Path(path)
    if where.is_dir():
        where = where / "harness.py"
    spec = importlib.util.spec_from_file_location("sam_harness", where)
    if spec is None or not where.is_file():
        raise SystemExit(f"--sam-harness {path}: no such file (give harness.py or its directory)")
    sys.path.insert(0, str(where.parent))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "sam_cycles"):
        raise SystemExit(f"--sam-harness {where}: defines no sam_cycles(kernel, data, depth)")
    return module.sam_cycles


def random_cases(count: int, seed: int, columns: int) -> list[dict]:
    """Square CSR matrices of 20-80 rows and densities 0.05-0.3, dense factors of `columns`."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)

    def sparse(n, density):
        m = sp.random(n, n, density=density, random_state=rng, format="csr",
                      data_rvs=lambda k: rng.uniform(0.5, 1.0, k) * rng.choice([-1, 1], k))
        m.sort_indices()
        return m

    cases = []
    for _ in range(count):
        n = int(rng.integers(20, 81))
        density = float(rng.uniform(0.05, 0.3))
        cases.append({"N": n, "density": density, "A": sparse(n, density),
                      "B": rng.uniform(-1, 1, (n, columns)), "Bs": sparse(n, density),
                      "D": rng.uniform(-1, 1, (n, columns))})
    return cases


def kernel_data(kernel: str, case: dict) -> dict:
    if kernel == "spgemm":
        return {"A": case["A"], "B": case["Bs"]}
    if kernel.startswith("sddmm"):
        return {"A": case["A"], "B": case["B"], "D": case["D"]}
    return {"A": case["A"], "B": case["B"]}


def navigator_cycles(kernel: str, data: dict, depth: int, programs: dict) -> float:
    import numpy as np
    import scipy.sparse as sp

    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import bind
    from fuseflow.schedule import RegionSchedule, Schedule
    from simulator.evaluate import run_schedule
    from simulator.program_data import ProgramData

    name, regions = SCHEDULES[kernel]
    program = programs[name]
    dims = {"N": data["A"].shape[0]}
    arrays = {"A": sp.csr_matrix(data["A"])}
    for key in ("B", "D"):
        if key in data:
            arrays[key] = sp.csr_matrix(data[key]) if sp.issparse(data[key]) else np.asarray(data[key])
    if "J" in program.dims:
        dims["J"] = data["B"].shape[1]
    hw = dataclasses.replace(load_hardware(), queue_depth=depth, lanes=1, memory_bytes_per_cycle=2.0 ** 40,
                             dram_latency_cycles=0,
                             peak_ops_per_cycle=2.0 ** 40)
    schedule = Schedule(tuple(RegionSchedule(ops, tuple(order.split()), (1,) * len(order.split()))
                              for ops, order in regions))
    results, _ = run_schedule(program, bind(program, dims=dims), schedule, "exact", "accumulate",
                              ProgramData(arrays, 0, None), hw, numerics=False)
    return sum(r.timing.cycles for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sam-harness", required=True, help="a file (or directory with harness.py) defining sam_cycles")
    parser.add_argument("--matrices", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--columns", type=int, default=8, help="J (and K) of the dense factors")
    parser.add_argument("--depths", type=int, nargs="+", default=[0, 2], help="queue depths (0: unbounded)")
    parser.add_argument("--kernels", nargs="+", choices=KERNELS, default=list(KERNELS))
    args = parser.parse_args()

    from fuseflow.program.bundled import resolve_program

    sam_cycles = load_harness(args.sam_harness)
    with tempfile.TemporaryDirectory() as tmp:
        programs = {}
        for name, text in PROGRAMS.items():
            path = Path(tmp) / f"{name}.toml"
            path.write_text(text, encoding="utf-8")
            programs[name] = resolve_program(str(path))
        cases = random_cases(args.matrices, args.seed, args.columns)
        rows = []
        for index, case in enumerate(cases):
            for kernel in args.kernels:
                data = kernel_data(kernel, case)
                row = {"matrix": index, "N": case["N"], "density": round(case["density"], 4), "kernel": kernel}
                for depth in args.depths:
                    sam = sam_cycles(kernel, data, depth or None)
                    nav = navigator_cycles(kernel, data, depth, programs)
                    row[f"depth_{depth}"] = {"sam": sam, "navigator": nav, "ratio": nav / sam}
                rows.append(row)
    per_kernel = {}
    for kernel in args.kernels:
        for depth in args.depths:
            ratios = [r[f"depth_{depth}"]["ratio"] for r in rows if r["kernel"] == kernel]
            per_kernel.setdefault(kernel, {})[f"depth_{depth}"] = {
                "median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}
    overall = {}
    order_choice = {}
    for depth in args.depths:
        ratios = [r[f"depth_{depth}"]["ratio"] for r in rows]
        overall[f"depth_{depth}"] = {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
                                     "worst_deviation": max(abs(x - 1) for x in ratios)}
        if {"spmm_ikj", "spmm_ijk"} <= set(args.kernels):
            agree = 0
            for index in range(len(cases)):
                ikj = next(r for r in rows if r["matrix"] == index and r["kernel"] == "spmm_ikj")[f"depth_{depth}"]
                ijk = next(r for r in rows if r["matrix"] == index and r["kernel"] == "spmm_ijk")[f"depth_{depth}"]
                agree += (ikj["sam"] < ijk["sam"]) == (ikj["navigator"] < ijk["navigator"])
            order_choice[f"depth_{depth}"] = f"{agree}/{len(cases)}"
    emit({"matrices": len(cases), "seed": args.seed, "columns": args.columns, "per_kernel": per_kernel,
          "overall": overall, "faster_spmm_order_agrees": order_choice, "rows": rows})


if __name__ == "__main__":
    main()
