"""The classes of issue 21, beyond the command line's inputs: the TUI driven by keys, the model's
answers and the transport faults of a local server, the facts cache, LLM recordings, and a
kill at a random moment. Each generator takes a valid case and makes it hostile in one way;
the named catalogues (ANSWERS, FAULTS, CACHE_ENTRIES, CACHE_FOLDERS, RECORDING_MUTATIONS) are
shared with the fixed hostile cases (harness/fuzz/hostile.py).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from typing import Callable

from harness.fuzz.cases import DIRECTORY, FIFO, Case, FileSpec, symlink
from harness.fuzz.corpus import LLM_ENVIRONMENT, SPMM_DIMS, Corpus
from harness.fuzz.mutations import mutate_structure, mutate_text

SESSION = ".navigator/session.json"
#: a file no command names: it must stay as it is (cache entries link to it, kills must not touch it)
FOREIGN = "notes.txt"
FOREIGN_TEXT = b"my notes: nothing may write here\n"
#: characters a key should never hold, and that an escape would change: control, non-ASCII, bidi, a space
KEY_ODDITIES = ("", "", "\n", "\t", "\r\n", "\x1b[31m", "\x7f", "\u00e9", "\u00df", "\u202e", "\u200b",
                "\U0001f511", " ", "%", "\\", '"')
#: the options every model case adds: short timeouts, so a slow server costs a second or two
LLM_OPTIONS = ["--timeout", "1"]


def secret_key(rng: random.Random) -> str:
    """A key with a random token (what checks.key_forms looks for) and maybe an odd character."""
    token = "".join(rng.choice("0123456789abcdef") for _ in range(24))
    odd = rng.choice(KEY_ODDITIES)
    return rng.choice((f"sk-fuzz-{odd}{token}", f"sk-fuzz-{token}{odd}", f"{odd}sk-fuzz-{token}"))


def llm_environment(secret: str) -> dict[str, str]:
    return {**LLM_ENVIRONMENT, "OPENAI_API_KEY": secret}


# ---------------------------------------------------------------- the model's answers

def _fake_with(**fields) -> dict:
    """The fake model's answer with these fields set in every proposal (see llm_faults.py)."""
    return {"fake": True, "set": fields}


def _fake_with_raw(**fields) -> dict:
    """The fake model's answer with these fields written as raw JSON text (NaN, 1e400, 400 digits)."""
    return {"fake": True, "set_raw": fields}


#: hostile answers (the server's behaviour for one request), by name
ANSWERS: dict[str, dict] = {
    "10000-deep": {"content": '{"proposals": ' + "[" * 10_000 + "]" * 10_000 + "}"},
    "10000-deep-objects": {"content": '{"a":' * 10_000 + "1" + "}" * 10_000},
    "400-digit-integer": _fake_with_raw(score="9" * 400, rank="1" + "0" * 400, estimated_intensity="7" * 400),
    "nan": _fake_with_raw(score="NaN", estimated_intensity="NaN"),
    "1e400": _fake_with_raw(score="1e400", estimated_intensity="-1e400"),
    "infinity": _fake_with_raw(score="Infinity"),
    "500kb-braces": {"content": "{" * 500_000},
    "control-and-bidi": _fake_with(rationale="\u202e\x1b[2J\x1b]0;pwned\x07\r\x00\u2028evil\u2066x\u2069\ud800"),
    "control-in-choices": _fake_with(choices=["0.1\x1b[31m", "\u202e1.0"]),
    "wrong-types-proposals": {"content": '{"proposals": "all of them"}'},
    "wrong-types-entries": {"content": '{"proposals": [5, null, "x", {"choices": 7, "rank": "first"}]}'},
    "wrong-types-choices": _fake_with(choices=[1.5, None, {"a": 1}, ["0.1"]], rank=[], score="high"),
    "wrong-types-top": {"content": "[1, 2, 3]"},
    "null": {"content": "null"},
    "cut-off-length": {"fake": True, "cut": 0.5, "finish_reason": "length"},
    "length-but-whole": {"fake": True, "finish_reason": "length"},
    "empty-content": {"content": ""},
    "null-content": {"content": None},
    "no-choices": {"no_choices": True},
    "odd-finish-reason": {"fake": True, "finish_reason": "\u202econtent_filter"},
    "usage-wrong-types": {"fake": True, "usage": {"prompt_tokens": "many", "completion_tokens": [], "total_tokens": None}},
    "usage-huge": {"fake": True, "usage": {"prompt_tokens": 10 ** 400, "completion_tokens": -1, "total_tokens": 2 ** 70}},
    "usage-not-an-object": {"fake": True, "usage": "lots"},
    "prose-around-json": {"fake": True, "wrap": "Sure! Here you go:\n```json\n{}\n```\nHope this helps \u202e"},
    "huge-rationale": _fake_with(rationale="x" * (4 << 20)),
}

#: transport faults, by name
FAULTS: dict[str, dict] = {
    "http-500": {"status": 500},
    "http-500-html": {"status": 500, "body": "<html><body>\u202e502 Bad Gateway\x1b[2J</body></html>"},
    "http-500-empty": {"status": 500, "body": ""},
    "http-500-deep-error": {"status": 500, "body": '{"error": ' + "[" * 10_000 + "]" * 10_000 + "}"},
    "http-500-error-not-object": {"status": 500, "body": '{"error": 5}'},
    "http-400": {"status": 400},
    "http-400-long-message": {"status": 400, "body": json.dumps({"error": {"message": "m" * 200_000}})},
    "http-400-control-message": {"status": 400, "body": json.dumps(
        {"error": {"message": "\x1b[31mred\u202e\r\nnavigator: error: fake", "type": "\x00"}})},
    "http-429": {"status": 429, "headers": {"Retry-After": "0.01"}},
    "http-429-odd-retry-after": {"status": 429, "headers": {"Retry-After": "1e400", "retry-after-ms": "NaN"}},
    "http-401": {"status": 401},
    "http-404": {"status": 404},
    "http-503-huge-body": {"status": 503, "body": "E" * (6 << 20)},
    "slow": {"fake": True, "delay": 1.6},
    "connection-reset": {"reset": True},
    "garbage-bytes": {"garbage": base64.b64encode(bytes(range(256)) * 4).decode("ascii")},
    "garbage-http-line": {"garbage": base64.b64encode(b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n{").decode("ascii")},
    "not-json-200": {"raw": "<html>hello</html>", "content_type": "text/html"},
    "json-not-a-completion": {"raw": '{"hello": "world"}'},
    "deep-json-200": {"raw": "[" * 100_000 + "]" * 100_000},
    "huge-body": {"raw": json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "x" * (8 << 20)},
                                                  "finish_reason": "stop"}]})},
    "short-body": {"raw": '{"choices": [', "declared_length": 100_000},
    "server-echoes-key-401": {"echo_key": 401},
    "server-echoes-key-500": {"echo_key": 500},
    "server-echoes-key-400": {"echo_key": 400},
}


def _garbage(rng: random.Random) -> dict:
    return {"garbage": base64.b64encode(rng.randbytes(rng.randrange(1, 3000))).decode("ascii")}


def _behaviour(rng: random.Random) -> tuple[dict, str]:
    choice = rng.random()
    if choice < 0.35:
        name = rng.choice(sorted(ANSWERS))
        return ANSWERS[name], f"answer {name}"
    if choice < 0.65:
        name = rng.choice(sorted(FAULTS))
        return FAULTS[name], f"fault {name}"
    if choice < 0.9:
        seed = rng.randrange(1 << 30)
        return {"fake": True, "mutate": seed}, f"the fake answer mutated (seed {seed})"
    return _garbage(rng), "random garbage bytes"


def llm_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    which = rng.choice(("fresh", "partial"))
    hole = str(rng.choice(corpus.open_holes[which]))
    argv = ["fill", hole, "--auto", "llm", *LLM_OPTIONS, "--retries", rng.choice(("0", "0", "1")),
            "--rounds", rng.choice(("1", "2")),
            *rng.choice(([], [], ["--all"], ["--subtree"], ["--top", "2", "--pick", "1"], ["--verbose"]))]
    secret = secret_key(rng)
    behaviours, notes = [], []
    for _ in range(rng.choice((1, 1, 2, 3)) if mutate else 0):
        behaviour, note = _behaviour(rng)
        behaviours.append(behaviour)
        notes.append(note)
    if not behaviours or rng.random() < 0.4:  # later requests answered well, or a valid control
        behaviours.append({"fake": True})
        notes.append("then the fake model")
    files = {SESSION: FileSpec("file", corpus.sessions[which]), FOREIGN: FileSpec("file", FOREIGN_TEXT)}
    return Case("llm", argv, files, f"fill ?{hole} --auto llm in a {which} session; key {secret!r}; "
                + "; ".join(notes), env=llm_environment(secret), llm=behaviours, secret=secret)


# ---------------------------------------------------------------- recordings

def _raw_json(value: object, raw: dict[str, str]) -> str:
    """`value` as JSON, then each "\\u0000NAME" sentinel string replaced by raw[NAME] (NaN, 1e400...)."""
    text = json.dumps(value, ensure_ascii=False)
    for name, replacement in raw.items():
        text = text.replace(json.dumps(f"\u0000{name}"), replacement)
    return text


def _reply_usage(line: dict, usage) -> dict:
    if isinstance(line.get("reply"), dict):
        line["reply"]["usage"] = usage
    return line


#: what a mutation does to one line of a recording (a parsed JSON object) and the raw texts it needs
RECORDING_MUTATIONS: dict[str, Callable[[dict], tuple[dict, dict[str, str]]]] = {
    "usage-not-numbers": lambda line: (_reply_usage(line, {"prompt_tokens": "many", "completion_tokens": [1],
                                                           "total_tokens": {"a": None}}), {}),
    "usage-not-an-object": lambda line: (_reply_usage(line, "lots"), {}),
    "usage-huge": lambda line: (_reply_usage(line, {"prompt_tokens": "\u0000big", "completion_tokens": "\u0000big",
                                                    "total_tokens": "\u0000big"}), {"big": "9" * 400}),
    "usage-nan": lambda line: (_reply_usage(line, {"prompt_tokens": "\u0000nan", "completion_tokens": 1,
                                                   "total_tokens": "\u0000inf"}), {"nan": "NaN", "inf": "1e400"}),
    "usage-negative": lambda line: (_reply_usage(line, {"prompt_tokens": -5, "completion_tokens": -1e300,
                                                        "total_tokens": 0.5}), {}),
    "usage-deep": lambda line: (_reply_usage(line, "\u0000deep"), {"deep": '{"a":' * 5000 + "1" + "}" * 5000}),
    "reply-wrong-type": lambda line: ({**line, "reply": ["text"]}, {}),
    "text-wrong-type": lambda line: ({**line, "reply": {**(line.get("reply") or {}), "text": 5}}, {}),
    "seconds-huge": lambda line: ({**line, "reply": {**(line.get("reply") or {}), "seconds": "\u0000big",
                                                     "attempts": "\u0000big"}}, {"big": "1e400"}),
    "index-huge": lambda line: ({**line, "index": "\u0000big"}, {"big": "9" * 400}),
    "error-wrong-type": lambda line: ({**line, "error": {"kind": ["unavailable"], "message": None}}, {}),
    "error-unknown-kind": lambda line: ({**line, "reply": None, "error": {"kind": "\u202eboom", "message": "x"}}, {}),
    "messages-wrong-type": lambda line: ({**line, "messages": "hello"}, {}),
    "deep-nesting": lambda line: ({**line, "parsed": "\u0000deep"}, {"deep": "[" * 100_000 + "]" * 100_000}),
    "huge-text": lambda line: ({**line, "reply": {**(line.get("reply") or {}), "text": "x" * (8 << 20)}}, {}),
    "version-wrong": lambda line: ({**line, "version": "\u0000big"}, {"big": "1" + "0" * 400}),
}


def mutate_recording(recording: bytes, name: str, line_number: int = 0) -> bytes:
    lines = recording.decode("utf-8").splitlines()
    index = min(line_number, len(lines) - 1)
    line, raw = RECORDING_MUTATIONS[name](json.loads(lines[index]))
    lines[index] = _raw_json(line, raw)
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def recording_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    recording, note = corpus.recording, "valid (control)"
    choice = rng.random() if mutate else 0.0
    if 0.1 <= choice < 0.7:
        name = rng.choice(sorted(RECORDING_MUTATIONS))
        lines = recording.count(b"\n")
        number = rng.randrange(max(lines, 1))
        recording, note = mutate_recording(recording, name, number), f"line {number + 1}: {name}"
    elif choice >= 0.7:
        lines = recording.decode("utf-8").splitlines()
        number = rng.randrange(len(lines))
        if rng.random() < 0.6:
            data, how = mutate_structure(rng, lines[number].encode("utf-8"), "json")
            lines[number] = data.decode("utf-8", "surrogatepass")
            recording = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
        else:
            recording, how = mutate_text(rng, recording)
        note = f"line {number + 1}: {how}"
    secret = secret_key(rng)
    argv = ["fill", "0", "--auto", "llm", *LLM_OPTIONS, "--retries", "0", "--replay-llm", "rec.jsonl"]
    files = {SESSION: FileSpec("file", corpus.sessions["fresh"]), "rec.jsonl": FileSpec("file", recording)}
    return Case("recording", argv, files, f"--replay-llm of a recording: {note}", env=llm_environment(secret),
                secret=secret)


# ---------------------------------------------------------------- the facts cache

def _entry_parts(data: bytes) -> tuple[dict, bytes]:
    header, _, payload = data.partition(b"\n")
    return json.loads(header), payload


def _with_payload(data: bytes, payload: bytes) -> bytes:
    """The entry with another payload, and a checksum recomputed over it (a forged entry)."""
    header, _ = _entry_parts(data)
    header["sha256"] = hashlib.sha256(payload).hexdigest()
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n" + payload


def _forged_facts(data: bytes, rng: random.Random) -> bytes:
    """Facts changed (a record dropped, or an argument altered), or solved tables changed (a
    count altered, a table dropped), the checksum recomputed."""
    _, payload = _entry_parts(data)
    entry = json.loads(payload)
    if "rows" not in entry:  # the oracle's solved tables (navigator.synth.solved_state)
        counts = next(iter(entry["counts"].values()))[1]
        if rng.random() < 0.5 and counts:
            counts[rng.randrange(len(counts))] = rng.choice((0, 99, "zzz", None, [], 2 ** 70))
        elif entry["groups"]:
            del entry["groups"][rng.randrange(len(entry["groups"]))]
        return _with_payload(data, json.dumps(entry, separators=(",", ":")).encode())
    rows = entry["rows"]  # [prop index, value, ...] per fact (ScheduleSpace.kept_facts)
    index = rng.randrange(len(rows))
    if rng.random() < 0.5 or len(rows[index]) < 2:
        del rows[index]
    else:
        rows[index][rng.randrange(1, len(rows[index]))] = rng.choice((0, 99, "zzz", None, [], 2 ** 70))
    return _with_payload(data, json.dumps(entry, separators=(",", ":")).encode())


def _header_deep(data: bytes, rng: random.Random) -> bytes:
    _, payload = _entry_parts(data)
    return ('{"a":' * 2000 + "1" + "}" * 2000).encode() + b"\n" + payload


def _header_list_deep(data: bytes, rng: random.Random) -> bytes:
    _, payload = _entry_parts(data)
    return ("[" * 2000 + "]" * 2000).encode() + b"\n" + payload


def _payload_deep(data: bytes, rng: random.Random) -> bytes:
    return _with_payload(data, ("[" * 100_000 + "]" * 100_000).encode())


def _payload_deep_facts(data: bytes, rng: random.Random) -> bytes:
    _, payload = _entry_parts(data)
    entry = json.loads(payload)
    text = json.dumps(entry, separators=(",", ":")).replace('"rows":', '"rows":' + "[" * 5000, 1)
    return _with_payload(data, (text[:-1] + "]" * 5000 + "}").encode())


def _payload_mutated(data: bytes, rng: random.Random) -> bytes:
    _, payload = _entry_parts(data)
    mutated, _ = mutate_structure(rng, payload, "json")
    return _with_payload(data, mutated)


def _payload_numbers(data: bytes, rng: random.Random) -> bytes:
    _, payload = _entry_parts(data)
    text = payload.decode()
    return _with_payload(data, text.replace("1", rng.choice(("NaN", "1e400", "9" * 400)), 3).encode())


def _header_wrong_types(data: bytes, rng: random.Random) -> bytes:
    header, payload = _entry_parts(data)
    header[rng.choice(sorted(header))] = rng.choice(([], None, 5, {"a": [1]}, "\u202e"))
    return json.dumps(header).encode() + b"\n" + payload


def _truncated(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data))]


def _text_mutated(data: bytes, rng: random.Random) -> bytes:
    return mutate_text(rng, data)[0]


#: what replaces a valid entry, by name: bytes, or a file-system object (a link into the case's folder,
#: whose target must stay unchanged)
CACHE_ENTRIES: dict[str, Callable[[bytes, random.Random], bytes | FileSpec]] = {
    "header-2000-deep": _header_deep,
    "header-2000-deep-list": _header_list_deep,
    "header-wrong-types": _header_wrong_types,
    "forged-checksum": _forged_facts,
    "payload-100000-deep": _payload_deep,
    "payload-5000-deep-facts": _payload_deep_facts,
    "payload-mutated": _payload_mutated,
    "payload-odd-numbers": _payload_numbers,
    "truncated": _truncated,
    "text-mutated": _text_mutated,
    "empty": lambda data, rng: b"",
    "symlink-outside": lambda data, rng: symlink(f"../root/{FOREIGN}"),
    "symlink-outside-valid": lambda data, rng: symlink("../root/entry-copy.json"),
    "symlink-dangling": lambda data, rng: symlink("../root/nowhere/entry.json"),
    "symlink-loop": lambda data, rng: symlink("loop.cache.json"),
    "symlink-dev-zero": lambda data, rng: symlink("/dev/zero"),
    "directory": lambda data, rng: DIRECTORY,
    "fifo": lambda data, rng: FIFO,
}

#: where the cache folder is (relative to the case's folder), by name: (cache_path, read_only, lay out entries)
CACHE_FOLDERS: dict[str, tuple[str, bool, bool]] = {
    "normal": ("cache", False, True),
    "missing": ("no/such/cache", False, False),
    "very-deep": ("deep/" + "d/" * 2100 + "cache", False, False),  # past PATH_MAX: it cannot be made
    "deep": ("deep/" + "d/" * 150 + "cache", False, True),
    "unwritable": ("cache", True, True),
    "unwritable-empty": ("cache", True, False),
    "a-foreign-file": (f"root/{FOREIGN}", False, False),
    "under-a-foreign-file": (f"root/{FOREIGN}/cache", False, False),
}


def cache_layout(corpus: Corpus, program: str, entry_mutation: str | None, folder: str,
                 rng: random.Random) -> tuple[dict[str, FileSpec], dict[str, FileSpec], str, bool]:
    """(files for the case's folder, cache entries, cache path, read-only) for one hostile cache."""
    files = {FOREIGN: FileSpec("file", FOREIGN_TEXT)}
    cache: dict[str, FileSpec] = {}
    path, read_only, lay_out = CACHE_FOLDERS[folder]
    if lay_out:
        for name, data in corpus.cache_entries[program].items():
            if name.startswith("."):  # the cache's own secret (KEY_FILE), not an entry: kept as made
                cache[name] = FileSpec("file", data)
                continue
            made = CACHE_ENTRIES[entry_mutation](data, rng) if entry_mutation else data
            cache[name] = made if isinstance(made, FileSpec) else FileSpec("file", made)
            if entry_mutation == "symlink-outside-valid":
                files["entry-copy.json"] = FileSpec("file", data)
    return files, cache, path, read_only


def cache_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    # the commands that open a session's space read the cache (count and check do not)
    command = rng.choice(("start", "start", "show", "show", "fill", "undo"))
    files: dict[str, FileSpec] = {}
    if command == "start":
        argv = ["start", "spmm", *SPMM_DIMS, "--session", "s.json"]
    else:
        which = rng.choice(("fresh", "partial", "complete-but-one"))
        files[SESSION] = FileSpec("file", corpus.sessions[which])
        holes = corpus.open_holes[which]
        argv = {"show": ["show", "--json"], "fill": ["fill", str(holes[0]) if holes else "0", "1"],
                "undo": ["undo"]}[command]
    choice = rng.random() if mutate else 0.0
    entry_mutation, folder = None, "normal"
    if choice >= 0.1:
        if rng.random() < 0.75:
            entry_mutation = rng.choice(sorted(CACHE_ENTRIES))
        else:
            folder = rng.choice(sorted(CACHE_FOLDERS))
            entry_mutation = rng.choice((None, None, rng.choice(sorted(CACHE_ENTRIES))))
    more, cache, path, read_only = cache_layout(corpus, "spmm", entry_mutation, folder, rng)
    note = f"{command} with the cache folder {folder}" + (f", its entry {entry_mutation}" if entry_mutation else "")
    return Case("cache", argv, {**files, **more}, note, cache=cache, cache_path=path, cache_read_only=read_only,
                compare_uncached=True)


# ---------------------------------------------------------------- a kill at a random moment

def kill_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    which = rng.choice(("fresh", "partial", "complete-but-one"))
    path = SESSION if rng.random() < 0.7 else "s.json"
    where = [] if path == SESSION else ["--session", path]
    holes = corpus.open_holes[which]
    hole = str(holes[0]) if holes else "0"
    command = rng.choice(("fill", "fill", "undo", "export"))
    if command == "fill":
        argv = ["fill", hole, *rng.choice((["1"], ["--auto", "default", "--subtree"], ["--auto", "default", "--all"],
                                           ["--auto", "heuristic", "--all"]))]
    elif command == "undo":
        argv = ["undo", *rng.choice(([], ["3"]))]
    else:
        argv = ["export", "--partial", "--json", "out.json", "--python", "out.py"]
    files = {path: FileSpec("file", corpus.sessions[which]), FOREIGN: FileSpec("file", FOREIGN_TEXT)}
    delay = round(rng.uniform(0.0, 0.3), 3)
    signal_number = rng.choice((9, 15))
    return Case("kill", [*argv, *where], files, f"{command} in a {which} session, signal {signal_number} after "
                f"{delay} s", kill={"after": delay, "signal": signal_number} if mutate else None,
                then=[["show", *where], ["undo", *where]])


# ---------------------------------------------------------------- the TUI

#: the TUI's key sequences that an adversarial pass found trouble with, as groups (tui_driver.py)
TUI_PATTERNS: dict[str, list[str]] = {
    "ctrl+p-pageup": ["ctrl+p", "pageup"],
    "ctrl+p-settled-pageup": ["ctrl+p", "@settle", "pageup", "pageup", "enter"],
    "export-enter+escape": ["e", "+enter escape"],
    "export-settled-enter+escape": ["e", "@settle", "+enter escape", "@settle"],
    "export-enter-then-escape": ["e", "@settle", "enter escape"],
    "auto-enter+escape": ["a", "+enter escape"],
    "auto-settled-enter+escape": ["a", "@settle", "+enter escape", "@settle"],
    "auto-enter-then-escape": ["a", "@settle", "enter escape"],
    "ctrl+p-pageup-together": ["+ctrl+p pageup"],
    "tree-after-step": ["enter", "+shift+tab down enter"],
    "tree-after-default": ["d", "shift+tab", "down", "enter"],
    "tree-after-undo": ["u", "tab tab down enter"],
}


def tui_keys(rng: random.Random, count: int) -> list[str]:
    from harness.fuzz.tui_driver import KEYS

    groups: list[str] = []
    while len(groups) < count:
        choice = rng.random()
        if choice < 0.25:
            groups += TUI_PATTERNS[rng.choice(sorted(TUI_PATTERNS))]
        elif choice < 0.35:
            groups.append("@settle")
        else:
            keys = [rng.choice(KEYS) for _ in range(rng.choice((1, 1, 2, 3)))]
            groups.append(("+" if len(keys) > 1 and rng.random() < 0.3 else "") + " ".join(keys))
    return groups


def tui_case(rng: random.Random, corpus: Corpus, mutate: bool = True) -> Case:
    program = rng.choice(("gcn", "gcn", "deep_gcn"))
    keys = tui_keys(rng, rng.randrange(4, 24) if mutate else 3)
    argv = [program, *(["--evaluate"] if rng.random() < 0.15 else []), *keys]
    cache = {name: FileSpec("file", data) for name, data in corpus.cache_entries[program].items()}
    return Case("tui", argv, {FOREIGN: FileSpec("file", FOREIGN_TEXT)}, f"the TUI on {program}: {len(keys)} key groups",
                driver="tui", cache=cache)


GENERATORS = {"tui": tui_case, "llm": llm_case, "cache": cache_case, "recording": recording_case, "kill": kill_case}
