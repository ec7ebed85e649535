"""The known hostile inputs of issue 9, as fixed cases (always run, in this order).

Each is the smallest input that showed one defect class in the adversarial pass: values
no parser should accept (NaN, 5,000-digit integers), depth that recursion cannot follow
(100,000 nested brackets, 500 nested relu, a chain of 1,000 types), sizes that must be
refused before allocating (a 76-byte Matrix Market header declaring 200,000,000 rows, a
vertex id of 2**70, --dim J=10^12), and paths that are not regular files.
"""

from __future__ import annotations

import json

import numpy as np

from harness.fuzz.cases import DIRECTORY, FIFO, Case, FileSpec, symlink
from harness.fuzz.corpus import SPMM_DIMS, Corpus
from harness.fuzz.formats import Raw, dump_json
from harness.fuzz.graph_mutations import npz_bytes


def _program(expressions: list[str], name: str = "hostile") -> bytes:
    ops = "".join(f'\n[[ops]]\nname = "op{i}"\nexpr = "{expr}"\n' for i, expr in enumerate(expressions))
    return (f'name = "{name}"\n\n[dims]\nN = 4\nM = 4\n\n[tensors]\n'
            f'A = {{ shape = ["N", "M"], source = "random" }}\n{ops}').encode()


def _chain_of_ops(count: int) -> bytes:
    expressions = ["T1(i,j) = relu(A(i,j))"] + [f"T{k + 1}(i,j) = relu(T{k}(i,j))" for k in range(1, count)]
    return _program(expressions, "chain")


def _chain_library(types: int) -> bytes:
    parts = ['[Type.T0]\nparams = {}\n\n[Function.f0]\nparams = {}\nret = "T0"\n']
    for k in range(1, types):
        parts.append(f'[Type.T{k}]\nparams = {{}}\n\n[Function.f{k}]\nparams.x = "T{k - 1}"\nret = "T{k}"\n')
    return "\n".join(parts).encode()


def _schedule_with(corpus: Corpus, key: str, value) -> bytes:
    schedule = json.loads(corpus.default_spmm_schedule)
    region = schedule["regions"][0]
    if key == "stream-shape":
        region["stream-vectorizer"]["stream-shape"] = value
    else:
        region["stream-parallelizer"]["par_factors"][0] = value
    return dump_json(schedule).encode()


def hostile_cases(corpus: Corpus) -> dict[str, Case]:
    """Every known hostile case by name (see HOSTILE_NAMES)."""
    spmm_schedule = FileSpec("file", corpus.default_spmm_schedule)
    validate = ["validate", "sched.json", "--program", "spmm", *SPMM_DIMS]
    empty_npz = npz_bytes({"adj_data": np.zeros(0), "adj_indices": np.zeros(0, np.int32),
                           "adj_indptr": np.zeros(1, np.int32), "adj_shape": np.array([0, 0])})
    huge_mtx = b"%%MatrixMarket matrix coordinate real general\n200000000 200000000 1\n1 1 1.0\n"  # 76 bytes
    chain_facts = b'[Goal]\nname = "T999"\nargs = {}\n'
    session = {".navigator/session.json": FileSpec("file", corpus.sessions["partial"])}
    surrogate_session = corpus.sessions["partial"].replace(b'"rationale": "', b'"rationale": "\\ud800', 1)
    cases = {
        # schedules
        "schedule-nan": Case("schedule", validate, {"sched.json": FileSpec("file", _schedule_with(
            corpus, "stream-shape", Raw("NaN")))}),
        "schedule-100000-deep": Case("schedule", validate,
                                     {"sched.json": FileSpec.text("[" * 100_000 + "]" * 100_000)}),
        "schedule-5000-digit-integer": Case("schedule", validate, {"sched.json": FileSpec("file", _schedule_with(
            corpus, "par", Raw("9" * 5000)))}),
        "schedule-dev-zero": Case("schedule", validate, {"sched.json": symlink("/dev/zero")}),
        "schedule-fifo": Case("schedule", validate, {"sched.json": FIFO}),
        "eval-dim-J=10^12": Case("schedule", ["eval", "sched.json", "--program", "spmm", "--dim", "J=1000000000000"],
                                 {"sched.json": spmm_schedule}),
        # programs
        "dim-5000-digits": Case("program", ["check", "spmm", "--dim", "J=" + "9" * 5000]),
        "program-400-plus-terms": Case("program", ["check", "prog.toml"], {"prog.toml": FileSpec("file", _program(
            ["C(i,j) = " + " + ".join(["A(i,j)"] * 400)]))}),
        "program-400-nested-parentheses": Case("program", ["check", "prog.toml"], {"prog.toml": FileSpec(
            "file", _program(["C(i,j) = " + "(" * 400 + "A(i,j)" + ")" * 400]))}),
        "program-500-nested-relu": Case("program", ["check", "prog.toml"], {"prog.toml": FileSpec(
            "file", _program(["C(i,j) = " + "relu(" * 500 + "A(i,j)" + ")" * 500]))}),
        "program-1000-ops-check": Case("program", ["check", "prog.toml"],
                                       {"prog.toml": FileSpec("file", _chain_of_ops(1000))}),
        "program-1000-ops-count": Case("program", ["count", "prog.toml"],
                                       {"prog.toml": FileSpec("file", _chain_of_ops(1000))}),
        "program-is-a-directory": Case("program", ["check", "prog.toml"], {"prog.toml": DIRECTORY}),
        "facts-output-is-a-directory": Case("program", ["facts", "spmm", *SPMM_DIMS, "-o", "out"],
                                            {"out": DIRECTORY}),
        # data
        "edge-list-id-2^70": Case("data", ["check", "spmm", "--data", "edges.txt", "--dim", "J=2"],
                                  {"edges.txt": FileSpec.text(f"0 1\n1 {2**70}\n")}),
        "npz-empty-0x0": Case("data", ["check", "spmm", "--data", "empty.npz", "--dim", "J=2"],
                              {"empty.npz": FileSpec("file", empty_npz)}),
        "mtx-header-200000000": Case("data", ["check", "spmm", "--data", "huge.mtx", "--dim", "J=2"],
                                     {"huge.mtx": FileSpec("file", huge_mtx)}),
        "data-fifo": Case("data", ["check", "spmm", "--data", "graph.npz", "--dim", "J=2"], {"graph.npz": FIFO}),
        # sessions
        "session-is-a-directory-show": Case("session", ["show"], {".navigator/session.json": DIRECTORY}),
        "session-is-a-directory-fill": Case("session", ["fill", "0", "1"], {".navigator/session.json": DIRECTORY}),
        "session-fifo": Case("session", ["show"], {".navigator/session.json": FIFO}),
        "session-100000-deep": Case("session", ["history"], {".navigator/session.json": FileSpec.text(
            "[" * 100_000 + "]" * 100_000)}),
        "session-lone-surrogate-rationale": Case("session", ["history"], {".navigator/session.json": FileSpec(
            "file", surrogate_session)}),
        "fill-rationale-undecodable-byte": Case("session", ["fill", "2", "1", "--rationale", "why \udcff"],
                                                dict(session)),
        "fill-hole-22-digits": Case("session", ["fill", "?9999999999999999999999", "1"], dict(session)),
        "undo-10^30-steps": Case("session", ["undo", "1" + "0" * 30], dict(session)),
        "export-to-dev-full": Case("session", ["export", "--partial", "--json", "/dev/full"], dict(session)),
        # libraries
        "library-chain-of-1000-types-replay": Case(
            "library", ["replay", "target.json", "--facts", "facts.hb.toml", "--library", "chain.hblib.toml"],
            {"chain.hblib.toml": FileSpec("file", _chain_library(1000)), "facts.hb.toml": FileSpec("file", chain_facts),
             "target.json": FileSpec.text('{"Hole": 0}')}),
        "library-chain-of-1000-types-count": Case(
            "library", ["count", "spmm", *SPMM_DIMS, "--library", "chain.hblib.toml"],
            {"chain.hblib.toml": FileSpec("file", _chain_library(1000))}),
        "library-dev-zero": Case("library", ["count", "spmm", *SPMM_DIMS, "--library", "lib.hblib.toml"],
                                 {"lib.hblib.toml": symlink("/dev/zero")}),
    }
    assert tuple(cases) == HOSTILE_NAMES
    for name, case in cases.items():
        case.note = f"known hostile input: {name}"
    return cases


#: the names, known before the corpus is built (pytest parametrizes over them)
HOSTILE_NAMES = (
    "schedule-nan", "schedule-100000-deep", "schedule-5000-digit-integer", "schedule-dev-zero", "schedule-fifo",
    "eval-dim-J=10^12", "dim-5000-digits", "program-400-plus-terms", "program-400-nested-parentheses",
    "program-500-nested-relu", "program-1000-ops-check", "program-1000-ops-count", "program-is-a-directory",
    "facts-output-is-a-directory", "edge-list-id-2^70", "npz-empty-0x0", "mtx-header-200000000", "data-fifo",
    "session-is-a-directory-show", "session-is-a-directory-fill", "session-fifo", "session-100000-deep",
    "session-lone-surrogate-rationale", "fill-rationale-undecodable-byte", "fill-hole-22-digits",
    "undo-10^30-steps", "export-to-dev-full", "library-chain-of-1000-types-replay",
    "library-chain-of-1000-types-count", "library-dev-zero",
)
