"""One chat request to a language model, and what can go wrong with it.

`OpenAIChat` talks to any OpenAI-compatible server through the `openai` client (imported
only when one is built); `ReplayChat` answers from a recording instead. Both are
`ChatClient`s: `complete(messages, schema, schema_name) -> Reply`, raising LLMConfigError
(the user must fix something), LLMUnavailable (try again later, or fall back) or
AnswerProblem (an answer with nothing in it). No message ever holds the key.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fuseflow.support.errors import UserError
from fuseflow.support.readers import parse_json_text
from navigator.llm.failures import AnswerProblem, LLMConfigError, LLMUnavailable, api_key, checked_key, scrub
from navigator.process.foreign_text import clean_text

if TYPE_CHECKING:
    from navigator.llm.config import LLMConfig

__all__ = ["AnswerProblem", "ChatClient", "LLMConfigError", "LLMUnavailable", "OpenAIChat", "Reply", "ReplayChat",
           "messages_sha256"]

#: statuses that mean "the server is there but busy or broken": retried by the client, then LLMUnavailable
_TRANSIENT = {408, 409, 429}
_DETAIL_LIMIT = 200
#: a token count larger than this is not one a server meant (usage is kept for the figures only)
MAX_TOKENS = 10**12


@dataclass(frozen=True)
class Reply:
    """What the model said, and what it cost to hear it."""
    text: str
    finish_reason: str | None
    #: prompt_tokens, completion_tokens, total_tokens, when the server reports them
    usage: dict | None
    seconds: float
    #: whether response_format (a JSON-schema answer) was used for this reply
    structured: bool
    #: HTTP requests sent for it (retries and a resend without response_format included)
    attempts: int


class ChatClient(Protocol):
    def complete(self, messages: list[dict], schema: dict | None, schema_name: str) -> Reply: ...


def messages_sha256(messages: list[dict]) -> str:
    """The sha256 of the messages' canonical JSON: what a replayed request must match."""
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Rejected(Exception):
    """The server refused the request because of response_format (HTTP 400/422)."""


class _BodyError(UserError):
    """A response body that is not the JSON it should be."""


class OpenAIChat:
    """A ChatClient over an OpenAI-compatible endpoint.

    The openai client retries 408/409/429/5xx, timeouts and dropped connections `config.retries`
    times, waiting what Retry-After (or retry-after-ms) asks, else backing off from 0.5 s.
    With structured == "auto", the first refusal of response_format switches it off for
    every later request of this client.
    """

    def __init__(self, config: LLMConfig, key: str | None, *, temperature: float = 0.0):
        import openai  # here, not at the top: commands that never ask a model must not import it

        self._openai = openai
        self.config = config
        self.temperature = temperature
        key = checked_key(key) if key else None  # a key in any form is hidden from every text from now on
        self._secrets = (key,) if key else ()
        self._attempts = 0
        self._structured_ok = config.structured != "off"
        # counts every HTTP request, so a Reply (or an error) says how many attempts it took
        http_client = openai.DefaultHttpxClient(event_hooks={"request": [self._count_attempt]})
        self._client = openai.OpenAI(base_url=config.url, api_key=key or "not-needed", timeout=config.timeout,
                                     max_retries=config.retries, http_client=http_client)

    @classmethod
    def from_config(cls, config: LLMConfig, environ: Mapping[str, str] | None = None) -> OpenAIChat:
        return cls(config, api_key(environ))

    def _count_attempt(self, request) -> None:
        self._attempts += 1

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict], schema: dict | None = None, schema_name: str = "answer") -> Reply:
        self._attempts = 0
        start = time.monotonic()
        if schema is not None and self._structured_ok:
            try:
                return self._ask(messages, schema, schema_name, start)
            except _Rejected as rejected:
                if self.config.structured == "on":
                    raise LLMConfigError(f"the server refused response_format (a JSON-schema answer): {rejected}",
                                         where=self.config.url,
                                         fix='set structured = "auto" or "off" in the [llm] config table') from None
                self._structured_ok = False  # ask in plain text from now on
        return self._ask(messages, None, schema_name, start)

    def _ask(self, messages: list[dict], schema: dict | None, schema_name: str, start: float) -> Reply:
        openai = self._openai
        request: dict[str, Any] = {"model": self.config.model, "messages": messages, "stream": False,
                                   "temperature": self.temperature}
        if schema is not None:
            request["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
        url = self.config.url
        try:
            raw = self._client.chat.completions.with_raw_response.create(**request)
        except openai.APITimeoutError:
            raise LLMUnavailable(f"{url}: no answer within {self.config.timeout:g} s "
                                 f"({self._tries()})") from None
        except openai.APIConnectionError as exc:
            if _refused(exc):
                raise LLMConfigError(f"nothing answers at {url} ({self._text(_reason(exc))}, {self._tries()})",
                                     where="--auto llm",
                                     fix="start the server or fix --base-url / OPENAI_BASE_URL") from None
            raise LLMUnavailable(f"{url}: the connection failed ({self._text(_reason(exc))}, "
                                 f"{self._tries()})") from None
        except openai.APIStatusError as exc:
            raise self._status_error(exc, schema is not None) from None
        return self._reply(raw.http_response.text, schema is not None, start)

    def _status_error(self, exc, structured: bool) -> Exception:
        status, url, detail = exc.status_code, self.config.url, self._text(_detail(exc))
        if status in (401, 403):
            return LLMConfigError(f"the server refused the key (HTTP {status}: {detail})", where=url,
                                  fix="set OPENAI_API_KEY to a key this server accepts")
        if status == 404:
            return LLMConfigError(f"no model {self.config.model!r} at {url} (HTTP 404: {detail})",
                                  where="--model", fix="check --model / NAVIGATOR_LLM_MODEL (GET "
                                  f"{url}/models lists the server's models) and that the base URL ends in /v1")
        if structured and status in (400, 422):
            return _Rejected(f"HTTP {status}: {detail}")
        transient = status in _TRANSIENT or status >= 500
        return LLMUnavailable(f"{url}: HTTP {status} ({detail}), {self._tries()}"
                              + ("" if transient else "; the server rejected the request"))

    def _reply(self, body: str, structured: bool, start: float) -> Reply:
        url = self.config.url
        try:
            data = parse_json_text(body, url, _BodyError, "a chat completion")
        except _BodyError:
            raise LLMUnavailable(f"{url}: the answer is not JSON, so not a chat completion "
                                 f"(it starts {self._text(body[:80])!r})") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list):
            raise LLMUnavailable(f"{url}: the answer is not a chat completion (no list of choices)")
        if not choices:
            raise AnswerProblem("the server returned no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise LLMUnavailable(f"{url}: the answer is not a chat completion (a choice without a message)")
        finish = choice.get("finish_reason")
        finish = finish if isinstance(finish, str) else None
        text = message.get("content")
        if text is not None and not isinstance(text, str):
            raise LLMUnavailable(f"{url}: the answer is not a chat completion (content is not text)")
        if not text and finish != "length":  # a truncated empty answer is the caller's to re-ask
            refusal = message.get("refusal")
            why = f": the model refused ({self._text(refusal)})" if isinstance(refusal, str) and refusal else ""
            raise AnswerProblem(f"the answer has no content{why}")
        return Reply(text=scrub(text or "", self._secrets), finish_reason=finish, usage=_usage(data.get("usage")),
                     seconds=time.monotonic() - start, structured=structured, attempts=self._attempts)

    def _tries(self) -> str:
        return f"{self._attempts} attempt{'s' if self._attempts != 1 else ''}"

    def _text(self, text: str) -> str:
        """Server text fit for a one-line message: the key hidden, control characters removed, short."""
        return clean_text(scrub(str(text), self._secrets), _DETAIL_LIMIT)


def _usage(value: Any) -> dict | None:
    if not isinstance(value, dict):
        return None
    usage = {name: value[name] for name in ("prompt_tokens", "completion_tokens", "total_tokens")
             if isinstance(value.get(name), int) and not isinstance(value.get(name), bool)
             and 0 <= value[name] <= MAX_TOKENS}
    return usage or None


def _detail(exc) -> str:
    """The server's own words for an HTTP error: OpenAI-style {"error": {"message"}}, or the body."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    if isinstance(body, str) and body.strip():
        return body.strip()
    try:
        return exc.response.text.strip() or f"HTTP {exc.status_code}"
    except Exception:  # a response whose body cannot be read still has a status
        return f"HTTP {exc.status_code}"


def _causes(exc: BaseException):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def _refused(exc: BaseException) -> bool:
    """Connection refused, DNS failure, unreachable host: the transport's ConnectError (httpx or
    httpx2, depending on the openai version), not a connection dropped mid-answer."""
    return any(cls.__name__ == "ConnectError" for cause in _causes(exc) for cls in type(cause).__mro__)


def _reason(exc: BaseException) -> str:
    for cause in _causes(exc):
        if cause is not exc and str(cause):
            return str(cause)
    return str(exc) or type(exc).__name__
