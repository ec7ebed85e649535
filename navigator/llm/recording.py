"""Every exchange with the model, written next to the session, and read back for replay.

Layout: a run that asks a model for a session `DIR/NAME.json` records into
`DIR/llm/NAME-YYYYMMDDTHHMMSS.fffZ.jsonl` (UTC time of the run's first exchange being
prepared), one file per run. Each line is one exchange, a JSON object:

    {"version": 1, "index": 1, "time": "2025-01-01T12:00:00.123Z", "model": ..., "base_url": ...,
     "messages_sha256": ..., "messages": [...], "schema_name": ..., "structured": true,
     "reply": {"text", "finish_reason", "usage", "seconds", "attempts"} | null,
     "error": {"kind": "unavailable" | "answer" | "config", "message"} | null, ...caller's fields}

`index` counts from 1 and equals the line number. The whole file is rewritten atomically
after each exchange (recordings are small), so a reader never sees half a line. The key
(OPENAI_API_KEY) is replaced by *** in every string, in any form (navigator.process.secrets),
before anything is written; control and format characters are written as \\u escapes.

Reading one back (`load_recording`) checks every field Navigator writes, once, with bounds on
each (numbers in range, texts of a sensible size): an error names the file, the line (the
exchange) and the field, so a replay never fails later on a value it trusted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NoReturn

from fuseflow.support.errors import UserError, show_value
from fuseflow.support.files import file_stem, read_user_text, write_text_atomic
from fuseflow.support.readers import parse_json_text
from navigator.llm.config import URL_CHARACTERS
from navigator.llm.failures import AnswerProblem, LLMConfigError, LLMUnavailable, api_key, scrub, scrub_value
from navigator.llm.transport import MAX_TOKENS, ChatClient, Reply, messages_sha256
from navigator.process.foreign_text import clean_text, escape_unsafe, unsafe_characters

VERSION = 1
FOLDER = "llm"
_WHAT = "a recording of language-model exchanges (.jsonl)"
_ERROR_KINDS = {LLMUnavailable: "unavailable", AnswerProblem: "answer", LLMConfigError: "config"}


class RecordingError(UserError):
    """A recording file that cannot be read or replayed."""


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(when: datetime, compact: bool) -> str:
    text = when.strftime("%Y%m%dT%H%M%S" if compact else "%Y-%m-%dT%H:%M:%S")
    return f"{text}.{when.microsecond // 1000:03d}Z"


class Recording:
    """The exchanges of one run, kept in memory and rewritten to `path` after each one."""

    def __init__(self, path: str | os.PathLike, *, secrets: tuple[str, ...] | None = None):
        self.path = Path(path)
        self.exchanges: list[dict] = []
        #: values hidden from every string written (the key from OPENAI_API_KEY unless given)
        self.secrets = tuple(s for s in (secrets if secrets is not None else (api_key(),)) if s)

    @classmethod
    def beside(cls, session_path: str | os.PathLike, *, when: datetime | None = None,
               secrets: tuple[str, ...] | None = None) -> Recording:
        """A new recording in `<session dir>/llm/<session stem>-<UTC time>.jsonl` (see the module doc)."""
        session = Path(session_path)
        folder = session.parent / FOLDER
        base = f"{file_stem(session.stem)}-{_stamp(when or utc_now(), compact=True)}"
        path = folder / f"{base}.jsonl"
        counter = 2
        while os.path.lexists(path):  # two runs within a millisecond (or anything else there)
            path = folder / f"{base}-{counter}.jsonl"
            counter += 1
        return cls(path, secrets=secrets)

    def append(self, exchange: dict[str, Any]) -> dict[str, Any]:
        """Add one exchange (its `index` set to its line number) and rewrite the file."""
        entry = scrub_value(dict(exchange), self.secrets)
        entry["index"] = len(self.exchanges) + 1
        self.exchanges.append(entry)
        self._write()
        return entry

    def update_last(self, **fields: Any) -> None:
        """Attach fields to the latest exchange and rewrite the file."""
        if not self.exchanges:
            raise ValueError("no exchange recorded yet")
        self.exchanges[-1].update(scrub_value(fields, self.secrets))
        self._write()

    def _write(self) -> None:
        # control and format characters (a model's U+202E) are written as \\u escapes: the file
        # reads as it is in any viewer, and decodes to exactly what was said
        lines = [escape_unsafe(json.dumps(entry, ensure_ascii=False, allow_nan=False, separators=(",", ":")))
                 for entry in self.exchanges]
        write_text_atomic(self.path, scrub("\n".join(lines) + "\n", self.secrets), error=RecordingError)


def load_recording(path: str | os.PathLike) -> list[dict]:
    """The exchanges of a recording, every field checked once, here (types, ranges, sizes): a
    bad one is a RecordingError (exit 2) naming the file, the line (the exchange) and the field."""
    where = str(path)
    text = read_user_text(path, RecordingError, _WHAT)
    exchanges = []
    # split on "\n" only: splitlines() would also cut at U+0085 or U+2028 inside a JSON string
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        at = f"{where} line {number}"
        data = parse_json_text(line, at, RecordingError, _WHAT)
        check_exchange(data, f"{at} (exchange {len(exchanges) + 1})")
        exchanges.append(data)
    if not exchanges:
        raise RecordingError("holds no exchange", where=where, fix="give a recording made by --auto llm (see docs/llm.md)")
    return exchanges


#: the bounds of a recording's fields: what a run of Navigator can write, and no more
NAME_CHARACTERS = 1000
MESSAGE_CHARACTERS = 100_000
MAX_SECONDS = 1e7
MAX_ATTEMPTS = 1000
MAX_ROUND = 1000
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
#: characters of a recorded failure's message kept when it is replayed
REPLAYED_MESSAGE = 2000


def check_exchange(data: Any, where: str) -> None:
    """One line of a recording: every field Navigator writes has its type, range and size, so
    replaying it cannot fail later. Fields it does not know are left alone."""
    fix = "this line was edited or is not from a Navigator recording; record the run again"

    def fail(message: str) -> NoReturn:
        raise RecordingError(message, where=where, fix=fix)

    if not isinstance(data, dict):
        fail(f"is not a JSON object, got {show_value(data)}")
    if data.get("version") != VERSION:
        fail(f"has version {show_value(data.get('version'))}; this Navigator reads version {VERSION}")
    if not isinstance(data.get("messages_sha256"), str):
        fail("has no messages_sha256")
    _text_field(data, "messages_sha256", 64, fail, required=True)
    # names a run may take from the recording (the model's is shown and stored): one plain line each
    for name in ("time", "schema_name", "model", "strategy"):
        _text_field(data, name, 64 if name == "time" else NAME_CHARACTERS, fail, plain=True)
    _text_field(data, "base_url", URL_CHARACTERS, fail, plain=True)
    _whole_field(data, "index", 1, 10**9, fail)
    _whole_field(data, "round", 0, MAX_ROUND, fail)
    _whole_field(data, "iteration", 0, MAX_ROUND, fail)
    if data.get("structured") is not None and not isinstance(data["structured"], bool):
        fail(f"structured must be true, false or null, got {show_value(data['structured'])}")
    messages = data.get("messages")
    if messages is not None:
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            fail("messages must be a list of objects")
        for number, message in enumerate(messages, start=1):
            for name in ("role", "content"):
                _text_field(message, name, MESSAGE_CHARACTERS if name == "content" else NAME_CHARACTERS, fail,
                            label=f"messages[{number}].{name}")
    errors = data.get("errors")
    if errors is not None and (not isinstance(errors, list) or not all(isinstance(e, str) for e in errors)):
        fail("errors must be a list of texts")
    parsed = data.get("parsed")
    if parsed is not None and (not isinstance(parsed, list) or not all(isinstance(p, dict) for p in parsed)):
        fail("parsed must be a list of objects or null")
    reply, error = data.get("reply"), data.get("error")
    if (reply is None) == (error is None):
        fail("must hold exactly one of reply and error")
    if error is not None:
        if not isinstance(error, dict) or error.get("kind") not in _ERROR_KINDS.values() \
                or not isinstance(error.get("message"), str):
            fail(f"error must be {{kind: {' | '.join(_ERROR_KINDS.values())}, message: text}}")
        _text_field(error, "message", MESSAGE_CHARACTERS, fail, label="error.message")
        return
    if not isinstance(reply, dict) or not isinstance(reply.get("text"), str):
        fail("reply must be an object with a text")
    _text_field(reply, "finish_reason", NAME_CHARACTERS, fail, label="reply.finish_reason")
    usage = reply.get("usage")
    if usage is not None:
        if not isinstance(usage, dict):
            fail(f"reply.usage must be an object or null, got {show_value(usage)}")
        for name, value in usage.items():
            if name not in USAGE_FIELDS:
                fail(f"reply.usage holds {show_value(name)}; it holds only {', '.join(USAGE_FIELDS)}")
            _whole_field(usage, name, 0, MAX_TOKENS, fail, label=f"reply.usage.{name}")
    seconds = reply.get("seconds", 0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= MAX_SECONDS:
        fail(f"reply.seconds must be a non-negative number of seconds (at most {MAX_SECONDS:g}), "
             f"got {show_value(seconds)}")
    _whole_field(reply, "attempts", 0, MAX_ATTEMPTS, fail, label="reply.attempts")


def _text_field(data: dict, name: str, limit: int, fail: Callable[[str], NoReturn], *, required: bool = False,
                label: str | None = None, plain: bool = False) -> None:
    value = data.get(name)
    label = label or name
    if value is None and not required:
        return
    if not isinstance(value, str):
        fail(f"{label} must be text{'' if required else ' or null'}, got {show_value(value)}")
    if len(value) > limit:
        fail(f"{label} is {len(value):,} characters long, more than the {limit:,} Navigator writes")
    if plain and unsafe_characters().search(value):
        fail(f"{label} holds a control or format character, which Navigator never writes there")


def _whole_field(data: dict, name: str, low: int, high: int, fail: Callable[[str], NoReturn], *,
                 label: str | None = None) -> None:
    value = data.get(name)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail(f"{label or name} must be a whole number from {low:,} to {high:,}, got {show_value(value)}")


class RecordingChat:
    """A ChatClient that passes each request to `inner` and records the exchange, reply or failure."""

    def __init__(self, inner: ChatClient, recording: Recording, model: str, base_url: str | None):
        self.inner = inner
        self.recording = recording
        self.model = model
        self.base_url = base_url

    def complete(self, messages: list[dict], schema: dict | None = None, schema_name: str = "answer") -> Reply:
        exchange: dict[str, Any] = {
            "version": VERSION, "index": None, "time": _stamp(utc_now(), compact=False), "model": self.model,
            "base_url": self.base_url, "messages_sha256": messages_sha256(messages), "messages": messages,
            "schema_name": schema_name, "structured": None, "reply": None, "error": None}
        try:
            reply = self.inner.complete(messages, schema, schema_name)
        except tuple(_ERROR_KINDS) as exc:
            exchange["error"] = {"kind": _error_kind(exc), "message": str(exc)}
            self.recording.append(exchange)
            raise
        exchange["structured"] = reply.structured
        exchange["response_format"] = reply.response_format
        exchange["reply"] = {"text": reply.text, "finish_reason": reply.finish_reason, "usage": reply.usage,
                             "seconds": round(reply.seconds, 6), "attempts": reply.attempts}
        self.recording.append(exchange)
        return reply

    def count_tokens(self, messages: list[dict]) -> int | None:
        """The inner client's count of the messages' tokens (None when it cannot count)."""
        count = getattr(self.inner, "count_tokens", None)
        return count(messages) if count is not None else None

    def record_extra(self, **fields: Any) -> None:
        """Attach the caller's fields (parsed proposals, validation errors, round, ...) to the last exchange."""
        self.recording.update_last(**fields)


def _error_kind(exc: Exception) -> str:
    for cls, kind in _ERROR_KINDS.items():
        if isinstance(exc, cls):
            return kind
    return "unavailable"  # pragma: no cover (complete() catches only the kinds above)


class ReplayChat:
    """A ChatClient that answers from a recording (`load_recording`), exchange by
    exchange in order, replaying recorded failures too. A request whose messages differ from
    the recorded ones, or one past the end, is an LLMConfigError naming the file and exchange."""

    def __init__(self, exchanges: list[dict], source: str):
        self.exchanges = exchanges
        self.source = source
        self.position = 0

    @classmethod
    def from_file(cls, path) -> "ReplayChat":
        return cls(load_recording(path), str(path))

    def complete(self, messages: list[dict], schema: dict | None = None, schema_name: str = "answer") -> Reply:
        number = self.position + 1
        fix = "replay it on the session it was recorded from, in the same state, or run without --replay-llm"
        if self.position >= len(self.exchanges):
            raise LLMConfigError(f"the recording was made for another session state: it holds "
                                 f"{len(self.exchanges)} exchange(s) and this run asks for exchange {number}",
                                 where=self.source, fix=fix)
        exchange = self.exchanges[self.position]
        if exchange.get("messages_sha256") != messages_sha256(messages):
            raise LLMConfigError(f"the recording was made for another session state: exchange {number} "
                                 "was asked with other messages", where=self.source, fix=fix)
        self.position += 1
        error = exchange.get("error")
        if error:
            # a recorded failure's words become a fallback's reason, stored in the session
            kind, message = error.get("kind"), clean_text(error.get("message", ""), REPLAYED_MESSAGE)
            if kind == "answer":
                raise AnswerProblem(message)
            if kind == "config":
                raise LLMConfigError(f"exchange {number} replays the recorded failure: {message}",
                                     where=self.source)
            raise LLMUnavailable(message)
        reply = exchange["reply"]
        return Reply(text=reply["text"], finish_reason=reply.get("finish_reason"), usage=reply.get("usage"),
                     seconds=float(reply.get("seconds", 0.0)), structured=bool(exchange.get("structured")),
                     attempts=int(reply.get("attempts", 1)),
                     response_format=form if isinstance(form := exchange.get("response_format"), str) else None)
