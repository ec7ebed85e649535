"""The fuzz harness (harness/fuzz), run for longer: cases per class, failures, hangs, exit codes.

    python benchmarks/fuzz.py                        # 10,000 cases, seed 1, 2 at a time
    python benchmarks/fuzz.py --cases 500 --seed 7 --jobs 1
    python benchmarks/fuzz.py --save-failures failures/   # one reproducer file per distinct failure
    python benchmarks/fuzz.py --replay-case 7:123         # run generated case 123 of seed 7 again
    python benchmarks/fuzz.py --replay failures/1.json    # run a saved reproducer again
    python benchmarks/fuzz.py --replay-hostile schedule-nan

Every case is generated from (seed, index) by the same code as the pytest run
(harness/fuzz/generators.py), driven by random.Random(f"{seed}:{index}") instead of
Hypothesis; the issues' known hostile inputs (harness/fuzz/hostile.py) run first. Each case
runs in a child forked from this process (harness/fuzz/runner.py) and is judged by
harness/fuzz/harness.py. Prints one JSON object. Target: 0 tracebacks, 0 hangs, 0 lost or
foreign-modified files and 0 leaked keys in 10,000 cases (docs/fuzzing.md). A replay keeps the case's folder and prints its path, so the command can be rerun
there by hand (`cd FOLDER/root && navigator ARGV`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads
    os.environ.setdefault(_name, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.fuzz.cases import CLASSES, Case, remove_tree  # noqa: E402
from harness.fuzz.harness import CaseRun, Tally  # noqa: E402
from harness.fuzz.runner import ForkRunner, Limits, preload, threads_other_than_main  # noqa: E402


def case_of(seed: int, index: int, corpus) -> Case:
    from harness.fuzz.generators import class_of, generate

    rng = random.Random(f"{seed}:{index}")
    return generate(class_of(index), rng, corpus)


def run_all(cases: list[tuple[str, Case]], runner: ForkRunner, scratch: Path, jobs: int, tally: Tally,
            failures: list[tuple[str, object]]) -> None:
    """Run the cases `jobs` at a time; every outcome goes into `tally`, failing ones into `failures`."""
    pending = list(reversed(cases))
    running: list[tuple[str, CaseRun]] = []
    try:
        while pending or running:
            while pending and len(running) < jobs:
                label, case = pending.pop()
                running.append((label, CaseRun(case, runner, scratch)))
            still = []
            for label, case_run in running:
                outcome = case_run.poll()
                if outcome is None:
                    still.append((label, case_run))
                    continue
                tally.add(outcome)
                if outcome.failures:
                    failures.append((label, outcome))
            if len(still) == len(running):
                time.sleep(0.002)
            running = still
    finally:
        for _, case_run in running:
            case_run.kill()


def replay(case: Case, runner: ForkRunner, scratch: Path) -> int:
    case_run = CaseRun(case, runner, scratch, keep=True)
    outcome = case_run.wait()
    report = {"folder": str(case_run.folder), "argv": case.argv, "exit_code": outcome.result.exit_code,
              "hung": outcome.result.hung, "failures": outcome.failures, "contract": outcome.contract,
              "stdout": outcome.result.stdout[-3000:], "stderr": outcome.result.stderr[-3000:],
              "crash_reports": outcome.crash_reports,
              "unexpected_changes": [c.describe() for c in outcome.unexpected],
              "findings": [f"{name}: {detail}" for name, detail in outcome.findings],
              "follow_ups": [{"argv": argv, "exit_code": r.exit_code, "stderr": r.stderr[-1000:]}
                             for argv, r in outcome.follow_ups], "note": case.note}
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 1 if outcome.failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="generated cases (the hostile ones run too)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, metavar="I",
                        help="run generated cases I to I+CASES-1 (resume or split a long run)")
    parser.add_argument("--jobs", type=int, default=2, help="cases at once")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before a case counts as a hang")
    parser.add_argument("--reproducers", type=int, default=5, help="failing reproducers to print")
    parser.add_argument("--save-failures", metavar="DIR", help="write the first case of each distinct failure here")
    parser.add_argument("--no-hostile", action="store_true", help="skip the fixed hostile inputs")
    parser.add_argument("--replay", metavar="FILE", help="run one saved reproducer and keep its folder")
    parser.add_argument("--replay-case", metavar="SEED:INDEX", help="run one generated case again")
    parser.add_argument("--replay-hostile", metavar="NAME", help="run one of the fixed hostile inputs")
    args = parser.parse_args(argv)
    # SIGINT ends the run with a partial report, even when a shell started it in the background
    # (which leaves SIGINT ignored, so Python installs no handler of its own)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # A reproducer may hold a lone surrogate (a hostile answer): printed escaped, never an error.
    sys.stdout.reconfigure(errors="backslashreplace")

    preload()
    if threads_other_than_main():
        print(f"warning: threads running before fork: {threads_other_than_main()}", file=sys.stderr)
    runner = ForkRunner(Limits(timeout=args.timeout))
    scratch = Path(tempfile.mkdtemp(prefix="navigator-fuzz-"))
    replaying = args.replay or args.replay_case or args.replay_hostile
    try:
        from harness.fuzz.corpus import build_corpus
        from harness.fuzz.hostile import hostile_cases

        started = time.perf_counter()
        if args.replay:
            return replay(Case.from_json(json.loads(Path(args.replay).read_text(encoding="utf-8"))), runner, scratch)
        corpus = build_corpus(runner, scratch)
        corpus_seconds = time.perf_counter() - started
        if args.replay_case:
            seed, index = (int(part) for part in args.replay_case.split(":"))
            return replay(case_of(seed, index, corpus), runner, scratch)
        hostile = hostile_cases(corpus)
        if args.replay_hostile:
            return replay(hostile[args.replay_hostile], runner, scratch)
        cases = [] if args.no_hostile else [(f"--replay-hostile {name}", case) for name, case in hostile.items()]
        cases += [(f"--replay-case {args.seed}:{i}", case_of(args.seed, i, corpus))
                  for i in range(args.first, args.first + args.cases)]
        tally, failures, aborted = Tally(), [], None
        started = time.perf_counter()
        try:
            run_all(cases, runner, scratch, max(1, args.jobs), tally, failures)
        except (Exception, KeyboardInterrupt) as exc:  # report what ran (a full disk, Ctrl-C...)
            aborted = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - started
    finally:
        if not replaying:
            remove_tree(scratch)
    report = tally.to_json(args.reproducers)
    labels = {id(outcome): label for label, outcome in failures}
    for entry, (_, (_, outcome)) in zip(report["first_reproducers"],
                                        sorted(tally.distinct.items(), key=lambda item: -item[1][0])):
        entry["replay"] = f"python benchmarks/fuzz.py {labels[id(outcome)]}"
    if args.save_failures:
        folder = Path(args.save_failures)
        folder.mkdir(parents=True, exist_ok=True)
        ranked = sorted(tally.distinct.items(), key=lambda item: -item[1][0])
        for number, (signature, (count, outcome)) in enumerate(ranked, start=1):
            data = {**outcome.case.to_json(), "signature": signature, "cases": count,
                    "replay": labels[id(outcome)]}
            (folder / f"{number}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    report.update({"aborted": aborted, "seed": args.seed, "jobs": args.jobs, "timeout": args.timeout,
                   "hostile_cases": 0 if args.no_hostile else len(hostile), "generated_cases": args.cases,
                   "first_case": args.first,
                   "corpus_seconds": round(corpus_seconds, 2), "seconds": round(seconds, 2),
                   "cases_per_second": round(len(cases) / seconds, 2) if seconds else None,
                   # An internal error is a traceback caught by the last-resort handler: it counts as one.
                   "target": "0 tracebacks (internal errors included), 0 hangs, 0 lost or foreign-modified files "
                             "and 0 leaked keys in 10,000 cases",
                   "target_met": report["tracebacks"] + report["internal_errors"] + report["crash_files"] == 0
                   and report["hangs"] == 0 and report["leaked_keys"] == 0
                   and report["lost_work"] + report["unreadable_sessions"] + report["torn_writes"] == 0
                   and report["modified_file_violations"] == 0 and args.cases >= 10_000 and not aborted})
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 1 if aborted else 0


if __name__ == "__main__":
    raise SystemExit(main())
