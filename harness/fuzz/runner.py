"""A fork server for the fuzz harness: run `navigator.cli.main(argv)` in a forked child.

Starting Python and importing numpy, scipy and Navigator costs 0.5-1 s; a case costs tens
of milliseconds. So the parent imports everything once (`preload()`), and each case runs
in a child made by os.fork(), which starts with those modules already in memory:

- the child leaves the parent's process group (so a hang is killed with everything it
  started, batch workers included), chdirs into the case folder, points fds 0/1/2 at
  /dev/null and two files (the parent's own stdio, captured by pytest or not, is never
  touched), and rebuilds sys.stdin/stdout/stderr over those fds as a fresh interpreter
  would (UTF-8; stderr line-buffered with backslashreplace);
- it undoes what the parent's test machinery may have changed: the recursion limit (set
  to what a fresh `python -m navigator` would have left at this depth), signal handlers,
  faulthandler (re-enabled on the new stderr, so a segfault leaves "Fatal Python error");
- it caps its address space with RLIMIT_AS (a generous hard cap: a runaway case fails
  instead of eating the machine) and the size of any file it writes with RLIMIT_FSIZE
  (the disk is shared: a case printing forever fails with EFBIG instead of filling it;
  Python ignores SIGXFSZ), and sets NAVIGATOR_MAX_MEMORY so that Navigator's own
  estimates refuse big work first, NAVIGATOR_CRASH_DIR so that a crash report lands
  in the case's crash folder, and NAVIGATOR_CACHE_DIR to the case's own cache folder;
- it calls the entry point (navigator.cli.main), catches SystemExit (argparse), prints any
  other escaping exception as a traceback on its stderr, and leaves with os._exit(code).

The parent polls with waitid(WNOWAIT), so it can kill leftover grandchildren before it
reaps the child with wait4, whose rusage gives the peak RSS (ru_maxrss, KiB on Linux; it
includes the descendants the child waited for). A child still running at the timeout is
killed with its process group and reported as a hang, unless the machine was too busy to
give it its time: while it has used less CPU than the timeout (its own and its threads',
and that of the children it waited for) it gets up to `WALL_FACTOR` times the timeout of
wall time. So a spinning child is a hang after the timeout's worth of CPU, a blocked one
after WALL_FACTOR timeouts, and neither depends on what else runs on the machine.

Threads: fork copies only the calling thread, so fork after importing but before starting
any thread. `preload()` sets OPENBLAS/OMP/MKL_NUM_THREADS=1 before numpy loads, so BLAS
starts no pool; if numpy was imported earlier (a pytest run of other tests first), the
OpenBLAS pool already exists and its own pthread_atfork handlers make forking safe.
`threads_other_than_main()` lets callers check that no Python thread is running.
"""

from __future__ import annotations

import faulthandler
import io
import os
import resource
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

GIB = 1 << 30
#: the child's address-space cap above what it inherits from the parent
ADDRESS_SPACE_HEADROOM = 3 * GIB
#: the largest file a child may write (RLIMIT_FSIZE), stdout and stderr included
FILE_SIZE_LIMIT = 256 << 20
#: how much of a long stdout/stderr the parent reads: this much of its start and of its end
READ_LIMIT = 512 << 10
#: the exit code of a child whose entry point let an exception escape (a traceback)
ESCAPED_EXCEPTION = 70
#: the frames a fresh `python -m navigator` has up to navigator.cli.main (runpy twice, __main__,
#: navigator.main, navigator.launcher.main, and main itself)
FRESH_DEPTH = 6

#: Imported once by the parent: everything the commands import lazily, so children start warm.
PRELOAD_MODULES = (
    "numpy", "scipy.sparse", "scipy.io", "filelock", "rich",
    "navigator.cli", "navigator.commands.options", "navigator.commands.compiler",
    "navigator.commands.explore", "navigator.commands.simulate", "navigator.commands.navigate",
    "navigator.commands.batch", "navigator.workspace", "navigator.present.views", "navigator.navigation.session",
    "navigator.fuseflow.schedule_space", "navigator.navigation.sampling", "navigator.navigation.replay", "navigator.actions.export", "navigator.auto",
    "navigator.lang", "navigator.synth", "navigator.batch", "navigator.evaluation.tasks",
    "navigator.batch.progress", "navigator.process.crash",
    "fuseflow.program.binding", "fuseflow.program.bundled", "fuseflow.cost.hardware", "fuseflow.schedule", "navigator.fuseflow.summary",
    "navigator.fuseflow.facts", "fuseflow.schedule.space_size", "fuseflow.data.loaders", "fuseflow.data.synthetic",
    "fuseflow.lower", "simulator.evaluate", "navigator.evaluation.report_text", "navigator.evaluation.baselines", "simulator.program_data",
    # issue 21's classes: the model's client and strategy, and the TUI (none starts a thread on import)
    "openai", "navigator.llm.strategy", "navigator.llm.recording", "navigator.tui.app", "harness.tui_apps",
)

_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: variables a user's shell might set that would change which files a command touches
_CLEARED_VARIABLES = ("NAVIGATOR_SESSION", "DASK_SCHEDULER_ADDRESS", "NAVIGATOR_MAX_MEMORY", "NAVIGATOR_CRASH_DIR",
                      "NAVIGATOR_CACHE", "NAVIGATOR_CACHE_DIR", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                      "NAVIGATOR_LLM_MODEL", "NAVIGATOR_CONFIG")


def preload(modules: tuple[str, ...] = PRELOAD_MODULES) -> None:
    """Import what the commands need, once, in the parent (BLAS single-threaded first)."""
    import importlib

    for name in _BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    for name in modules:
        importlib.import_module(name)


def threads_other_than_main() -> list[str]:
    """Python threads besides the main one (forking while they run copies none of them)."""
    return [t.name for t in threading.enumerate() if t is not threading.main_thread()]


def navigator_main(argv: list[str]) -> int | None:
    from navigator.cli import main

    return main(argv)


@dataclass
class RunResult:
    """What one child did."""

    #: the exit code, or -N when a signal N ended it (None for a hang)
    exit_code: int | None
    hung: bool
    seconds: float
    #: peak resident set size in KiB (ru_maxrss), the child and its waited-for descendants
    max_rss_kib: int
    stdout: str
    stderr: str
    #: the sizes of stdout and stderr in bytes (the text above is cut when they are long)
    stdout_bytes: int = 0
    stderr_bytes: int = 0


@dataclass
class Limits:
    timeout: float = 20.0
    #: NAVIGATOR_MAX_MEMORY for the child: Navigator's own estimates refuse past this
    navigator_max_memory: str = "1G"
    #: the RLIMIT_AS hard cap in bytes; None: what the parent uses now + ADDRESS_SPACE_HEADROOM
    address_space: int | None = None


def _virtual_size() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 2 * GIB


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


#: how many timeouts of wall time a child that has not used a timeout of CPU may take
WALL_FACTOR = 5.0
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float:
    """CPU time of a running process, its threads and the children it reaped (/proc/PID/stat:
    utime, stime, cutime, cstime); 0 where /proc is not there."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return sum(int(value) for value in fields[11:15]) / _TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


class Running:
    """A child in flight; `poll()` until it returns a RunResult."""

    def __init__(self, pid: int, out_path: Path, err_path: Path, timeout: float):
        self.pid = pid
        self.out_path = out_path
        self.err_path = err_path
        self.started = time.monotonic()
        self.timeout = timeout
        self.deadline = self.started + timeout
        self.result: RunResult | None = None

    def _finish(self, hung: bool) -> RunResult:
        try:  # stragglers: workers the child started and did not stop (or everything, on a hang)
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _, status, usage = os.wait4(self.pid, 0)
        code = None if hung else os.waitstatus_to_exitcode(status)
        (out, out_bytes), (err, err_bytes) = _read(self.out_path), _read(self.err_path)
        self.result = RunResult(code, hung, time.monotonic() - self.started, usage.ru_maxrss, out, err,
                                out_bytes, err_bytes)
        return self.result

    def poll(self) -> RunResult | None:
        """The result once the child has ended (or hung past the timeout), else None."""
        if self.result is not None:
            return self.result
        info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None:
            return self._finish(hung=False)
        now = time.monotonic()
        if now > self.deadline:
            if now < self.started + WALL_FACTOR * self.timeout and cpu_seconds(self.pid) < self.timeout:
                self.deadline = now + 0.5  # a busy machine, not a hang: look again soon
                return None
            return self._finish(hung=True)
        return None

    def wait(self) -> RunResult:
        pause = 0.001
        while (result := self.poll()) is None:
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        return result

    def kill(self) -> None:
        if self.result is None:
            self._finish(hung=True)

    def send(self, number: int) -> None:
        """Send signal `number` to the child's process group (a kill at a random moment)."""
        try:
            os.killpg(self.pid, number)
        except (ProcessLookupError, PermissionError):
            pass


def _read(path: Path) -> tuple[str, int]:
    """The text of a child's stdout or stderr (its start and end when long), and its size."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(READ_LIMIT)
            if size > 2 * READ_LIMIT:
                handle.seek(size - READ_LIMIT)
                data += f"\n[... {size - 2 * READ_LIMIT} bytes left out ...]\n".encode() + handle.read()
            else:
                data += handle.read()
    except OSError:
        return "", 0
    return data.decode("utf-8", "backslashreplace"), size


class ForkRunner:
    """Runs an entry point (default: navigator.cli.main) in forked children, one per case."""

    def __init__(self, limits: Limits | None = None, entry: Callable[[list[str]], int | None] = navigator_main):
        self.limits = limits or Limits()
        self.entry = entry

    def start(self, folder: Path, argv: list[str], io_folder: Path, crash_folder: Path,
              cache_folder: Path | None = None, env: dict[str, str] | None = None,
              entry: Callable[[list[str]], int | None] | None = None, timeout: float | None = None) -> Running:
        """Fork a child running `entry(argv)` (default: this runner's entry) in `folder`; its
        stdout/stderr go to `io_folder`. Navigator's cache (navigator.workspace.cache) is
        `cache_folder`, or off when it is None; `env` adds variables (a case's model settings);
        `timeout` replaces the limits' one for this child."""
        out_path, err_path = io_folder / "stdout", io_folder / "stderr"
        address_space = self.limits.address_space or _virtual_size() + ADDRESS_SPACE_HEADROOM
        extra_env = env
        env = {"NAVIGATOR_MAX_MEMORY": self.limits.navigator_max_memory, "NAVIGATOR_CRASH_DIR": str(crash_folder)}
        env.update({"NAVIGATOR_CACHE_DIR": str(cache_folder)} if cache_folder else {"NAVIGATOR_CACHE": "off"})
        env.update(extra_env or {})
        flush_standard_streams()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _child(entry or self.entry, folder, list(argv), out_path, err_path, env, address_space)
        try:  # the child does this too; whichever runs first, a kill at the timeout reaches the group
            os.setpgid(pid, pid)
        except OSError:
            pass
        return Running(pid, out_path, err_path, self.limits.timeout if timeout is None else timeout)

    def run(self, folder: Path, argv: list[str], io_folder: Path, crash_folder: Path,
            cache_folder: Path | None = None, env: dict[str, str] | None = None) -> RunResult:
        return self.start(folder, argv, io_folder, crash_folder, cache_folder, env).wait()


def _child(entry, folder: Path, argv: list[str], out_path: Path, err_path: Path, env: dict[str, str],
           address_space: int) -> None:
    code = ESCAPED_EXCEPTION
    try:
        os.setpgid(0, 0)
        _redirect(out_path, err_path)
        os.chdir(folder)
        for name in _CLEARED_VARIABLES:
            os.environ.pop(name, None)
        os.environ.update(env)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        faulthandler.enable(file=sys.stderr, all_threads=True)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            address_space = min(address_space, hard)
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
        sys.setrecursionlimit(_stack_depth() + 1000 - FRESH_DEPTH)
        code = _call(entry, argv)
    except BaseException:  # noqa: BLE001 - the harness's own failure in the child: show it
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - e.g. a lone surrogate left in stdout's buffer
                code = code if code != 0 else ESCAPED_EXCEPTION
        os._exit(code)


def _redirect(out_path: Path, err_path: Path) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, out_path), (2, err_path)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    # What a fresh interpreter in a UTF-8 locale has: stdout strict, stderr backslashreplace.
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="strict")
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)


def _call(entry, argv: list[str]) -> int:
    """The exit code the interpreter would give: SystemExit's code, or a traceback and 70."""
    try:
        code = entry(argv)
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - what a real run would print before dying
        traceback.print_exc()
        return ESCAPED_EXCEPTION
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def flush_standard_streams() -> None:
    """Before a fork: what this process buffered must not be written twice, once by the child."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
