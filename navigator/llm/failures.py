"""The failures a caller of the model must tell apart, and the one rule that keeps the key out of text.

- LLMConfigError: the user must change something (endpoint, model, key, recording); exit 2.
- LLMUnavailable: the endpoint is there but did not answer usefully in time (timeouts, 429/5xx
  after the retries, a body that is not a chat completion); the caller falls back to a heuristic.
- AnswerProblem: the server answered, but with nothing usable (no choices, no content).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from fuseflow.support.errors import UserError

KEY_ENV = "OPENAI_API_KEY"
HIDDEN = "***"


class LLMConfigError(UserError):
    """The model cannot be reached as configured; the message says what to change."""


class LLMUnavailable(Exception):
    """The endpoint failed this time (timeout, rate limit, server error, garbage)."""


class AnswerProblem(Exception):
    """The endpoint answered, but the answer holds nothing to use."""


def api_key(environ: Mapping[str, str] | None = None) -> str | None:
    """The key from OPENAI_API_KEY (the only place a key is read from), or None."""
    value = (os.environ if environ is None else environ).get(KEY_ENV, "")
    return value.strip() or None


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every secret replaced by ***, in case a server echoes the key back."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, HIDDEN)
    return text


def scrub_value(value, secrets: tuple[str, ...]):
    """scrub() applied to every string (keys too) inside lists and dicts."""
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {scrub_value(k, secrets): scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, secrets) for v in value]
    return value
