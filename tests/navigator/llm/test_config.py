"""resolve_config: flag > environment > config file > default, and every bad configuration."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from navigator.llm.config import LLMConfig, NUMBERS, OPENAI_URL, default_config_path, resolve_config
from navigator.llm.failures import LLMConfigError
from fuseflow.support.errors import UserError
from tests.navigator.llm.conftest import SECRET

LOCAL = "http://127.0.0.1:8000/v1"


def write_config(llm_env, text: str) -> Path:
    path = Path(llm_env["XDG_CONFIG_HOME"]) / "navigator" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_and_sources(llm_env):
    config = resolve_config(base_url=LOCAL, model="m", environ=llm_env)
    assert (config.timeout, config.retries, config.rounds, config.iterations, config.beam, config.structured) == \
        (60.0, 2, 3, 3, 3, "auto")
    assert config.sources == {"base_url": "flag", "model": "flag", "timeout": "default", "retries": "default",
                              "rounds": "default", "iterations": "default", "beam": "default",
                              "structured": "default", "response_format": "default", "max_tokens": "default"}
    assert config.api_key_present and config.url == LOCAL


def test_the_config_never_holds_the_key(llm_env):
    config = resolve_config(model="m", environ=llm_env)
    assert SECRET not in repr(config)
    assert all(SECRET not in repr(getattr(config, f.name)) for f in dataclasses.fields(LLMConfig))
    assert config.base_url is None and config.url == OPENAI_URL  # a key alone means OpenAI itself


def test_precedence_flag_env_file_default(llm_env):
    path = write_config(llm_env, '[llm]\nbase_url = "http://file:1/v1"\nmodel = "file-model"\ntimeout = 7\n'
                                 'retries = 1\nrounds = 5\niterations = 2\nbeam = 4\nstructured = "off"\n'
                                 'max_tokens = 900\n')
    from_file = resolve_config(environ=llm_env)
    assert (from_file.base_url, from_file.model, from_file.timeout, from_file.retries, from_file.rounds,
            from_file.iterations, from_file.beam, from_file.structured) == \
        ("http://file:1/v1", "file-model", 7.0, 1, 5, 2, 4, "off")
    # response_format is not given: the file's structured = "off" says it
    assert from_file.max_tokens == 900 and from_file.format_mode == "plain"
    assert {v for k, v in from_file.sources.items() if k != "response_format"} == {f"config {path}"}

    env = dict(llm_env, OPENAI_BASE_URL="http://env:2/v1", NAVIGATOR_LLM_MODEL="env-model")
    from_env = resolve_config(environ=env)
    assert (from_env.base_url, from_env.model, from_env.timeout) == ("http://env:2/v1", "env-model", 7.0)
    assert from_env.sources["base_url"] == "env OPENAI_BASE_URL"
    assert from_env.sources["model"] == "env NAVIGATOR_LLM_MODEL"

    from_flags = resolve_config(base_url="http://flag:3/v1/", model="flag-model", timeout=0.5, retries=0,
                                rounds=1, iterations=1, beam=1, structured="on", response_format="json_object",
                                max_tokens=512, environ=env)
    assert (from_flags.base_url, from_flags.model, from_flags.timeout, from_flags.retries, from_flags.rounds,
            from_flags.iterations, from_flags.beam, from_flags.structured) == \
        ("http://flag:3/v1", "flag-model", 0.5, 0, 1, 1, 1, "on")
    assert (from_flags.format_mode, from_flags.max_tokens) == ("json_object", 512)
    assert set(from_flags.sources.values()) == {"flag"}


def test_navigator_config_names_another_file(llm_env, tmp_path):
    other = tmp_path / "elsewhere.toml"
    other.write_text('[llm]\nmodel = "other"\nbase_url = "https://example.org/v1"\n', encoding="utf-8")
    config = resolve_config(environ=dict(llm_env, NAVIGATOR_CONFIG=str(other)))
    assert config.model == "other" and config.sources["model"] == f"config {other}"
    assert resolve_config(environ=llm_env, config_path=other).model == "other"


def test_named_config_file_must_exist(llm_env, tmp_path):
    with pytest.raises(LLMConfigError, match="file not found"):
        resolve_config(environ=dict(llm_env, NAVIGATOR_CONFIG=str(tmp_path / "missing.toml")))


def test_default_config_path(tmp_path):
    assert default_config_path({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}) == Path("/x/navigator/config.toml")
    assert default_config_path({"HOME": "/h"}) == Path("/h/.config/navigator/config.toml")
    assert default_config_path({"HOME": "/h", "NAVIGATOR_CONFIG": "/c.toml"}) == Path("/c.toml")


def test_other_tables_of_the_config_file_are_left_alone(llm_env):
    write_config(llm_env, '[tui]\ntheme = "dark"\n[llm]\nmodel = "m"\n')
    assert resolve_config(base_url=LOCAL, environ=llm_env).model == "m"


@pytest.mark.parametrize("environ_change, missing", [
    ({"OPENAI_BASE_URL": LOCAL}, "no model is configured"),
    ({"NAVIGATOR_LLM_MODEL": "m", "OPENAI_API_KEY": ""}, "no endpoint is configured"),
    ({"NAVIGATOR_LLM_MODEL": " ", "OPENAI_API_KEY": ""}, "no model is configured"),
])
def test_nothing_configured_says_how(llm_env, environ_change, missing):
    env = {**llm_env, **environ_change}
    with pytest.raises(LLMConfigError) as caught:
        resolve_config(environ=env)
    text = str(caught.value)
    assert missing in text and "\n" not in text
    for hint in ("NAVIGATOR_LLM_MODEL", "--model", "OPENAI_BASE_URL", "--base-url", "OPENAI_API_KEY",
                 str(default_config_path(env)), "[llm]", 'base_url = "http://127.0.0.1:8000/v1"', 'model = "MODEL"'):
        assert hint in text, hint
    assert isinstance(caught.value, UserError)


@pytest.mark.parametrize("text, fragment", [
    ('[llm]\nmodel = "m"\napi_key = "sk-1"\n', r"line 3 \[llm.api_key\]: keys are read from OPENAI_API_KEY only, never "
                                              "from files"),
    ('[llm]\nmodel = "m"\ntemperature = 0.2\n', r"line 3 \[llm.temperature\]: unknown key 'temperature'"),
    ('[llm]\ntimeout = "fast"\n', r"\[llm.timeout\]: must be a number, got 'fast'"),
    ('[llm]\nretries = -1\n', r"\[llm.retries\]: must not be negative"),
    ('[llm]\ntimeout = -5.0\n', r"\[llm.timeout\]: must not be negative"),
    ('[llm]\nbeam = 2.5\n', r"\[llm.beam\]: must be a whole number"),
    ('[llm]\nbeam = 0\n', r"\[llm.beam\]: must be from 1 to 100"),
    ('[llm]\nrounds = true\n', r"\[llm.rounds\]: must be a number"),
    ('[llm]\ntimeout = nan\n', r"\[llm.timeout\]: must be a number"),
    ('[llm]\nstructured = "yes"\n', r"\[llm.structured\]: must be one of auto, on, off"),
    ('[llm]\nmodel = 3\n', r"\[llm.model\]: must be a non-empty string"),
    ('[llm]\nbase_url = "ftp://host/v1"\n', r"\[llm.base_url\]: 'ftp://host/v1' is not an http or https URL"),
    ('llm = 3\n', r"\[llm\]: must be a table"),
    ('[llm\nmodel = "m"\n', r"TOML syntax error"),
])
def test_bad_config_files(llm_env, text, fragment):
    path = write_config(llm_env, text)
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(base_url=LOCAL, model="m", environ=llm_env)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)
    assert "sk-1" not in str(caught.value)


@pytest.mark.parametrize("url, fragment", [
    ("localhost:8000", "not an http or https URL"),
    ("http://", "names no host"),
    ("http://host:99999/v1", "not a valid URL"),
    ("http://a b/v1", "is not a URL"),
    ("http://user:pw@host/v1", "holds credentials"),
    ("", "is empty"),
])
def test_bad_base_urls(llm_env, url, fragment):
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(base_url=url, model="m", environ=llm_env)
    assert caught.value.where == "--base-url"
    if "pw" in url:
        assert "pw" not in str(caught.value)


def test_bad_base_url_from_the_environment_names_the_variable(llm_env):
    with pytest.raises(LLMConfigError, match=r"^\$OPENAI_BASE_URL: "):
        resolve_config(model="m", environ=dict(llm_env, OPENAI_BASE_URL="not a url"))


@pytest.mark.parametrize("name, value, fragment", [
    ("timeout", 0, "must be from"), ("timeout", float("inf"), "must be a number"), ("retries", 1.5, "whole number"),
    ("iterations", -2, "must not be negative"), ("rounds", 21, "must be from 1 to 20"), ("rounds", 0, "must be from 1 to 20"),
])
def test_bad_flag_numbers(llm_env, name, value, fragment):
    with pytest.raises(LLMConfigError, match=fragment) as caught:
        resolve_config(base_url=LOCAL, model="m", environ=llm_env, **{name: value})
    assert caught.value.where == f"--{name}"


@given(st.sampled_from(sorted(NUMBERS)), st.integers(-10**6, 10**6) | st.floats(allow_nan=True))
def test_a_number_is_accepted_exactly_when_in_range(name, value):
    setting = NUMBERS[name]
    env = {"OPENAI_API_KEY": "k", "HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"}
    ok = value == value and setting.low <= value <= setting.high and (not setting.whole or float(value).is_integer())
    if ok:
        assert getattr(resolve_config(base_url=LOCAL, model="m", environ=env, **{name: value}), name) == value
    else:
        with pytest.raises(LLMConfigError):
            resolve_config(base_url=LOCAL, model="m", environ=env, **{name: value})
