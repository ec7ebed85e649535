"""What the model transport itself costs, against the test server on 127.0.0.1 (which answers at once).

Prints JSON: milliseconds per request through OpenAIChat, through RecordingChat (the recording
rewritten after each exchange) and through ReplayChat, next to a bare http.client POST of the
same body; and the time `import openai` takes (paid only by commands that ask a model).

    python benchmarks/llm_transport.py [--requests 50] [--prompt-kib 16]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navigator.llm.config import resolve_config  # noqa: E402
from navigator.llm.recording import Recording, RecordingChat  # noqa: E402
from navigator.llm.recording import ReplayChat  # noqa: E402
from navigator.llm.transport import OpenAIChat  # noqa: E402
from harness.llm_server import ChatServer  # noqa: E402

SCHEMA = {"type": "object", "properties": {"proposals": {"type": "array"}}}


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def timed(call, n: int) -> list[float]:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        call(i)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--prompt-kib", type=int, default=16)
    args = parser.parse_args()

    server = ChatServer().start()
    server.responder = lambda request: '{"proposals": [{"rank": 1, "options": {"?3": "o2"}}]}'
    filler = "x" * (args.prompt_kib * 1024)

    def messages(i: int) -> list[dict]:
        return [{"role": "system", "content": filler}, {"role": "user", "content": f"question {i}"}]

    environ = {"HOME": tempfile.mkdtemp()}
    config = resolve_config(base_url=server.url, model="test-model", environ=environ)
    client = OpenAIChat.from_config(config, environ)
    client.complete(messages(0), SCHEMA, "proposals")  # warm the connection

    body = json.dumps({"model": "test-model", "messages": messages(0), "stream": False})
    connection = http.client.HTTPConnection("127.0.0.1", server.port)

    def bare(i: int) -> None:
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        connection.getresponse().read()
        connection.close()

    folder = Path(tempfile.mkdtemp())
    recorded = RecordingChat(client, Recording(folder / "run.jsonl", secrets=()), config.model, config.url)
    figures = {
        "requests": args.requests,
        "prompt_kib": args.prompt_kib,
        "bare_http_ms": median_ms(timed(bare, args.requests)),
        "openai_chat_ms": median_ms(timed(lambda i: client.complete(messages(i), SCHEMA, "proposals"),
                                          args.requests)),
        "recording_chat_ms": median_ms(timed(lambda i: recorded.complete(messages(i), SCHEMA, "proposals"),
                                             args.requests)),
    }
    replay = ReplayChat.from_file(folder / "run.jsonl")
    figures["replay_chat_ms"] = median_ms(timed(lambda i: replay.complete(messages(i), SCHEMA, "proposals"),
                                                args.requests))
    figures["recording_bytes"] = (folder / "run.jsonl").stat().st_size
    probe = "import time; t = time.perf_counter(); import openai; print(time.perf_counter() - t)"
    seconds = [float(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                    check=True).stdout) for _ in range(3)]
    figures["import_openai_ms"] = median_ms(seconds)
    server.stop()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
