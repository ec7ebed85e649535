"""OpenAIChat against a real HTTP server on 127.0.0.1: answers, failures, retries, and the key."""

from __future__ import annotations

import threading
import time

import pytest

from harness.llm_server import Behaviour, error_body
from navigator.llm.config import resolve_config
from navigator.llm.transport import AnswerProblem, LLMConfigError, LLMUnavailable, OpenAIChat, Reply
from tests.navigator.llm.conftest import SECRET

MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Fill ?3."}]
SCHEMA = {"type": "object", "properties": {"proposals": {"type": "array"}}, "required": ["proposals"],
          "additionalProperties": False}
ANSWER = '{"proposals": []}'
FAST = {"Retry-After": "0.01"}


def chat(url: str, llm_env, **settings) -> OpenAIChat:
    settings.setdefault("retries", 2)
    settings.setdefault("timeout", 5)
    config = resolve_config(base_url=url, model="test-model", environ=llm_env, **settings)
    return OpenAIChat.from_config(config, llm_env)


def ask(client: OpenAIChat, schema=SCHEMA) -> Reply:
    return client.complete(MESSAGES, schema, "proposals")


def test_good_answer_uses_response_format(llm_server, llm_env):
    llm_server.script([ANSWER])
    reply = ask(chat(llm_server.url, llm_env))
    assert (reply.text, reply.finish_reason, reply.structured, reply.attempts) == (ANSWER, "stop", True, 1)
    assert set(reply.usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    body = llm_server.chat_requests[0].body
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "proposals", "schema": SCHEMA, "strict": True}}
    assert body["stream"] is False and body["temperature"] == 0 and body["messages"] == MESSAGES
    assert body["model"] == "test-model"


def test_key_only_in_the_authorization_header(llm_server, llm_env):
    llm_server.api_key = SECRET
    llm_server.script([ANSWER])
    ask(chat(llm_server.url, llm_env))
    request = llm_server.chat_requests[0]
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    others = {k: v for k, v in request.headers.items() if k != "authorization"}
    assert SECRET not in repr(others) and SECRET not in repr(request.body)


def test_no_key_sends_a_placeholder(llm_server, llm_env):
    del llm_env["OPENAI_API_KEY"]
    llm_server.script([ANSWER])
    assert ask(chat(llm_server.url, llm_env)).text == ANSWER
    assert llm_server.chat_requests[0].headers["authorization"] == "Bearer not-needed"


def test_without_a_schema_no_response_format_is_sent(llm_server, llm_env):
    llm_server.script([ANSWER])
    reply = ask(chat(llm_server.url, llm_env), schema=None)
    assert not reply.structured and "response_format" not in llm_server.chat_requests[0].body


def test_auto_falls_back_once_the_server_rejects_response_format(llm_server, llm_env):
    llm_server.supports_response_format = False
    llm_server.script([ANSWER, ANSWER])
    client = chat(llm_server.url, llm_env)
    first = ask(client)  # json_schema, then json_object with the schema, both refused: plain text
    assert (first.text, first.structured, first.attempts) == (ANSWER, False, 3)
    second = ask(client)  # remembered: no second rejected request
    assert (second.structured, second.attempts) == (False, 1)
    sent = [r.body.get("response_format", {}).get("type") for r in llm_server.chat_requests]
    assert sent == ["json_schema", "json_object", None, None]


def test_a_behaviour_rejecting_response_format_stays_queued(llm_server, llm_env):
    llm_server.script([Behaviour(content=ANSWER, reject_response_format=True)])
    reply = ask(chat(llm_server.url, llm_env))
    assert (reply.text, reply.structured) == (ANSWER, False) and llm_server.pending == 0


def test_structured_off_never_sends_response_format(llm_server, llm_env):
    llm_server.script([ANSWER])
    reply = ask(chat(llm_server.url, llm_env, structured="off"))
    assert not reply.structured and "response_format" not in llm_server.chat_requests[0].body


def test_structured_on_refused_is_a_config_error(llm_server, llm_env):
    llm_server.supports_response_format = False
    with pytest.raises(LLMConfigError, match="refused response_format.*structured"):
        ask(chat(llm_server.url, llm_env, structured="on"))


def test_empty_choices_is_an_answer_problem(llm_server, llm_env):
    llm_server.script([Behaviour(no_choices=True)])
    with pytest.raises(AnswerProblem, match="no choices"):
        ask(chat(llm_server.url, llm_env))


def test_null_content_is_an_answer_problem(llm_server, llm_env):
    llm_server.script([Behaviour(content=None)])
    with pytest.raises(AnswerProblem, match="no content"):
        ask(chat(llm_server.url, llm_env))


def test_finish_reason_length_returns_the_truncated_text(llm_server, llm_env):
    llm_server.script([Behaviour(content='{"proposals": [{"ra', finish_reason="length")])
    reply = ask(chat(llm_server.url, llm_env))
    assert (reply.text, reply.finish_reason) == ('{"proposals": [{"ra', "length")


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_is_a_config_error(llm_server, llm_env, status):
    llm_server.script([Behaviour(status=status, body=error_body(f"bad key {SECRET}"))])
    with pytest.raises(LLMConfigError, match="refused the key.*OPENAI_API_KEY") as caught:
        ask(chat(llm_server.url, llm_env))
    text = str(caught.value)
    assert SECRET not in text and "***" in text and llm_server.url in text and "\n" not in text
    assert len(llm_server.chat_requests) == 1  # a refused key is not retried


def test_wrong_key_against_a_server_that_checks(llm_server, llm_env):
    llm_server.api_key = "sk-the-right-one"
    with pytest.raises(LLMConfigError, match="HTTP 401"):
        ask(chat(llm_server.url, llm_env))


def test_unknown_model_is_a_config_error(llm_server, llm_env):
    llm_server.check_model = True
    config = resolve_config(base_url=llm_server.url, model="no-such-model", environ=llm_env)
    with pytest.raises(LLMConfigError, match="no model 'no-such-model' at .*--model") as caught:
        OpenAIChat.from_config(config, llm_env).complete(MESSAGES, SCHEMA, "proposals")
    assert caught.value.where == "--model"


def test_429_with_retry_after_then_success(llm_server, llm_env, monkeypatch):
    slept = []
    real_sleep = time.sleep

    def sleep(seconds):   # the client's waits (the server's threads sleep too: not theirs)
        if threading.current_thread() is threading.main_thread():
            slept.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    llm_server.script([Behaviour(status=429, headers=FAST), ANSWER])
    reply = ask(chat(llm_server.url, llm_env))
    assert (reply.text, reply.attempts) == (ANSWER, 2)
    assert slept == [pytest.approx(0.01)]  # Retry-After was honoured, not the 0.5 s back-off


def test_500_then_success(llm_server, llm_env):
    llm_server.script([Behaviour(status=500, headers=FAST), Behaviour(status=503, headers=FAST), ANSWER])
    reply = ask(chat(llm_server.url, llm_env))
    assert (reply.text, reply.attempts) == (ANSWER, 3)


@pytest.mark.parametrize("retries", [0, 2])
def test_500_forever_is_unavailable_after_the_retries(llm_server, llm_env, retries):
    llm_server.responder = lambda request: Behaviour(status=500, body=error_body("model crashed"), headers=FAST)
    with pytest.raises(LLMUnavailable) as caught:
        ask(chat(llm_server.url, llm_env, retries=retries))
    text = str(caught.value)
    assert len(llm_server.chat_requests) == retries + 1
    assert f"HTTP 500 (model crashed), {retries + 1} attempt" in text and llm_server.url in text


def test_slower_than_the_timeout_is_unavailable(llm_server, llm_env):
    llm_server.responder = lambda request: Behaviour(content=ANSWER, delay=2)
    # the server never answers within the timeout, so an error (not a reply) proves the client gave up
    with pytest.raises(LLMUnavailable, match=r"no answer within 0.3 s \(2 attempts\)"):
        ask(chat(llm_server.url, llm_env, timeout=0.3, retries=1))


def test_connection_refused_is_a_config_error(refused_url, llm_env):
    with pytest.raises(LLMConfigError, match="nothing answers at .*start the server or fix --base-url") as caught:
        ask(chat(refused_url, llm_env, retries=0))
    assert refused_url in str(caught.value) and SECRET not in str(caught.value)


def test_unknown_host_is_a_config_error(llm_env):
    with pytest.raises(LLMConfigError, match="nothing answers at http://no-such-host.invalid/v1"):
        ask(chat("http://no-such-host.invalid/v1", llm_env, retries=0))


@pytest.mark.parametrize("behaviour", [
    Behaviour(raw="<html>502 Bad Gateway</html>"),
    Behaviour(raw='{"id": "x", "object": "list"}'),
    Behaviour(raw='{"choices": [{"message": "hello"}]}'),
])
def test_a_body_that_is_not_a_chat_completion_is_unavailable(llm_server, llm_env, behaviour):
    llm_server.script([behaviour])
    with pytest.raises(LLMUnavailable, match="not .*a chat completion"):
        ask(chat(llm_server.url, llm_env))


def test_other_client_errors_are_unavailable(llm_server, llm_env):
    llm_server.script([Behaviour(status=400, body=error_body("prompt longer than the context"))])
    with pytest.raises(LLMUnavailable, match="HTTP 400 .*context.*rejected the request"):
        ask(chat(llm_server.url, llm_env), schema=None)


def test_echoed_key_is_scrubbed_from_the_reply(llm_server, llm_env):
    llm_server.script([f"my key is {SECRET}"])
    assert ask(chat(llm_server.url, llm_env)).text == "my key is ***"

