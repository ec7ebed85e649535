"""Session commands: start, show, fill, undo, redo, history, export.

Each command reads the session file named by --session, $NAVIGATOR_SESSION or
.navigator/session.json. Commands that change it (start, fill, undo, redo) hold
`<session>.lock` while they read, change and atomically rewrite it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fuseflow.support.errors import UserError
from navigator.commands.options import add_data_options, add_session_option, parse_dims, print_json, whole_number
from navigator.process.console import say, say_error


def _path(args) -> Path:
    from navigator.workspace import session_path

    return session_path(args.session)


def _notes(workspace) -> None:
    for note in workspace.notes:
        say(f"navigator: {note}")


def _add_common(sub, json_help: str = "print JSON on stdout (docs/session-json.md)",
                accept_changes: bool = True) -> None:
    add_session_option(sub)
    if accept_changes:
        sub.add_argument("--accept-changes", action="store_true",
                         help="if the program, data or library changed since the session was saved, replay the "
                              "recorded steps on the new version instead of stopping")
    if json_help:
        sub.add_argument("--json", action="store_true", help=json_help)


# ---------------------------------------------------------------- start / show

def cmd_start(args) -> int:
    from navigator.workspace import ProgramSpec, create_workspace
    from navigator.present.views import format_show, show_json, step_line

    spec = ProgramSpec.from_user(args.program, args.data, parse_dims(args.dim), args.library)
    workspace = create_workspace(_path(args), spec, force=args.force, forced_steps=not args.no_forced)
    menus = workspace.session.menus()
    if args.json:
        print_json(show_json(workspace, menus, with_hints=args.hints))
    else:
        say(f"started a session for {spec.describe()} in {workspace.path}")
        for record in workspace.session.steps:  # forced: the only option of their hole
            say(f"navigator: forced {step_line(record)}")
        print(format_show(workspace, menus, verbose=args.verbose, with_hints=args.hints))
    return 0


def cmd_show(args) -> int:
    from navigator.present.choice import parse_hole
    from navigator.workspace import open_workspace
    from navigator.present.views import check_region, format_show, show_json

    workspace = open_workspace(_path(args), accept_changes=args.accept_changes)
    _notes(workspace)
    only = parse_hole(args.hole) if args.hole is not None else None
    if only is not None and not workspace.session.sketch.has_hole(only):
        holes = " ".join(f"?{h.id}" for h in workspace.session.sketch.holes()) or "none"
        raise UserError(f"?{only} is not an open hole", where="--hole", fix=f"open holes: {holes}")
    if args.region is not None:
        check_region(workspace, args.region)
    simulated = _simulated(workspace, only, args) if args.simulate else None
    with_hints = args.hints or args.simulate
    menus = workspace.session.menus()
    if args.json:
        print_json(show_json(workspace, menus, only, region=args.region, with_hints=with_hints, simulated=simulated))
    else:
        print(format_show(workspace, menus, only, verbose=args.verbose, region=args.region, open_only=args.open,
                          with_hints=with_hints, simulated=simulated))
    return 0


def _simulated(workspace, hole: int | None, args) -> dict:
    """(hole, option id) -> OptionSimulation for the options `show --simulate` simulates."""
    from navigator.actions.simulate_options import simulate_options

    found = simulate_options(workspace, hole, args.simulate_limit,
                             progress=lambda e: say(f"navigator: simulated option {e.number} of ?{e.hole}"
                                                    + (" (cached)" if e.cached else "")))
    return {(e.hole, e.option): e for e in found}


# ---------------------------------------------------------------- fill / undo / redo

def _report_steps(args, workspace, action: str, records) -> None:
    from navigator.present.views import format_steps, steps_json

    if args.json:
        print_json(steps_json(workspace, action, records))
    else:
        print(format_steps(workspace, action, records))


def cmd_fill(args) -> int:
    from navigator.actions.fill import fill_hole
    from navigator.auto import Scope, StrategyFailure, get_strategy
    from navigator.present.choice import parse_hole, resolve_option
    from navigator.workspace import locked_workspace
    from navigator.workspace.user_text import check_text

    hole = parse_hole(args.hole)
    if args.rationale is not None:  # stored in the session file and printed by `history`
        check_text(args.rationale, "--rationale")
    if args.auto and args.option:
        raise UserError("give an OPTION or --auto STRATEGY, not both", where="fill")
    if not args.auto and not args.option:
        raise UserError(f"which option for ?{hole}?", where="fill",
                        fix=f"give a menu number (navigator show --hole {hole}), an option id, "
                            "FUNCTION FIELD=VALUE, or --auto default")
    strategy_flags = {"--limit": args.limit, "--budget": args.budget, "--jobs": args.jobs, "--engine": args.engine,
                      "--scheduler": args.scheduler, "--base-url": args.base_url, "--model": args.model,
                      "--timeout": args.timeout, "--retries": args.retries, "--rounds": args.rounds,
                      "--iterations": args.iterations, "--beam": args.beam, "--top": args.top, "--pick": args.pick,
                      "--response-format": args.response_format, "--max-tokens": args.max_tokens,
                      "--replay-llm": args.replay_llm, "--verbose": args.verbose or None}
    for flag, given in (("--subtree", args.subtree), ("--all", args.all),
                        *((flag, value is not None) for flag, value in strategy_flags.items())):
        if given and not args.auto:
            raise UserError(f"{flag} works with --auto", where=flag,
                            fix=f"e.g. navigator fill '?{hole}' --auto default --subtree")
    if args.pick is not None and args.top is None:
        raise UserError("--pick N chooses among the plans --top K shows", where="--pick",
                        fix=f"e.g. navigator fill '?{hole}' --auto llm --top 3 --pick 2")
    if args.pick is not None and args.pick > args.top:  # known before the model is asked
        raise UserError(f"--pick {args.pick} is beyond the {args.top} plan(s) --top {args.top} shows", where="--pick",
                        fix=f"--pick 1 to {args.top}, or a larger --top")
    scope = Scope.ALL if args.all else Scope.SUBTREE if args.subtree else Scope.HOLE
    if args.jobs and (args.engine or "local") == "local":
        from navigator.batch.engines import check_local_jobs

        check_local_jobs(args.jobs)
    strategy = (get_strategy(args.auto, ambient=_strategy_ambient(args), limit=args.limit, budget=args.budget,
                             jobs=args.jobs, engine=args.engine, scheduler=args.scheduler, base_url=args.base_url,
                             model=args.model, timeout=args.timeout, retries=args.retries, rounds=args.rounds,
                             iterations=args.iterations, beam=args.beam, response_format=args.response_format,
                             max_tokens=args.max_tokens, replay=args.replay_llm,
                             verbose=args.verbose or None, chooser=_chooser(args))
                if args.auto else None)
    with locked_workspace(_path(args), accept_changes=args.accept_changes) as workspace:
        _notes(workspace)
        session = workspace.session
        option = None
        if strategy is None and session.sketch.has_hole(hole):
            option = resolve_option(session.menus().for_hole(hole), args.option).id
        try:
            records = fill_hole(workspace, hole, option=option, strategy=strategy, scope=scope,
                                rationale=args.rationale)
        except StrategyFailure as exc:  # nothing is saved
            say_error(exc)
            return 1
    _report_steps(args, workspace, "fill", records)
    return 0


def _strategy_ambient(args) -> dict:
    """What a strategy may use besides its flags: where to report, where to record."""
    from navigator.process.console import say_lines

    return {"reporter": say_lines, "record_beside": _path(args)}


def _chooser(args):
    """`--top K [--pick N]`: show the K best plans and take one (asking on a terminal)."""
    if args.top is None:
        return None
    from navigator.process.console import say_lines
    from navigator.llm.ranked_plans import chooser

    ask = input if sys.stdin.isatty() and sys.stderr.isatty() and args.pick is None else None
    choose = chooser(args.top, args.pick, say_lines, ask)
    choose.flags = f"--top {args.top}" + (f" --pick {args.pick}" if args.pick is not None else "")
    return choose


def _undo_redo(args, action: str) -> int:
    from navigator.navigation.session_errors import SessionError
    from navigator.workspace import locked_workspace

    with locked_workspace(_path(args), accept_changes=args.accept_changes) as workspace:
        _notes(workspace)
        session = workspace.session
        try:
            if args.to is not None:
                records = _go_to(session, action, args.to, args.steps)
            elif args.steps is None:  # the last command, with the forced steps it caused
                records = session.undo_command() if action == "undo" else session.redo_command()
            else:
                available = len(session.steps) if action == "undo" else len(session.redo_steps)
                if 0 < available < args.steps:
                    raise SessionError(f"{args.steps} steps to {action}, but there are only {available}",
                                       where=str(workspace.path),
                                       fix=f"`navigator {action} {available}` "
                                           + ("takes back" if action == "undo" else "re-takes") + " all of them")
                records = [session.undo() if action == "undo" else session.redo() for _ in range(args.steps)]
        except SessionError as exc:  # nothing (more) to take back: say which session
            if exc.where is not None:
                raise
            raise SessionError(exc.bare_message, where=str(workspace.path), fix=exc.fix) from None
        workspace.save()
    _report_steps(args, workspace, action, records)
    return 0


def _go_to(session, action: str, number: int, steps: int | None) -> list:
    """`undo --to N` / `redo --to N`: step N the last one taken, with its forced steps."""
    from navigator.navigation.session_errors import SessionError

    if steps is not None:
        raise SessionError("give a number of steps or --to a step, not both", where="--to",
                           fix=f"`navigator {action} --to {number}`")
    taken = len(session.steps)
    if action == "undo" and number > taken:
        raise SessionError(f"step {number} is not taken (the last taken is {taken})", where="--to",
                           fix=f"`navigator redo --to {number}` re-takes up to it")
    if action == "redo" and number < taken:
        raise SessionError(f"step {number} is taken already (the last taken is {taken})", where="--to",
                           fix=f"`navigator undo --to {number}` takes back what follows it")
    return session.go_to(number)


def cmd_undo(args) -> int:
    return _undo_redo(args, "undo")


def cmd_redo(args) -> int:
    return _undo_redo(args, "redo")


def cmd_history(args) -> int:
    from navigator.workspace import open_workspace
    from navigator.present.views import format_history, history_json

    workspace = open_workspace(_path(args), accept_changes=args.accept_changes)
    _notes(workspace)
    if args.json:
        print_json(history_json(workspace))
    else:
        print(format_history(workspace))
    return 0


# ---------------------------------------------------------------- export

def cmd_export(args) -> int:
    from navigator.actions.export import ExportFailure, ExportRequest, export_session
    from navigator.workspace import open_workspace

    workspace = open_workspace(_path(args), accept_changes=args.accept_changes)
    _notes(workspace)
    request = ExportRequest({"json": args.json_out, "python": args.python_out, "notebook": args.notebook_out,
                             "fuseflow-pipeline": args.fuseflow_pipeline_out, "fuseflow-mlir": args.fuseflow_mlir_out},
                            partial=args.partial)
    try:
        report = export_session(workspace, request)
    except ExportFailure as exc:
        say_error(exc)
        return 1
    _say_filled(report.filled)
    for _, path in report.written:
        say(f"wrote {path}")
    if report.text is not None:
        print(report.text, end="")
    return 0


def _say_filled(filled) -> None:
    from navigator.present.views import step_line

    if filled:
        say(f"navigator: --partial filled {len(filled)} open holes with their defaults "
            "(the session itself is unchanged):")
        for record in filled:
            say(f"  {step_line(record)}")


# ---------------------------------------------------------------- registration

def _add_hints_flag(sub) -> None:
    # Opt-in: a hint needs the program bound to its data, which `show` otherwise never loads.
    sub.add_argument("--hints", action="store_true",
                     help="print each option's cost hint: the best estimated cycles, bytes and FLOPs "
                          "beneath it, exact or a bound (docs/cost-model.md#cost-hints)")


def register(subs) -> None:
    from navigator.auto.registry import strategy_names
    from navigator.llm.config import RESPONSE_FORMATS, flag_type, number_range

    start = subs.add_parser("start", help="start a navigation session for a program or a Honeybee problem")
    start.add_argument("program", help="path to a program .toml, a bundled program's name, or a Honeybee "
                                       "problem .hb.toml (with --library)")
    start.add_argument("--library", metavar="L", help="scheduling library (default: the bundled FuseFlow library; "
                                                      "required for a Honeybee problem)")
    start.add_argument("--verbose", action="store_true", help="also print each option's info.description")
    add_data_options(start)
    start.add_argument("--force", action="store_true", help="replace an existing session file")
    start.add_argument("--no-forced", action="store_true",
                       help="leave holes that offer exactly one option open (by default they are filled, "
                            "with provenance `forced`, after start and after every fill)")
    _add_hints_flag(start)
    _add_common(start, accept_changes=False)
    start.set_defaults(run=cmd_start)

    show = subs.add_parser("show", help="the sketch and the menu of every open hole")
    show.add_argument("--hole", metavar="HOLE", help="show only this hole's menu (?3, 3 or h3)")
    show.add_argument("--verbose", action="store_true", help="also print each option's info.description")
    show.add_argument("--region", metavar="NAME", help="show only this region's part of the sketch and its holes")
    show.add_argument("--open", action="store_true",
                      help="leave out the sketch: only the open holes' menus, grouped by region")
    _add_hints_flag(show)
    show.add_argument("--simulate", action="store_true",
                      help="simulate the options of --hole (default: the first open hole), best hints first: "
                           "each with the current choices and the heuristic for the rest; prints sim. cycles "
                           "next to the est. hint (cached per schedule, data and hardware)")
    show.add_argument("--simulate-limit", metavar="N", type=whole_number(1, "a number of options"), default=16,
                      help="simulate at most N options (default 16)")
    _add_common(show)
    show.set_defaults(run=cmd_show)

    fill = subs.add_parser(
        "fill", help="fill a hole with an option, or with a strategy",
        description="OPTION is a menu number, an option id, or FUNCTION FIELD=VALUE ... "
                    "(also FUNCTION(FIELD=VALUE, ...)). Quote '?3': the shell treats ? as a wildcard.")
    fill.add_argument("hole", metavar="HOLE", help="the hole: ?3, 3 or h3")
    fill.add_argument("option", metavar="OPTION", nargs="*", help="menu number, option id, or FUNCTION FIELD=VALUE ...")
    fill.add_argument("--auto", metavar="STRATEGY",
                      help=f"let a strategy choose: {', '.join(strategy_names())} (docs/strategies.md; llm: "
                           "docs/llm.md)")
    scope = fill.add_mutually_exclusive_group()
    scope.add_argument("--subtree", action="store_true", help="with --auto: also fill every hole opened beneath HOLE")
    scope.add_argument("--all", action="store_true", help="with --auto: fill every open hole, until the sketch is "
                                                          "complete")
    fill.add_argument("--limit", type=whole_number(), metavar="N",
                      help="exhaustive: refuse when the scope has more than N completions (default 10,000)")
    fill.add_argument("--budget", type=whole_number(), metavar="K",
                      help="search strategies: at most K simulator evaluations")
    fill.add_argument("--jobs", type=whole_number(), metavar="N",
                      help="search strategies: simulate candidates in N processes (or N at a time on dask)")
    fill.add_argument("--engine", choices=("local", "dask"), default=None,
                      help="search strategies: where candidates are simulated, as for `navigator batch`")
    fill.add_argument("--scheduler", metavar="ADDR", help="with --engine dask: the scheduler's address")
    llm = fill.add_argument_group("--auto llm (docs/llm.md)")
    llm.add_argument("--base-url", metavar="URL", help="the OpenAI-compatible endpoint (else OPENAI_BASE_URL, the "
                                                      "config file)")
    llm.add_argument("--model", metavar="NAME", help="the model (else NAVIGATOR_LLM_MODEL, the config file)")
    llm.add_argument("--timeout", type=flag_type("timeout"), metavar="S",
                     help=f"seconds per request, {number_range('timeout')} (default 60)")
    llm.add_argument("--retries", type=flag_type("retries"), metavar="N",
                     help=f"retries after a timeout, 429 or 5xx, {number_range('retries')} (default 2)")
    llm.add_argument("--rounds", type=flag_type("rounds"), metavar="N",
                     help=f"rounds per question: re-asks after an invalid answer, {number_range('rounds')} "
                          "(default 3)")
    llm.add_argument("--iterations", type=flag_type("iterations"), metavar="N",
                     help=f"search iterations, {number_range('iterations')} (default 3)")
    llm.add_argument("--beam", type=flag_type("beam"), metavar="K",
                     help=f"plans kept per iteration, {number_range('beam')} (default 3)")
    llm.add_argument("--response-format", choices=RESPONSE_FORMATS, default=None,
                     help="how the answer's JSON schema is sent (else NAVIGATOR_LLM_RESPONSE_FORMAT, the config file; "
                          "default auto: json_schema, else json_object, else plain, remembered per server)")
    llm.add_argument("--max-tokens", type=flag_type("max_tokens"), metavar="N",
                     help="tokens an answer may take (else NAVIGATOR_LLM_MAX_TOKENS, the config file; default: "
                          "sized from the question's schema, ~2,000)")
    llm.add_argument("--top", type=whole_number(), metavar="K", help="show the K best plans and pick one")
    llm.add_argument("--pick", type=whole_number(), metavar="N", help="with --top: take plan N (for scripts)")
    llm.add_argument("--replay-llm", metavar="FILE", help="answer from a recording instead of the network")
    llm.add_argument("--verbose", action="store_true", help="show each prompt and its size in tokens (estimated)")
    fill.add_argument("--rationale", metavar="TEXT", help="why: recorded with the step (see `navigator history`)")
    _add_common(fill)
    fill.set_defaults(run=cmd_fill)

    for name, run, text in (("undo", cmd_undo, "take back the last command (its fill and forced steps)"),
                            ("redo", cmd_redo, "re-take the last command undone")):
        sub = subs.add_parser(name, help=text)
        sub.add_argument("steps", nargs="?", type=whole_number(noun="a whole number of steps"), default=None,
                         help="how many single steps (default: every step of the last command)")
        sub.add_argument("--to", metavar="N", type=whole_number(0, noun="a step number"), default=None,
                         help=f"{name} until step N is the last one taken, with the forced steps it caused "
                              "(0: the start; `navigator history` numbers the steps)")
        _add_common(sub)
        sub.set_defaults(run=run)

    history = subs.add_parser("history", help="every step with its provenance (who, when, why) and the "
                                                "alternatives it did not take")
    _add_common(history)
    history.set_defaults(run=cmd_history)

    export = subs.add_parser("export", help="write the session's schedule (or a Honeybee problem's expression) "
                                            "as JSON and/or as a Python program")
    export.add_argument("--json", dest="json_out", metavar="F",
                        help="write the schedule JSON to F (a Honeybee problem: its expression in Honeybee's "
                             "JSON form)")
    export.add_argument("--python", dest="python_out", metavar="F",
                        help="write a Python script that rebuilds the schedule with fuseflow and saves it (a "
                             "Honeybee problem: the program its library's info.code assembles, never run)")
    export.add_argument("--notebook", dest="notebook_out", metavar="F",
                        help="Honeybee problems: write the expression's program as a Jupyter notebook to F")
    export.add_argument("--fuseflow-pipeline", dest="fuseflow_pipeline_out", metavar="F",
                        help="write, per fused region, the options of FuseFlow's sam-opt pipeline that compile "
                             "the schedule (the order's index, the stream passes) as JSON to F "
                             "(docs/fuseflow-pipeline.md)")
    export.add_argument("--fuseflow-mlir", dest="fuseflow_mlir_out", metavar="F",
                        help="write the schedule's fused regions as MLIR to F, one func.func each (region_0, ...), "
                             "linalg on tensors with sparse_tensor encodings: what sam-opt compiles")
    export.add_argument("--partial", action="store_true",
                        help="fill open holes with their defaults first (the session is not changed)")
    _add_common(export, json_help="")
    export.set_defaults(run=cmd_export)
