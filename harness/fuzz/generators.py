"""Fuzz cases, one generator per class: a valid input from the corpus, a command that reads
it, and one mutation (of the content, of the file system around an input or an output, or
of the command line); about one case in ten is left valid as a control.

`generate(klass, rng, corpus)` is the entry point for the pytest run (rng from Hypothesis)
and the benchmark (rng a seeded random.Random).
"""

from __future__ import annotations

import random
from typing import Callable

from harness.fuzz.cases import CLASSES, Case, FileSpec
from harness.fuzz.corpus import SCHEDULED_PROGRAMS, SPMM_DIMS, Corpus
from harness.fuzz.graph_mutations import mutate_edge_list, mutate_graph_pickle, mutate_mtx, mutate_npz
from harness.fuzz.mutations import Layout, mutate_bytes, mutate_structure, mutate_text, reshape_input, reshape_output

DEFAULT_SESSION = ".navigator/session.json"
#: values an argument mutation gives a --dim: invalid, or far beyond memory (never merely slow)
ODD_DIM_VALUES = ("0", "-1", "abc", "", "1e3", "4.5", "1000000000000", "99999999999999999999999", "9" * 5000,
                  "\u0664", "2**10")


#: the commands each class drives (a command listed twice is drawn twice as often)
COMMANDS = {
    "program": ("check", "count", "facts", "start", "sample", "validate", "eval", "compare"),
    "schedule": ("validate", "eval", "eval", "replay", "batch"),
    "session": ("show", "history", "export", "fill", "fill", "undo", "redo", "check", "count", "validate", "eval"),
    "data": ("check", "check", "count", "eval", "start", "batch", "check-gcn"),
    # count, start and sample with the bundled library; replay and library-check with every library
    "library": ("replay", "count", "start", "sample", "library-check"),
}


# ---------------------------------------------------------------- content mutations

def _format_of(path: str) -> str:
    if path.endswith(".json"):
        return "json"
    if path.endswith(".toml"):
        return "toml"
    if path.endswith(".npz"):
        return "npz"
    if path.endswith(".mtx"):
        return "mtx"
    if path.endswith(".graph"):
        return "pickle"
    return "edges"


_GRAPH_MUTATIONS = {"npz": mutate_npz, "mtx": mutate_mtx, "pickle": mutate_graph_pickle, "edges": mutate_edge_list}


def mutate_content(rng: random.Random, data: bytes, path: str) -> tuple[bytes, str]:
    """One or two mutations chosen for the file's format."""
    fmt = _format_of(path)
    choice = rng.random()
    if fmt in ("json", "toml"):
        if choice < 0.6:
            data, note = mutate_structure(rng, data, fmt, rounds=rng.choice((1, 1, 2)))
        else:
            data, note = mutate_text(rng, data)
    elif choice < 0.8:
        data, note = _GRAPH_MUTATIONS[fmt](rng, data)
    else:
        data, note = (mutate_bytes if fmt in ("npz", "pickle") else mutate_text)(rng, data)
    if rng.random() < 0.1:  # stack a textual change on top
        data, more = mutate_text(rng, data)
        note = f"{note}; then {more}"
    return data, note


def mutate_argv(rng: random.Random, layout: Layout) -> None:
    """Change one argument: a --dim value, a hole, a count, or add an unknown option."""
    dims = [i for i, arg in enumerate(layout.argv) if i > 0 and layout.argv[i - 1] == "--dim"]
    kind = rng.choice(("dim", "dim", "unknown-dim", "hole", "option"))
    if kind == "dim" and dims:
        index = rng.choice(dims)
        name = layout.argv[index].split("=", 1)[0]
        layout.argv[index] = f"{name}={rng.choice(ODD_DIM_VALUES)}"
        layout.notes.append(f"argument {layout.argv[index][:40]!r}")
    elif kind == "unknown-dim" or (kind == "dim" and not dims):
        value = rng.choice(("Q=4", "=4", "N", "N==4", "n=4", "N=4=4", "\u00d1=4"))
        layout.argv += ["--dim", value]
        layout.notes.append(f"extra --dim {value!r}")
    elif kind == "hole" and layout.argv[0] in ("fill", "undo", "redo", "show"):
        value = rng.choice(("?999999999999999999999", "-1", "?-1", "h", "?", "\u0661", "9" * 5000, "0x1"))
        if layout.argv[0] == "show":
            layout.argv += ["--hole", value]
        elif layout.argv[0] == "fill":
            layout.argv[1] = value
        else:  # undo/redo N: replace the count
            layout.argv = [layout.argv[0], value, *(arg for arg in layout.argv[1:] if not arg.isdigit())]
        layout.notes.append(f"hole or count {value[:24]!r}")
    else:
        option = rng.choice((["--max-memory", "1K"], ["--max-memory", "1P"], ["--max-memory", "abc"],
                             ["--hardware", "missing.toml"], ["--json"], ["--session", ""], ["--data", ""]))
        layout.argv += option
        layout.notes.append(f"extra {' '.join(option)!r}")


def finish(rng: random.Random, klass: str, layout: Layout, inputs: list[str], outputs: list[str],
           contents: dict[str, bytes], mutate: bool = True) -> Case:
    """Apply one mutation to a valid layout: content, file system, or argument."""
    choice = rng.random() if mutate else 0.0
    if choice < 0.1:
        layout.notes.append("valid (control)")
    elif choice < 0.72 and contents:
        path = rng.choice(sorted(contents))
        data, note = mutate_content(rng, contents[path], path)
        layout.files[path] = FileSpec("file", data)
        layout.notes.append(f"{path}: {note}")
    elif choice < 0.84 and inputs:
        reshape_input(rng, layout, rng.choice(inputs))
    elif choice < 0.92 and outputs:
        reshape_output(rng, layout, rng.choice(outputs))
    else:
        mutate_argv(rng, layout)
    return Case(klass, layout.argv, layout.files, "; ".join(layout.notes), layout.read_only)


def _json_flag(rng: random.Random) -> list[str]:
    return ["--json"] if rng.random() < 0.3 else []


# ---------------------------------------------------------------- the classes

def program_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    name = rng.choice(sorted(corpus.programs))
    dims = list(corpus.dims[name])
    program = "prog.toml"
    schedules = corpus.schedules.get(name)
    files = {program: FileSpec("file", corpus.programs[name])}
    outputs: list[str] = []
    command = rng.choice(COMMANDS["program"])
    if command in ("validate", "eval") and not schedules:
        command = "check"
    if command == "check":
        argv = ["check", program, *dims, *_json_flag(rng)]
    elif command == "count":
        argv = ["count", program, *dims, *_json_flag(rng)]
    elif command == "facts":
        argv, outputs = ["facts", program, *dims, "-o", "facts.hb.toml"], ["facts.hb.toml"]
    elif command == "start":
        argv, outputs = ["start", program, *dims, "--session", "s.json"], ["s.json"]
    elif command == "sample":
        argv, outputs = ["sample", program, "2", "--out", "samples", "--seed", "3", *dims], ["samples"]
    elif command == "compare":
        argv = ["compare", program, *dims, *_json_flag(rng)]
    else:
        files["sched.json"] = FileSpec("file", rng.choice(schedules))
        argv = [command, "sched.json", "--program", program, *dims, *_json_flag(rng)]
    layout = Layout(files, argv, [f"{command} on {name}"])
    return finish(rng, "program", layout, [program], outputs, {program: corpus.programs[name]}, mutate)


def schedule_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    name = rng.choice(SCHEDULED_PROGRAMS)
    schedule = rng.choice(corpus.schedules[name])
    dims = list(corpus.dims[name])
    path = "sched.json"
    outputs: list[str] = []
    command = rng.choice(COMMANDS["schedule"])
    argv = [command, path, "--program", name, *dims]
    if command == "eval":
        extra = rng.choice(([], ["--executor", "exact"], ["--dot", "graph.dot"], ["--no-check"], ["--graph"]))
        argv += extra
        outputs = ["graph.dot"] if "--dot" in extra else []
    if command == "batch":
        argv += ["--out", "results.jsonl", "--jobs", "1", "--no-progress"]
        outputs = ["results.jsonl"]
    argv += _json_flag(rng)
    layout = Layout({path: FileSpec("file", schedule)}, argv, [f"{command} of a {name} schedule"])
    return finish(rng, "schedule", layout, [path], outputs, {path: schedule}, mutate)


def session_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    which = rng.choice(sorted(corpus.sessions))
    session = corpus.sessions[which]
    path = DEFAULT_SESSION if rng.random() < 0.7 else "s.json"
    where = [] if path == DEFAULT_SESSION else ["--session", path]
    files = {path: FileSpec("file", session)}
    outputs: list[str] = []
    command = rng.choice(COMMANDS["session"])
    holes = corpus.open_holes[which]
    hole = str(rng.choice(holes) if holes and rng.random() < 0.8 else rng.randrange(16))
    if command == "show":
        argv = ["show", *rng.choice(([], ["--hole", hole])), *_json_flag(rng)]
    elif command == "history":
        argv = ["history", *_json_flag(rng)]
    elif command == "export":
        argv = ["export", *rng.choice((["--json", "out.json"], ["--json", "out.json", "--python", "out.py"],
                                       ["--partial", "--json", "out.json"], ["--partial"], []))]
        outputs = [arg for arg in ("out.json", "out.py") if arg in argv]
    elif command == "fill":
        argv = ["fill", hole, *rng.choice((["1"], ["1"], ["2"], ["--auto", "default"], ["--auto", "default", "--subtree"],
                                           ["par", "factor=2"], ["--auto", "nonexistent"])), *_json_flag(rng)]
        outputs = [path]
    elif command in ("undo", "redo"):
        argv = [command, *rng.choice(([], ["2"], ["40"])), *_json_flag(rng)]
        outputs = [path]
    elif command in ("check", "count"):
        argv = [command, *_json_flag(rng)]
    else:
        files["sched.json"] = FileSpec("file", rng.choice(corpus.schedules["spmm"]))
        argv = [command, "sched.json", *_json_flag(rng)]
    layout = Layout(files, [*argv, *where], [f"{command} in a {which} session"])
    return finish(rng, "session", layout, [path], outputs, {path: session}, mutate)


def data_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    name = rng.choice(sorted(corpus.graphs))
    graph = corpus.graphs[name]
    files = {name: FileSpec("file", graph)}
    outputs: list[str] = []
    command = rng.choice(COMMANDS["data"])
    if command == "check-gcn":
        argv = ["check", "gcn", "--data", name, "--dim", "H=2", "--dim", "C=2"]
    elif command in ("eval", "batch"):
        files["sched.json"] = FileSpec("file", corpus.default_spmm_schedule)
        argv = [command, "sched.json", "--program", "spmm", "--data", name, "--dim", "J=2"]
        if command == "batch":
            argv += ["--out", "results.jsonl", "--jobs", "1", "--no-progress"]
            outputs = ["results.jsonl"]
    elif command == "start":
        argv, outputs = ["start", "spmm", "--data", name, "--dim", "J=2", "--session", "s.json"], ["s.json"]
    else:
        argv = [command, "spmm", "--data", name, "--dim", "J=2"]
    argv += _json_flag(rng)
    layout = Layout(files, argv, [f"{command} with {name}"])
    return finish(rng, "data", layout, [name], outputs, {name: graph}, mutate)


def library_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    problem = rng.choice(corpus.honeybee)
    library = problem.library if problem.library is not None else corpus.libraries["fuseflow"]
    files = {"lib.hblib.toml": FileSpec("file", library), "facts.hb.toml": FileSpec("file", problem.facts),
             "target.json": FileSpec("file", problem.target)}
    outputs: list[str] = []
    command = "replay"
    if problem.library is None:  # the bundled library: it also schedules programs
        command = rng.choice(COMMANDS["library"])
    elif rng.random() < 0.3:
        command = "library-check"
    if command in ("replay", "library-check"):
        argv = ["replay", "target.json", "--facts", "facts.hb.toml", "--library", "lib.hblib.toml"]
        if command == "library-check":
            argv = ["library", "check", "lib.hblib.toml", "facts.hb.toml"]
        contents = {"lib.hblib.toml": library, "facts.hb.toml": problem.facts, "target.json": problem.target}
    else:
        del files["facts.hb.toml"], files["target.json"]
        contents = {"lib.hblib.toml": library}
        argv = [command, "spmm", *SPMM_DIMS, "--library", "lib.hblib.toml"]
        if command == "start":
            argv += ["--session", "s.json"]
            outputs = ["s.json"]
        elif command == "sample":
            argv[1:2] = ["spmm", "2"]
            argv += ["--out", "samples", "--seed", "1"]
            outputs = ["samples"]
    argv += _json_flag(rng) if command != "sample" else []
    layout = Layout(files, argv, [f"{command} with the {problem.name} library"])
    return finish(rng, "library", layout, sorted(contents), outputs, contents, mutate)


def _surface_generators() -> dict[str, Callable[..., Case]]:
    from harness.fuzz.surfaces import GENERATORS as SURFACES

    return SURFACES


GENERATORS: dict[str, Callable[..., Case]] = {
    "program": program_case, "schedule": schedule_case, "session": session_case, "data": data_case,
    "library": library_case, **_surface_generators(),
}
assert tuple(GENERATORS) == CLASSES

#: how many cases of each class a run of 20 makes (the benchmark's rotation): a TUI case takes seconds,
#: a model case up to a few (timeouts), a command-line case tens of milliseconds
SHARES = {"program": 3, "schedule": 3, "session": 3, "data": 2, "library": 2, "tui": 1, "llm": 2, "cache": 2,
          "recording": 1, "kill": 1}
ROTATION = tuple(klass for klass in CLASSES for _ in range(SHARES[klass]))


def class_of(index: int) -> str:
    """The class of the benchmark's case `index`: the rotation, interleaved (i * 7 mod 20 visits every slot)."""
    return ROTATION[(index * 7) % len(ROTATION)]


def generate(klass: str, rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    """A case of `klass`; with mutate=False, the valid input and command it would have mutated."""
    return GENERATORS[klass](rng, corpus, mutate)
