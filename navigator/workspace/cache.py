"""A cache of what does not change between commands on one session (docs/cli.md#the-cache).

Every `show`, `fill` or `undo` opens its session again, and rebuilding what the session
navigates would mean generating the program's facts, which needs the compiler and its
numerical libraries. So the result is kept in the user's cache folder,
`$NAVIGATOR_CACHE_DIR`, else `$XDG_CACHE_HOME/navigator`, else `~/.cache/navigator`, and
`NAVIGATOR_CACHE=off` (or the `--no-cache` option) turns the cache off.

An entry is one file: a JSON header line, then the payload as JSON. The header holds the
entry's whole key (what it was computed from: the content hashes a session stores, the
navigator version, the format version and a hash of navigator's own code) and an HMAC-SHA256
of the key and the payload under a random secret kept in the folder (`KEY_FILE`, private to
the user); both are checked before the payload is used. A checksum anyone can recompute
would let an entry edited by hand (or by another tool) change what a command navigates
without a word; the secret proves that navigator itself stored this payload for this key.
Any entry that does not check out (corrupt, truncated, nested too deeply, from another
version, written by hand) is a miss: it is ignored and written again. A cache that cannot be
read or written only makes commands slower, never fails one: the whole folder is safe to
delete at any time. Entries are decoded only by the bounded readers
(fuseflow.support.readers), written atomically by the one writer, which replaces a symbolic
link at an entry's path rather than write through it (fuseflow.support.files), hold data
only (JSON, never pickle), and are read only from a folder that the current user owns and
no one else may write to, so no other user can feed a command what it navigates.

The folder is `$NAVIGATOR_CACHE_DIR`, else `$XDG_CACHE_HOME/navigator` when that is an
absolute path, else `$HOME/.cache/navigator`; an empty variable counts as unset (the XDG
rule), and without a usable home folder (none, relative, or `/`) the cache is off.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
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
#: (2: an HMAC under the folder's secret replaces the bare SHA-256)
FORMAT_VERSION = 2
#: the largest entry read or written (the facts of the largest bundled program take 3 MB)
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: entries kept; writing one more removes the least recently written
MAX_ENTRIES = 64
_SUFFIX = ".cache.json"
#: the folder's secret, 32 random bytes: entries are signed with it
KEY_FILE = ".navigator-cache-key"
_KEY_BYTES = 32

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
    if not os.path.isabs(base):  # the XDG rule: an empty or relative path is ignored
        home = home_folder()
        if home is None:
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "navigator"


def home_folder() -> str | None:
    """$HOME, or the user's entry in the password database when $HOME is unset or empty; None
    when neither is an absolute path other than `/` (a daemon's home: no place for a cache)."""
    home = os.environ.get("HOME", "")
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            home = ""
    if not os.path.isabs(home) or os.path.dirname(os.path.abspath(home)) == os.path.abspath(home):
        return None
    return home


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
    try:
        signing = _signing_folder(create=False)
        if signing is None:
            return None
        folder, secret = signing
        key = entry_key(kind, parts)
        data = _read_bytes(folder / _file_name(key))
        header_line, _, payload = data.partition(b"\n")
        header = _decode(header_line, "a cache entry's header")
        if (not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key
                or not isinstance(header.get("hmac"), str)
                or not hmac.compare_digest(header["hmac"], _signature(secret, key, payload))):
            return None
        # Signed by navigator for this key: the payload is its own json.dumps output, decoded
        # as such (walking 3 MB of facts again for their depth would double a hit's cost).
        return json.loads(payload)
    except Exception:  # noqa: BLE001 -- whatever is wrong with an entry (or the folder), it is a miss
        return None


def _decode(data: bytes, what: str) -> Any:
    """JSON from an entry's unverified header through the bounded reader (a header nested
    2,000 levels deep is refused, not a RecursionError); any problem raises."""
    from fuseflow.support.errors import UserError
    from fuseflow.support.readers import parse_json_text

    return parse_json_text(data.decode("utf-8"), what, UserError, what, surrogates=True)


def _signature(secret: bytes, key: Mapping[str, Any], payload: bytes) -> str:
    mac = hmac.new(secret, _canonical(key).encode("ascii"), hashlib.sha256)
    mac.update(b"\n")
    mac.update(payload)
    return mac.hexdigest()


def _signing_folder(create: bool) -> tuple[Path, bytes] | None:
    """The cache folder and its secret, or None when the cache is off or cannot be trusted."""
    folder = _trusted_folder(create=create)
    if folder is None:
        return None
    secret = _secret(folder, create=create)
    return None if secret is None else (folder, secret)


def _secret(folder: Path, create: bool) -> bytes | None:
    """The folder's secret (made when `create` and there is none yet); None when there is none
    that can be trusted (not a private regular file of the right size)."""
    path = folder / KEY_FILE
    for _ in range(2):
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        if info is None:
            if not create:
                return None
            from fuseflow.support.files import write_bytes_atomic

            write_bytes_atomic(path, secrets.token_bytes(_KEY_BYTES))
            continue  # read back what is there: another process may have written its own meanwhile
        if not stat.S_ISREG(info.st_mode) or info.st_size != _KEY_BYTES:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        data = _read_bytes(path)
        return data if len(data) == _KEY_BYTES else None
    return None


def write_entry(kind: str, parts: Mapping[str, Any], payload: Any) -> bool:
    """Store `payload` (JSON data) under this key; False if the cache is off or unwritable."""
    return write_entry_text(kind, parts, json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


def write_entry_text(kind: str, parts: Mapping[str, Any], text: str) -> bool:
    """`write_entry` for a payload already written as JSON text (a caller that needs the text
    anyway, to hash it, writes it once)."""
    from fuseflow.support.files import write_bytes_atomic

    try:
        signing = _signing_folder(create=True)
        if signing is None:
            return False
        folder, secret = signing
        key = entry_key(kind, parts)
        body = text.encode("utf-8")
        header = {"format": FORMAT, "key": key, "hmac": _signature(secret, key, body)}
        data = _canonical(header).encode("utf-8") + b"\n" + body
        if len(data) > MAX_ENTRY_BYTES:
            return False
        # the one writer: a link at the entry's path is replaced, its target left alone
        write_bytes_atomic(folder / _file_name(key), data)
        _prune(folder)
    except Exception:  # noqa: BLE001 -- a cache that cannot be written only costs time
        return False
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
        if create and not os.path.lexists(folder):
            from fuseflow.support.files import make_folders

            make_folders(folder.parent)  # iteratively: $NAVIGATOR_CACHE_DIR may be thousands of folders deep
            os.mkdir(folder, 0o700)
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
    """Keep the newest MAX_ENTRIES entries; another process may be removing them too. The
    temporary files of writers that were killed go as well."""
    from fuseflow.support.files import remove_stale_temps

    remove_stale_temps(folder)
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


class CacheEntries:
    """The entries of one kind, as an object a layer below the workspace can be handed (the
    hints' estimate store, navigator.fuseflow.sketch_hints.EstimateStore)."""

    def __init__(self, kind: str):
        self.kind = kind

    def read(self, parts: Mapping[str, Any]) -> Any | None:
        return read_entry(self.kind, parts)

    def write(self, parts: Mapping[str, Any], payload: Any) -> None:
        write_entry(self.kind, parts, payload)
