"""`navigator fill --auto llm` against test servers that behave as the real ones do: llama.cpp's
llama-server, llama-cpp-python's server, servers without response_format; context-size errors,
answers cut at max_tokens, tokenizer endpoints; and re-asks that carry what went wrong."""

from __future__ import annotations

import json

import pytest

from harness.fake_model import best_answer, user_text
from harness.llm_server import LLAMA_SERVER_CONTEXT, Behaviour, ChatServer
from navigator.llm.answer import AnswerError, parse_answer
from navigator.llm.strategy import Tally
from navigator.llm.tokens import estimate_tokens
from tests.cli import assert_user_error
from tests.navigator.llm.conftest import SECRET, files_holding

QUICK = ("--model", "fake", "--iterations", "1", "--budget", "1", "--retries", "0")


@pytest.fixture
def session(cli, monkeypatch, tmp_path):
    """A gcn session at its fusion hole ?1; the key set, no user config, a state dir of the test's own."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for name in ("OPENAI_BASE_URL", "NAVIGATOR_LLM_MODEL", "NAVIGATOR_CONFIG", "NAVIGATOR_LLM_RESPONSE_FORMAT",
                 "NAVIGATOR_LLM_MAX_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    cli("start", "gcn", ok=True)
    cli("fill", "?0", "1", ok=True)
    return cli


def server(kind: str, **settings) -> ChatServer:
    chat = ChatServer(kind=kind, **settings).start()
    chat.responder = lambda request: Behaviour(content=best_answer(request))
    return chat


@pytest.fixture
def servers():
    started: list[ChatServer] = []

    def start(kind: str, **settings) -> ChatServer:
        started.append(server(kind, **settings))
        return started[-1]

    yield start
    for chat in started:
        chat.stop()


def fill(cli, url: str, *extra: str, hole: str = "?1"):
    return cli("fill", hole, "--auto", "llm", "--base-url", url, *QUICK, *extra)


def filled_by(cli, hole: int = 1) -> str | None:
    """Who filled `hole` (None: it is open)."""
    steps = json.loads(cli("history", "--json", ok=True).stdout)["steps"]
    return next((step["by"] for step in steps if step["hole"] == hole), None)


def rationale(cli, hole: int = 1) -> str:
    steps = json.loads(cli("history", "--json", ok=True).stdout)["steps"]
    return next(step["rationale"] for step in steps if step["hole"] == hole)


def forms(chat: ChatServer) -> list[str | None]:
    return [(r.body.get("response_format") or {}).get("type") for r in chat.chat_requests]


# ---------------------------------------------------------------- response formats

def test_llama_server_takes_json_schema_with_bounds_and_max_tokens(session, servers, tmp_path):
    chat = servers("llama-server")
    result = fill(session, chat.url)
    assert result.returncode == 0, result.stderr
    assert filled_by(session) == "strategy:llm"
    assert forms(chat) == ["json_schema"]
    body = chat.chat_requests[0].body
    schema = body["response_format"]["json_schema"]["schema"]
    item = schema["properties"]["proposals"]["items"]["properties"]
    assert schema["properties"]["proposals"]["maxItems"] == 4 and item["choices"]["maxItems"] == 1
    assert item["rationale"]["maxLength"] == 300 and item["fusion_groups"]["maxItems"] == 3
    assert 500 < body["max_tokens"] < 4000
    assert files_holding(tmp_path, SECRET) == []


def test_llama_cpp_python_refuses_json_schema_and_takes_json_object(session, servers, tmp_path):
    chat = servers("llama-cpp-python")
    result = fill(session, chat.url)
    assert result.returncode == 0, result.stderr
    assert filled_by(session) == "strategy:llm"  # not the heuristic's fallback
    assert forms(chat) == ["json_schema", "json_object"]
    assert chat.chat_requests[1].body["response_format"]["schema"]["required"] == ["proposals"]
    # remembered for the next command, in the state dir, without the key
    memory = tmp_path / "state" / "navigator" / "llm-servers.json"
    assert json.loads(memory.read_text())["servers"] == {f"{chat.url} fake": "json_object"}
    session("undo", ok=True)
    assert fill(session, chat.url).returncode == 0
    assert forms(chat)[2:] == ["json_object"]
    assert files_holding(tmp_path, SECRET) == []


@pytest.mark.parametrize("how", ["flag", "env"])
def test_an_explicit_form_the_server_refuses_is_one_line(session, servers, monkeypatch, how):
    chat = servers("llama-cpp-python")
    if how == "env":
        monkeypatch.setenv("NAVIGATOR_LLM_RESPONSE_FORMAT", "json_schema")
        result = fill(session, chat.url)
    else:
        result = fill(session, chat.url, "--response-format", "json_schema")
    assert_user_error(result, "refused response_format json_schema", "HTTP 500", "Input should be 'text' or "
                      "'json_object'", "--response-format auto")
    assert forms(chat) == ["json_schema"]
    assert filled_by(session) is None  # nothing filled


def test_structured_on_in_the_config_file_takes_json_object_but_never_plain(session, servers, tmp_path):
    config = tmp_path / "config" / "navigator" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[llm]\nstructured = "on"\n', encoding="utf-8")
    takes_object = servers("llama-cpp-python")
    assert fill(session, takes_object.url).returncode == 0
    assert forms(takes_object) == ["json_schema", "json_object"]
    session("undo", ok=True)
    refuses_all = servers("plain-400")
    result = fill(session, refuses_all.url)
    assert_user_error(result, "refused response_format json_schema", "then json_object", 'structured = "on"')
    assert forms(refuses_all) == ["json_schema", "json_object"]


@pytest.mark.parametrize("kind, sent", [("plain", ["json_schema"]),
                                        ("plain-400", ["json_schema", "json_object", None])])
def test_servers_without_response_format_still_fill(session, servers, kind, sent):
    chat = servers(kind)
    result = fill(session, chat.url)
    assert result.returncode == 0, result.stderr
    assert filled_by(session) == "strategy:llm"
    assert forms(chat) == sent


def test_plain_sends_no_response_format(session, servers):
    chat = servers("llama-server")
    assert fill(session, chat.url, "--response-format", "plain").returncode == 0
    assert forms(chat) == [None]


# ---------------------------------------------------------------- context and tokens

@pytest.mark.parametrize("kind, said, sent", [
    ("llama-server", LLAMA_SERVER_CONTEXT, ["json_schema"]),
    # llama-cpp-python checks the request's form before its size
    ("llama-cpp-python", "maximum context length is 600 tokens", ["json_schema", "json_object"])])
def test_a_prompt_too_long_for_the_context_says_so(session, servers, kind, said, sent):
    chat = servers(kind, context_size=600)
    result = fill(session, chat.url)
    assert_user_error(result, "does not fit the server's context", said, "counted by the server", "max_tokens",
                      "llama-server -c", "--n_ctx", "one hole at a time")
    assert "response_format" not in result.stderr.split("context")[0]  # not taken for a schema refused
    assert forms(chat) == sent  # asked once in the form taken: structured answers are not turned off
    assert filled_by(session) is None


def test_verbose_counts_the_prompt_with_the_servers_tokenizer(session, servers):
    for kind, paths in (("llama-server", ["/tokenize"]), ("llama-cpp-python", ["/tokenize", "/extras/tokenize"])):
        chat = servers(kind)
        result = fill(session, chat.url, "--verbose", "--rounds", "1")
        assert result.returncode == 0, result.stderr
        assert "tokens (counted by the server's tokenizer; ~" in result.stderr
        assert [r.path for r in chat.requests if "tokenize" in r.path] == paths
        session("undo", ok=True)
    plain = servers("plain")
    result = fill(session, plain.url, "--verbose")
    assert "tokens (estimated), \u00b125%" in result.stderr


def test_the_estimate_is_near_the_count_a_server_gave(session, servers):
    """gcn's first question of `fill ?0 --auto llm`: 1,411 tokens counted by a llama.cpp server
    (the issue's report); characters / 4 said 961. The question has grown since that count: the
    cost model's region figures now carry the simulator's cycles (7-8 digits where they had 6-7)
    and what bounds each region, so the estimate is held to its stated error (ESTIMATE_ERROR)."""
    from navigator.llm.tokens import ESTIMATE_ERROR

    session("undo", ok=True)
    chat = servers("llama-server")
    assert fill(session, chat.url, hole="?0").returncode == 0
    messages = chat.chat_requests[0].body["messages"]
    assert abs(estimate_tokens(messages) - 1411) < 1411 * ESTIMATE_ERROR


# ---------------------------------------------------------------- cut-off answers

def test_an_answer_cut_at_max_tokens_is_reported_as_cut(session, servers):
    chat = servers("llama-server")
    result = fill(session, chat.url, "--max-tokens", "20", "--rounds", "2")
    assert result.returncode == 0 and "the heuristic filled the scope instead" in result.stderr
    assert [r.body["max_tokens"] for r in chat.chat_requests] == [20, 20]
    second = user_text(chat.chat_requests[1].body)
    assert "cut off at the token limit" in second and "is not a JSON object" not in second
    assert "cut off at the token limit" in rationale(session) and "raise --max-tokens" in result.stderr


def test_a_cut_answer_is_not_read_for_its_inner_lists():
    cut = '{"proposals": [{"rank": 1, "choices": ["1.2"], "rationale": "fuse the aggreg'
    with pytest.raises(AnswerError, match="cut off at the token limit"):
        parse_answer(cut, "length")
    assert parse_answer('{"proposals": [{"choices": ["1.2"]}]}', "length") == [{"choices": ["1.2"]}]


# ---------------------------------------------------------------- re-asks

def test_each_round_carries_the_previous_errors(session, servers):
    chat = servers("llama-server")
    chat.responder = lambda request: Behaviour(content=json.dumps({"proposals": [
        {"rank": 1, "choices": ["1.99"], "rationale": "r", "score": 1, "estimated_intensity": 1,
         "fusion_groups": []}]}))
    result = fill(session, chat.url, "--rounds", "3")
    assert result.returncode == 0
    prompts = [user_text(r.body) for r in chat.chat_requests]
    assert len(prompts) == len(set(prompts)) == 3
    assert "?1 has no option 99" in prompts[1] and "Round 1:" in prompts[1]
    assert "Round 2:" in prompts[2] and "round 3 of at most 3" in prompts[2]
    assert "Still open (no valid choice yet): ?1" in prompts[2]


def test_all_asks_a_failed_branch_again_with_why(session, servers):
    """With --all, a plan the model could not extend is asked again: the question says why."""
    session("undo", ok=True)
    chat = servers("llama-server")

    def answer(request):
        prompt = user_text(request)
        if "### ?0 " in prompt:
            return Behaviour(content=best_answer(request))
        return Behaviour(content=json.dumps({"proposals": [{"rank": 1, "choices": ["999.1"], "rationale": "r",
                                                            "score": 1, "estimated_intensity": 1,
                                                            "fusion_groups": []}]}))

    chat.responder = answer
    result = session("fill", "?0", "--auto", "llm", "--base-url", chat.url, "--model", "fake", "--iterations", "3",
                     "--rounds", "1", "--budget", "1", "--all")
    assert result.returncode == 0, result.stderr
    prompts = [user_text(r.body) for r in chat.chat_requests]
    assert len(prompts) == 3 and prompts[1] != prompts[2]
    assert "This plan was asked about before" not in prompts[1]
    assert "This plan was asked about before" in prompts[2] and "iteration 2:" in prompts[2]
    assert "999.1" in prompts[2]


# ---------------------------------------------------------------- --top, --pick, --rounds

def test_pick_beyond_top_is_refused_before_asking(session, servers):
    chat = servers("llama-server")
    assert_user_error(fill(session, chat.url, "--top", "2", "--pick", "4"), "--pick 4 is beyond", "--pick 1 to 2")
    assert chat.chat_requests == []


def test_pick_beyond_the_plans_ranked_keeps_the_answer(session, servers, tmp_path):
    chat = servers("llama-server")
    chat.responder = lambda request: Behaviour(content=json.dumps({"proposals": json.loads(
        best_answer(request))["proposals"][:1]}))
    result = fill(session, chat.url, "--top", "9", "--pick", "9")
    assert_user_error(result, "--pick 9", "--replay-llm", "without asking the model again")
    assert "best plans" in result.stderr  # the plans were shown
    recording = next((tmp_path / ".navigator" / "llm").glob("*.jsonl"))
    chat.stop()
    again = session("fill", "?1", "--auto", "llm", *QUICK, "--replay-llm", str(recording), "--top", "9",
                    "--pick", "1")
    assert again.returncode == 0, again.stderr
    assert filled_by(session) == "strategy:llm"


def test_top_after_a_fallback_says_it_was_not_applied(session, servers):
    chat = servers("llama-server")
    chat.responder = lambda request: Behaviour(status=503)
    result = fill(session, chat.url, "--top", "3", "--pick", "2")
    assert result.returncode == 0
    assert "llm: --top 3 --pick 2 not applied" in result.stderr
    assert filled_by(session) == "strategy:heuristic"


@pytest.mark.parametrize("value", ["0", "21", "1.5"])
def test_rounds_has_one_range_for_flag_and_config(session, tmp_path, value):
    result = session("fill", "?1", "--auto", "llm", "--rounds", value)
    assert result.returncode == 2 and "a whole number from 1 to 20" in result.stderr
    config = tmp_path / "config" / "navigator" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[llm]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\nrounds = {value}\n')
    assert_user_error(session("fill", "?1", "--auto", "llm"), "[llm.rounds]")


def test_fill_help_lists_every_strategy(session):
    from navigator.auto import strategy_names

    text = " ".join(session("fill", "--help").stdout.split())
    listed = text.split("let a strategy choose:", 1)[1]
    assert all(name in listed.split("(")[0] for name in strategy_names())
    assert "llm" in strategy_names()


def test_loop_seconds_stop_when_the_search_ends():
    """The time a --top prompt or a TUI dialog then waits is not the loop's."""
    tally = Tally(model_seconds=0.5, simulation_seconds=0.25, started=10.0, ended=12.0)
    assert tally.loop_seconds == 1.25
