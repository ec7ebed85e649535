"""`batch` and `sample`: evaluate many schedules, and draw them uniformly from the space."""

from __future__ import annotations

from fuseflow.support.errors import UserError
from navigator.commands.options import (add_data_options, add_policy_option, add_session_option, parse_dims,
                                        print_json, seconds, whole_number)
from navigator.process.console import say

JSON_VERSION = 1
#: memory for one sampled file's entry in the summary (path and key)
SAMPLE_ENTRY_BYTES = 512


def _timeout(text: str) -> float:
    """Seconds per candidate, up to the longest timeout a worker can set (read when a value is
    parsed, so that building the parser imports no evaluation code)."""
    from navigator.evaluation.tasks import MAX_TIMEOUT_SECONDS

    return seconds(MAX_TIMEOUT_SECONDS, " (leave out --timeout for no limit)")(text)


# ---------------------------------------------------------------- batch

def cmd_batch(args) -> int:
    import os

    from navigator.batch import EvalConfig, ResultsLog, collect_candidates, open_executor, run_batch
    from navigator.batch.engines import check_local_jobs
    from navigator.evaluation.tasks import ensure_reference, load_inputs
    from navigator.batch.progress import BatchProgress
    from navigator.commands.options import tensor_program_spec
    from navigator.workspace import ProgramSpec

    if args.engine == "local" and args.jobs:
        check_local_jobs(args.jobs)  # before the slow loading below
    spec = ProgramSpec.from_user(tensor_program_spec(args), args.data, parse_dims(args.dim))
    hardware = os.path.realpath(args.hardware) if args.hardware else None
    config = EvalConfig(spec, hardware, args.policy, args.executor, args.seed, not args.no_check)
    # Load now: input errors stop here (exit 2), and forked workers inherit the loaded inputs.
    inputs = load_inputs(spec, hardware, args.seed)
    if config.check:
        ensure_reference(inputs)
    candidates = collect_candidates(args.schedules, inputs.program)
    run_id = config.run_id()
    with ResultsLog(args.out) as results:
        others = sorted({str(r.get("run")) for r in results.records.values()} - {run_id})
        if others:
            raise UserError(f"holds results of another program, data, dimensions or settings (run {others[0]}; "
                            f"this run is {run_id})", where=args.out,
                            fix="use another --out, or the same program and options as the run that wrote it")
        unique = {c.key for c in candidates}
        done = sum(1 for key in unique if key in results.records
                   and not (args.retry_failed and results.records[key].get("status") != "ok"))
        with open_executor(args.engine, args.jobs, args.scheduler) as handle:
            with BatchProgress(len(unique), done, enabled=not args.no_progress) as progress:
                summary = run_batch(candidates, config, handle.executor, results, slots=handle.slots,
                                    timeout=args.timeout, engine=handle.engine, retry_failed=args.retry_failed,
                                    on_record=progress.record, restart=handle.restart, abort=handle.abort)
    if summary.repaired_bytes:
        say(f"navigator: {args.out}: removed a truncated last line ({summary.repaired_bytes} bytes) left by "
            "an interrupted run")
    data = {"format": "navigator-batch", "version": JSON_VERSION, "out": args.out, "program": inputs.program.name,
            "run": run_id, "engine": handle.engine, "slots": handle.slots, **summary.to_dict()}
    if args.json:
        print_json(data)
    failures = ", ".join(f"{n} {kind}" for kind, n in sorted(summary.failures.items())) or "none"
    say(f"navigator: {summary.unique} schedules ({summary.duplicates} duplicate files): {summary.skipped} already in "
        f"{args.out}, {summary.evaluated} evaluated now ({summary.ok} ok, failures: {failures}) in "
        f"{summary.seconds:.1f} s, {summary.throughput:.2f} schedules/s")
    if summary.interrupted:
        say(f"navigator: interrupted; {summary.remaining} schedules left. Every finished result is in {args.out}: "
            "rerun the same command to resume")
        return 130
    if summary.aborted:
        say(f"navigator: error: {summary.aborted}; {summary.remaining} schedules left (rerun to resume)")
        return 1
    if summary.failed_keys:
        say(f"navigator: {len(summary.failed_keys)} schedules failed; their errors are in {args.out}")
        return 1
    return 0


# ---------------------------------------------------------------- sample

def cmd_sample(args) -> int:
    """Draw N complete sketches uniformly (the menus' exact counts) and write each as the file
    its space exports: a schedule's JSON, or a Honeybee problem's expression. Every program
    built without the library's aliases (shortcuts) counts."""
    import random
    import secrets

    from fuseflow.support.files import ensure_folder, file_stem, write_text_atomic
    from fuseflow.support.memory import check_memory
    from navigator.evaluation.result_keys import schedule_key
    from navigator.navigation.sampling import UniformSampler
    from navigator.workspace import ProgramSpec

    # the summary keeps a line per file
    check_memory(args.n * SAMPLE_ENTRY_BYTES, "the list of the N sampled files", where="N",
                 fix="draw fewer schedules per run")
    spec = ProgramSpec.from_user(args.program, args.data, parse_dims(args.dim), args.library)
    space = spec.load().space
    sampler = UniformSampler(space.oracle)
    size = sampler.size()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    rng = random.Random(seed)
    out = ensure_folder(args.out)  # a file in the way, or no right to create it: before the first draw
    width = max(3, len(str(args.n)))
    files = []
    for index in range(1, args.n + 1):
        sketch = sampler.sample(rng)
        path = out / f"{file_stem(space.name)}-{index:0{width}d}.json"
        write_text_atomic(path, space.document_text(sketch))
        files.append({"path": str(path), "key": schedule_key(space.document_of(sketch))})
    unique = len({f["key"] for f in files})
    if args.json:
        print_json({"format": "navigator-sample", "version": JSON_VERSION, "program": space.name,
                    **spec.summary_json(), "seed": seed, "space": size, "count": args.n, "unique": unique,
                    "out": str(out), "files": files})
    say(f"navigator: wrote {args.n} {space.product}s of {space.name} to {out} ({unique} distinct; the space "
        f"holds {size}; seed {seed})")
    return 0


# ---------------------------------------------------------------- registration

def register(subs) -> None:
    batch = subs.add_parser("batch", help="evaluate many schedules in parallel into a resumable JSON-lines file")
    batch.add_argument("schedules", nargs="+", metavar="SCHEDULE",
                       help="schedule .json files, or folders of them")
    batch.add_argument("--program", help="program path or bundled name (default: the current session's)")
    add_data_options(batch)
    batch.add_argument("--hardware", metavar="H", help="hardware .toml overriding the defaults")
    batch.add_argument("--out", required=True, metavar="FILE", help="results, one JSON line per schedule")
    batch.add_argument("--jobs", type=whole_number(), metavar="N",
                       help="candidates at once (local: worker processes, default: CPU count, at most 4 per "
                            "CPU; dask: default: the cluster's threads)")
    batch.add_argument("--engine", choices=("local", "dask"), default="local",
                       help="local process pool, or a dask.distributed cluster")
    batch.add_argument("--scheduler", metavar="ADDR", help="dask scheduler address, e.g. tcp://127.0.0.1:8786")
    batch.add_argument("--timeout", type=_timeout, metavar="S", help="seconds allowed per schedule")
    add_policy_option(batch)
    batch.add_argument("--executor", choices=("fast", "exact"), default="fast", help="simulator executor")
    batch.add_argument("--seed", type=int, help="seed for generated data (default: the program's)")
    batch.add_argument("--no-check", action="store_true", help="skip the numerical check against numpy")
    batch.add_argument("--retry-failed", action="store_true",
                       help="evaluate again the schedules whose recorded result is a failure")
    batch.add_argument("--no-progress", action="store_true", help="no progress bar")
    batch.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    add_session_option(batch)
    batch.set_defaults(run=cmd_batch)

    sample = subs.add_parser("sample", help="draw N schedules (or a Honeybee problem's expressions) uniformly at "
                                            "random from the valid space")
    sample.add_argument("program", help="path to a program .toml, a bundled program's name, or a Honeybee problem "
                                        ".hb.toml (with --library)")
    sample.add_argument("n", metavar="N", type=whole_number(bounded=False), help="how many schedules")
    sample.add_argument("--out", required=True, metavar="DIR", help="folder for the schedule .json files")
    sample.add_argument("--seed", type=int, help="random seed (default: a fresh one, printed)")
    add_data_options(sample)
    sample.add_argument("--library", metavar="L", help="scheduling library (default: the bundled FuseFlow library; "
                                                       "required for a Honeybee problem)")
    sample.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    sample.set_defaults(run=cmd_sample)
