"""A scriptable OpenAI-compatible server on 127.0.0.1 for the tests and the benchmarks
(streaming off).

    server = ChatServer().start()            # or the `llm_server` fixture
    server.script(["{\\"proposals\\": []}", Behaviour(status=429, headers={"Retry-After": "0.01"})])
    server.responder = lambda request: Behaviour(content=answer_for(request["messages"]))
    client points at server.url ("http://127.0.0.1:PORT/v1")
    server.requests[-1].body["response_format"], server.requests[-1].headers["authorization"]

Each POST /v1/chat/completions consumes the next scripted behaviour, or asks `responder`
once the script is empty. GET /v1/models lists `models`. Server-level switches:
`supports_response_format = False` answers 400 to any request carrying response_format,
`api_key` (when set) answers 401 unless the request sends `Authorization: Bearer <api_key>`,
`models` (when `check_model`) answers 404 to a request for another model.
`Behaviour(raw=TEXT, content_type=...)` sends any body at all; `completion_body(TEXT)` is a chat
completion whose content is TEXT, as JSON text, ready to be edited into one no encoder would write.

`ChatServer(kind=...)` behaves as a real server does with `response_format`, tokens and context:

    "openai"            (the default) takes any response_format
    "llama-server"      llama.cpp's: takes json_schema and json_object; POST /tokenize {"content"};
                        a prompt of `context_size` tokens or more gets HTTP 400 with its message
                        ("the request exceeds the available context size, try increasing it")
    "llama-cpp-python"  its Python server: json_schema gets HTTP 500 with pydantic's message
                        ("Input should be 'text' or 'json_object'"), json_object (with a schema) is
                        taken; POST /extras/tokenize {"input"}; a prompt over `context_size` gets
                        HTTP 400 "This model's maximum context length is ..."
    "plain"             ignores response_format (answers as it likes)
    "plain-400"         answers 400 to any request carrying response_format

Tokens are counted by `server_tokens` (words and single punctuation marks), in `usage` and by
the tokenize endpoints alike. An answer longer than the request's `max_tokens` (or than what
the context leaves) is cut there, with finish_reason "length", as real servers do.

The openai client waits what Retry-After asks only when it is above 0 (fractions allowed);
otherwise it backs off 0.5 s, 1 s, ... So tests that want fast retries send
`Retry-After: 0.01` rather than 0.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Behaviour:
    """How the server answers one request.

    content         the assistant's text, wrapped in a chat.completion with usage
    finish_reason   of the single choice ("stop", "length", ...)
    no_choices      answer a chat.completion whose choices list is empty
    status, body    any other status: `body` (a dict is sent as JSON; None gives an OpenAI-style
                    error body) with `headers` (e.g. {"Retry-After": "0.01"})
    delay           seconds to wait before answering (for timeouts)
    reject_response_format  answer 400 (OpenAI-style) when the request carries response_format,
                    leaving this behaviour queued for the next request
    raw             a body sent as is (any bytes a server might send: a chat completion with
                    NaN in it, 500 KB of "{", ...), with `status` and `content_type`
    content_type    of a `raw` body (text/plain unless given)
    beyond_max_tokens  send all of `content` even past the request's max_tokens (a server that
                    ignores the bound, or a proxy in front of a model that does)
    """
    content: str | None = ""
    finish_reason: str | None = "stop"
    no_choices: bool = False
    status: int = 200
    body: str | dict | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reject_response_format: bool = False
    raw: str | None = None
    usage: dict | None = None
    content_type: str = "text/plain"
    beyond_max_tokens: bool = False


@dataclass
class Received:
    method: str
    path: str
    #: header names in lower case
    headers: dict[str, str]
    body: Any


def error_body(message: str, kind: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


KINDS = ("openai", "llama-server", "llama-cpp-python", "plain", "plain-400")
#: llama.cpp's llama-server, when the prompt does not fit (tools/server/server.cpp)
LLAMA_SERVER_CONTEXT = "the request exceeds the available context size, try increasing it"
#: llama-cpp-python's server on response_format json_schema: its route error handler answers
#: HTTP 500 with the text of pydantic's validation error
LLAMA_CPP_PYTHON_SCHEMA = ("[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                           "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
                           "'ctx': {'expected': \"'text' or 'json_object'\"}}]")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def server_tokens(text: str) -> list[str]:
    """The test servers' tokenizer: words and single punctuation marks."""
    return _TOKEN.findall(text)


def prompt_tokens(request: dict) -> int:
    return sum(len(server_tokens(str(m.get("content", "")))) + 4 for m in request.get("messages", [])
               if isinstance(m, dict))


def _cut(text: str, tokens: int) -> str:
    """`text` up to the end of its `tokens`-th token."""
    ends = [m.end() for m in _TOKEN.finditer(text)]
    return text if len(ends) <= tokens else text[:ends[tokens - 1]] if tokens > 0 else ""


class ChatServer:
    def __init__(self, models: tuple[str, ...] = ("test-model",), kind: str = "openai",
                 context_size: int | None = None):
        assert kind in KINDS, kind
        self.models = list(models)
        self.kind = kind
        #: the context in tokens (None: unbounded): a prompt that does not fit is refused
        self.context_size = context_size
        self.check_model = False
        self.supports_response_format = kind != "plain-400"
        self.api_key: str | None = None
        self.responder: Callable[[dict], Behaviour | str] = lambda request: Behaviour(content="{}")
        self.requests: list[Received] = []
        self._queue: deque[Behaviour | str] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ control

    def start(self) -> ChatServer:
        server = self

        class Handler(_Handler):
            owner = server

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False  # a handler still sleeping for a `delay` must not hold up the test
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() the server first"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, behaviours: list[Behaviour | str]) -> None:
        """Queue behaviours, one per request (a string is Behaviour(content=that string))."""
        with self._lock:
            self._queue.extend(behaviours)

    @property
    def pending(self) -> int:
        return len(self._queue)

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # ------------------------------------------------------------ answering

    def _refusal(self, request: dict) -> Behaviour | None:
        """What the server kind says to the request's response_format and size, if it refuses it."""
        form = request.get("response_format")
        kind = form.get("type") if isinstance(form, dict) else None
        if form is not None and not self.supports_response_format:
            return _rejection()
        if self.kind == "llama-cpp-python" and kind not in (None, "text", "json_object"):
            return Behaviour(status=500, body=error_body(LLAMA_CPP_PYTHON_SCHEMA, "internal_server_error"))
        if self.context_size is not None:
            used = prompt_tokens(request)
            if self.kind == "llama-cpp-python" and used + int(request.get("max_tokens") or 0) > self.context_size:
                return Behaviour(status=400, body=error_body(
                    f"This model's maximum context length is {self.context_size} tokens. However, you requested "
                    f"{used + int(request.get('max_tokens') or 0)} tokens ({used} in the messages, "
                    f"{request.get('max_tokens')} in the completion). Please reduce the length of the messages or "
                    "completion.", code="context_length_exceeded"))
            if used >= self.context_size:
                body = {"error": {"code": 400, "message": LLAMA_SERVER_CONTEXT, "type": "exceed_context_size_error",
                                  "n_prompt_tokens": used, "n_ctx": self.context_size}}
                return Behaviour(status=400, body=body)
        return None

    def _behaviour_for(self, request: dict) -> Behaviour:
        carries_format = "response_format" in request
        with self._lock:
            refused = self._refusal(request)
            if refused is not None:
                return refused
            if self._queue:
                head = _as_behaviour(self._queue[0])
                if head.reject_response_format and carries_format:
                    return _rejection()  # stays queued for the resend without response_format
                self._queue.popleft()
                return head
        return _as_behaviour(self.responder(request))

    def _completion(self, request: dict, behaviour: Behaviour) -> dict:
        prompt = prompt_tokens(request)
        content, finish = behaviour.content, behaviour.finish_reason
        limits = [n for n in (request.get("max_tokens"), (self.context_size - prompt) if self.context_size else None)
                  if isinstance(n, int)]
        if content and limits and not behaviour.beyond_max_tokens and len(server_tokens(content)) > min(limits):
            content, finish = _cut(content, min(limits)), "length"
        completion = len(server_tokens(content or ""))
        usage = behaviour.usage if behaviour.usage is not None else {
            "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        choices = [] if behaviour.no_choices else [{
            "index": 0, "message": {"role": "assistant", "content": content},
            "finish_reason": finish, "logprobs": None}]
        return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
                "model": request.get("model", "unknown"), "choices": choices, "usage": usage}


def completion_body(content: str, usage: str = '{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}'
                    ) -> str:
    """The JSON text of a chat completion answering `content`, with `usage` as raw JSON text (so a
    test can send what a JSON encoder would not: NaN, 1e400, a string for a number)."""
    return ('{"id": "chatcmpl-raw", "object": "chat.completion", "created": 0, "model": "test-model", '
            '"choices": [{"index": 0, "message": {"role": "assistant", "content": ' + json.dumps(content) + '}, '
            '"finish_reason": "stop", "logprobs": null}], "usage": ' + usage + '}')


def _as_behaviour(value: Behaviour | str) -> Behaviour:
    return Behaviour(content=value) if isinstance(value, str) else value


def _rejection() -> Behaviour:
    return Behaviour(status=400, body=error_body("response_format json_schema is not supported by this server",
                                                 code="unsupported_response_format"))


class _Handler(BaseHTTPRequestHandler):
    owner: ChatServer
    server_version = "navigator-test-llm/1"

    def log_message(self, format, *args):  # keep pytest's output clean
        pass

    def _send(self, status: int, body: str | dict, headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        data = (json.dumps(body) if isinstance(body, dict) else body).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def _record(self, body: Any) -> None:
        self.owner.requests.append(Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                            body))

    def _authorized(self) -> bool:
        key = self.owner.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send(401, error_body("Incorrect API key provided", "invalid_request_error", "invalid_api_key"))
        return False

    def do_GET(self):
        self._record(None)
        if not self._authorized():
            return
        if self.path.rstrip("/") == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"}
                                                        for m in self.owner.models]})
        else:
            self._send(404, error_body(f"no route {self.path}"))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            request = json.loads(raw)
        except ValueError:
            request = None
        self._record(request)
        tokenizer = {"llama-server": ("/tokenize", "content"),
                     "llama-cpp-python": ("/extras/tokenize", "input")}.get(self.owner.kind)
        if tokenizer is not None and self.path.rstrip("/") == tokenizer[0]:
            text = request.get(tokenizer[1]) if isinstance(request, dict) else None
            if not isinstance(text, str):
                self._send(400, error_body(f"{tokenizer[1]} must be text"))
            else:
                self._send(200, {"tokens": list(range(len(server_tokens(text))))})
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, error_body(f"no route {self.path}"))
            return
        if not isinstance(request, dict):
            self._send(400, error_body("the body is not a JSON object"))
            return
        if not self._authorized():
            return
        if self.owner.check_model and request.get("model") not in self.owner.models:
            self._send(404, error_body(f"The model `{request.get('model')}` does not exist.", code="model_not_found"))
            return
        behaviour = self.owner._behaviour_for(request)
        if behaviour.delay:
            time.sleep(behaviour.delay)
        if behaviour.raw is not None:
            self._send(behaviour.status, behaviour.raw, behaviour.headers, content_type=behaviour.content_type)
        elif behaviour.status != 200:
            body = behaviour.body if behaviour.body is not None else error_body(f"scripted HTTP {behaviour.status}")
            self._send(behaviour.status, body, behaviour.headers)
        else:
            self._send(200, self.owner._completion(request, behaviour), behaviour.headers)


def refused_port() -> int:
    """A port on 127.0.0.1 that was bound, then closed: connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
