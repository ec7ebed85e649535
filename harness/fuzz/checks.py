"""The checks of issue 21's classes, around a case's run (harness/fuzz/harness.py calls them):
the API key must not leak in any escaped form, a session killed at a random moment must stay
loadable and leave no temporary file behind once the next command ran, a hostile cache must
change nothing a run without a cache would do, and the TUI's session on disk must be the one
it shows. Each returns findings: (failure name, what was seen)."""

from __future__ import annotations

import json
import os
import re
import stat
import urllib.parse
from pathlib import Path
from typing import Callable

from harness.fuzz.cases import Case
from harness.fuzz.runner import ForkRunner, RunResult

Finding = tuple[str, str]
#: a file larger than this is not searched for the key (no case writes one)
_SEARCHED_BYTES = 64 << 20
_TEMPORARY = re.compile(r"(^|/)\.[^/]+\.tmp$")


def driver_entry(driver: str) -> Callable[[list[str]], int | None] | None:
    """The entry point a case's child runs: None for the runner's own (navigator.cli.main)."""
    if driver == "cli":
        return None
    if driver == "tui":
        from harness.fuzz.tui_driver import main

        return main
    raise ValueError(f"unknown driver {driver!r}")


def case_environment(case: Case, llm_url: str | None) -> dict[str, str]:
    """The case's variables, with "{llm_url}" replaced by its server's URL (a refused port if none)."""
    if llm_url is None:
        from harness.llm_server import refused_port

        llm_url = f"http://127.0.0.1:{refused_port()}/v1"
    return {name: value.replace("{llm_url}", llm_url) for name, value in case.env.items()}


def findings_in_stderr(stderr: str) -> list[Finding]:
    """What the TUI driver reported (`navigator-fuzz-check: NAME: DETAIL` lines)."""
    from harness.fuzz.tui_driver import CHECK_PREFIX

    found = []
    for line in stderr.splitlines():
        if line.startswith(CHECK_PREFIX):
            name, _, detail = line[len(CHECK_PREFIX):].strip().partition(": ")
            found.append((name, detail))
    return found


# ---------------------------------------------------------------- the key

def key_forms(secret: str) -> list[str]:
    """The key as it could be written: raw, repr, JSON-escaped (ASCII or not), percent-encoded,
    backslash-escaped; and its longest run of letters and digits, which every escape keeps whole."""
    forms = {secret, repr(secret)[1:-1], json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
             urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret),
             secret.encode("unicode_escape").decode("ascii"),
             secret.encode("utf-8", "surrogatepass").decode("ascii", "backslashreplace")}
    runs = re.findall(r"[A-Za-z0-9]{12,}", secret)
    if runs:
        forms.add(max(runs, key=len))
    return sorted(form for form in forms if len(form) >= 8)


def leaks(secret: str, texts: list[str], folders: list[Path]) -> list[Finding]:
    """`leaked-key` for each place holding the key in any of its forms."""
    forms = key_forms(secret)
    encoded = [form.encode("utf-8", "surrogatepass") for form in forms]
    found = []
    for index, text in enumerate(texts):
        hit = next((form for form in forms if form in text), None)
        if hit is not None:
            found.append(("leaked-key", f"output {index} (stdout, stderr, crash reports, follow-ups) holds {hit!r}"))
    for folder in folders:
        for path in _files_under(folder):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            hit = next((form for form in encoded if form in data), None)
            if hit is not None:
                found.append(("leaked-key", f"{path.relative_to(folder.parent)} holds {hit!r}"))
    return found


def _files_under(folder: Path) -> list[Path]:
    found = []
    for base, dirs, files in os.walk(folder):  # links are not followed
        for name in files:
            path = Path(base) / name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size <= _SEARCHED_BYTES:
                found.append(path)
    return found


# ---------------------------------------------------------------- a kill at a random moment

def session_path(argv: list[str]) -> str:
    from harness.fuzz.outputs import parse_arguments
    from navigator.workspace.session_file import DEFAULT_SESSION

    args = parse_arguments(argv)
    return (getattr(args, "session", None) if args is not None else None) or str(DEFAULT_SESSION)


def is_temporary(path: str) -> bool:
    """A file an atomic write leaves when it is killed: `.NAME.XXXX.tmp` (fuseflow.support.files)."""
    return bool(_TEMPORARY.search(path))


def after_kill(case: Case, root: Path, follow_ups: list[tuple[list[str], RunResult]], named) -> list[Finding]:
    """The session is the old or a new version (`show` loads it), named JSON outputs are whole,
    and no temporary file is left once the next commands ran."""
    found = []
    session = root / session_path(case.argv)
    try:
        size = os.stat(session).st_size
    except OSError:
        size = None
    if not size:
        found.append(("lost-work", f"{session_path(case.argv)} is {'missing' if size is None else 'empty'}"))
    for argv, result in follow_ups:
        if argv and argv[0] == "show" and result.exit_code != 0:
            lines = result.stderr.strip().splitlines()
            found.append(("session-unreadable", f"`navigator {' '.join(argv)}` exited {result.exit_code}: "
                                                f"{lines[-1] if lines else ''}"))
    session_files = {session_path(case.argv), session_path(case.argv) + ".bak"}
    for name in sorted(named.files - session_files):  # the session itself: lost-work and session-unreadable
        path = root / name
        if not name.endswith(".json") or not path.is_file():
            continue
        try:
            json.loads(path.read_bytes())
        except ValueError as exc:
            found.append(("torn-write", f"{name} does not parse: {exc}"))
    for base, _, files in os.walk(root):
        for file_name in files:
            relative = os.path.relpath(os.path.join(base, file_name), root)
            if is_temporary(relative):
                found.append(("temp-left", f"{relative} is still there after {len(follow_ups)} more command(s)"))
    return found


# ---------------------------------------------------------------- the cache

def against_uncached(case: Case, result: RunResult, runner: ForkRunner, folder: Path,
                     env: dict[str, str]) -> list[Finding]:
    """Run the case again in a fresh copy with the cache off: the same exit code and stdout."""
    root, io_folder = folder / "uncached", folder / "io-uncached"
    for path in (root, io_folder):
        path.mkdir()
    case.materialize(root)
    reference = runner.run(root, case.argv, io_folder, io_folder, None, env)
    if (reference.exit_code, reference.stdout) == (result.exit_code, result.stdout):
        return []
    if reference.exit_code != result.exit_code:
        detail = f"exit {result.exit_code} with the cache, {reference.exit_code} without"
    else:
        detail = f"stdout differs from a run without the cache: {_first_line_difference(result.stdout, reference.stdout)}"
    return [("cache-divergence", detail)]


def _first_line_difference(ours: str, theirs: str) -> str:
    for number, (a, b) in enumerate(zip(ours.splitlines(), theirs.splitlines()), start=1):
        if a != b:
            return f"line {number}: {a[:120]!r} with the cache, {b[:120]!r} without"
    return f"{len(ours.splitlines())} lines with the cache, {len(theirs.splitlines())} without"
