"""The failures a caller of the model must tell apart, and the key: read once, checked, kept out of text.

- LLMConfigError: the user must change something (endpoint, model, key, recording); exit 2.
- LLMUnavailable: the endpoint is there but did not answer usefully in time (timeouts, 429/5xx
  after the retries, a body that is not a chat completion); the caller falls back to a heuristic.
- AnswerProblem: the server answered, but with nothing usable (no choices, no content).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping

from fuseflow.support.errors import UserError
from navigator.process.secrets import HIDDEN, hide
from navigator.process.secrets import scrub as secrets_scrub
from navigator.process.secrets import scrub_value as secrets_scrub_value

KEY_ENV = "OPENAI_API_KEY"
__all__ = ["HIDDEN", "KEY_ENV", "AnswerProblem", "LLMConfigError", "LLMUnavailable", "api_key", "checked_key", "scrub", "scrub_value"]


class LLMConfigError(UserError):
    """The model cannot be reached as configured; the message says what to change."""


class LLMUnavailable(Exception):
    """The endpoint failed this time (timeout, rate limit, server error, garbage)."""


class AnswerProblem(Exception):
    """The endpoint answered, but the answer holds nothing to use."""


def api_key(environ: Mapping[str, str] | None = None) -> str | None:
    """The key from OPENAI_API_KEY (the only place a key is read from), or None.

    The key is registered as a secret of the process (navigator.process.secrets), so every text
    the process writes hides it in any form. A key that no HTTP header can carry (a control
    character such as a line break inside it, a space, a non-ASCII character) is refused here,
    before any request, with a message that does not show it."""
    key = (os.environ if environ is None else environ).get(KEY_ENV, "").strip()
    return checked_key(key) if key else None


def checked_key(key: str) -> str:
    """`key`, registered as a secret of the process; an LLMConfigError if it holds a character
    an HTTP header cannot carry (the message names the kind of character, never the key)."""
    hide(key)
    bad = next((c for c in key if not "\x21" <= c <= "\x7e"), None)
    if bad is not None:
        raise LLMConfigError(f"the key holds {_kind(bad)}, which an HTTP header cannot carry", where=f"${KEY_ENV}",
                             fix=f"set {KEY_ENV} to the key alone, on one line, with nothing around or inside it "
                             "(e.g. export OPENAI_API_KEY=\"$(tr -d '[:space:]' < keyfile)\")")
    return key


def _kind(character: str) -> str:
    """What a character is, named without showing the key around it."""
    name = {"\n": "a line break", "\r": "a carriage return", "\t": "a tab", " ": "a space"}.get(character)
    if name:
        return name
    if unicodedata.category(character) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
        return f"a control character (U+{ord(character):04X})"
    if character.isspace():
        return f"a space character (U+{ord(character):04X})"
    return "a character that is not ASCII"


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every form of the key (and of `secrets`) replaced by ***: see navigator.process.secrets."""
    return secrets_scrub(text, secrets)


def scrub_value(value, secrets: Iterable[str | None] = ()):
    """scrub() applied to every string (keys too) inside lists and dicts."""
    return secrets_scrub_value(value, secrets)
