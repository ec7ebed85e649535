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
    cases.update(surface_cases(corpus))
    assert tuple(cases) == HOSTILE_NAMES
    for name, case in cases.items():
        case.note = f"known hostile input: {name}" + (f" ({case.note})" if case.note else "")
    return cases


def surface_cases(corpus: Corpus) -> dict[str, Case]:
    """Issue 21's known defects, one case each: the TUI, the model's answers and the transport, the key,
    the facts cache, recordings, and a kill at a set moment."""
    import random

    from harness.fuzz import surfaces as s

    def tui(program: str, pattern: str) -> Case:
        keys = ["@settle", *s.TUI_PATTERNS[pattern], "@settle"]
        cache = {name: FileSpec("file", data) for name, data in corpus.cache_entries[program].items()}
        return Case("tui", [program, *keys], {s.FOREIGN: FileSpec("file", s.FOREIGN_TEXT)}, driver="tui", cache=cache)

    def llm(behaviour: dict, secret: str = "sk-fuzz-0123456789abcdef01234567", retries: str = "0") -> Case:
        files = {s.SESSION: FileSpec("file", corpus.sessions["fresh"]), s.FOREIGN: FileSpec("file", s.FOREIGN_TEXT)}
        argv = ["fill", "0", "--auto", "llm", *s.LLM_OPTIONS, "--retries", retries, "--rounds", "1"]
        return Case("llm", argv, files, env=s.llm_environment(secret), llm=[behaviour], secret=secret)

    def cache(entry: str | None, folder: str = "normal", argv: list[str] | None = None) -> Case:
        files, entries, path, read_only = s.cache_layout(corpus, "spmm", entry, folder, random.Random(str(entry)))
        return Case("cache", argv or ["start", "spmm", *SPMM_DIMS, "--session", "s.json"], files, cache=entries, cache_path=path,
                    cache_read_only=read_only, compare_uncached=True)

    def recording(mutation: str) -> Case:
        files = {s.SESSION: FileSpec("file", corpus.sessions["fresh"]),
                 "rec.jsonl": FileSpec("file", s.mutate_recording(corpus.recording, mutation))}
        argv = ["fill", "0", "--auto", "llm", *s.LLM_OPTIONS, "--retries", "0", "--replay-llm", "rec.jsonl"]
        secret = "sk-fuzz-76543210fedcba9876543210"
        return Case("recording", argv, files, env=s.llm_environment(secret), secret=secret)

    def kill(argv: list[str], which: str, after: float, number: int) -> Case:
        files = {s.SESSION: FileSpec("file", corpus.sessions[which]), s.FOREIGN: FileSpec("file", s.FOREIGN_TEXT)}
        return Case("kill", argv, files, kill={"after": after, "signal": number}, then=[["show"], ["undo"]])

    return {
        "tui-gcn-ctrl+p-pageup": tui("gcn", "ctrl+p-pageup-together"),
        "tui-gcn-export-enter+escape": tui("gcn", "export-settled-enter+escape"),
        "tui-gcn-auto-enter+escape": tui("gcn", "auto-settled-enter+escape"),
        "tui-deep_gcn-tree-after-step": tui("deep_gcn", "tree-after-step"),
        "llm-answer-10000-deep": llm(s.ANSWERS["10000-deep"]),
        "llm-answer-400-digit-integer": llm(s.ANSWERS["400-digit-integer"]),
        "llm-answer-nan": llm(s.ANSWERS["nan"]),
        "llm-answer-1e400": llm(s.ANSWERS["1e400"]),
        "llm-answer-500kb-braces": llm(s.ANSWERS["500kb-braces"]),
        "llm-answer-control-and-bidi": llm(s.ANSWERS["control-and-bidi"]),
        "llm-answer-wrong-types": llm(s.ANSWERS["wrong-types-entries"]),
        "llm-answer-cut-off-length": llm(s.ANSWERS["cut-off-length"]),
        "llm-answer-empty-content": llm(s.ANSWERS["empty-content"]),
        "llm-http-500": llm(s.FAULTS["http-500-html"]),
        "llm-http-400": llm(s.FAULTS["http-400-control-message"]),
        "llm-http-429": llm(s.FAULTS["http-429"], retries="1"),
        "llm-slow": llm(s.FAULTS["slow"]),
        "llm-connection-reset": llm(s.FAULTS["connection-reset"]),
        "llm-garbage-bytes": llm(s.FAULTS["garbage-bytes"]),
        "llm-huge-body": llm(s.FAULTS["huge-body"]),
        "llm-key-control-characters": llm({"fake": True}, secret="sk-fuzz-\n\x1b[31m0123456789abcdef01234567"),
        "llm-key-non-ascii": llm({"fake": True}, secret="sk-fuzz-\u00e90123456789abcdef01234567"),
        "llm-server-echoes-key": llm(s.FAULTS["server-echoes-key-401"]),
        "cache-header-2000-deep": cache("header-2000-deep"),
        "cache-forged-checksum": cache("forged-checksum"),
        "cache-symlink-outside": cache("symlink-outside"),
        "cache-truncated": cache("truncated"),
        "cache-entry-is-a-directory": cache("directory"),
        "cache-folder-very-deep": cache(None, "very-deep"),
        "cache-folder-missing": cache(None, "missing"),
        "cache-folder-unwritable": cache(None, "unwritable-empty"),
        "recording-usage-not-numbers": recording("usage-not-numbers"),
        "recording-wrong-types": recording("reply-wrong-type"),
        "recording-usage-huge": recording("usage-huge"),
        "recording-deep-nesting": recording("deep-nesting"),
        "kill-fill-sigkill": kill(["fill", "0", "--auto", "default", "--all"], "fresh", 0.05, 9),
        "kill-undo-sigterm": kill(["undo", "3"], "partial", 0.02, 15),
        "kill-export-sigkill": kill(["export", "--partial", "--json", "out.json", "--python", "out.py"], "partial",
                                    0.03, 9),
    }


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
    # issue 21
    "tui-gcn-ctrl+p-pageup", "tui-gcn-export-enter+escape", "tui-gcn-auto-enter+escape",
    "tui-deep_gcn-tree-after-step", "llm-answer-10000-deep", "llm-answer-400-digit-integer", "llm-answer-nan",
    "llm-answer-1e400", "llm-answer-500kb-braces", "llm-answer-control-and-bidi", "llm-answer-wrong-types",
    "llm-answer-cut-off-length", "llm-answer-empty-content", "llm-http-500", "llm-http-400", "llm-http-429",
    "llm-slow", "llm-connection-reset", "llm-garbage-bytes", "llm-huge-body", "llm-key-control-characters",
    "llm-key-non-ascii", "llm-server-echoes-key", "cache-header-2000-deep", "cache-forged-checksum",
    "cache-symlink-outside", "cache-truncated", "cache-entry-is-a-directory", "cache-folder-very-deep",
    "cache-folder-missing", "cache-folder-unwritable", "recording-usage-not-numbers", "recording-wrong-types",
    "recording-usage-huge", "recording-deep-nesting", "kill-fill-sigkill", "kill-undo-sigterm",
    "kill-export-sigkill",
)
