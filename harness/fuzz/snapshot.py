"""Snapshots of a folder tree, to find every file a command created, changed or removed.

Each entry records what `lstat` sees (symbolic links are never followed, FIFOs never
opened): the kind, the permission bits, and for a regular file its size and SHA-256; for
a symbolic link its target. A file too large to hash cheaply (a sparse file of gigabytes
made by a case) is compared by size, inode and modification time instead.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: regular files larger than this are compared by (size, inode, mtime) rather than hashed
HASH_LIMIT = 16 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    kind: str  # file, dir, symlink, fifo, other
    mode: int
    size: int = 0
    digest: str = ""
    target: str = ""

    def describe(self) -> str:
        if self.kind == "file":
            return f"file {self.size} B, mode {self.mode:o}, sha256 {self.digest[:12]}"
        if self.kind == "symlink":
            return f"symlink -> {self.target}"
        return f"{self.kind}, mode {self.mode:o}"


@dataclass(frozen=True)
class Change:
    path: str  # relative to the snapshot's root, '/'-separated
    what: str  # created, modified, removed
    before: Entry | None
    after: Entry | None

    def describe(self) -> str:
        states = [f"{label} {entry.describe()}" for label, entry in (("was", self.before), ("now", self.after))
                  if entry is not None]
        return f"{self.what} {self.path} ({'; '.join(states)})"


def _digest(path: str, info: os.stat_result) -> str:
    if info.st_size > HASH_LIMIT:
        return f"unhashed:{info.st_size}:{info.st_ino}:{info.st_mtime_ns}"
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:  # unreadable: compare what we can
        return f"unreadable:{exc.errno}:{info.st_ino}:{info.st_mtime_ns}"
    return digest.hexdigest()


def _entry(path: str, info: os.stat_result) -> Entry:
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return Entry("symlink", mode, target=os.readlink(path))
    if stat.S_ISREG(info.st_mode):
        return Entry("file", mode, info.st_size, _digest(path, info))
    if stat.S_ISDIR(info.st_mode):
        return Entry("dir", mode)
    if stat.S_ISFIFO(info.st_mode):
        return Entry("fifo", mode)
    return Entry("other", mode)


def take_snapshot(root: Path) -> dict[str, Entry]:
    """Every path under `root` (not `root` itself) -> its Entry."""
    found: dict[str, Entry] = {}
    pending = [(str(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for child in children:
            relative = prefix + child.name
            try:
                info = child.stat(follow_symlinks=False)
            except OSError:
                continue
            entry = _entry(child.path, info)
            found[relative] = entry
            if entry.kind == "dir":
                pending.append((child.path, relative + "/"))
    return found


def compare(before: dict[str, Entry], after: dict[str, Entry]) -> list[Change]:
    changes = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        what = "created" if old is None else "removed" if new is None else "modified"
        changes.append(Change(path, what, old, new))
    return changes
