"""What goes wrong with a session: a step that cannot be taken, a file that cannot be used.

Apart from the model, the step log and the file format, since all three raise them."""

from __future__ import annotations

from fuseflow.support.errors import UserError


class SessionError(UserError):
    """A step cannot be taken, or a session file is unreadable, foreign or corrupted."""


class DamagedSessionError(SessionError):
    """The content of a session file is unusable: not JSON or not UTF-8, not a session, a
    malformed part, or steps that do not replay. The CLI adds how to recover
    (navigator.workspace.recovery)."""
