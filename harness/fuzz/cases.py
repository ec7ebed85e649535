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

CLASSES = ("program", "schedule", "session", "data", "library")


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

    # ---------------------------------------------------------------- laying out

    def materialize(self, root: Path) -> None:
        for relative, spec in self.files.items():
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
        for relative in self.read_only:
            os.chmod(root / relative, 0o555)

    # ---------------------------------------------------------------- reproducers

    def to_json(self, preview: int | None = None) -> dict:
        """The case as JSON; with `preview`, file contents are cut to that many bytes (for reports)."""
        files = {}
        for relative, spec in self.files.items():
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
        data = {"class": self.klass, "argv": self.argv, "files": files, "note": self.note}
        if self.read_only:
            data["read_only"] = list(self.read_only)
        return data

    @staticmethod
    def from_json(data: dict) -> "Case":
        files = {}
        for relative, entry in data["files"].items():
            if "truncated_from" in entry:
                raise ValueError(f"{relative}: this reproducer holds a preview only; use the saved case file")
            if entry["kind"] == "file":
                raw = base64.b64decode(entry["base64"]) if "base64" in entry else entry["text"].encode("utf-8")
                files[relative] = FileSpec("file", raw, sparse_size=entry.get("sparse_size", 0))
            else:
                files[relative] = FileSpec(entry["kind"], target=entry.get("target", ""))
        return Case(data["class"], list(data["argv"]), files, data.get("note", ""),
                    tuple(data.get("read_only", ())))


def remove_tree(root: Path) -> None:
    """rmtree, after giving back the write permission a case may have taken from its folders."""
    os.chmod(root, stat.S_IRWXU)
    for folder, dirs, _ in os.walk(root):
        for name in dirs:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, stat.S_IRWXU)
                except OSError:
                    pass
    shutil.rmtree(root, ignore_errors=True)
