"""Which files a command may change: the outputs its command line names, and nothing else.

The command line is parsed by Navigator's own argument parser, so the outputs are the
ones the command will actually use. The allowances, each backed by docs/cli.md:

- `start`, `fill`, `undo`, `redo` rewrite the session file (--session, else the default
  .navigator/session.json; the harness clears $NAVIGATOR_SESSION) and hold
  `<session>.lock` beside the file the session path resolves to, an OS lock file that
  stays behind empty ("Several commands at once"), and keep the version they replace in
  `<session>.bak` beside it ("Several commands at once; damaged files");
- `export --json F --python G`, `facts -o F` write F and G;
- `eval --dot F` writes F, or F.0, F.1, ... when the schedule has several regions;
- `sample --out DIR` and `compare --save DIR` write files into DIR;
- `batch --out F` appends to F and holds `F.lock` beside F's target (navigator.batch.records.ResultsLog);
- folders leading to a named output may be created (atomic writes create missing parents);
- a named output that is a symbolic link: its target is written and the link stays a link.

Nothing may be removed, and no other file may appear: a temporary file left beside an
output is a half-finished write.

Navigator's cache (navigator.workspace.cache; docs/cli.md#the-cache) is written outside the case's
folder, in a fresh cache folder beside it (NAVIGATOR_CACHE_DIR): the cache is the user's,
not an output of the command, and a fresh one makes every case compute what it navigates.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.fuzz.snapshot import Change

#: the commands that rewrite the session file under its lock
SESSION_WRITERS = ("start", "fill", "undo", "redo")


@dataclass
class NamedOutputs:
    files: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    locks: set[str] = field(default_factory=set)
    #: eval --dot F: F.N per region
    numbered: set[str] = field(default_factory=set)
    #: named outputs that are symbolic links now: they must stay links
    links: set[str] = field(default_factory=set)
    #: any new file may appear (the TUI: what a user types in the export dialog is not known beforehand)
    new_files: bool = False

    def everything(self) -> set[str]:
        return self.files | self.folders | self.locks | self.numbered

    def to_json(self) -> dict[str, list[str]]:
        return {name: sorted(getattr(self, name)) for name in ("files", "folders", "locks", "numbered")}


@functools.lru_cache(maxsize=1)
def _parser():
    from navigator.cli import build_parser

    return build_parser()


def parse_arguments(argv: list[str]):
    """Navigator's parse of `argv`, or None when the parser refuses it (then nothing may change)."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return _parser().parse_args(list(argv))
        except SystemExit:
            return None


def _relative(root: Path, path: str) -> list[str]:
    """`path` as the command sees it from `root`, and the file it resolves to, relative to root."""
    found = []
    try:
        lexical = os.path.normpath(os.path.join(root, path))
        resolved = os.path.realpath(lexical)
    except (ValueError, OSError):  # a NUL byte: no file can be written there
        return found
    base = os.path.realpath(root)
    for candidate, start in ((lexical, str(root)), (resolved, base)):
        relative = os.path.relpath(candidate, start)
        if relative != "." and not relative.startswith(".." + os.sep) and relative != ".." \
                and relative not in found:
            found.append(relative.replace(os.sep, "/"))
    return found


def named_outputs(argv: list[str], root: Path) -> NamedOutputs:
    """What `navigator argv`, run in `root`, may create or change (computed before it runs)."""
    args = parse_arguments(argv)
    named = NamedOutputs()
    if args is None:
        return named
    command = args.command

    def add(kind: str, path: str | None, lock: bool = False, backup: bool = False) -> None:
        if not path:
            return
        names = _relative(root, path)
        getattr(named, kind).update(names)
        if names and os.path.islink(os.path.join(root, path)):
            named.links.add(names[0])
        if lock:
            # The lock sits beside the file the path resolves to (a link's target).
            for name in names:
                named.locks.update(_relative(root, name + ".lock")[:1])
        if backup:
            # So does the previous version (navigator.workspace.backup).
            for name in names:
                named.files.update(_relative(root, name + ".bak")[:1])

    if command in SESSION_WRITERS:
        from navigator.workspace.session_file import DEFAULT_SESSION

        session = args.session or str(DEFAULT_SESSION)
        add("files", session, lock=True, backup=True)
        if command == "fill" and getattr(args, "auto", None) == "llm":
            # Every exchange with the model is recorded beside the session (docs/llm.md#recordings).
            add("folders", os.path.join(os.path.dirname(session) or ".", "llm"))
    elif command == "export":
        add("files", args.json_out)
        add("files", args.python_out)
    elif command == "facts":
        add("files", args.output)
    elif command == "eval":
        add("files", args.dot)
        add("numbered", args.dot)
    elif command == "compare":
        add("folders", args.save)
    elif command == "sample":
        add("folders", args.out)
    elif command == "batch":
        add("files", args.out, lock=True)
    return named


def tui_outputs() -> NamedOutputs:
    """What a TUI session in a case's folder may write: everything under .navigator/ (the session,
    its lock and backup, the model's recordings) and new files (exports, at paths typed in)."""
    return NamedOutputs(folders={".navigator"}, new_files=True)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def is_allowed(change: Change, named: NamedOutputs) -> bool:
    path = change.path
    if change.what == "removed":
        return False
    if path in named.links and change.after is not None and change.after.kind != "symlink":
        return False  # the link was replaced by a file instead of its target being written
    if path in named.files or path in named.locks:
        return True
    if named.new_files and change.what == "created":
        return True
    if any(_under(path, folder) for folder in named.folders):
        return True
    if any(re.fullmatch(re.escape(prefix) + r"\.\d+", path) for prefix in named.numbered):
        return True
    # A missing folder on the way to a named output is created by the atomic write.
    return (change.what == "created" and change.after is not None and change.after.kind == "dir"
            and any(target.startswith(path + "/") for target in named.everything()))


def unexpected_changes(changes: list[Change], named: NamedOutputs) -> list[Change]:
    return [change for change in changes if not is_allowed(change, named)]
