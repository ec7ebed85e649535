"""A cache of what does not change between commands on one session (docs/cli.md#the-cache).

Every `show`, `fill` or `undo` opens its session again, and rebuilding what the session
navigates would mean generating the program's facts, which needs the compiler and its
numerical libraries. So the result is kept in the user's cache folder,
`$NAVIGATOR_CACHE_DIR`, else `$XDG_CACHE_HOME/navigator`, else `~/.cache/navigator`, and
`NAVIGATOR_CACHE=off` (or the `--no-cache` option) turns the cache off.

An entry is one file: a JSON header line, then the payload as JSON. The header holds the
entry's whole key (what it was computed from: the content hashes a session stores, the
navigator version, the format version and a hash of navigator's own code) and the SHA-256
of the payload; both are checked before the payload is used. Any entry that does not check
out (corrupt, truncated, from another version, written by hand) is ignored and written
again, and a cache that cannot be read or written only makes commands slower, never fail:
the whole folder is safe to delete at any time. Entries are written atomically
(fuseflow.support.files), hold data only (JSON, never pickle), and are read only from a folder
that the current user owns and no one else may write to, so no other user can feed a
command what it navigates.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

CACHE_DIR_ENV = "NAVIGATOR_CACHE_DIR"
CACHE_SWITCH_ENV = "NAVIGATOR_CACHE"
#: values of $NAVIGATOR_CACHE that turn the cache off
OFF_VALUES = ("off", "0", "no", "false")
FORMAT = "navigator-cache"
#: the layout of an entry file; change it when the header or a payload changes shape
FORMAT_VERSION = 1
#: the largest entry read or written (the facts of the largest bundled program take 3 MB)
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: entries kept; writing one more removes the least recently written
MAX_ENTRIES = 64
_SUFFIX = ".cache.json"

_switched_off = False


def switch_off(off: bool = True) -> None:
    """`--no-cache`: neither read nor write entries in this process (until switched back)."""
    global _switched_off
    _switched_off = off


def cache_folder() -> Path | None:
    """Where entries live, or None when the cache is off."""
    if _switched_off or os.environ.get(CACHE_SWITCH_ENV, "").strip().lower() in OFF_VALUES:
        return None
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative path is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "navigator"


def entry_key(kind: str, parts: Mapping[str, Any]) -> dict[str, Any]:
    """The whole key of an entry: `parts` (JSON values) plus what the entry's format and
    content depend on besides them."""
    from navigator.version import __version__

    key = {"kind": kind, "format": FORMAT_VERSION, "navigator": __version__, "code": code_fingerprint(),
           "parts": dict(parts)}
    return json.loads(_canonical(key))  # as it reads back: tuples become lists


def read_entry(kind: str, parts: Mapping[str, Any]) -> Any | None:
    """The payload stored under this key, or None (no entry, cache off, or an entry that
    does not check out)."""
    folder = _trusted_folder(create=False)
    if folder is None:
        return None
    key = entry_key(kind, parts)
    try:
        data = _read_bytes(folder / _file_name(key))
        header_line, _, payload = data.partition(b"\n")
        header = json.loads(header_line)
        if (not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key
                or header.get("sha256") != hashlib.sha256(payload).hexdigest()):
            return None
        return json.loads(payload)
    except (OSError, ValueError):  # missing, unreadable, not JSON (UnicodeDecodeError is a ValueError)
        return None


def write_entry(kind: str, parts: Mapping[str, Any], payload: Any) -> bool:
    """Store `payload` (JSON data) under this key; False if the cache is off or unwritable."""
    return write_entry_text(kind, parts, json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


def write_entry_text(kind: str, parts: Mapping[str, Any], text: str) -> bool:
    """`write_entry` for a payload already written as JSON text (a caller that needs the text
    anyway, to hash it, writes it once)."""
    folder = _trusted_folder(create=True)
    if folder is None:
        return False
    from fuseflow.support.errors import UserError
    from fuseflow.support.files import write_bytes_atomic

    key = entry_key(kind, parts)
    body = text.encode("utf-8")
    header = {"format": FORMAT, "key": key, "sha256": hashlib.sha256(body).hexdigest()}
    data = _canonical(header).encode("utf-8") + b"\n" + body
    if len(data) > MAX_ENTRY_BYTES:
        return False
    try:
        write_bytes_atomic(folder / _file_name(key), data)
    except (UserError, OSError):
        return False
    _prune(folder)
    return True


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of navigator's and fuseflow's Python source: an entry computed by other code
    (a development checkout, an upgrade that kept the version number) is never used."""
    import fuseflow

    digest = hashlib.sha256()
    for package in (Path(__file__).parent, Path(fuseflow.__file__).parent):
        for path in sorted(package.rglob("*.py")):
            try:
                content = path.read_bytes()
            except OSError:
                content = b"?"
            digest.update(f"{path.relative_to(package.parent)}\0{len(content)}\0".encode("utf-8", "replace"))
            digest.update(content)
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------- files

def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _file_name(key: Mapping[str, Any]) -> str:
    return f"{key['kind']}-{hashlib.sha256(_canonical(key).encode('ascii')).hexdigest()[:32]}{_SUFFIX}"


def _trusted_folder(create: bool) -> Path | None:
    """The cache folder if the current user owns it and nobody else can write to it
    (created private when `create`); None otherwise, and the cache is not used."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        if create and not folder.exists():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(folder)
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) & 0o022:
        return None
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return None
    return folder


def _read_bytes(path: Path) -> bytes:
    from fuseflow.support.errors import UserError
    from fuseflow.support.files import read_user_bytes

    try:
        return read_user_bytes(path, UserError, "a cache entry", MAX_ENTRY_BYTES)
    except UserError as exc:  # missing, not a regular file, too large
        raise OSError(str(exc)) from None


def _prune(folder: Path) -> None:
    """Keep the newest MAX_ENTRIES entries; another process may be removing them too."""
    try:
        entries = [(entry.stat().st_mtime, entry) for entry in os.scandir(folder)
                   if entry.name.endswith(_SUFFIX) and entry.is_file(follow_symlinks=False)]
    except OSError:
        return
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda item: item[0])
    for _, entry in entries[:len(entries) - MAX_ENTRIES]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
