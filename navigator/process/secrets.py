"""Secrets the process holds (the model's key), kept out of every text it writes.

A secret can leave the process in a form other than its own: an HTTP client's error shows the
header as bytes (`b'Bearer sk-...\\nX'`), a JSON file escapes it, a URL percent-encodes it, a
message escapes its control characters, or cuts it at a line break. `scrub` replaces every such
form of every secret registered with `hide` (and of those it is given) by ***, and the places
where text leaves the process call it: stderr (`console`), crash files (`crash`), the model's
recordings and the model's and server's text (`navigator.llm`).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

from fuseflow.support.errors import one_line

HIDDEN = "***"
#: pieces of a secret cut at a character a key cannot hold shorter than this are left alone:
#: hiding every "X" of a text would garble it, and so few characters reveal nothing
MIN_PIECE = 4
#: a registered secret shorter than this is not hidden from the process's every line: a key of
#: a few characters ("EMPTY", "test", which local servers are often given) guards nothing, and
#: hiding it would garble every message holding that word
MIN_SECRET = 8

_registered: set[str] = set()
_lock = threading.Lock()
#: a run of characters no key holds: a key's pieces are what lies between them
_NOT_KEY = re.compile(r"[^\x21-\x7e]+")


def hide(value: str | None) -> None:
    """Register `value` as a secret of this process: `scrub` removes it from then on (if it is
    at least MIN_SECRET characters long)."""
    if value and len(value) >= MIN_SECRET:
        with _lock:
            _registered.add(value)


def registered() -> tuple[str, ...]:
    with _lock:
        return tuple(_registered)


@functools.lru_cache(maxsize=64)
def secret_forms(secret: str) -> tuple[str, ...]:
    """Every form in which `secret` may appear in a text, longest first: as is, escaped as
    Python, JSON, a bytes literal, a terminal line or a URL would, and the pieces of it
    between control characters, spaces or non-ASCII characters (each escaped the same ways)."""
    pieces = [piece for piece in _NOT_KEY.split(secret) if len(piece) >= MIN_PIECE]
    forms: set[str] = {secret}
    for text in (secret, *pieces):
        forms.update(_escaped(text))
    forms.discard("")
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


def _escaped(text: str) -> set[str]:
    encoded = text.encode("utf-8", "surrogatepass")
    return {text, repr(text)[1:-1], json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1],
            repr(encoded)[2:-1], encoded.decode("latin-1"), one_line(text), quote(text, safe=""), quote(text),
            quote_plus(text, safe=""), text.replace("\\", "\\\\"), repr(text.replace("\\", "\\\\"))[1:-1]}


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every form of every secret (registered, or in `secrets`) replaced by ***."""
    every = {s for s in secrets if s} | set(registered())
    if not every or not text:
        return text
    forms = sorted({form for secret in every for form in secret_forms(secret)}, key=lambda f: (-len(f), f))
    for form in forms:
        if form in text:
            text = text.replace(form, HIDDEN)
    return text


def scrub_value(value, secrets: Iterable[str | None] = ()):
    """scrub() applied to every string (keys too) inside lists and dicts."""
    secrets = tuple(secrets)
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {scrub_value(k, secrets): scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, secrets) for v in value]
    return value
