"""A fuzz case: a class, the files to lay out in a fresh folder, and a command line.

Files are laid out in the order given, so a case can make a folder read-only after filling
it, or put a symbolic link next to the file it points at. The JSON form (`to_json` /
`from_json`) is the reproducer a developer replays: `python benchmarks/fuzz.py --replay F`.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

#: the command-line classes of issue 9, then those of issue 21: the TUI driven by keys, the model's answers and
#: the transport faults of a local server, the facts cache, LLM recordings, and a kill at a random moment
CLASSES = ("program", "schedule", "session", "data", "library", "tui", "llm", "cache", "recording", "kill")
COMMAND_LINE_CLASSES = CLASSES[:5]
#: the drivers a case's child runs: `navigator.cli.main(argv)`, or harness/fuzz/tui_driver.py's key mashing
DRIVERS = ("cli", "tui")


@dataclass(frozen=True)
class FileSpec:
    """One path of a case: a file with `data`, or a `dir`, `fifo` or `symlink` (to `target`)."""

    kind: str = "file"
    data: bytes = b""
    target: str = ""
    #: for a file whose size should exceed what is written (a sparse file), its final size
    sparse_size: int = 0

    @staticmethod
    def text(text: str) -> "FileSpec":
        return FileSpec("file", text.encode("utf-8", "surrogatepass"))


DIRECTORY = FileSpec("dir")
FIFO = FileSpec("fifo")


def symlink(target: str) -> FileSpec:
    return FileSpec("symlink", target=target)


@dataclass
class Case:
    klass: str
    argv: list[str]
    files: dict[str, FileSpec] = field(default_factory=dict)
    #: what was done to the valid input (for reports)
    note: str = ""
    #: folders made read-only after the files are laid out
    read_only: tuple[str, ...] = ()
    #: what the child runs (DRIVERS)
    driver: str = "cli"
    #: variables added to the child's environment; "{llm_url}" in a value becomes the fault server's URL
    env: dict[str, str] = field(default_factory=dict)
    #: the local model server's answers, one per request (the last repeats): harness/fuzz/llm_faults.py;
    #: a server runs when this is not empty
    llm: list[dict] = field(default_factory=list)
    #: an API key the case hands over: it must not appear, in any escaped form, in any output ("leaked-key")
    secret: str = ""
    #: files laid out in the cache folder before the command runs (hostile entries)
    cache: dict[str, FileSpec] = field(default_factory=dict)
    #: the cache folder relative to the case's folder ("cache" unless a case wants a deep or odd path);
    #: with `cache_read_only` it is made read-only after the entries are laid out
    cache_path: str = "cache"
    cache_read_only: bool = False
    #: run the command again without a cache, in a fresh copy: exit code and stdout must be the same
    compare_uncached: bool = False
    #: {"after": seconds, "signal": N}: the child is sent signal N after that delay
    kill: dict | None = None
    #: commands run after the case in the same folder (after a kill: `show` must load the session)
    then: list[list[str]] = field(default_factory=list)

    # ---------------------------------------------------------------- laying out

    def materialize(self, root: Path) -> None:
        _lay_out(root, self.files)
        for relative in self.read_only:
            os.chmod(root / relative, 0o555)

    def materialize_cache(self, folder: Path) -> Path:
        """Lay out the cache entries under `folder`; the cache folder the command is given."""
        cache = folder / self.cache_path
        if Path(self.cache_path).is_absolute() or ".." in Path(self.cache_path).parts:
            raise ValueError(f"a case's cache lives in its own folder, not at {self.cache_path!r}")
        if self.cache:
            cache.mkdir(parents=True, exist_ok=True)
            _lay_out(cache, self.cache)
        if self.cache_read_only:
            cache.mkdir(parents=True, exist_ok=True)
            os.chmod(cache, 0o555)
        return cache

    # ---------------------------------------------------------------- reproducers

    def to_json(self, preview: int | None = None) -> dict:
        """The case as JSON; with `preview`, file contents are cut to that many bytes (for reports)."""
        data = {"class": self.klass, "argv": self.argv, "files": _files_to_json(self.files, preview),
                "note": self.note}
        if self.read_only:
            data["read_only"] = list(self.read_only)
        if self.cache:
            data["cache"] = _files_to_json(self.cache, preview)
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value != _DEFAULTS[name]:
                data[name] = value
        if preview is not None and self.llm:
            data["llm"] = [{key: _cut(value, preview) for key, value in behaviour.items()} for behaviour in self.llm]
        return data

    @staticmethod
    def from_json(data: dict) -> "Case":
        options = {name: data[name] for name in _OPTIONAL if name in data}
        return Case(data["class"], list(data["argv"]), _files_from_json(data["files"]), data.get("note", ""),
                    tuple(data.get("read_only", ())), cache=_files_from_json(data.get("cache", {})), **options)


_OPTIONAL = ("driver", "env", "llm", "secret", "cache_path", "cache_read_only", "compare_uncached", "kill", "then")
_DEFAULTS = {"driver": "cli", "env": {}, "llm": [], "secret": "", "cache_path": "cache", "cache_read_only": False,
             "compare_uncached": False, "kill": None, "then": []}


def _cut(value, preview: int):
    if isinstance(value, str) and len(value) > preview:
        return value[:preview] + f"[... {len(value) - preview} characters cut]"
    return value


def _lay_out(root: Path, files: dict[str, FileSpec]) -> None:
    for relative, spec in files.items():
        path = root / relative
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise ValueError(f"a case lays out files in its own folder only, not at {relative!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if spec.kind == "file":
            path.write_bytes(spec.data)
            if spec.sparse_size > len(spec.data):
                os.truncate(path, spec.sparse_size)
        elif spec.kind == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif spec.kind == "fifo":
            os.mkfifo(path)
        elif spec.kind == "symlink":
            os.symlink(spec.target, path)
        else:
            raise ValueError(f"unknown file kind {spec.kind!r}")


def _files_to_json(specs: dict[str, FileSpec], preview: int | None) -> dict:
    files = {}
    for relative, spec in specs.items():
        entry: dict = {"kind": spec.kind}
        if spec.kind == "file":
            data = spec.data if preview is None else spec.data[:preview]
            try:
                entry["text"] = data.decode("utf-8")
            except UnicodeDecodeError:
                entry["base64"] = base64.b64encode(data).decode("ascii")
            if preview is not None and len(spec.data) > preview:
                entry["truncated_from"] = len(spec.data)
            if spec.sparse_size:
                entry["sparse_size"] = spec.sparse_size
        elif spec.kind == "symlink":
            entry["target"] = spec.target
        files[relative] = entry
    return files


def _files_from_json(entries: dict) -> dict[str, FileSpec]:
    files = {}
    for relative, entry in entries.items():
        if "truncated_from" in entry:
            raise ValueError(f"{relative}: this reproducer holds a preview only; use the saved case file")
        if entry["kind"] == "file":
            raw = base64.b64decode(entry["base64"]) if "base64" in entry else entry["text"].encode("utf-8")
            files[relative] = FileSpec("file", raw, sparse_size=entry.get("sparse_size", 0))
        else:
            files[relative] = FileSpec(entry["kind"], target=entry.get("target", ""))
    return files


def remove_tree(root: Path) -> None:
    """Remove a case's folder, giving back the write permission a case may have taken from its
    folders; without recursion (os.walk and rmtree recurse per level, and a case may leave a
    cache folder 2,000 levels deep) and holding one folder open at a time."""
    try:
        os.chmod(root, stat.S_IRWXU)
        _remove_folder_iteratively(Path(root))
    except OSError:
        shutil.rmtree(root, ignore_errors=True)


def _remove_folder_iteratively(root: Path) -> None:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd = os.open(root, flags)
    names: list[str] = []  # the path from root to the open folder
    try:
        while True:
            subfolder = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        subfolder = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if subfolder is not None:
                try:
                    os.chmod(subfolder, stat.S_IRWXU, dir_fd=fd)
                except OSError:
                    pass
                child = os.open(subfolder, flags, dir_fd=fd)
                os.close(fd)
                fd, names = child, [*names, subfolder]
                continue
            if not names:
                break
            parent = os.open("..", flags, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(root)
