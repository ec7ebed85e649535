"""`navigator fill --auto llm` against a real OpenAI-compatible server on 127.0.0.1.

Every case ends with a valid session, exit 0 (filled, perhaps by the heuristic fallback) or 2
(the configuration must be fixed, nothing filled), no traceback, and the key nowhere on disk.
"""

from __future__ import annotations

import json

import pytest

from harness.fake_model import best_answer, user_text
from harness.llm_server import Behaviour
from tests.cli import assert_user_error, clean_env
from tests.navigator.llm.conftest import SECRET, files_holding

#: quick settings: one question per fill, one simulation
QUICK = ("--model", "fake", "--iterations", "1", "--budget", "1")


@pytest.fixture
def gcn(cli, monkeypatch, tmp_path):
    """A gcn session at its fusion hole ?1, and an environment with the key and no user config."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the server memory: the test's own
    for name in ("OPENAI_BASE_URL", "NAVIGATOR_LLM_MODEL", "NAVIGATOR_CONFIG", "NAVIGATOR_LLM_RESPONSE_FORMAT",
                 "NAVIGATOR_LLM_MAX_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    cli("start", "gcn", ok=True)
    cli("fill", "?0", "1", ok=True)
    return cli


@pytest.fixture
def model(llm_server):  # noqa: F811
    llm_server.responder = lambda request: Behaviour(content=best_answer(request))
    return llm_server


def fill(cli, server_url: str, *extra: str):
    return cli("fill", "?1", "--auto", "llm", "--base-url", server_url, *QUICK, *extra)


def steps(cli) -> list[dict]:
    return json.loads(cli("history", "--json", ok=True).stdout)["steps"]


def assert_sound(cli, tmp_path, filled_by: str | None):
    """The session loads and shows; the fill took effect or not; the key is nowhere on disk."""
    shown = json.loads(cli("show", "--json", ok=True).stdout)
    taken = steps(cli)
    if filled_by is None:
        assert len(taken) == 1  # only the setup's step
    else:
        assert len(taken) > 1 and taken[1]["by"] == filled_by, taken[1]
    assert shown["steps"] == len(taken)
    assert files_holding(tmp_path, SECRET) == []


def test_good_answer_with_structured_output(gcn, model, tmp_path):
    result = fill(gcn, model.url)
    assert result.returncode == 0, result.stderr
    assert_sound(gcn, tmp_path, "strategy:llm")
    request = model.chat_requests[0]
    assert request.body["response_format"]["type"] == "json_schema"
    assert request.headers.get("authorization") == f"Bearer {SECRET}"
    step = steps(gcn)[1]
    assert step["rationale"].startswith("model fake: ") or step["rationale"].startswith("the rules' plan")
    assert step["figures"]["compared"]["model"] == "fake"
    recordings = list((tmp_path / ".navigator" / "llm").glob("*.jsonl"))
    assert len(recordings) == 1 and "recorded in" in result.stderr


def test_good_answer_without_response_format_support(gcn, model, tmp_path):
    model.supports_response_format = False
    assert fill(gcn, model.url).returncode == 0
    assert_sound(gcn, tmp_path, "strategy:llm")
    bodies = [r.body for r in model.chat_requests]
    assert "response_format" in bodies[0] and "response_format" not in bodies[-1]


def _proposal(*choices: str) -> str:
    return json.dumps({"proposals": [{"rank": 1, "choices": list(choices), "rationale": "r", "score": 1,
                                      "estimated_intensity": 1, "fusion_groups": []}]})


@pytest.mark.parametrize("first, error", [
    (Behaviour(content=_proposal("1.9")), "?1 has no option 9"),
    (Behaviour(content=_proposal("4.1")), "an option of ?4, which was not asked"),
    (Behaviour(content='{"proposals": [{"rank": 1, "choices": ['), "not JSON"),
    (Behaviour(content='{"proposals": [{"rank": 1, "choi', finish_reason="length"), "cut off at the token limit"),
    (Behaviour(no_choices=True), "no choices"),
], ids=["unknown-id", "other-hole", "malformed", "truncated", "empty-choices"])
def test_a_bad_answer_is_asked_again_with_the_exact_error(gcn, model, tmp_path, first, error):
    model.script([first])
    result = fill(gcn, model.url)
    assert result.returncode == 0, result.stderr
    assert_sound(gcn, tmp_path, "strategy:llm")
    assert len(model.chat_requests) == 2
    assert error in user_text(model.chat_requests[1].body)


def test_prose_with_a_fenced_block_is_read_the_first_time(gcn, model, tmp_path):
    model.responder = lambda request: Behaviour(
        content="Sure! Here is my answer.\n```json\n" + best_answer(request) + "\n```\nHope it helps.")
    assert fill(gcn, model.url).returncode == 0
    assert_sound(gcn, tmp_path, "strategy:llm")
    assert len(model.chat_requests) == 1


def test_invalid_in_every_round_falls_back_to_the_heuristic(gcn, model, tmp_path):
    model.responder = lambda request: Behaviour(content=_proposal("1.99"))
    result = fill(gcn, model.url, "--rounds", "2")
    assert result.returncode == 0, result.stderr
    assert "the heuristic filled the scope instead" in result.stderr
    assert_sound(gcn, tmp_path, "strategy:heuristic")
    step = steps(gcn)[1]
    assert step["rationale"].startswith("fallback to the heuristic (the model gave no valid proposal in 2 rounds")
    assert step["figures"]["compared"]["fallback"] == "heuristic"
    assert len(model.chat_requests) == 2


@pytest.mark.parametrize("failure", [
    Behaviour(status=429, headers={"Retry-After": "0.01"}),
    Behaviour(status=500),
], ids=["429-retry-after", "500"])
def test_transient_errors_are_retried(gcn, model, tmp_path, failure):
    model.script([failure])
    assert fill(gcn, model.url).returncode == 0
    assert_sound(gcn, tmp_path, "strategy:llm")
    assert len(model.chat_requests) == 2


def test_401_is_a_configuration_error(gcn, model, tmp_path):
    model.script([Behaviour(status=401, body={"error": {"message": f"bad key {SECRET}"}})])
    result = fill(gcn, model.url)
    assert_user_error(result, "OPENAI_API_KEY")
    assert SECRET not in result.stderr
    assert_sound(gcn, tmp_path, None)


def test_slower_than_the_timeout_falls_back(gcn, model, tmp_path):
    model.script([Behaviour(content="{}", delay=2.0)])
    result = fill(gcn, model.url, "--timeout", "0.3", "--retries", "0")
    assert result.returncode == 0, result.stderr
    assert "the heuristic filled the scope instead" in result.stderr
    assert_sound(gcn, tmp_path, "strategy:heuristic")


def test_connection_refused_is_a_configuration_error(gcn, refused_url, tmp_path):  # noqa: F811
    result = fill(gcn, refused_url, "--retries", "0")
    assert_user_error(result, "nothing answers at")
    assert_sound(gcn, tmp_path, None)


def test_nothing_configured_says_how(gcn, tmp_path):
    result = gcn("fill", "?1", "--auto", "llm")
    assert_user_error(result, "no model is configured", "NAVIGATOR_LLM_MODEL", "--base-url", "config.toml")
    assert_sound(gcn, tmp_path, None)


def test_llm_flags_are_refused_by_other_strategies(gcn):
    assert_user_error(gcn("fill", "?1", "--auto", "beam", "--model", "x"), "--model does not apply to the beam")
    assert_user_error(gcn("fill", "?1", "1", "--model", "x"), "--model works with --auto")
    assert_user_error(gcn("fill", "?1", "--auto", "llm", "--pick", "2"), "--pick N chooses among the plans")


def test_top_shows_the_plans_and_pick_takes_one(gcn, model, tmp_path):
    result = fill(gcn, model.url, "--budget", "4", "--top", "3", "--pick", "2")
    assert result.returncode == 0, result.stderr
    assert "best plans" in result.stderr and "  2. " in result.stderr
    assert steps(gcn)[1]["figures"]["compared"]["chosen_rank"] == 2
    gcn("undo", ok=True)
    assert_user_error(fill(gcn, model.url, "--top", "1", "--pick", "5"), "--pick 5")
    assert_sound(gcn, tmp_path, None)


def test_verbose_shows_the_prompt_and_its_size(gcn, model):
    result = fill(gcn, model.url, "--verbose")
    assert result.returncode == 0
    assert "tokens (estimated)" in result.stderr and "## Menus of the holes to fill" in result.stderr


def test_replay_reproduces_the_fill_without_the_network(gcn, model, tmp_path):
    assert fill(gcn, model.url, "--iterations", "2").returncode == 0
    first = steps(gcn)
    recording = next((tmp_path / ".navigator" / "llm").glob("*.jsonl"))
    gcn("undo", ok=True)
    model.stop()
    result = gcn("fill", "?1", "--auto", "llm", *QUICK, "--iterations", "2", "--replay-llm", str(recording))
    assert result.returncode == 0, result.stderr
    again = steps(gcn)
    assert [(s["hole"], s["option"]) for s in again] == [(s["hole"], s["option"]) for s in first]
    # another state than the one recorded: the replay says so, nothing is filled
    gcn("undo", ok=True)
    gcn("undo", ok=True)
    result = gcn("fill", "?0", "--auto", "llm", *QUICK, "--replay-llm", str(recording))
    assert_user_error(result, "the recording was made for another session state")


def test_a_hostile_model_cannot_break_the_session(gcn, model, tmp_path):
    rationale = "\x1b]0;pwned\x07" + "\u2028" * 3 + "A" * 100_000
    model.responder = lambda request: Behaviour(content=json.dumps({"proposals": [
        {**p, "rationale": rationale} for p in json.loads(best_answer(request))["proposals"]]}))
    result = fill(gcn, model.url)
    assert result.returncode == 0
    assert "\x1b" not in result.stderr and "\x1b" not in result.stdout
    assert_sound(gcn, tmp_path, "strategy:llm")
    assert len(steps(gcn)[1]["rationale"]) < 3000


def test_subprocess_exit_codes_and_no_traceback(nav, model, tmp_path):
    env = clean_env(OPENAI_API_KEY=SECRET, HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    nav("start", "gcn", ok=True, env=env)
    nav("fill", "?0", "1", ok=True, env=env)
    done = nav("fill", "?1", "--auto", "llm", "--base-url", model.url, *QUICK, env=env)
    assert done.returncode == 0, done.stderr
    model.script([Behaviour(status=401)])
    nav("undo", ok=True, env=env)
    refused = nav("fill", "?1", "--auto", "llm", "--base-url", model.url, *QUICK, env=env)
    assert_user_error(refused, "OPENAI_API_KEY")
    assert files_holding(tmp_path, SECRET) == []
