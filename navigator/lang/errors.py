"""User-facing errors of the library and fact-file loaders.

Both subclass `fuseflow.errors.UserError`, so the CLI reports them as one line naming the
file and key at fault (the `where` part) and what would fix them.
"""

from __future__ import annotations

from fuseflow.errors import UserError


class LibraryError(UserError):
    """A scheduling library (`*.hblib.toml`) is malformed."""


class FactError(UserError):
    """A fact program (`*.hb.toml`) is malformed or does not fit its library."""
