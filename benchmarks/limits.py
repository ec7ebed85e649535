"""How deep the repeated programs may go, per command: the largest `--dim layers=N` of deep_gcn
and `--dim blocks=N` of transformer_block each command accepts (exit 0), found by bisection,
with the message of the first count refused. Prints JSON; docs/cli.md#limits-per-command is
this output as a table (tests/navigator/commands/test_limits.py checks the table's boundaries).

Commands, each in a fresh process in a temporary folder, with the program's own dimensions
(deep_gcn on its Cora-shaped preset, transformer_block at T=256, D=64, F=256):

- check, count: the program alone;
- start: a session (the facts of the whole program are generated: at most 100,000);
- fill --all: `fill ?0 --auto default --all` in that session;
- export: `export --json` of the filled session;
- eval: `eval` of the compiler's default schedule (every op its own region), written with
  fuseflow.schedule.default_schedule, so it does not need a session.

A command is taken to accept every count below one it accepts (the budgets grow with the
program). A run longer than --timeout seconds counts as refused, and says so.

    python benchmarks/limits.py [--timeout 900] [--only check,count] [--verify docs/cli.md]

With --verify, only the boundaries of the table in that file are run (each largest count
accepted, the next refused) and the exit code says whether they hold.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fuseflow.program.frontend import MAX_OPS  # noqa: E402

PROGRAMS = {"deep_gcn": ("layers", 3), "transformer_block": ("blocks", 23)}  # the count, its ops per block
COMMANDS = ("check", "count", "start", "fill --all", "export", "eval")


def _run(args: list[str], folder: str, timeout: float) -> tuple[int, str]:
    env = {**os.environ, "NAVIGATOR_CACHE": "off", "NAVIGATOR_SESSION": os.path.join(folder, "session.json")}
    try:
        result = subprocess.run([sys.executable, "-m", "navigator", *args], capture_output=True, text=True,
                                cwd=folder, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, f"still running after {timeout:g} seconds"
    errors = [line for line in result.stderr.splitlines() if line.startswith("navigator: error:")]
    return result.returncode, (errors[0][len("navigator: error: "):] if errors else result.stderr[-300:]).strip()


def accepts(program: str, command: str, count: int, timeout: float) -> tuple[bool, str, float]:
    """Whether `command` succeeds on `program` at this count; its message when not, and the seconds."""
    name, _ = PROGRAMS[program]
    dim = ["--dim", f"{name}={count}"]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        steps: list[list[str]]
        if command in ("check", "count"):
            steps = [[command, program, *dim]]
        elif command == "eval":
            from fuseflow.program.bundled import resolve_program
            from fuseflow.schedule import default_schedule, save_schedule
            from fuseflow.support.errors import UserError

            try:
                parsed = resolve_program(program, {name: count})
            except UserError as exc:
                return False, str(exc), time.perf_counter() - started
            schedule = os.path.join(folder, "schedule.json")
            save_schedule(schedule, parsed, default_schedule(parsed))
            steps = [["eval", schedule, "--program", program, *dim]]
        else:
            steps = [["start", program, *dim]]
            if command in ("fill --all", "export"):
                steps.append(["fill", "?0", "--auto", "default", "--all"])
            if command == "export":
                steps.append(["export", "--json", "schedule.json"])
        for step in steps:
            code, message = _run(step, folder, timeout)
            if code != 0:
                return False, f"{step[0]}: {message}", time.perf_counter() - started
    return True, "", time.perf_counter() - started


def largest_accepted(program: str, command: str, timeout: float, below: int | None = None) -> dict:
    """Bisect the largest count `command` accepts, between 1 and the op limit's (or `below`)."""
    _, per_block = PROGRAMS[program]
    low, high = 0, (below if below is not None else MAX_OPS // per_block) + 1  # accepted <= low < high refused
    refusal = "the program would have more than 1,000 ops" if below is None else "start refuses it"
    runs = []
    ok, message, seconds = accepts(program, command, high - 1, timeout)
    runs.append((high - 1, ok, round(seconds, 1)))
    if ok:
        low = high - 1
    else:
        high, refusal = high - 1, message
        while high - low > 1:
            middle = (low + high) // 2
            ok, message, seconds = accepts(program, command, middle, timeout)
            runs.append((middle, ok, round(seconds, 1)))
            if ok:
                low = middle
            else:
                high, refusal = middle, message
    return {"largest": low, "refused_from": high, "refusal": refusal[:300], "runs": runs}


#: a row of the table: | `check` | 333 | 43 | ... |
_ROW = re.compile(r"^\| `([a-z -]+)` \| (\d+) \| (\d+) \|", re.M)


def documented(path: Path) -> dict[str, dict[str, int]]:
    """{command: {program: largest}} from the table of limits in `path`."""
    text = path.read_text(encoding="utf-8")
    table = {command: {"deep_gcn": int(layers), "transformer_block": int(blocks)}
             for command, layers, blocks in _ROW.findall(text) if command in COMMANDS}
    if set(table) != set(COMMANDS):
        raise SystemExit(f"{path}: the table of limits lists {sorted(table)}, not {sorted(COMMANDS)}")
    return table


def verify(path: Path, timeout: float, only: list[str]) -> dict:
    results, holds = [], True
    for command, limits in documented(path).items():
        if command not in only:
            continue
        for program, largest in limits.items():
            yes, _, _ = accepts(program, command, largest, timeout)
            no, message, _ = accepts(program, command, largest + 1, timeout)
            good = yes and not no
            holds &= good
            results.append({"command": command, "program": program, "largest": largest, "holds": good,
                            "refusal": message[:300]})
    return {"benchmark": "limits", "verify": str(path), "holds": holds, "results": results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=900, help="seconds one command may run")
    parser.add_argument("--only", default=",".join(COMMANDS), help="comma-separated commands to measure")
    parser.add_argument("--verify", type=Path, metavar="DOC", help="only check the boundaries of DOC's table")
    args = parser.parse_args()
    only = [c.strip() for c in args.only.split(",")]
    if args.verify:
        report = verify(args.verify, args.timeout, only)
        print(json.dumps(report, indent=2))
        return 0 if report["holds"] else 1
    limits: dict[str, dict] = {}
    for program in PROGRAMS:
        limits[program] = {}
        for command in COMMANDS:
            if command not in only:
                continue
            # a session's commands cannot go deeper than `start`
            below = limits[program].get("start", {}).get("largest") if command in ("fill --all", "export") else None
            limits[program][command] = largest_accepted(program, command, args.timeout, below)
            print(f"{program} {command}: {limits[program][command]['largest']}", file=sys.stderr)
    print(json.dumps({"benchmark": "limits", "load_average": os.getloadavg()[0], "limits": limits}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
