"""Recording exchanges next to the session, replaying them, and keeping the key off the disk."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings, strategies as st

from harness.llm_server import Behaviour, error_body
from navigator.llm.config import resolve_config
from navigator.llm.recording import Recording, RecordingChat, RecordingError, ReplayChat, load_recording
from navigator.llm.transport import AnswerProblem, LLMConfigError, LLMUnavailable, OpenAIChat, messages_sha256
from tests.navigator.llm.conftest import SECRET, files_holding

SCHEMA = {"type": "object"}


def messages(n: int) -> list[dict]:
    return [{"role": "user", "content": f"question {n}"}]


def recorded_chat(server, llm_env, session, **settings) -> RecordingChat:
    config = resolve_config(base_url=server.url, model="test-model", environ=llm_env, retries=0, **settings)
    recording = Recording.beside(session, secrets=(SECRET,))
    return RecordingChat(OpenAIChat.from_config(config, llm_env), recording, config.model, config.url)


def outcome(client, n: int):
    try:
        reply = client.complete(messages(n), SCHEMA, "proposals")
    except (LLMUnavailable, AnswerProblem, LLMConfigError) as exc:
        return type(exc).__name__, str(exc)
    return reply.text, reply.finish_reason, reply.usage, reply.structured, reply.attempts


def test_beside_names_a_file_in_the_llm_folder(tmp_path):
    when = datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=timezone.utc)
    recording = Recording.beside(tmp_path / "runs" / "gcn.json", when=when, secrets=())
    assert recording.path == tmp_path / "runs" / "llm" / "gcn-20250304T050607.890Z.jsonl"
    recording.append({"version": 1, "messages_sha256": "x", "reply": {"text": ""}, "error": None})
    again = Recording.beside(tmp_path / "runs" / "gcn.json", when=when, secrets=())
    assert again.path.name == "gcn-20250304T050607.890Z-2.jsonl"


def test_record_then_replay_round_trip(llm_server, llm_env, tmp_path):
    llm_server.api_key = SECRET
    llm_server.supports_response_format = False
    llm_server.script([
        '{"proposals": [1]}',
        Behaviour(content='{"propo', finish_reason="length"),
        Behaviour(status=503, body=error_body(f"overloaded, key {SECRET}")),  # echoes the key
        Behaviour(no_choices=True),
        f"echo {SECRET}",
    ])
    session = tmp_path / "work" / "session.json"
    client = recorded_chat(llm_server, llm_env, session)
    live = [outcome(client, n) for n in range(5)]
    client.record_extra(parsed=[{"rank": 1}], errors=[], round=1, iteration=1, strategy="llm")
    assert live[0][0] == '{"proposals": [1]}' and live[0][3] is False  # fell back to plain text
    assert live[1][:2] == ('{"propo', "length")
    assert live[2][0] == "LLMUnavailable" and "HTTP 503" in live[2][1]
    assert live[3] == ("AnswerProblem", "the server returned no choices")
    assert live[4][0] == "echo ***"

    path = client.recording.path
    assert path.parent == session.parent / "llm" and path.name.startswith("session-")
    exchanges = load_recording(path)
    assert [e["index"] for e in exchanges] == [1, 2, 3, 4, 5]
    assert [e["error"]["kind"] for e in exchanges if e["error"]] == ["unavailable", "answer"]
    first = exchanges[0]
    assert first["messages"] == messages(0) and first["messages_sha256"] == messages_sha256(messages(0))
    assert (first["model"], first["base_url"], first["schema_name"], first["version"]) == \
        ("test-model", llm_server.url, "proposals", 1)
    assert exchanges[-1]["parsed"] == [{"rank": 1}] and exchanges[-1]["strategy"] == "llm"

    replay = ReplayChat.from_file(path)
    assert [outcome(replay, n) for n in range(5)] == live
    assert files_holding(tmp_path, SECRET) == []


def test_replaying_a_different_conversation_is_refused(llm_server, llm_env, tmp_path):
    llm_server.script(["a", "b"])
    client = recorded_chat(llm_server, llm_env, tmp_path / "s.json")
    outcome(client, 0), outcome(client, 1)
    replay = ReplayChat.from_file(client.recording.path)
    with pytest.raises(LLMConfigError, match=r"another session state: exchange 1 was asked with other messages") \
            as caught:
        replay.complete(messages(7), SCHEMA, "proposals")
    assert str(caught.value).startswith(str(client.recording.path))

    replay = ReplayChat.from_file(client.recording.path)
    outcome(replay, 0), outcome(replay, 1)
    with pytest.raises(LLMConfigError, match=r"holds 2 exchange\(s\) and this run asks for exchange 3"):
        replay.complete(messages(2), SCHEMA, "proposals")


def test_a_recorded_config_error_replays_as_one(llm_server, llm_env, tmp_path):
    llm_server.script([Behaviour(status=401)])
    client = recorded_chat(llm_server, llm_env, tmp_path / "s.json")
    assert outcome(client, 0)[0] == "LLMConfigError"
    with pytest.raises(LLMConfigError, match="exchange 1 replays the recorded failure: .*refused the key"):
        ReplayChat.from_file(client.recording.path).complete(messages(0), SCHEMA, "proposals")


def test_unavailable_server_and_refused_connection_leave_no_key(refused_url, llm_env, tmp_path):
    config = resolve_config(base_url=refused_url, model="m", environ=llm_env, retries=0)
    client = RecordingChat(OpenAIChat.from_config(config, llm_env), Recording.beside(tmp_path / "s.json"),
                           config.model, config.url)
    with pytest.raises(LLMConfigError) as caught:
        client.complete(messages(0), None, "proposals")
    assert SECRET not in str(caught.value)
    assert load_recording(client.recording.path)[0]["error"]["kind"] == "config"
    assert files_holding(tmp_path, SECRET) == []


def test_recording_reads_the_key_from_the_environment_by_default(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    recording = Recording(tmp_path / "r.jsonl")
    recording.append({"version": 1, "messages_sha256": "x", "messages": [{"content": f"k={SECRET}"}],
                      "reply": {"text": SECRET}, "error": None})
    recording.update_last(note={SECRET: SECRET})
    assert files_holding(tmp_path, SECRET) == []
    assert load_recording(recording.path)[0]["note"] == {"***": "***"}


GOOD = {"version": 1, "index": 1, "messages_sha256": "ab", "reply": {"text": "t", "seconds": 0.1, "attempts": 1},
        "error": None}


@pytest.mark.parametrize("line, fragment", [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "is not a JSON object"),
    (json.dumps({**GOOD, "version": 2}), "has version 2"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "messages_sha256"}), "has no messages_sha256"),
    (json.dumps({**GOOD, "error": {"kind": "answer", "message": "m"}}), "exactly one of reply and error"),
    (json.dumps({**GOOD, "reply": None, "error": {"kind": "oops", "message": "m"}}), "error must be"),
    (json.dumps({**GOOD, "reply": {"text": 3}}), "reply must be an object with a text"),
    (json.dumps({**GOOD, "reply": {"text": "t", "attempts": -1}}), "reply.attempts must be"),
    (json.dumps({**GOOD, "reply": {"text": "t", "usage": 3}}), "reply.usage must be"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, fragment):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=fragment) as caught:
        load_recording(path)
    assert str(caught.value).startswith(f"{path} line 2")


@pytest.mark.parametrize("content, fragment", [("", "holds no exchange"), (None, "file not found")])
def test_empty_or_missing_recording(tmp_path, content, fragment):
    path = tmp_path / "r.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordingError, match=fragment):
        ReplayChat.from_file(path)


texts = st.text(st.characters(codec="utf-8"), max_size=40)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(texts, min_size=1, max_size=3), texts | st.none(),
                          st.sampled_from(["stop", "length", None])), min_size=1, max_size=4))
def test_any_recorded_conversation_replays_exactly(tmp_path_factory, conversation):
    """Whatever was asked and answered (any text, failures included), the replay gives it back."""
    folder = tmp_path_factory.mktemp("rec")

    class Scripted:
        def __init__(self):
            self.answers = iter(conversation)

        def complete(self, messages, schema, schema_name):
            from navigator.llm.transport import Reply
            _, text, finish = next(self.answers)
            if text is None:
                raise LLMUnavailable("down")
            return Reply(text, finish, {"total_tokens": len(text)}, 0.25, False, 1)

    asked = [[{"role": "user", "content": part} for part in parts] for parts, _, _ in conversation]
    client = RecordingChat(Scripted(), Recording(folder / "r.jsonl", secrets=()), "m", None)
    live = [outcome_of(client, m) for m in asked]
    replay = ReplayChat.from_file(folder / "r.jsonl")
    assert [outcome_of(replay, m) for m in asked] == live


def outcome_of(client, asked):
    try:
        return client.complete(asked, None, "answer")
    except LLMUnavailable as exc:
        return str(exc)
