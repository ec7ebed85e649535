"""A hostile OpenAI-compatible server on 127.0.0.1 for the fuzz harness, in a process of its own.

A case lists what the server does, one behaviour (a JSON object) per chat request; the last one
repeats. The parent binds the listening socket, then forks the server: the port is known before
the case's child starts, no thread runs in the parent (the harness forks it again for every
case), and a server that misbehaves is killed with its process when the case ends.

Behaviours (keys may combine where it makes sense):

    {"fake": true}                     the answer of harness/fake_model.py, read off the prompt
    {"fake": true, "mutate": SEED}     that answer, then one structural mutation (harness/fuzz/mutations.py)
    "set", "set_raw", "cut", "wrap"    with "fake": fields set in every proposal (as JSON values, or as raw
                                       JSON text: NaN, 1e400), the answer cut to a fraction, or put in a text
                                       at its "{}"
    {"content": TEXT}                  this assistant text (null: a message without content)
    "finish_reason", "usage"           the choice's finish reason ("length": cut off) and the usage object
    {"no_choices": true}               a completion with an empty choices list
    {"status": N, "body": TEXT}        an HTTP error with this body (JSON text or anything), "headers" added
    {"raw": TEXT, "content_type": T}   a 200 whose body is TEXT, as is
    {"declared_length": N, "raw": T}   Content-Length N, fewer bytes sent, then the connection closed
    {"garbage": BASE64}                these bytes on the socket instead of an HTTP response
    {"reset": true}                    the connection reset (SO_LINGER 0) without an answer
    {"echo_key": N}                    HTTP N whose error message holds the Authorization header it received
    {"delay": S}                       wait S seconds first (a slow server)
"""

from __future__ import annotations

import base64
import json
import os
import random
import signal
import socket
import struct
import time
from http.server import BaseHTTPRequestHandler

MODEL = "fuzz-model"


class FaultServer:
    """`with FaultServer(behaviours) as server:` ... server.url ... (the process is killed on exit)."""

    def __init__(self, behaviours: list[dict]):
        self.behaviours = list(behaviours)
        self.pid: int | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FaultServer":
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        self.port = listener.getsockname()[1]
        from harness.fuzz.runner import flush_standard_streams

        flush_standard_streams()
        pid = os.fork()
        if pid == 0:  # the server: never returns
            code = 0
            try:
                _serve(listener, self.behaviours)
            except BaseException:  # noqa: BLE001 - a server that dies is a refused connection for the case
                code = 1
            finally:
                os._exit(code)
        listener.close()
        self.pid = pid
        return self

    def stop(self) -> None:
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        self.pid = None

    def __enter__(self) -> "FaultServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _serve(listener: socket.socket, behaviours: list[dict]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never write into the parent's (pytest's) output
        os.dup2(null, fd)
    state = {"chats": 0}
    while True:
        connection, address = listener.accept()
        connection.settimeout(30)
        try:
            _Handler(connection, address, behaviours, state)
        except (OSError, ValueError):
            pass
        finally:
            try:
                connection.close()
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection: a fault never leaks into the next one
    server_version = "navigator-fuzz-llm/1"

    def __init__(self, connection, address, behaviours, state):
        self.behaviours = behaviours
        self.state = state
        self.connection_socket = connection
        super().__init__(connection, address, None)

    def log_message(self, format, *args):
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              headers: dict | None = None, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for name, value in (headers or {}).items():
            self.send_header(str(name), str(value))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        body = {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "fuzz"}]}
        self._send(200, json.dumps(body).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(length, 64 << 20))
        try:
            request = json.loads(raw)
        except ValueError:
            request = {}
        index = self.state["chats"]
        self.state["chats"] += 1
        behaviour = self.behaviours[min(index, len(self.behaviours) - 1)] if self.behaviours else {"fake": True}
        if behaviour.get("delay"):
            time.sleep(float(behaviour["delay"]))
        if behaviour.get("reset"):
            self.connection_socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if "garbage" in behaviour:
            self.wfile.write(base64.b64decode(behaviour["garbage"]))
            self.wfile.flush()
            return
        if "echo_key" in behaviour:
            message = f"Incorrect API key provided: {self.headers.get('Authorization', '')}"
            body = {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}}
            self._send(int(behaviour["echo_key"]), json.dumps(body).encode())
            return
        if "raw" in behaviour:
            body = behaviour["raw"].encode("utf-8", "surrogatepass")
            self._send(int(behaviour.get("status", 200)), body, behaviour.get("content_type", "application/json"),
                       behaviour.get("headers"), behaviour.get("declared_length"))
            return
        if behaviour.get("status", 200) != 200:
            body = behaviour.get("body")
            if body is None:
                body = json.dumps({"error": {"message": f"scripted HTTP {behaviour['status']}",
                                             "type": "server_error", "code": None}})
            self._send(int(behaviour["status"]), body.encode("utf-8", "surrogatepass"),
                       headers=behaviour.get("headers"))
            return
        self._send(200, json.dumps(_completion(request, behaviour, index)).encode("utf-8", "surrogatepass"),
                   headers=behaviour.get("headers"))


def _answer(request: dict, behaviour: dict) -> str | None:
    if not behaviour.get("fake"):
        return behaviour.get("content", "")
    from harness.fake_model import best_answer

    try:
        text = best_answer(request)
    except (KeyError, StopIteration, TypeError, ValueError):
        text = '{"proposals": []}'
    if "set" in behaviour or "set_raw" in behaviour:
        answer = json.loads(text)
        raw = behaviour.get("set_raw", {})
        for proposal in answer.get("proposals", []):
            proposal.update(behaviour.get("set", {}))
            proposal.update({name: f"\u0000{name}" for name in raw})
        text = json.dumps(answer, ensure_ascii=False)
        for name, replacement in raw.items():
            text = text.replace(json.dumps(f"\u0000{name}"), replacement)
    if "mutate" in behaviour:
        from harness.fuzz.mutations import mutate_structure

        data, _ = mutate_structure(random.Random(behaviour["mutate"]), text.encode("utf-8"), "json")
        text = data.decode("utf-8", "surrogatepass")
    if "cut" in behaviour:
        text = text[:int(len(text) * float(behaviour["cut"]))]
    if "wrap" in behaviour:
        text = behaviour["wrap"].replace("{}", text, 1)
    return text


def _completion(request: dict, behaviour: dict, index: int) -> dict:
    content = _answer(request, behaviour)
    size = len(content or "") // 4 + 1
    usage = behaviour["usage"] if "usage" in behaviour else {
        "prompt_tokens": 100, "completion_tokens": size, "total_tokens": 100 + size}
    choices = [] if behaviour.get("no_choices") else [{
        "index": 0, "message": {"role": "assistant", "content": content},
        "finish_reason": behaviour.get("finish_reason", "stop"), "logprobs": None}]
    return {"id": f"chatcmpl-fuzz-{index}", "object": "chat.completion", "created": 0,
            "model": request.get("model", MODEL) if isinstance(request, dict) else MODEL,
            "choices": choices, "usage": usage}
