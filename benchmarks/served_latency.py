"""Whole-process time of session commands on transformer12, each in its own process and through
the session's server (navigator.server); prints the figures as JSON.

Measured, median of `--repeat` runs of `python -m navigator ...` from before the process starts
until it has exited (Python's start-up and imports count), with a warm cache (a temporary one,
filled by `start`):

- on a fresh session: `show`, and `fill ?0 1` then the `undo` that takes it back (so every
  repetition starts from the same session);
- on a complete session of 2,955 steps (`fill ?0 --auto default --subtree`): `show`;
each with NAVIGATOR_SERVER=off (the command builds the space and replays the steps itself)
and with the session's server running (the first served command of a session waits for the
server to load; the figures are of the commands after it).

Target (issue 24): `show` and `fill` on transformer12 <= 0.5 s whole process with a warm cache.

    python benchmarks/served_latency.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _util import emit  # noqa: E402
from cli_latency import _environment as cli_environment, _median, _run  # noqa: E402

TARGET_SECONDS = 0.5


def _environment(scratch: Path, server: bool) -> dict[str, str]:
    """cli_latency's (this checkout, kept bytecode, a temporary cache), with the server's switch
    and a socket folder of its own."""
    env = cli_environment(scratch)
    env.pop("NAVIGATOR_SESSION", None)
    env["XDG_RUNTIME_DIR"] = str(scratch / "run")
    env["NAVIGATOR_SERVER"] = "on" if server else "off"
    env["NAVIGATOR_SERVER_IDLE"] = "120"
    return env


def _wait_for_server(session: Path, env: dict[str, str]) -> None:
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        from navigator.process import served

        path = served.socket_path(str(session.resolve()))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (path and os.path.exists(path) and served.listening(path)):
            time.sleep(0.1)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _stop_servers(scratch: Path) -> None:
    import signal

    for lock in (scratch / "run" / "navigator").glob("*.lock"):
        try:
            os.kill(int(lock.read_text().strip()), signal.SIGTERM)
        except (ValueError, OSError):
            pass


def measure(repeat: int) -> dict:
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="navigator-served-") as name:
        scratch = Path(name)
        (scratch / "run").mkdir(mode=0o700)
        try:
            for server in (False, True):
                env = _environment(scratch, server)
                label = "served" if server else "own_process"
                work = scratch / label
                work.mkdir()
                session = work / ".navigator" / "session.json"
                _run(["start", "transformer12"], work, env)
                if server:
                    _wait_for_server(session, env)
                _run(["show"], work, env)  # untimed: warms the OS file cache (and the server)
                figures[f"show_fresh_{label}"] = _median([_run(["show"], work, env) for _ in range(repeat)])
                fills, undos = [], []
                for _ in range(repeat):
                    fills.append(_run(["fill", "?0", "1"], work, env))
                    undos.append(_run(["undo"], work, env))
                figures[f"fill_{label}"] = _median(fills)
                figures[f"undo_{label}"] = _median(undos)
                _run(["fill", "?0", "--auto", "default", "--subtree"], work, env)
                _run(["show"], work, env)  # untimed: the server catches up with the 2,955 steps
                figures[f"show_2955_steps_{label}"] = _median([_run(["show"], work, env) for _ in range(repeat)])
        finally:
            _stop_servers(scratch)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command (the median is reported)")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = measure(args.repeat)
    served = {name: value for name, value in figures.items() if name.endswith("_served")}
    emit({"benchmark": "served_latency", "program": "transformer12", "repeat": args.repeat,
          "unit": "seconds (median of whole-process wall times)", "cpus": os.cpu_count(),
          "load_average_1min": round(os.getloadavg()[0], 2), "figures": figures,
          "target_seconds": TARGET_SECONDS,
          "within_target": {name: value <= TARGET_SECONDS for name, value in served.items()},
          "benchmark_seconds": round(time.perf_counter() - started, 1)})


if __name__ == "__main__":
    main()
