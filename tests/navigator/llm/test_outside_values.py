"""Every value from a model, a server, a recording or the environment is data: bounded, checked
once where it enters, and never able to carry the key out (issue 21).

The fill tests run `navigator fill --auto llm` against the real HTTP server on 127.0.0.1
(harness/llm_server.py) and then look for the key, in every form it could take, in stderr and
in every file left behind.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

from harness.fake_model import best_answer, user_text
from harness.llm_server import Behaviour, completion_body, error_body
from navigator.llm import answer as answer_module
from navigator.llm.answer import ANSWER_CHARACTERS, AnswerError, parse_answer, validate
from navigator.llm.config import resolve_config
from navigator.llm.failures import LLMConfigError
from navigator.llm.recording import RecordingError, load_recording
from navigator.llm.transport import OpenAIChat
from navigator.process.foreign_text import UNSAFE_PLANES, clean_text, unsafe_characters
from navigator.process.secrets import hide, scrub, secret_forms
from tests.cli import assert_user_error
from tests.navigator.llm.conftest import SECRET, files_holding

QUICK = ("--model", "fake", "--iterations", "1", "--budget", "1")
#: a key a server may echo back escaped: JSON, Python, URLs and shells each write it differently
ODD_KEY = 'sk-test/SECRET+12"34\\ab=cd'


@pytest.fixture
def gcn(cli, monkeypatch, tmp_path):
    """A gcn session at its fusion hole ?1, with no user config; the key is each test's own."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("OPENAI_BASE_URL", "NAVIGATOR_LLM_MODEL", "NAVIGATOR_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    cli("start", "gcn", ok=True)
    cli("fill", "?0", "1", ok=True)
    return cli


@pytest.fixture
def model(llm_server):
    llm_server.responder = lambda request: Behaviour(content=best_answer(request))
    return llm_server


def fill(cli, url: str, *extra: str):
    return cli("fill", "?1", "--auto", "llm", "--base-url", url, *QUICK, *extra)


def steps(cli) -> list[dict]:
    return json.loads(cli("history", "--json", ok=True).stdout)["steps"]


def assert_key_nowhere(key: str, root: Path, *texts: str) -> None:
    """No form of `key` (as is, escaped any way, or its pieces) in `texts` or any file under `root`."""
    for form in secret_forms(key):
        assert not any(form in text for text in texts), form
        assert files_holding(root, form) == [], form


# ---- the key


@pytest.mark.parametrize("key, kind", [
    (SECRET + "\nX", "a line break"),
    (SECRET + "\u00e9", "not ASCII"),
], ids=["line-break", "non-ascii"])
def test_a_key_no_header_can_carry_is_refused_up_front(gcn, model, monkeypatch, tmp_path, key, kind):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    result = fill(gcn, model.url)
    assert_user_error(result, "OPENAI_API_KEY", kind)
    assert model.chat_requests == []  # refused before any request
    assert_key_nowhere(key, tmp_path, result.stderr, result.stdout)


@pytest.mark.parametrize("shown", [
    lambda key: f"Illegal header value {('Bearer ' + key).encode()!r}",       # the HTTP client's error
    lambda key: json.dumps({"error": f"bad key {key}"}),                      # JSON-escaped
    lambda key: repr(key),                                                    # a Python repr
    lambda key: "https://x/?key=" + __import__("urllib.parse").parse.quote(key, safe=""),  # percent-encoded
    lambda key: " / ".join(key.split("\n")),                                  # cut at the line break
    lambda key: key.replace("\n", "\\n"),                                     # escaped for one terminal line
], ids=["bytes-repr", "json", "repr", "percent", "pieces", "one-line"])
def test_every_escaped_form_of_the_key_is_hidden(shown):
    key = ODD_KEY + "\nXYZW1"
    hide(key)
    text = scrub("before " + shown(key) + " after")
    assert text.startswith("before ") and text.endswith(" after") and "***" in text
    for piece in ("SECRET", "XYZW1", "12\\\"34", "ab=cd", "ab%3Dcd"):
        assert piece not in text, (piece, text)


def test_an_echoed_key_in_any_form_reaches_no_file_and_no_line(gcn, model, monkeypatch, tmp_path):
    """The server echoes the key percent-encoded, JSON-escaped and repr'd in an error (the
    fallback's reason is stored in the session), then the model writes it in its rationale with
    JSON escapes: stderr, the session and the recordings hide it in every form."""
    from urllib.parse import quote

    monkeypatch.setenv("OPENAI_API_KEY", ODD_KEY)
    model.script([Behaviour(status=500, body=error_body(f"bad {quote(ODD_KEY)} {json.dumps(ODD_KEY)} {ODD_KEY!r}"))])
    fell_back = fill(gcn, model.url, "--retries", "0")
    assert fell_back.returncode == 0 and "the heuristic filled the scope instead" in fell_back.stderr
    assert "bad " in steps(gcn)[1]["figures"]["compared"]["fallback_reason"]
    gcn("undo", ok=True)
    escaped = "".join(f"\\u{ord(c):04x}" for c in ODD_KEY)  # decodes to the key itself
    model.responder = lambda request: Behaviour(content=best_answer(request).replace(
        '"the best hinted option at every hole"', f'"my key is {escaped}"'))
    shown = fill(gcn, model.url, "--verbose", "--top", "3", "--pick", "1")
    assert shown.returncode == 0, shown.stderr
    assert "my key is ***" in shown.stderr
    assert_key_nowhere(ODD_KEY, tmp_path, fell_back.stderr, shown.stderr, shown.stdout)


def test_a_crash_file_and_its_line_hide_the_key(tmp_path, monkeypatch, capsys):
    from navigator.process.crash import report_bug

    monkeypatch.setenv("NAVIGATOR_CRASH_DIR", str(tmp_path / "crashes"))
    key = SECRET + "-crash\nX1234"
    hide(key)
    try:
        raise ValueError(f"Illegal header value {('Bearer ' + key).encode()!r} / {key}")
    except ValueError as exc:
        assert report_bug(exc, ["fill", "?1"]) == 1
    line = capsys.readouterr().err
    assert "crash" in line and list((tmp_path / "crashes").iterdir())
    assert_key_nowhere(key, tmp_path, line)


# ---- base URLs


@pytest.mark.parametrize("url, fragment", [
    ("http://\U0001f4a9.example/v1", "refused by the HTTP client"),
    ("http://" + "a" * 64 + ".example/v1", "not a DNS name"),
    ("http://a..example/v1", "not a DNS name"),
    ("http://127.0.0.1:8000/v1\x01", "control or format character"),
    ("http://127.0.0.1:8000/v1\u202e", "control or format character"),
    ("http://127.0.0.1:8000/" + "p" * 100_000, "more than the 2,048"),
], ids=["non-ascii-host", "long-label", "empty-label", "control", "bidi", "100kb-path"])
def test_base_urls_the_http_client_refuses_are_refused_up_front(llm_env, tmp_path, url, fragment):
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(base_url=url, model="m", environ=llm_env)
    assert str(caught.value).startswith("--base-url: ") and "\n" not in str(caught.value)
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(model="m", environ={**llm_env, "OPENAI_BASE_URL": url})
    assert str(caught.value).startswith("$OPENAI_BASE_URL: ")
    config = tmp_path / "config.toml"
    config.write_text("[llm]\nmodel = 'm'\nbase_url = " + json.dumps(url, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(environ=llm_env, config_path=config)
    assert f"{config} line 3 [llm.base_url]" in str(caught.value)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "https://b\u00fccher.example/v1", "http://[::1]:80/v1",
                                 "http://localhost/a%20b/v1", "http://host.example./v1"])
def test_an_accepted_base_url_is_one_the_client_sends_to(llm_env, url):
    config = resolve_config(base_url=url, model="m", environ=llm_env)
    client = OpenAIChat.from_config(config, llm_env)
    try:
        request = client._client._client.build_request("POST", config.url + "/chat/completions")
        request.url.raw_host.decode("ascii").encode("idna")
    finally:
        client.close()


# ---- answers


def _proposal_with(field: str, raw_value: str) -> str:
    return ('{"proposals": [{"rank": 1, "choices": ["1.1"], "rationale": "r", "' + field + '": ' + raw_value
            + ', "estimated_intensity": 1, "fusion_groups": []}]}')


@pytest.mark.parametrize("bad, said", [
    ('{"proposals": ' + "[" * 10_000 + "]" * 10_000 + "}", "nests arrays or tables more than 64 levels"),
    (_proposal_with("score", "NaN"), "holds NaN"),
    (_proposal_with("score", "1e400"), "holds 1e400"),
    ("{" * 500_000, "not JSON"),
    ("x" * (ANSWER_CHARACTERS + 1), "more than the 500,000"),
], ids=["nested-10000", "nan", "1e400", "500kb-of-braces", "over-the-cap"])
def test_an_unreadable_answer_is_asked_again_with_the_reason(gcn, model, tmp_path, bad, said):
    model.script([Behaviour(content=bad, beyond_max_tokens=True)])  # a server that ignores max_tokens
    result = fill(gcn, model.url, "--verbose")
    assert result.returncode == 0, result.stderr
    assert said in user_text(model.chat_requests[1].body)
    assert f"llm: {model.url}, question 1, round 1: " in result.stderr  # the server and the round
    recording = next((tmp_path / ".navigator" / "llm").glob("*.jsonl"))
    exchanges = load_recording(recording)  # it was written, and reads back
    assert exchanges[0]["errors"] and said in exchanges[0]["errors"][0]
    assert steps(gcn)[1]["by"] == "strategy:llm"


def test_a_400_digit_score_is_no_number(gcn, model, tmp_path):
    model.script([Behaviour(content=_proposal_with("score", "9" * 400))])
    result = fill(gcn, model.url)
    assert result.returncode == 0, result.stderr
    exchange = load_recording(next((tmp_path / ".navigator" / "llm").glob("*.jsonl")))[0]
    assert exchange["parsed"][0]["score"] is None and exchange["parsed"][0]["choices"] == ["1.1"]


@pytest.mark.parametrize("text", [
    "{" * 200_000,
    "[{" * 100_000,
    "{}" * 100_000 + '{"proposals": [{"choices": ["3.1"]}]}',
    '{"choices": 1}' * 20_000,
    'He said "{" ' * 10_000 + '{"proposals": [{"choices": ["3.1"]}]}',
    '{"a": "' + "\\\"{[" * 50_000 + '"} {"choices": ["3.1"]}',
], ids=["braces", "brackets", "pairs", "names", "quotes", "escapes"])
def test_the_parser_decodes_a_bounded_number_of_characters(monkeypatch, text):
    """Linear time without a clock: what the bounded reader is given adds up to at most twice
    the answer (the whole text once, then disjoint spans of it), in at most CANDIDATES tries."""
    given: list[int] = []
    real = answer_module.parse_json_text

    def counting(part, *args, **kwargs):
        given.append(len(part))
        return real(part, *args, **kwargs)

    monkeypatch.setattr(answer_module, "parse_json_text", counting)
    try:
        parse_answer(text)
    except AnswerError:
        pass
    assert len(given) <= answer_module.CANDIDATES and sum(given) <= 2 * len(text.strip())


# ---- the text a model writes


BIDI = "\u202e\u2066\u200f\u061c\u200b\ufeff\U000e0001"


def test_bidi_and_format_characters_never_reach_a_line_or_a_session(gcn, model, tmp_path):
    rationale = f"safe{BIDI}\x85 txt\u2028end"
    model.responder = lambda request: Behaviour(content=json.dumps({"proposals": [
        {**p, "rationale": rationale} for p in json.loads(best_answer(request))["proposals"]]}))
    result = fill(gcn, model.url, "--top", "2", "--pick", "1")
    assert result.returncode == 0, result.stderr
    step = steps(gcn)[1]
    shown = gcn("history", ok=True).stdout
    session = (tmp_path / ".navigator" / "session.json").read_text(encoding="utf-8")
    for text in (result.stderr, step["rationale"], shown, session):
        assert not any(c in text for c in BIDI + "\x85\u2028"), text[:200]
    if step["by"] == "strategy:llm":
        assert "safe txt end" in step["rationale"]
    recording = next((tmp_path / ".navigator" / "llm").glob("*.jsonl"))
    raw = recording.read_text(encoding="utf-8")
    assert not any(c in raw for c in BIDI)  # written as \u escapes ...
    said = json.loads(load_recording(recording)[0]["reply"]["text"])  # ... and read back exactly
    assert said["proposals"][0]["rationale"] == rationale


def test_clean_text_is_the_one_sanitizer():
    assert clean_text(f"a{BIDI}b\x1b[31mc\ud800d", 100) == "a b [31mc d"
    assert answer_module.clean_text is clean_text
    offered = {"3.1": (3, "a")}
    checked = validate(parse_answer(json.dumps({"proposals": [{"choices": ["3.1"], "rationale": f"x{BIDI}y",
                                                               "fusion_groups": [{"ops": [f"o{BIDI}p"],
                                                                                  "order": "i\u202ej"}]}]})),
                       offered, (3,))
    proposal = checked.proposals[0]
    assert (proposal.rationale, proposal.fusion_groups) == ("x y", ({"ops": ["o p"], "order": "i j"},))


def test_the_unsafe_planes_hold_every_unsafe_character():
    """UNSAFE_PLANES covers every code point of the unsafe categories in this Python's tables."""
    every = unsafe_characters(tuple(range(17)))
    assert every.pattern == unsafe_characters(UNSAFE_PLANES).pattern
    assert unicodedata.category("\u202e") == "Cf" and every.fullmatch("\u202e")


# ---- recordings


def _recording(tmp_path: Path, **reply_fields) -> Path:
    line = {"version": 1, "index": 1, "messages_sha256": "ab", "messages": [{"role": "user", "content": "q"}],
            "reply": {"text": "t", "finish_reason": "stop", "usage": None, "seconds": 0.1, "attempts": 1,
                      **reply_fields}, "error": None}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fields, named", [
    ({"usage": {"prompt_tokens": "many"}}, "reply.usage.prompt_tokens must be a whole number"),
    ({"usage": {"prompt_tokens": -1}}, "reply.usage.prompt_tokens must be a whole number"),
    ({"usage": {"prompt_tokens": 10**13}}, "reply.usage.prompt_tokens must be a whole number"),
    ({"usage": {"cost": 1}}, "reply.usage holds 'cost'"),
    ({"attempts": 1.5}, "reply.attempts must be a whole number"),
    ({"seconds": 1e300}, "reply.seconds must be"),
    ({"finish_reason": 7}, "reply.finish_reason must be text"),
], ids=["usage-text", "usage-negative", "usage-huge", "usage-unknown", "attempts", "seconds", "finish"])
def test_a_recording_is_checked_field_by_field_at_load(tmp_path, fields, named):
    path = _recording(tmp_path, **fields)
    with pytest.raises(RecordingError, match=re.escape(named)) as caught:
        load_recording(path)
    assert str(caught.value).startswith(f"{path} line 1 (exchange 1): ")


@pytest.mark.parametrize("field, value, named", [
    ("model", "fake\u202e", "model holds a control or format character"),
    ("index", 0, "index must be a whole number from 1"),
    ("structured", "yes", "structured must be true, false or null"),
    ("messages", [{"role": 1}], "messages[1].role must be text"),
    ("errors", [1], "errors must be a list of texts"),
], ids=["model-bidi", "index", "structured", "messages", "errors"])
def test_a_recording_is_checked_field_by_field_beside_the_reply(tmp_path, field, value, named):
    path = _recording(tmp_path)
    line = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**line, field: value}) + "\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=re.escape(named)):
        load_recording(path)


def test_replaying_a_recording_whose_usage_is_not_a_number_stops_at_once(gcn, tmp_path):
    path = _recording(tmp_path, usage={"prompt_tokens": "x"})
    result = gcn("fill", "?1", "--auto", "llm", *QUICK, "--replay-llm", str(path))
    assert_user_error(result, str(path), "line 1", "reply.usage.prompt_tokens")


# ---- --verbose


def test_verbose_shows_an_answer_without_content(gcn, model):
    model.script([Behaviour(content=None)])
    result = fill(gcn, model.url, "--verbose")
    assert result.returncode == 0, result.stderr
    assert f"llm: {model.url}, question 1, round 1: the answer has no content" in result.stderr


def test_a_raw_body_reaches_the_client_as_sent(llm_server, llm_env):
    """The test server serves any body: here a chat completion whose usage holds NaN, which the
    bounded reader refuses, so the server is unavailable rather than the recording broken."""
    from navigator.llm.transport import LLMUnavailable

    llm_server.script([Behaviour(raw=completion_body("{}", usage='{"prompt_tokens": NaN}'),
                                 content_type="application/json")])
    config = resolve_config(base_url=llm_server.url, model="m", environ=llm_env, retries=0)
    with pytest.raises(LLMUnavailable, match="not JSON"):
        OpenAIChat.from_config(config, llm_env).complete([{"role": "user", "content": "q"}])
