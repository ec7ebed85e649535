"""One chat request to a language model, and what can go wrong with it.

`OpenAIChat` talks to any OpenAI-compatible server through the `openai` client (imported
only when one is built); `ReplayChat` answers from a recording instead. Both are
`ChatClient`s: `complete(messages, schema, schema_name) -> Reply`, raising LLMConfigError
(the user must fix something), LLMUnavailable (try again later, or fall back) or
AnswerProblem (an answer with nothing in it). No message ever holds the key.

Servers differ in the `response_format` they take. llama.cpp's llama-server and vLLM take
`{"type": "json_schema", "json_schema": {...}}` and turn the schema into a grammar;
llama-cpp-python's server refuses it (HTTP 500, "Input should be 'text' or 'json_object'")
and takes `{"type": "json_object", "schema": {...}}`; others take neither. The response
format `auto` tries these FORMS in turn, moving on when one is refused (HTTP 400/422, or a
5xx whose message names the format), and keeps the first that works for every later request;
navigator.llm.server_memory remembers it for the next command. An explicit form (or
`structured = "on"`: either schema form) that the server refuses is a configuration error.
A request that does not fit the server's context is one too, said with the prompt's tokens.
Every request carries `max_tokens` (config.max_tokens, else sized from the schema).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from fuseflow.support.errors import UserError
from fuseflow.support.readers import parse_json_text
from navigator.llm.failures import AnswerProblem, LLMConfigError, LLMUnavailable, api_key, checked_key, scrub
from navigator.llm.tokens import describe_estimate, estimate_tokens
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
#: the forms of response_format, most structured first: what `auto` tries, in this order
FORMS = ("json_schema", "json_object", "plain")
#: a server's words for "the prompt does not fit my context" (llama.cpp, llama-cpp-python, vLLM, OpenAI)
_CONTEXT = re.compile(r"context (size|length|window)|maximum context|exceed_context_size|context_length_exceeded"
                      r"|too many tokens|n_ctx", re.I)
#: a server error (5xx) that names the response format: a refusal of it, not an outage
_NAMES_FORMAT = re.compile(r"response_format|json_schema|json_object|'text'|\bschema\b|grammar", re.I)
#: tokenizer endpoints at the server's root: llama.cpp's llama-server, llama-cpp-python's server
TOKENIZERS = (("/tokenize", "content"), ("/extras/tokenize", "input"))
#: a context suggested for the server: prompt + max_tokens, this much more, rounded up to 1,024
CONTEXT_MARGIN = 1.1


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
    #: the form of response_format the answer was asked with (FORMS), when known
    response_format: str | None = None


class ChatClient(Protocol):
    def complete(self, messages: list[dict], schema: dict | None, schema_name: str) -> Reply: ...


def messages_sha256(messages: list[dict]) -> str:
    """The sha256 of the messages' canonical JSON: what a replayed request must match."""
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def forms_to_try(mode: str, remembered: str | None = None) -> tuple[str, ...]:
    """The response formats a client tries, in order, for config.format_mode `mode`: `auto` tries
    every form, starting from the one the server took last time; "schema" the schema forms."""
    if mode in FORMS:
        return (mode,)
    forms = FORMS if mode == "auto" else FORMS[:2]
    return forms[forms.index(remembered):] if remembered in forms else forms


def response_format(form: str, schema: dict, schema_name: str) -> dict | None:
    """The request's response_format for `form` (None: plain text, nothing sent)."""
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class _Rejected(Exception):
    """The server refused the request because of its response_format."""


class _BodyError(UserError):
    """A response body that is not the JSON it should be."""


class OpenAIChat:
    """A ChatClient over an OpenAI-compatible endpoint.

    The openai client retries 408/409/429/5xx, timeouts and dropped connections `config.retries`
    times, waiting what Retry-After (or retry-after-ms) asks, else backing off from 0.5 s.
    The response format moves along `forms` at each refusal and stays at the first that works
    (remembered in `memory` for the next command).
    """

    def __init__(self, config: LLMConfig, key: str | None, *, temperature: float = 0.0, memory=None):
        import openai  # here, not at the top: commands that never ask a model must not import it

        self._openai = openai
        self.config = config
        self.temperature = temperature
        key = checked_key(key) if key else None  # a key in any form is hidden from every text from now on
        self._key = key
        self._secrets = (key,) if key else ()
        self._attempts = 0
        self._memory = memory
        remembered = memory.form(config.url, config.model) if memory is not None else None
        self.forms = forms_to_try(config.format_mode, remembered)
        self._form = 0
        self._confirmed: str | None = None
        #: the tokenizer endpoint found (None: not looked for yet, "": the server has none)
        self._tokenizer: str | None = None
        # counts every HTTP request, so a Reply (or an error) says how many attempts it took
        self._http = openai.DefaultHttpxClient(event_hooks={"request": [self._count_attempt]})
        self._client = openai.OpenAI(base_url=config.url, api_key=key or "not-needed", timeout=config.timeout,
                                     max_retries=config.retries, http_client=self._http)

    @classmethod
    def from_config(cls, config: LLMConfig, environ: Mapping[str, str] | None = None) -> OpenAIChat:
        from navigator.llm.server_memory import FormatMemory

        return cls(config, api_key(environ), memory=FormatMemory.default(environ))

    @property
    def form(self) -> str:
        """The response format the next request is sent with."""
        return self.forms[self._form]

    def _count_attempt(self, request) -> None:
        self._attempts += 1

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict], schema: dict | None = None, schema_name: str = "answer") -> Reply:
        self._attempts = 0
        start = time.monotonic()
        if schema is None:
            return self._ask(messages, None, schema_name, "plain", start)
        refused: list[str] = []
        while True:
            form = self.form
            try:
                reply = self._ask(messages, schema, schema_name, form, start)
            except _Rejected as rejected:
                refused.append(f"{form} ({rejected})")
                if self._form + 1 >= len(self.forms):
                    raise self._refusal(refused) from None
                self._form += 1  # for this request and every later one
                continue
            if self._confirmed != form:
                self._confirmed = form
                if self._memory is not None:
                    self._memory.remember(self.config.url, self.config.model, form)
            return reply

    def _refusal(self, refused: list[str]) -> LLMConfigError:
        mode = self.config.format_mode
        asked = "structured = \"on\" (json_schema or json_object)" if mode == "schema" else \
            f"--response-format {mode}"
        return LLMConfigError(f"the server refused response_format {'; then '.join(refused)}, and {asked} "
                              "allows no other form", where=self.config.url,
                              fix="use --response-format auto (it falls back to json_object, then plain text) or "
                                  "the form the server takes; also NAVIGATOR_LLM_RESPONSE_FORMAT, or response_format "
                                  "(structured) in the [llm] config table")

    def max_tokens(self, schema: dict | None) -> int | None:
        """The answer's token limit: config.max_tokens, else sized from the question's schema."""
        if self.config.max_tokens is not None or schema is None:
            return self.config.max_tokens
        from navigator.llm.answer_budget import answer_tokens

        return answer_tokens(schema)

    def _ask(self, messages: list[dict], schema: dict | None, schema_name: str, form: str, start: float) -> Reply:
        openai = self._openai
        request: dict[str, Any] = {"model": self.config.model, "messages": messages, "stream": False,
                                   "temperature": self.temperature}
        limit = self.max_tokens(schema)
        if limit is not None:
            request["max_tokens"] = limit
        sent = response_format(form, schema, schema_name) if schema is not None else None
        if sent is not None:
            request["response_format"] = sent
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
            raise self._status_error(exc, sent is not None, messages, limit) from None
        return self._reply(raw.http_response.text, sent is not None, start, form if schema is not None else None)

    def _status_error(self, exc, structured: bool, messages: list[dict], limit: int | None) -> Exception:
        status, url, detail = exc.status_code, self.config.url, self._text(_detail(exc))
        if status in (401, 403):
            return LLMConfigError(f"the server refused the key (HTTP {status}: {detail})", where=url,
                                  fix="set OPENAI_API_KEY to a key this server accepts")
        if status == 404:
            return LLMConfigError(f"no model {self.config.model!r} at {url} (HTTP 404: {detail})",
                                  where="--model", fix="check --model / NAVIGATOR_LLM_MODEL (GET "
                                  f"{url}/models lists the server's models) and that the base URL ends in /v1")
        fields = _error_fields(exc)
        if status in (400, 413, 422) and (_CONTEXT.search(detail) or "exceed_context_size_error" in
                                          (fields.get("code"), fields.get("type"))
                                          or fields.get("code") == "context_length_exceeded"):
            # before the refusal of response_format: a prompt too long is not a schema refused
            return self._context_error(status, detail, fields, messages, limit)
        if structured and (status in (400, 422) or status >= 500 and _NAMES_FORMAT.search(detail)):
            return _Rejected(f"HTTP {status}: {detail}")
        transient = status in _TRANSIENT or status >= 500
        return LLMUnavailable(f"{url}: HTTP {status} ({detail}), {self._tries()}"
                              + ("" if transient else "; the server rejected the request"))

    def _context_error(self, status: int, detail: str, fields: dict, messages: list[dict],
                       limit: int | None) -> LLMConfigError:
        """The prompt does not fit the server's context: say how big it is, and what to do."""
        counted = _whole(fields.get("n_prompt_tokens")) or self.count_tokens(messages)
        prompt = counted or estimate_tokens(messages)
        said = f"{counted:,} tokens (counted by the server)" if counted else describe_estimate(prompt)
        n_ctx = _whole(fields.get("n_ctx"))
        answer = limit or 0
        wanted = 1024 * math.ceil((prompt + answer) * CONTEXT_MARGIN / 1024)
        return LLMConfigError(
            f"the prompt does not fit the server's context (HTTP {status}: {detail}): the prompt is {said}"
            + (f" and the answer may take {answer:,} (max_tokens)" if answer else "")
            + (f"; the server's context is {n_ctx:,} tokens" if n_ctx else ""),
            where=self.config.url,
            fix=f"restart the server with a context of at least {wanted:,} tokens (llama-server -c {wanted}; "
                f"python -m llama_cpp.server --n_ctx {wanted}), or lower --max-tokens, or fill one hole at a "
                "time (without --all or --subtree): a question asks about up to 8 holes, each with its menu")

    def count_tokens(self, messages: list[dict]) -> int | None:
        """The messages' tokens as the server's own tokenizer counts them (the chat template's few
        tokens left out), or None when the server offers no tokenizer endpoint (TOKENIZERS)."""
        if self._tokenizer == "":
            return None
        text = "\n".join(str(m.get("content", "")) for m in messages)
        root = re.sub(r"/v1$", "", self.config.url)
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        attempts = self._attempts  # not requests of the answer
        try:
            for path, field_name in TOKENIZERS:
                if self._tokenizer not in (None, path):
                    continue
                try:
                    response = self._http.post(root + path, json={field_name: text}, headers=headers,
                                               timeout=min(self.config.timeout, 10.0))
                    tokens = response.json().get("tokens") if response.status_code == 200 else None
                except Exception:  # no such endpoint, not JSON, not reachable: no count
                    tokens = None
                if isinstance(tokens, list):
                    self._tokenizer = path
                    return len(tokens)
            self._tokenizer = ""
            return None
        finally:
            self._attempts = attempts

    def _reply(self, body: str, structured: bool, start: float, form: str | None = None) -> Reply:
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
                     seconds=time.monotonic() - start, structured=structured, attempts=self._attempts,
                     response_format=form)

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


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _error_fields(exc) -> dict:
    """The fields of an OpenAI-style error body: {"error": {...}} or the body itself."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        return inner if isinstance(inner, dict) else body
    return {}


def _detail(exc) -> str:
    """The server's own words for an HTTP error: OpenAI-style {"error": {"message"}}, or the body."""
    body = getattr(exc, "body", None)
    fields = _error_fields(exc)
    if isinstance(fields.get("message"), str):
        return fields["message"]
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
