"""The harness catches what it claims to catch, and raises nothing on valid inputs.

Most tests run a stand-in entry point in the fork child (instead of navigator.cli.main)
that misbehaves in one known way, and check that exactly that is reported.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import sys
import time
from pathlib import Path

import pytest

from harness.fuzz.cases import CLASSES, COMMAND_LINE_CLASSES, DIRECTORY, Case, FileSpec, symlink
from harness.fuzz.formats import dump_json, dump_toml
from harness.fuzz.harness import run_case
from harness.fuzz.outputs import named_outputs
from harness.fuzz.runner import FILE_SIZE_LIMIT, FRESH_DEPTH, READ_LIMIT, ForkRunner, Limits
from tests.paths import REPO


def run(entry, tmp_path, argv=("check", "spmm"), files=None, timeout=10.0, **options):
    runner = ForkRunner(Limits(timeout=timeout), entry=entry)
    return run_case(Case("program", list(argv), dict(files or {})), runner, tmp_path, **options)


# ---------------------------------------------------------------- what a child reports

def test_a_clean_run_passes_and_its_output_stays_out_of_pytest(tmp_path, capfd):
    def entry(argv):
        print("to stdout", argv)
        print("to stderr", file=sys.stderr)
        return 0

    outcome = run(entry, tmp_path)
    assert outcome.ok and outcome.result.exit_code == 0
    assert outcome.result.stdout == "to stdout ['check', 'spmm']\n"
    assert outcome.result.stderr == "to stderr\n"
    captured = capfd.readouterr()
    assert "to stdout" not in captured.out and "to stderr" not in captured.err


def test_an_escaping_exception_is_a_traceback(tmp_path):
    def entry(argv):
        raise KeyError("fusion")

    outcome = run(entry, tmp_path)
    assert outcome.result.exit_code == 70
    assert {"traceback", "exit-code"} <= set(outcome.failures)
    assert "KeyError" in outcome.signature()


def test_the_last_resort_handler_is_an_internal_error_with_a_crash_file(tmp_path):
    def entry(argv):
        from navigator.process.crash import report_bug

        return report_bug(ZeroDivisionError("division by zero"), argv)

    outcome = run(entry, tmp_path)
    assert outcome.result.exit_code == 1
    assert set(outcome.failures) == {"internal-error", "crash-file"}
    assert "ZeroDivisionError" in outcome.crash_reports[0]


def test_a_hang_is_killed_with_the_processes_it_started(tmp_path):
    pid_file = tmp_path / "grandchild.pid"

    def entry(argv):
        grandchild = os.fork()
        if grandchild == 0:
            time.sleep(60)
            os._exit(0)
        pid_file.write_text(str(grandchild))
        time.sleep(60)
        return 0

    outcome = run(entry, tmp_path, timeout=2.0)
    assert outcome.result.hung and outcome.failures == ["hang"]
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(grandchild):
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_a_hang_is_told_from_a_busy_machine_by_the_cpu_it_used(tmp_path, monkeypatch):
    """A blocked child (no CPU used) is a hang after WALL_FACTOR timeouts; one that used a
    timeout of CPU is a hang at the timeout (its CPU time is faked: a real spin gets too
    little of a loaded machine to say when it would reach it)."""
    from harness.fuzz import runner as runner_module

    def sleeps(argv):
        time.sleep(60)
        return 0

    assert 0 < runner_module.cpu_seconds(os.getpid())  # read from /proc for a live process
    (tmp_path / "blocked").mkdir()
    blocked = run(sleeps, tmp_path / "blocked", timeout=1.0)
    assert blocked.result.hung and runner_module.WALL_FACTOR <= blocked.result.seconds < runner_module.WALL_FACTOR + 5
    monkeypatch.setattr(runner_module, "cpu_seconds", lambda pid: 1.5)
    (tmp_path / "spinning").mkdir()
    spinning = run(sleeps, tmp_path / "spinning", timeout=1.0)
    assert spinning.result.hung and spinning.result.seconds < 3


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_peak_memory_over_the_limit_is_reported(tmp_path):
    def entry(argv):
        block = b"x" * (300 << 20)  # touched, so resident
        return 0 if block else 1

    baseline = _resident_kib()  # the forked child starts with these pages resident
    outcome = run(entry, tmp_path, rss_limit_kib=baseline + 150 * 1024)
    assert outcome.failures == ["memory"] and outcome.result.max_rss_kib > 300 * 1024


def _resident_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))


def test_a_crash_by_signal_is_reported_with_the_faulthandler_dump(tmp_path):
    def entry(argv):
        os.kill(os.getpid(), signal.SIGSEGV)

    outcome = run(entry, tmp_path)
    assert outcome.result.exit_code == -signal.SIGSEGV
    assert set(outcome.failures) == {"signal", "traceback"}  # "Fatal Python error: Segmentation fault"


def test_the_child_gets_the_recursion_budget_of_a_fresh_process(tmp_path):
    def entry(argv):
        depth, frame = 0, sys._getframe()
        while frame is not None:
            depth, frame = depth + 1, frame.f_back
        print(sys.getrecursionlimit() - depth)
        return 0

    outcome = run(entry, tmp_path)
    # A fresh `python -m navigator` has 1000 - FRESH_DEPTH frames left in main; this entry sits two deeper.
    assert 1000 - FRESH_DEPTH - 3 <= int(outcome.result.stdout) <= 1000 - FRESH_DEPTH


def test_the_child_has_a_clean_environment_and_an_address_space_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("NAVIGATOR_SESSION", "elsewhere.json")

    def entry(argv):
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        print(json.dumps({"session": os.environ.get("NAVIGATOR_SESSION"), "cap": soft,
                          "file_size": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
                          "max_memory": os.environ["NAVIGATOR_MAX_MEMORY"], "cwd": os.getcwd(),
                          "crash": os.environ["NAVIGATOR_CRASH_DIR"]}))
        return 0

    outcome = run(entry, tmp_path)
    seen = json.loads(outcome.result.stdout)
    assert seen["session"] is None and seen["max_memory"] == "1G"
    assert seen["cap"] != resource.RLIM_INFINITY and seen["file_size"] == FILE_SIZE_LIMIT
    assert seen["cwd"].endswith("/root") and seen["crash"].endswith("/crash")


def test_a_flood_of_output_is_reported_and_read_in_part(tmp_path):
    def entry(argv):
        sys.stdout.write("start\n" + "x" * (17 << 20) + "\nend\n")
        return 0

    outcome = run(entry, tmp_path)
    assert outcome.failures == ["huge-output"]
    assert outcome.result.stdout_bytes > 17 << 20 and len(outcome.result.stdout) < 3 * READ_LIMIT
    assert outcome.result.stdout.startswith("start") and outcome.result.stdout.endswith("end\n")


# ---------------------------------------------------------------- files a command may change

def _writes(*paths: str, remove: str | None = None):
    def entry(argv):
        for path in paths:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:  # follows a symbolic link, as atomic writes do
                handle.write("new\n")
        if remove:
            os.remove(remove)
        return 0
    return entry


def test_changes_outside_the_named_outputs_are_violations(tmp_path):
    outcome = run(_writes("input.toml", "stray.txt", remove="other.json"), tmp_path,
                  files={"input.toml": FileSpec.text("old\n"), "other.json": FileSpec.text("{}")})
    assert outcome.failures == ["modified-files"]
    assert [(c.what, c.path) for c in outcome.unexpected] == [
        ("modified", "input.toml"), ("removed", "other.json"), ("created", "stray.txt")]


def test_named_outputs_their_folders_locks_and_link_targets_may_change(tmp_path):
    files = {"elsewhere/target.py": FileSpec.text("old\n"), "link.py": symlink("elsewhere/target.py")}
    outcome = run(_writes("new/folder/out.json", "elsewhere/target.py"), tmp_path,
                  argv=["export", "--json", "new/folder/out.json", "--python", "link.py"], files=files)
    assert outcome.ok, [c.describe() for c in outcome.unexpected]
    outcome = run(_writes("s.json", "s.json.lock"), tmp_path, argv=["fill", "1", "--session", "s.json"])
    assert outcome.ok
    outcome = run(_writes("samples/a.json", "samples/b.json"), tmp_path, argv=["sample", "spmm", "2", "--out", "samples"])
    assert outcome.ok


def test_a_temporary_file_left_beside_an_output_is_a_violation(tmp_path):
    outcome = run(_writes("s.json", ".s.json.1234.tmp"), tmp_path, argv=["fill", "1", "--session", "s.json"])
    assert [c.path for c in outcome.unexpected] == [".s.json.1234.tmp"]


def test_a_linked_output_must_stay_a_link(tmp_path):
    def entry(argv):
        os.remove("link.json")
        Path("link.json").write_text("{}")
        return 0

    files = {"target.json": FileSpec.text("{}\n"), "link.json": symlink("target.json")}
    outcome = run(entry, tmp_path, argv=["export", "--json", "link.json"], files=files)
    assert [c.path for c in outcome.unexpected] == ["link.json"]


def test_named_outputs_come_from_navigators_own_parser(tmp_path):
    assert named_outputs(["check", "spmm"], tmp_path).everything() == set()
    assert named_outputs(["no-such-command"], tmp_path).everything() == set()
    start = named_outputs(["start", "spmm"], tmp_path)
    assert start.files == {".navigator/session.json", ".navigator/session.json.bak"}
    assert start.locks == {".navigator/session.json.lock"}
    assert named_outputs(["show"], tmp_path).everything() == set()
    batch = named_outputs(["batch", "a.json", "--out", "r.jsonl"], tmp_path)
    assert batch.files == {"r.jsonl"} and batch.locks == {"r.jsonl.lock"}
    assert named_outputs(["eval", "s.json", "--dot", "g.dot"], tmp_path).numbered == {"g.dot"}
    assert named_outputs(["compare", "gcn", "--save", "d"], tmp_path).folders == {"d"}
    assert named_outputs(["export", "--json", "/dev/full"], tmp_path).everything() == set()


# ---------------------------------------------------------------- exit 2 and the error line

@pytest.mark.parametrize("stderr,failures,contract", [
    ("oops\n", ["error-line"], []),
    ("navigator: error: x.json: bad value (write a number)\n", [], []),
    ("navigator: error: bad value\n", [], ["no-location", "no-fix"]),
    ("navigator: error: a: first (fix)\nnavigator: error: b: second (fix)\n", [], ["several-errors"]),
    ("navigator: error: lib.toml: formula does not parse\n    at column 1\n", ["error-line"], []),
])
def test_exit_2_ends_with_one_error_line(tmp_path, stderr, failures, contract):
    def entry(argv):
        sys.stderr.write(stderr)
        return 2

    outcome = run(entry, tmp_path)
    assert (outcome.failures, outcome.contract) == (failures, contract)


def test_json_output_must_be_one_document(tmp_path):
    def entry(argv):
        print("not json")
        return 0

    assert run(entry, tmp_path, argv=["check", "spmm", "--json"]).contract == ["json-stdout"]
    assert run(entry, tmp_path, argv=["check", "spmm"]).contract == []


def test_a_traceback_on_stdout_counts_too(tmp_path):
    outcome = run(lambda argv: print("Traceback (most recent call last):"), tmp_path)
    assert outcome.failures == ["traceback"]


# ---------------------------------------------------------------- the generators' starting points

def test_every_valid_seed_document_survives_the_round_trip_through_the_writers(fuzz_corpus):
    import tomllib

    from harness.fuzz.mutations import dump_document, parse_document

    documents = [(data, "toml") for data in fuzz_corpus.programs.values()]
    documents += [(data, "json") for schedules in fuzz_corpus.schedules.values() for data in schedules]
    documents += [(data, "json") for data in fuzz_corpus.sessions.values()]
    for problem in fuzz_corpus.honeybee:
        documents += [(problem.facts, "toml"), (problem.target, "json")]
        if problem.library:
            documents.append((problem.library, "toml"))
    documents.append(((REPO / "navigator" / "library" / "fuseflow.hblib.toml").read_bytes(), "toml"))
    for data, fmt in documents:
        parsed = parse_document(data, fmt)
        assert parse_document(dump_document(parsed, fmt), fmt) == parsed
    assert tomllib.loads(dump_toml({"a": [{"b": 1}], "t": {"k": [1, 2]}, "x": float("nan")}))["t"] == {"k": [1, 2]}
    assert json.loads(dump_json({"a": [1, {"b": None}]})) == {"a": [1, {"b": None}]}


def test_mutations_are_reproducible_from_the_seed(fuzz_corpus):
    from harness.fuzz.generators import generate

    for klass in CLASSES:
        first = generate(klass, random.Random(f"7:{klass}"), fuzz_corpus)
        again = generate(klass, random.Random(f"7:{klass}"), fuzz_corpus)
        assert first.to_json() == again.to_json()


def test_a_case_survives_its_json_form(tmp_path):
    case = Case("data", ["check", "spmm", "--data", "g.npz"], {"g.npz": FileSpec("file", b"\x00\xff"),
                                                                "d": DIRECTORY, "l": symlink("/dev/zero")},
                note="n", read_only=("d",))
    assert Case.from_json(json.loads(json.dumps(case.to_json()))) == case


def test_a_case_lays_out_files_in_its_own_folder_only(tmp_path, fuzz_corpus):
    from harness.fuzz.generators import generate

    for escaping in ("/dev/full", "../outside"):
        with pytest.raises(ValueError, match="its own folder"):
            Case("session", ["show"], {escaping: FileSpec.text("{}")}).materialize(tmp_path / "root")
    for klass in CLASSES:
        for seed in range(300):
            for path in generate(klass, random.Random(seed), fuzz_corpus).files:
                assert not Path(path).is_absolute() and ".." not in Path(path).parts, (klass, seed, path)


@pytest.mark.parametrize("klass", COMMAND_LINE_CLASSES)
def test_valid_inputs_pass_every_check_and_every_command_succeeds(klass, fuzz_corpus, fuzz_runner, fuzz_scratch):
    """No false positives, and the fuzzer's commands reach past argument and file checks:
    unmutated, each command the class drives runs clean, and succeeds (exit 0) at least once
    (a few controls legitimately exit 2, e.g. `fill` of a hole that is not open)."""
    from tests.harness.conftest import failure_report
    from harness.fuzz.generators import COMMANDS, generate

    picked: dict[str, list[Case]] = {}
    for seed in range(400):
        case = generate(klass, random.Random(seed), fuzz_corpus, mutate=False)
        command = case.note.split()[0]
        if len(picked.setdefault(command, [])) < 3:  # three: a control may need --partial, an undo a step
            picked[command].append(case)
    assert set(picked) == set(COMMANDS[klass])
    succeeded = set()
    for command, cases in picked.items():
        for case in cases:
            outcome = run_case(case, fuzz_runner, fuzz_scratch)
            assert outcome.ok, failure_report(outcome)
            if outcome.result.exit_code == 0:
                succeeded.add(command)
    assert succeeded == set(COMMANDS[klass])


# ---------------------------------------------------------------- issue 21's checks

SECRET = "sk-fuzz-\u00e9\n0123456789abcdef01234567"


def run_with(entry, tmp_path, case: Case, timeout=10.0):
    return run_case(case, ForkRunner(Limits(timeout=timeout), entry=entry), tmp_path)


@pytest.mark.parametrize("how", ["raw", "repr", "json", "percent", "file"])
def test_the_key_in_any_escaped_form_is_a_leak(tmp_path, how):
    from urllib.parse import quote

    def entry(argv):
        key = os.environ["OPENAI_API_KEY"]
        if how == "file":
            Path("log.json").write_text(json.dumps({"key": key}), encoding="utf-8")
        else:
            print({"raw": key, "repr": repr(key), "json": json.dumps(key), "percent": quote(key)}[how])
        return 0

    case = Case("llm", ["show"], env={"OPENAI_API_KEY": SECRET}, secret=SECRET)
    outcome = run_with(entry, tmp_path, case)
    assert "leaked-key" in outcome.failures


def test_a_key_kept_to_itself_is_no_leak(tmp_path):
    def entry(argv):
        print("the key is ***", len(os.environ["OPENAI_API_KEY"]))
        return 0

    outcome = run_with(entry, tmp_path, Case("llm", ["show"], env={"OPENAI_API_KEY": SECRET}, secret=SECRET))
    assert outcome.ok, outcome.failures


def test_a_kill_is_judged_by_the_commands_that_follow(tmp_path):
    """The signal the harness sends is no failure; an emptied session, a `show` that cannot load it
    and a temporary file left beside it are."""
    def entry(argv):
        session = Path(".navigator/session.json")
        if argv[0] == "fill":
            session.write_text("")
            Path(".navigator/.session.json.abcd.tmp").write_text("{")
            time.sleep(30)
        if argv[0] == "show" and not session.read_text():
            print("navigator: error: .navigator/session.json: empty (restore it)", file=sys.stderr)
            return 2
        return 0

    case = Case("kill", ["fill", "0", "1"], {".navigator/session.json": FileSpec.text("{}")},
                kill={"after": 0.3, "signal": 9}, then=[["show"]])
    outcome = run_with(entry, tmp_path, case)
    assert outcome.result.exit_code == -9
    assert set(outcome.failures) == {"lost-work", "session-unreadable", "temp-left"}, outcome.describe()


def test_a_killed_command_that_keeps_its_session_passes(tmp_path):
    def entry(argv):
        if argv[0] == "fill":
            time.sleep(30)
        return 0

    case = Case("kill", ["fill", "0", "1"], {".navigator/session.json": FileSpec.text("{}")},
                kill={"after": 0.2, "signal": 15}, then=[["show"]])
    outcome = run_with(entry, tmp_path, case)
    assert outcome.result.exit_code == -15 and outcome.ok, outcome.describe()


def test_a_cache_that_changes_the_output_is_a_divergence(tmp_path):
    def entry(argv):
        print("cached" if os.environ.get("NAVIGATOR_CACHE") != "off" else "computed")
        return 0

    outcome = run_with(entry, tmp_path, Case("cache", ["show"], compare_uncached=True))
    assert outcome.failures == ["cache-divergence"]


def test_hostile_cache_entries_are_laid_out_beside_the_case(tmp_path):
    case = Case("cache", ["show"], cache={"e.cache.json": symlink("../root/notes.txt"), "d": DIRECTORY},
                cache_path="deep/cache", cache_read_only=True)
    folder = case.materialize_cache(tmp_path)
    assert folder == tmp_path / "deep" / "cache"
    assert os.readlink(folder / "e.cache.json") == "../root/notes.txt" and (folder / "d").is_dir()
    assert not os.access(folder, os.W_OK) or os.geteuid() == 0
    os.chmod(folder, 0o755)
    with pytest.raises(ValueError, match="its own folder"):
        Case("cache", ["show"], cache_path="../elsewhere").materialize_cache(tmp_path)


def test_the_tui_drivers_findings_are_failures():
    from harness.fuzz.checks import findings_in_stderr

    stderr = "noise\nnavigator-fuzz-check: session-mismatch: 3 steps on screen, 2 on disk\n"
    assert findings_in_stderr(stderr) == [("session-mismatch", "3 steps on screen, 2 on disk")]


def test_the_fault_server_answers_as_scripted():
    import http.client

    from harness.fuzz.llm_faults import FaultServer

    def post(port):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("POST", "/v1/chat/completions", json.dumps({"model": "m", "messages": []}),
                           {"Content-Type": "application/json"})
        return connection.getresponse()

    behaviours = [{"status": 429, "headers": {"Retry-After": "0.01"}}, {"content": "{}", "usage": "lots"},
                  {"reset": True}, {"garbage": "aGVsbG8="}]
    with FaultServer(behaviours) as server:
        first = post(server.port)
        assert first.status == 429 and first.getheader("Retry-After") == "0.01"
        second = json.loads(post(server.port).read())
        assert second["choices"][0]["message"]["content"] == "{}" and second["usage"] == "lots"
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            post(server.port).read()
        with pytest.raises(http.client.HTTPException):  # "hello" is no status line
            post(server.port)


def test_a_case_of_issue_21_survives_its_json_form():
    case = Case("llm", ["fill", "0", "--auto", "llm"], {"s.json": FileSpec.text("{}")}, env={"A": "{llm_url}"},
                llm=[{"status": 500}, {"fake": True}], secret=SECRET, cache={"e": FileSpec("file", b"\xff")},
                cache_path="c", cache_read_only=True, compare_uncached=True, kill={"after": 0.1, "signal": 9},
                then=[["show"]], driver="cli")
    assert Case.from_json(json.loads(json.dumps(case.to_json()))) == case


@pytest.mark.parametrize("klass", [k for k in CLASSES if k not in COMMAND_LINE_CLASSES])
def test_unmutated_cases_of_issue_21s_classes_pass(klass, fuzz_corpus, fuzz_runner, fuzz_scratch):
    """No false positives: a valid model answer, a valid cache, a valid recording, a command not killed,
    a few keys in the TUI all pass, and the commands succeed."""
    from tests.harness.conftest import failure_report
    from harness.fuzz.generators import generate

    case = generate(klass, random.Random(3), fuzz_corpus, mutate=False)
    outcome = run_case(case, fuzz_runner, fuzz_scratch)
    assert outcome.ok, failure_report(outcome)
    assert outcome.result.exit_code == 0, failure_report(outcome)
