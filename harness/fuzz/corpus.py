"""The valid inputs the fuzzer starts from, made once per process.

- programs: the bundled fuseflow/programs/*.toml, with small dimensions for each (so a case is cheap);
- schedules: made by `navigator sample` and `navigator compare --save` on those programs;
- sessions: made by `navigator start` and `fill` on spmm (fresh, part-filled, complete with
  one step undone);
- libraries and fact programs: the bundled navigator/library/fuseflow.hblib.toml with the facts of
  spmm (`navigator facts`), and the engine tests' Honeybee examples (harness/honeybee_examples.py), each
  with a replay target (an expression in Honeybee's JSON form);
- graphs: one small graph in every format the loaders read (.npz in three key styles,
  .mtx, an edge list, a Planetoid pickle).

The files Navigator makes are made by running the CLI in forked children (ForkRunner), so
the parent that forks the cases never runs Navigator code itself and stays as fresh as a
new process.
"""

from __future__ import annotations

import io
import json
import pickle
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from harness.fuzz.cases import remove_tree
from harness.fuzz.runner import ForkRunner

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = REPO / "fuseflow" / "programs"
BUNDLED_LIBRARY = REPO / "navigator" / "library" / "fuseflow.hblib.toml"
NAVIGATOR_DATA = REPO / "tests" / "navigator" / "data"
#: the programs whose schedules the corpus samples (small and fast at their small dims)
SCHEDULED_PROGRAMS = ("spmm", "sddmm", "gcn", "nested_matmul", "graphsage")
SPMM_DIMS = ["--dim", "N=4", "--dim", "J=2"]


@dataclass
class Honeybee:
    """A Honeybee problem: a library, a fact program, and a target expression to replay."""

    name: str
    library: bytes | None  # None: the bundled FuseFlow library (no --library)
    facts: bytes
    target: bytes


@dataclass(repr=False)  # Hypothesis prints the test's arguments: keep it to one line
class Corpus:
    programs: dict[str, bytes] = field(default_factory=dict)
    dims: dict[str, list[str]] = field(default_factory=dict)
    schedules: dict[str, list[bytes]] = field(default_factory=dict)
    sessions: dict[str, bytes] = field(default_factory=dict)
    #: each session's open holes (what a valid `fill` or `show --hole` names)
    open_holes: dict[str, list[int]] = field(default_factory=dict)
    honeybee: list[Honeybee] = field(default_factory=list)
    libraries: dict[str, bytes] = field(default_factory=dict)
    #: file name -> bytes; the suffix picks the loader
    graphs: dict[str, bytes] = field(default_factory=dict)
    #: spmm's default schedule (every parallel factor 1): valid on any graph
    default_spmm_schedule: bytes = b""
    #: the facts cache's entries (file name -> bytes) for spmm at SPMM_DIMS and for gcn and deep_gcn at
    #: their bundled dims (what the TUI cases open): the cache cases mutate them, the TUI cases start warm
    cache_entries: dict[str, dict[str, bytes]] = field(default_factory=dict)
    #: a recording of `fill 0 --auto llm` on the "fresh" session (harness/fake_model.py answering),
    #: which `--replay-llm` replays on that session
    recording: bytes = b""

    def __repr__(self) -> str:
        return f"Corpus({len(self.programs)} programs, {sum(map(len, self.schedules.values()))} schedules, ...)"

    def _repr_pretty_(self, printer, cycle) -> None:  # Hypothesis's printer otherwise lists every field
        printer.text(repr(self))


def small_dims(program_text: bytes) -> list[str]:
    """--dim options giving each dimension an extent of 4 (the first) or 2."""
    dims = tomllib.loads(program_text.decode("utf-8")).get("dims", {})
    argv: list[str] = []
    for index, name in enumerate(dims):
        argv += ["--dim", f"{name}={4 if index == 0 else 2}"]
    return argv


class CorpusError(RuntimeError):
    """A valid input could not be made: the harness or the product is broken."""


def _navigator(runner: ForkRunner, folder: Path, argv: list[str], cache: Path | None = None,
               env: dict[str, str] | None = None) -> str:
    """Run a command that must succeed; its stdout."""
    io_folder = Path(tempfile.mkdtemp(prefix="io-", dir=folder.parent))
    try:
        result = runner.run(folder, argv, io_folder, io_folder, cache, env)
    finally:
        remove_tree(io_folder)
    if result.exit_code != 0:
        raise CorpusError(f"`navigator {' '.join(argv)}` exited {result.exit_code}: {result.stderr[-2000:]}")
    return result.stdout


def _keep_session(corpus: Corpus, runner: ForkRunner, folder: Path, name: str) -> None:
    shown = json.loads(_navigator(runner, folder, ["show", "--json", "--session", "fresh.json"]))
    corpus.sessions[name] = (folder / "fresh.json").read_bytes()
    corpus.open_holes[name] = shown["open_holes"]


def _graph_files() -> dict[str, bytes]:
    """A 6-vertex graph with features and labels, in every format the loaders read."""
    rows = np.array([0, 1, 1, 2, 3, 4, 5, 0])
    cols = np.array([1, 0, 2, 3, 4, 5, 0, 3])
    adjacency = sp.csr_matrix((np.ones(8), (rows, cols)), shape=(6, 6))
    features = sp.csr_matrix(np.eye(6, 3))
    labels = np.array([0, 1, 0, 1, 1, 0])
    files: dict[str, bytes] = {}

    def npz(**arrays) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return buffer.getvalue()

    def parts(prefix: str, matrix) -> dict[str, np.ndarray]:
        return {f"{prefix}data": matrix.data, f"{prefix}indices": matrix.indices, f"{prefix}indptr": matrix.indptr,
                f"{prefix}shape": np.array(matrix.shape)}

    files["graph.npz"] = npz(**parts("adj_", adjacency), **parts("attr_", features), labels=labels)
    files["graph_ppnp.npz"] = npz(**parts("adj_matrix.", adjacency), labels=labels)
    buffer = io.BytesIO()
    sp.save_npz(buffer, adjacency, compressed=False)
    files["graph_scipy.npz"] = buffer.getvalue()
    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, adjacency.tocoo())
    files["graph.mtx"] = buffer.getvalue()
    files["edges.txt"] = ("# a small graph\n" + "".join(f"{r} {c}\n" for r, c in zip(rows, cols))
                          + "5,2,0.5\n").encode()
    neighbours: dict[int, list[int]] = {}
    for r, c in zip(rows.tolist(), cols.tolist()):
        neighbours.setdefault(r, []).append(c)
    files["ind.small.graph"] = pickle.dumps(neighbours, protocol=2)
    return files


def _engine_problems(runner: ForkRunner, work: Path) -> list[Honeybee]:
    """The engine tests' libraries with facts, and a target for each made by replaying steps."""
    from harness import honeybee_examples as examples

    recursive_target = {"App": [{"name": "es_lt", "metadata": {"count": 3}, "arity": ["in"]}, {"in": {"Hole": 1}}]}
    folder = work / "engine"
    folder.mkdir()
    runner_with_entry = ForkRunner(runner.limits, entry=_write_sched_target)
    _navigator(runner_with_entry, folder, [str(examples.SCHED_LIBRARY), str(examples.SCHED_FACTS), "sched.json"])
    return [
        Honeybee("sched", examples.SCHED_LIBRARY.read_bytes(), examples.SCHED_FACTS.read_bytes(),
                 (folder / "sched.json").read_bytes()),
        Honeybee("recursive", examples.RECURSIVE.encode(), examples.RECURSIVE_FACTS.encode(),
                 json.dumps(recursive_target).encode()),
    ]


def _write_sched_target(argv: list[str]) -> int:
    """(In a forked child.) The complete target the engine tests replay, as Honeybee JSON."""
    from navigator.lang import load_facts, load_library
    from navigator.synth import Oracle, sketch_to_json
    from harness.honeybee_examples import SCHED_STEPS as STEPS

    library_path, facts_path, out = argv
    library = load_library(library_path)
    oracle = Oracle(library, load_facts(facts_path, library))
    sketch = oracle.initial_sketch()
    for hole, option in STEPS:
        sketch = oracle.step(sketch, hole, option)
    Path(out).write_text(json.dumps(sketch_to_json(sketch), indent=2), encoding="utf-8")
    return 0


def _write_spmm_target(argv: list[str]) -> int:
    """(In a forked child.) The expression of spmm's default schedule under the bundled library."""
    from fuseflow.program.bundled import resolve_program
    from fuseflow.program.binding import bind
    from fuseflow.schedule import load_schedule
    from navigator.fuseflow.schedule_space import ScheduleSpace

    schedule_path, out = argv
    program = resolve_program("spmm")
    space = ScheduleSpace.build(program, bind(program, None, {"N": 4, "J": 2}))
    expression = space.expression_of(load_schedule(schedule_path, program))
    Path(out).write_text(json.dumps(expression, indent=2), encoding="utf-8")
    return 0


def build_corpus(runner: ForkRunner, scratch: Path) -> Corpus:
    """Make every valid input (a few seconds); `scratch` is a folder the caller removes."""
    corpus = Corpus()
    work = Path(tempfile.mkdtemp(prefix="corpus-", dir=scratch))
    for path in sorted(PROGRAMS.glob("*.toml")):
        corpus.programs[path.stem] = path.read_bytes()
        corpus.dims[path.stem] = small_dims(corpus.programs[path.stem])
    for name in SCHEDULED_PROGRAMS:
        folder = work / name
        folder.mkdir()
        _navigator(runner, folder, ["sample", name, "3", "--out", "samples", "--seed", "1", *corpus.dims[name]])
        _navigator(runner, folder, ["compare", name, *corpus.dims[name], "--save", "baselines"])
        corpus.schedules[name] = [p.read_bytes() for p in sorted((folder / "samples").glob("*.json"))
                                  + sorted((folder / "baselines").glob("*.json"))]
    sessions = work / "sessions"
    sessions.mkdir()
    _navigator(runner, sessions, ["start", "spmm", *SPMM_DIMS, "--session", "fresh.json"])
    _keep_session(corpus, runner, sessions, "fresh")
    _navigator(runner, sessions, ["fill", "0", "1", "--session", "fresh.json"])  # and 9 forced steps
    _navigator(runner, sessions, ["fill", "5", "--auto", "default", "--session", "fresh.json"])
    _keep_session(corpus, runner, sessions, "partial")
    for hole in ("7", "9", "13"):  # the holes left open by now: the rest is forced
        _navigator(runner, sessions, ["fill", hole, "--auto", "default", "--subtree", "--session", "fresh.json"])
    _navigator(runner, sessions, ["export", "--json", "default.json", "--session", "fresh.json"])
    corpus.default_spmm_schedule = (sessions / "default.json").read_bytes()
    _navigator(runner, sessions, ["undo", "1", "--session", "fresh.json"])
    _keep_session(corpus, runner, sessions, "complete-but-one")
    _navigator(runner, sessions, ["facts", "spmm", *SPMM_DIMS, "-o", "spmm.hb.toml"])
    _navigator(ForkRunner(runner.limits, entry=_write_spmm_target), sessions, ["default.json", "spmm-target.json"])
    corpus.honeybee.append(Honeybee("fuseflow-spmm", None, (sessions / "spmm.hb.toml").read_bytes(),
                                    (sessions / "spmm-target.json").read_bytes()))
    corpus.honeybee.extend(_engine_problems(runner, work))
    corpus.libraries = {"fuseflow": BUNDLED_LIBRARY.read_bytes()}
    corpus.graphs = _graph_files()
    corpus.cache_entries = _cache_entries(runner, work)
    corpus.recording = _recording(runner, work, corpus.sessions["fresh"])
    remove_tree(work)
    return corpus


#: the environment of a model run: a key (harness/fuzz/checks.py looks for it), no user config file
LLM_ENVIRONMENT = {"OPENAI_BASE_URL": "{llm_url}", "NAVIGATOR_LLM_MODEL": "fuzz-model", "XDG_CONFIG_HOME": "config"}


def _cache_entries(runner: ForkRunner, work: Path) -> dict[str, dict[str, bytes]]:
    entries = {}
    for name, argv in (("spmm", ["start", "spmm", *SPMM_DIMS]), ("gcn", ["start", "gcn"]),
                       ("deep_gcn", ["start", "deep_gcn"])):
        folder, cache = work / f"cache-{name}", work / f"cache-{name}-entries"
        folder.mkdir()
        _navigator(runner, folder, argv, cache=cache)
        entries[name] = {path.name: path.read_bytes() for path in sorted(cache.iterdir())}
    return entries


def _recording(runner: ForkRunner, work: Path, session: bytes) -> bytes:
    from harness.fuzz.llm_faults import FaultServer

    folder = work / "recording"
    (folder / ".navigator").mkdir(parents=True)
    (folder / ".navigator" / "session.json").write_bytes(session)
    with FaultServer([{"fake": True}]) as server:
        env = {name: value.replace("{llm_url}", server.url) for name, value in LLM_ENVIRONMENT.items()}
        _navigator(runner, folder, ["fill", "0", "--auto", "llm", "--timeout", "10", "--retries", "0"], env=env)
    recordings = sorted((folder / ".navigator" / "llm").glob("*.jsonl"))
    if len(recordings) != 1:
        raise CorpusError(f"`fill --auto llm` left {len(recordings)} recordings, not one")
    return recordings[0].read_bytes()
