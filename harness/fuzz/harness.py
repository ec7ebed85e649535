"""Run one fuzz case and judge it: the one place the harness's assertions live.

Used by tests/harness/test_fuzz_cli.py (a bounded run under pytest) and benchmarks/fuzz.py
(a long run). A case's folder holds `root/` (the case's files; the command's working
directory; snapshotted before and after), `io/` (the child's stdout and stderr) and
`crash/` (NAVIGATOR_CRASH_DIR).

Hard failures (the pytest fails on any):
  hang            still running at the timeout (killed with its process group)
  signal          ended by a signal (a segfault, or the kernel killing it)
  exit-code       an exit code other than 0, 1 or 2
  traceback       "Traceback (most recent call last)" or "Fatal Python error" in its output
  internal-error  Navigator's last-resort handler fired ("internal error ... a bug")
  crash-file      a crash report appeared in NAVIGATOR_CRASH_DIR
  memory          peak RSS above the limit
  modified-files  a file changed that the command line does not name as an output
  huge-output     more than 16 MiB on stdout or stderr, or a file of over 64 MiB written
                  (a file hitting the RLIMIT_FSIZE cap of harness/fuzz/runner.py counts too)
  error-line      exit 2 whose last line on stderr does not start with "navigator: error:"
The checks of issue 21's classes (each only where it applies):
  leaked-key      the case's API key, in any escaped form, in stdout, stderr, a crash report, or any
                  file of the case's folder or its cache folder
  session-unreadable  after a kill, `navigator show` does not load the session (or, in the TUI, the
                  session file on disk does not load)
  session-mismatch  the TUI shows other steps than its session file holds
  tui-exit        the TUI ended with a return code other than 0 (an error it showed and died of)
  lost-work       after a kill, the session file is gone or empty
  torn-write      after a kill, a named JSON output exists but does not parse
  temp-left       after a kill and the next command, a hidden temporary file is left beside an output
  cache-divergence  with a hostile cache, the exit code or stdout differ from a run without a cache
  (a file changed outside the named outputs, e.g. the target of a cache entry's link, is
  modified-files: the foreign-modified check)
Contract findings (counted and reported, never failing the pytest):
  no-location     the error line names no file, key or argument (`WHERE: MESSAGE`)
  no-fix          the error line gives no fix (`(FIX)` at its end)
  several-errors  more than one "navigator: error:" line
  json-stdout     --json and exit 0, but stdout is not one JSON document
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness.fuzz.cases import CLASSES, Case, remove_tree
from harness.fuzz import checks
from harness.fuzz.outputs import NamedOutputs, named_outputs, parse_arguments, tui_outputs, unexpected_changes
from harness.fuzz.runner import ForkRunner, Limits, RunResult, Running
from harness.fuzz.snapshot import Change, compare, take_snapshot

#: peak resident memory a case may use (the forked child starts with the parent's pages)
RSS_LIMIT_KIB = 1536 * 1024
#: what a case may print, and the largest file it may write: small inputs make small outputs
PRINT_LIMIT = 16 << 20
WRITE_LIMIT = 64 << 20
ERROR_PREFIX = "navigator: error:"
HARD = ("hang", "signal", "exit-code", "traceback", "internal-error", "crash-file", "memory", "modified-files",
        "huge-output", "error-line", "leaked-key", "session-unreadable", "session-mismatch", "tui-exit", "lost-work",
        "torn-write",
        "temp-left", "cache-divergence")
CONTRACT = ("no-location", "no-fix", "several-errors", "json-stdout")
_TRACEBACK_MARKERS = ("Traceback (most recent call last)", "Fatal Python error")


@dataclass
class Outcome:
    case: Case
    result: RunResult
    named: NamedOutputs
    unexpected: list[Change] = field(default_factory=list)
    #: the size of the largest file the case created or changed
    largest_write: int = 0
    crash_reports: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    contract: list[str] = field(default_factory=list)
    #: failures found by the checks around the run (harness/fuzz/checks.py), with what each saw
    findings: list[tuple[str, str]] = field(default_factory=list)
    #: the commands run after the case (after a kill), and what each did
    follow_ups: list[tuple[list[str], RunResult]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def signature(self) -> str:
        """A short key that groups failures with one cause: the kinds, and the exception and
        the innermost Navigator frame when there is a traceback."""
        text = "\n".join(self.crash_reports) or self.result.stderr
        return " | ".join([",".join(self.failures), self.case.argv[0] if self.case.argv else "",
                           *_exception_site(text)])

    def describe(self, preview: int = 400) -> dict:
        """A reproducer: the case (file contents cut to `preview` bytes) and what went wrong."""
        stderr = self.result.stderr
        return {
            "failures": self.failures,
            "contract": self.contract,
            "exit_code": self.result.exit_code,
            "seconds": round(self.result.seconds, 3),
            "max_rss_mib": round(self.result.max_rss_kib / 1024, 1),
            "stderr_tail": stderr[-1500:],
            "crash_report_tail": self.crash_reports[0][-1500:] if self.crash_reports else None,
            "unexpected_changes": [c.describe() for c in self.unexpected],
            "findings": [f"{name}: {detail}"[:600] for name, detail in self.findings],
            "follow_ups": [{"argv": argv, "exit_code": result.exit_code, "stderr_tail": result.stderr[-600:]}
                           for argv, result in self.follow_ups],
            "case": self.case.to_json(preview),
        }


def _exception_site(text: str) -> list[str]:
    """['KeyError', 'fuseflow/schedule.py:123'] from a traceback, or [] without one."""
    frames = re.findall(r'File "([^"]+)", line (\d+)', text)
    ours = [(f, n) for f, n in frames if re.search(r"(navigator|fuseflow|simulator)/", f)]
    site = []
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        match = re.match(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|error))\b", line)
        if match:
            site.append(match.group(1).rsplit(".", 1)[-1])
            break
    internal = re.search(r"internal error \(a bug[^)]*\): (\w+)", text)
    if internal and not site:
        site.append(internal.group(1))
    if ours:
        path, number = ours[-1]
        short = re.sub(r".*/((?:navigator|fuseflow|simulator)/.*)$", r"\1", path)
        site.append(f"{short}:{number}")
    return site


def _message_shape(stderr: str) -> str:
    """The last error line with quoted text, paths and numbers blanked, to group like messages."""
    line = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line[len(ERROR_PREFIX):].strip())
    line = re.sub(r"\S*/\S*|\d+", "#", line)
    return line[:120]


def judge(outcome: Outcome, rss_limit_kib: int = RSS_LIMIT_KIB) -> None:
    """Fill in outcome.failures and outcome.contract."""
    result, failures, contract = outcome.result, outcome.failures, outcome.contract
    both = result.stdout + result.stderr + "".join(r.stdout + r.stderr for _, r in outcome.follow_ups)
    killed = outcome.case.kill is not None
    if result.hung or any(r.hung for _, r in outcome.follow_ups):
        failures.append("hang")
    elif killed and result.exit_code == -outcome.case.kill["signal"]:
        pass  # the signal the harness sent
    elif result.exit_code is not None and result.exit_code < 0:
        failures.append("signal")
    elif result.exit_code not in (0, 1, 2) and not (killed and result.exit_code == 128 + outcome.case.kill["signal"]):
        failures.append("exit-code")
    if any(marker in both for marker in _TRACEBACK_MARKERS):
        failures.append("traceback")
    if "internal error" in result.stderr or any("internal error" in r.stderr for _, r in outcome.follow_ups):
        failures.append("internal-error")
    if outcome.crash_reports:
        failures.append("crash-file")
    if result.max_rss_kib > rss_limit_kib:
        failures.append("memory")
    if outcome.unexpected:
        failures.append("modified-files")
    for name, _ in outcome.findings:
        if name not in failures:
            failures.append(name)
    if max(result.stdout_bytes, result.stderr_bytes) > PRINT_LIMIT or outcome.largest_write > WRITE_LIMIT:
        failures.append("huge-output")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(ERROR_PREFIX)]
    if result.exit_code == 2 and not result.hung and not killed:
        if not lines or not lines[-1].startswith(ERROR_PREFIX):
            failures.append("error-line")
        else:
            contract.extend(_contract_of(lines[-1]))
    if len(errors) > 1:
        contract.append("several-errors")
    if result.exit_code == 0 and _asks_for_json(outcome.case.argv):
        try:
            json.loads(result.stdout)
        except ValueError:
            contract.append("json-stdout")


def _contract_of(line: str) -> list[str]:
    """`navigator: error: WHERE: MESSAGE (FIX)`: is there a WHERE, and a FIX?"""
    message = line[len(ERROR_PREFIX):].strip()
    found = []
    if ": " not in message:
        found.append("no-location")
    if not re.search(r"\)\s*$", message):
        found.append("no-fix")
    return found


def _asks_for_json(argv: list[str]) -> bool:
    args = parse_arguments(argv)
    return args is not None and getattr(args, "json", None) is True


#: the seconds a TUI case may take per key group beyond one command's timeout: a group can
#: run a strategy or an evaluation, and twenty of them on a loaded machine take longer than
#: one command (a 17-group case took 9 s alone and over 20 s beside another heavy case)
TUI_SECONDS_PER_GROUP = 2.0


def case_timeout(case: Case, command_timeout: float) -> float:
    """When a case counts as hung: one command's timeout, and a TUI session more per key group."""
    if case.driver == "tui":
        return command_timeout + TUI_SECONDS_PER_GROUP * len(case.argv[1:])
    return command_timeout


class CaseRun:
    """One case in flight: laid out, snapshotted and started; `poll()` judges it once it ends.

    Around the run: a hostile model server when the case lists answers (harness/fuzz/llm_faults.py),
    hostile cache entries laid out first, a signal sent at the case's moment, the commands that
    follow it, and a second run without a cache to compare with."""

    def __init__(self, case: Case, runner: ForkRunner, scratch: Path, rss_limit_kib: int = RSS_LIMIT_KIB,
                 keep: bool = False):
        self.case = case
        self.runner = runner
        self.rss_limit_kib = rss_limit_kib
        self.keep = keep
        self.folder = Path(tempfile.mkdtemp(prefix=f"{case.klass}-", dir=scratch))
        # The cache lives beside root, outside the snapshot: a command may write it (harness/fuzz/outputs.py).
        self.root, self.io, self.crash = (self.folder / name for name in ("root", "io", "crash"))
        for folder in (self.root, self.io, self.crash):
            folder.mkdir()
        case.materialize(self.root)
        self.cache = case.materialize_cache(self.folder)
        self.server = None
        if case.llm:
            from harness.fuzz.llm_faults import FaultServer

            self.server = FaultServer(case.llm).start()
        self.env = checks.case_environment(case, self.server.url if self.server else None)
        if case.driver == "tui":
            self.named = tui_outputs()
        else:
            self.named = named_outputs(case.argv, self.root)
            for argv in case.then:
                more = named_outputs(argv, self.root)
                self.named.files |= more.files
                self.named.locks |= more.locks
        self.before = take_snapshot(self.root)
        self.kill_at = None if case.kill is None else time.monotonic() + float(case.kill["after"])
        self.running: Running = runner.start(self.root, case.argv, self.io, self.crash, self.cache, self.env,
                                             entry=checks.driver_entry(case.driver),
                                             timeout=case_timeout(case, runner.limits.timeout))
        self.outcome: Outcome | None = None

    def poll(self) -> Outcome | None:
        if self.outcome is not None:
            return self.outcome
        if self.kill_at is not None and time.monotonic() >= self.kill_at:
            self.running.send(int(self.case.kill["signal"]))
            self.kill_at = None
        result = self.running.poll()
        if result is None:
            return None
        try:
            outcome = self._judge(result)
        finally:
            if self.server is not None:
                self.server.stop()
            if not self.keep:
                remove_tree(self.folder)
        self.outcome = outcome
        return outcome

    def _judge(self, result: RunResult) -> Outcome:
        case = self.case
        if self.server is not None:  # the follow-ups ask no model
            self.server.stop()
        follow_ups = []
        for number, argv in enumerate(case.then):
            io_folder = self.folder / f"io-then-{number}"
            io_folder.mkdir()
            follow_ups.append((argv, self.runner.run(self.root, argv, io_folder, self.crash, self.cache, self.env)))
        changes = compare(self.before, take_snapshot(self.root))
        reports = [path.read_text(encoding="utf-8", errors="replace") for path in sorted(self.crash.iterdir())]
        largest = max((c.after.size for c in changes if c.after is not None and c.after.kind == "file"), default=0)
        unexpected = unexpected_changes(changes, self.named)
        findings = checks.findings_in_stderr(result.stderr) if case.driver == "tui" else []
        if case.kill is not None:
            findings += checks.after_kill(case, self.root, follow_ups, self.named)
            unexpected = [c for c in unexpected if not checks.is_temporary(c.path)]
        if case.secret:
            findings += checks.leaks(case.secret, [result.stdout, result.stderr, *reports,
                                                   *(r.stdout + r.stderr for _, r in follow_ups)],
                                     [self.root, self.cache])
        if case.compare_uncached and not result.hung:
            findings += checks.against_uncached(case, result, self.runner, self.folder, self.env)
        outcome = Outcome(case, result, self.named, unexpected=unexpected, crash_reports=reports,
                          largest_write=largest, findings=findings, follow_ups=follow_ups)
        judge(outcome, self.rss_limit_kib)
        return outcome

    def wait(self) -> Outcome:
        while (outcome := self.poll()) is None:
            time.sleep(0.002)
        return outcome

    def kill(self) -> None:
        self.running.kill()
        self.poll()


def run_case(case: Case, runner: ForkRunner, scratch: Path, **options) -> Outcome:
    return CaseRun(case, runner, scratch, **options).wait()


@dataclass(repr=False)
class Tally:
    """Counts over many outcomes, and the first reproducer of each distinct failure."""

    cases: Counter = field(default_factory=Counter)
    exit_codes: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    contract: Counter = field(default_factory=Counter)
    contract_examples: dict = field(default_factory=dict)
    #: error lines without a location or a fix, grouped by their message with paths and numbers blanked
    contract_messages: Counter = field(default_factory=Counter)
    distinct: dict = field(default_factory=dict)  # signature -> [count, first Outcome]
    seconds: float = 0.0
    #: the children's wall time per class (the command's run, not the follow-ups or comparisons)
    class_seconds: Counter = field(default_factory=Counter)

    def __repr__(self) -> str:
        return f"Tally({sum(self.cases.values())} cases)"

    def _repr_pretty_(self, printer, cycle) -> None:  # Hypothesis's printer otherwise lists every field
        printer.text(repr(self))

    def add(self, outcome: Outcome) -> None:
        result = outcome.result
        self.cases[outcome.case.klass] += 1
        self.class_seconds[outcome.case.klass] += result.seconds
        self.exit_codes["hang" if result.hung else str(result.exit_code)] += 1
        self.failures.update(outcome.failures)
        self.contract.update(outcome.contract)
        for kind in outcome.contract:
            self.contract_examples.setdefault(kind, {"argv": outcome.case.argv, "class": outcome.case.klass,
                                                     "stderr_tail": result.stderr[-400:]})
        if {"no-location", "no-fix"} & set(outcome.contract):
            self.contract_messages[_message_shape(result.stderr)] += 1
        if outcome.failures:
            entry = self.distinct.setdefault(outcome.signature(), [0, outcome])
            entry[0] += 1

    def to_json(self, reproducers: int = 5, preview: int = 400) -> dict:
        total = sum(self.cases.values())
        ranked = sorted(self.distinct.items(), key=lambda item: -item[1][0])
        return {
            "cases": total,
            "cases_per_class": {name: self.cases[name] for name in CLASSES},
            "seconds_per_class": {name: round(self.class_seconds[name], 1) for name in CLASSES},
            "exit_codes": dict(sorted(self.exit_codes.items())),
            "failing_cases": sum(count for count, _ in self.distinct.values()),
            "tracebacks": self.failures["traceback"],
            "internal_errors": self.failures["internal-error"],
            "crash_files": self.failures["crash-file"],
            "hangs": self.failures["hang"],
            "signals": self.failures["signal"],
            "bad_exit_codes": self.failures["exit-code"],
            "memory_limit_breaches": self.failures["memory"],
            "modified_file_violations": self.failures["modified-files"],
            "huge_outputs": self.failures["huge-output"],
            "error_line_violations": self.failures["error-line"],
            "leaked_keys": self.failures["leaked-key"],
            "lost_work": self.failures["lost-work"],
            "unreadable_sessions": self.failures["session-unreadable"],
            "session_mismatches": self.failures["session-mismatch"],
            "torn_writes": self.failures["torn-write"],
            "temporary_files_left": self.failures["temp-left"],
            "cache_divergences": self.failures["cache-divergence"],
            "contract_violations": {kind: self.contract[kind] for kind in CONTRACT},
            "contract_examples": self.contract_examples,
            "contract_messages": dict(self.contract_messages.most_common(15)),
            "distinct_failures": [{"signature": signature, "cases": count} for signature, (count, _) in ranked],
            "first_reproducers": [{"signature": signature, "cases": count, **outcome.describe(preview)}
                                  for signature, (count, outcome) in ranked[:reproducers]],
        }


__all__ = ["CLASSES", "Case", "CaseRun", "ForkRunner", "HARD", "CONTRACT", "Limits", "Outcome", "Tally", "judge",
           "run_case"]
