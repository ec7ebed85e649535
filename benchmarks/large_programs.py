"""The large bundled programs: how many ops each has, how long reading (and so expanding its
repeated blocks) takes, and what `navigator check` and `navigator eval` of the default
schedule cost as whole processes. Prints the figures as JSON.

Programs: deep_gcn at 2, 8, 32, 64 and 333 layers (`--dim layers=N`; 333 is the deepest within
the 1,000-op limit), transformer_block and transformer12. For each:

- `ops`, `tensors`: the program written out;
- `read_seconds`: the median of 5 in-process reads (fuseflow.program.bundled.resolve_program, which
  parses, expands and checks);
- `check`: wall seconds, peak memory (MiB) and exit code of `navigator check` in a fresh
  process (exit 2 with the message when an analysis stops at its budget);
- `eval`: the same for `navigator eval` of the compiler's default schedule (every op in its
  own region; fast executor, checked against the numpy reference), written first with
  fuseflow.schedule.default_schedule.

A refused count is timed too: `navigator check deep_gcn --dim layers=1000000` must answer at
once. The load average is printed with the figures.

    python benchmarks/large_programs.py [--skip-eval]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fuseflow.program.bundled import resolve_program  # noqa: E402
from fuseflow.schedule import default_schedule, save_schedule  # noqa: E402

CASES = [("deep_gcn", {"layers": n}) for n in (2, 8, 32, 64, 333)] + [("transformer_block", {}),
                                                                    ("transformer12", {})]

# Runs navigator.main in this process and reports its peak memory on the last line of stderr.
_PROBE = ("import json, resource, sys\n"
          "from navigator import main\n"
          "sys.argv = ['navigator'] + sys.argv[1:]\n"
          "try:\n    code = main()\nexcept SystemExit as exc:\n    code = exc.code\n"
          "print(json.dumps({'exit': code, 'peak_mib': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss"
          " / 1024, 1)}), file=sys.stderr)\n"
          "sys.exit(code)\n")


def run(args: list[str], cwd: str) -> dict:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=cwd,
                            env={**os.environ, "NAVIGATOR_CACHE": "off"}, timeout=3600)
    seconds = time.perf_counter() - start
    lines = result.stderr.strip().splitlines()
    figures = json.loads(lines[-1]) if lines else {"exit": result.returncode}
    figures["seconds"] = round(seconds, 3)
    errors = [line for line in lines[:-1] if line.startswith("navigator: error:")]
    if errors:
        figures["error"] = errors[0][len("navigator: error: "):][:200]
    return figures


def read_seconds(name: str, dims: dict) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        resolve_program(name, dims)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4)


def measure(name: str, dims: dict, folder: str, skip_eval: bool) -> dict:
    program = resolve_program(name, dims)
    dim_args = [arg for key, value in dims.items() for arg in ("--dim", f"{key}={value}")]
    row = {"program": name, "dims": dims, "ops": len(program.ops), "tensors": len(program.tensors),
           "read_seconds": read_seconds(name, dims), "check": run(["check", name, *dim_args], folder)}
    if not skip_eval:
        schedule = os.path.join(folder, f"{name}-{len(program.ops)}.json")
        save_schedule(schedule, program, default_schedule(program))
        row["eval"] = run(["eval", schedule, "--program", name, *dim_args], folder)
    return row


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-eval", action="store_true", help="leave out the simulations")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(name, dims, folder, args.skip_eval) for name, dims in CASES]
        refused = run(["check", "deep_gcn", "--dim", "layers=1000000"], folder)
    return {"benchmark": "large_programs", "load_average": os.getloadavg()[0], "programs": rows,
            "refused_count": refused}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
