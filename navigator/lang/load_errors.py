"""User-facing errors of the library and fact-file loaders.

Both subclass `fuseflow.support.errors.UserError`, so the CLI reports them as one line naming the
file and key at fault (the `where` part) and what would fix them.
"""

from __future__ import annotations

import json
import re

from fuseflow.support.errors import UserError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]{1,60}")


class LibraryError(UserError):
    """A scheduling library (`*.hblib.toml`) is malformed."""


class FactError(UserError):
    """A fact program (`*.hb.toml`) is malformed or does not fit its library."""


def toml_key(key: str) -> str:
    """A key as a `where` path shows it: bare when TOML allows that, else quoted (so a key
    holding a newline or a long text keeps the error on one short line)."""
    if _BARE_KEY.fullmatch(key):
        return key
    return json.dumps(key if len(key) <= 60 else key[:60] + "...")
