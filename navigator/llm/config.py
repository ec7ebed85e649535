"""Where the language model's endpoint, model and limits come from.

Each setting is taken from the first place that gives it: a command-line flag, then the
environment, then the `[llm]` table of the config file, then the default. The key is read
from OPENAI_API_KEY only (`navigator.llm.failures.api_key`), when a client is built; a config
file that holds one is refused, so a key never ends up in a file Navigator reads or writes.

    [llm]
    base_url = "http://127.0.0.1:8000/v1"
    model = "Qwen/Qwen2.5-7B-Instruct"
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from fuseflow.support.errors import show_value
from fuseflow.support.files import read_user_text
from fuseflow.support.readers import parse_toml_text
from fuseflow.support.toml_lines import KeyLines
from navigator.llm.failures import KEY_ENV, LLMConfigError, api_key

BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "NAVIGATOR_LLM_MODEL"
RESPONSE_FORMAT_ENV = "NAVIGATOR_LLM_RESPONSE_FORMAT"
MAX_TOKENS_ENV = "NAVIGATOR_LLM_MAX_TOKENS"
CONFIG_ENV = "NAVIGATOR_CONFIG"
#: where the openai client goes when no base URL is configured (a key alone means OpenAI itself)
OPENAI_URL = "https://api.openai.com/v1"
STRUCTURED_MODES = ("auto", "on", "off")
#: how the answer's schema is sent (navigator.llm.transport): `auto` tries json_schema, then
#: json_object with the schema, then plain text, and remembers what the server took
RESPONSE_FORMATS = ("auto", "json_schema", "json_object", "plain")
#: the older `structured` key, as a response format ("schema": json_schema or json_object, never plain)
STRUCTURED_AS_FORMAT = {"auto": "auto", "on": "schema", "off": "plain"}
_WHAT = "a navigator config file"
#: config files are a few lines; anything bigger is not one
_CONFIG_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class Setting:
    """One tunable number: its default and the range a value must fall in."""
    default: float | int | None
    low: float
    high: float
    whole: bool
    meaning: str


#: numbers a user may set; the ranges catch typos (a timeout of 6000 s, a beam of 1000)
NUMBERS: dict[str, Setting] = {
    "timeout": Setting(60.0, 0.001, 3600, False, "seconds per request"),
    "retries": Setting(2, 0, 20, True, "transport retries on 429, 5xx and timeouts"),
    "rounds": Setting(3, 1, 20, True, "questions asked per hole set, re-asks after an invalid answer included"),
    "iterations": Setting(3, 1, 100, True, "search iterations"),
    "beam": Setting(3, 1, 100, True, "proposals kept"),
    # None: sized from the question's schema (navigator.llm.answer_budget.answer_tokens)
    "max_tokens": Setting(None, 16, 131072, True, "tokens an answer may take"),
}
FILE_KEYS = ("base_url", "model", *NUMBERS, "structured", "response_format")
#: the settings the environment may give, besides the key
ENVIRONMENT = {"base_url": BASE_URL_ENV, "model": MODEL_ENV, "response_format": RESPONSE_FORMAT_ENV,
               "max_tokens": MAX_TOKENS_ENV}


@dataclass(frozen=True)
class LLMConfig:
    """Everything needed to ask a model, except the key (see `navigator.llm.failures.api_key`)."""
    base_url: str | None
    model: str
    timeout: float = 60.0
    retries: int = 2
    rounds: int = 3
    iterations: int = 3
    beam: int = 3
    structured: str = "auto"
    #: auto, json_schema, json_object or plain; None: as `structured` says (STRUCTURED_AS_FORMAT)
    response_format: str | None = None
    #: the answer's token limit; None: sized from each question's schema
    max_tokens: int | None = None
    #: where each value came from: "flag", "env NAME", "config PATH" or "default"
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    api_key_present: bool = False

    @property
    def url(self) -> str:
        """The endpoint requests go to: the base URL, or OpenAI's when only a key is set."""
        return self.base_url or OPENAI_URL

    @property
    def format_mode(self) -> str:
        """The response format asked for: RESPONSE_FORMATS, or "schema" (structured = "on")."""
        return self.response_format or STRUCTURED_AS_FORMAT[self.structured]


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """$NAVIGATOR_CONFIG, else $XDG_CONFIG_HOME/navigator/config.toml, else ~/.config/navigator/config.toml."""
    env = os.environ if environ is None else environ
    named = env.get(CONFIG_ENV, "").strip()
    if named:
        return Path(named)
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    home = env.get("HOME", "").strip() or os.path.expanduser("~")
    base = Path(xdg) if xdg else Path(home) / ".config"
    return base / "navigator" / "config.toml"


def how_to_configure(config_path: Path) -> str:
    """The fix for a missing configuration: every way to give the endpoint and the model."""
    return (f"set {MODEL_ENV}=MODEL or give --model MODEL; set {BASE_URL_ENV}=URL or give --base-url URL for a "
            f"local server such as vLLM, a llama.cpp server or ollama, or set {KEY_ENV} for {OPENAI_URL}; "
            f"or write in {config_path} the 3 lines: [llm] / base_url = \"http://127.0.0.1:8000/v1\" / "
            f"model = \"MODEL\"; see docs/llm.md")


def resolve_config(*, base_url: str | None = None, model: str | None = None, timeout: float | None = None,
                   retries: int | None = None, rounds: int | None = None, iterations: int | None = None,
                   beam: int | None = None, structured: str | None = None, response_format: str | None = None,
                   max_tokens: int | None = None, environ: Mapping[str, str] | None = None, config_path: str | os.PathLike | None = None
                   ) -> LLMConfig:
    """The configuration from flags (the keyword arguments), environment, config file and defaults.

    `config_path` (or $NAVIGATOR_CONFIG) names a file that must exist; the default location
    may be missing. Raises LLMConfigError when no model is set, or neither a base URL nor a key.
    """
    env = os.environ if environ is None else environ
    explicit = config_path is not None or bool(env.get(CONFIG_ENV, "").strip())
    path = Path(config_path) if config_path is not None else default_config_path(env)
    from_file = read_config_file(path, required=explicit)
    file_source = f"config {path}"

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    flags = {"base_url": base_url, "model": model, "timeout": timeout, "retries": retries, "rounds": rounds,
             "iterations": iterations, "beam": beam, "structured": structured, "response_format": response_format,
             "max_tokens": max_tokens}
    for name, flag in flags.items():
        env_name = ENVIRONMENT.get(name)
        env_value = env.get(env_name, "").strip() if env_name else ""
        if flag is not None:
            values[name], sources[name] = _checked_flag(name, flag), "flag"
        elif env_value:
            values[name], sources[name] = _checked_text(name, env_value, "$" + env_name), f"env {env_name}"
        elif name in from_file:
            values[name], sources[name] = from_file[name], file_source
        else:
            values[name] = NUMBERS[name].default if name in NUMBERS else ("auto" if name == "structured" else None)
            sources[name] = "default"

    if values["base_url"] is not None:
        values["base_url"] = check_base_url(values["base_url"], _where(sources["base_url"], "base_url"))
    key_present = api_key(env) is not None
    if not values["model"] or (values["base_url"] is None and not key_present):
        missing = "no model is configured" if not values["model"] else \
            f"no endpoint is configured (neither a base URL nor {KEY_ENV})"
        raise LLMConfigError(missing, where="--auto llm", fix=how_to_configure(path))
    return LLMConfig(**values, sources=sources, api_key_present=key_present)


def _where(source: str, name: str) -> str:
    if source == "flag":
        return "--" + name.replace("_", "-")
    if source.startswith("env "):
        return "$" + source[4:]
    return f"{source[len('config '):]} [llm.{name}]"


def _checked_flag(name: str, value: Any) -> Any:
    where = "--" + name.replace("_", "-")
    if name in NUMBERS:
        return check_number(name, value, where)
    if name == "structured":
        return check_structured(value, where)
    if name == "response_format":
        return check_response_format(value, where)
    text = str(value).strip()
    if not text:
        raise LLMConfigError("is empty", where=where, fix=f"give a {name.replace('_', ' ')}, or leave the flag out")
    return text


def _checked_text(name: str, text: str, where: str) -> Any:
    """A setting given as text (the environment, a flag before argparse converts it)."""
    if name in NUMBERS:
        try:
            value: Any = int(text) if NUMBERS[name].whole and re.fullmatch(r"[+-]?[0-9]{1,12}", text) else float(text)
        except ValueError:
            value = text
        return check_number(name, value, where)
    if name == "response_format":
        return check_response_format(text, where)
    return text


def number_range(name: str) -> str:
    """`a whole number from 1 to 20`: the one range of a number setting, for every message."""
    setting = NUMBERS[name]
    return f"{'a whole number' if setting.whole else 'a number'} from {setting.low:g} to {setting.high:g}"


def flag_type(name: str):
    """An argparse type for the number setting `name`: the same rule as the environment and the
    config file (check_number), refused with its range."""
    import argparse

    def parse(text: str):
        try:
            return _checked_text(name, text.strip(), "")
        except LLMConfigError:
            raise argparse.ArgumentTypeError(f"expected {number_range(name)} ({NUMBERS[name].meaning}), "
                                             f"not {text[:40]!r}") from None

    parse.__name__ = name  # argparse names the type in its messages
    return parse


def check_number(name: str, value: Any, where: str) -> float | int:
    """A number setting within its range; bools, NaN and fractions for whole numbers are refused."""
    setting = NUMBERS[name]
    example = f"e.g. {name} = {setting.default if setting.default is not None else int(setting.low) * 64} " \
              f"({setting.meaning})"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LLMConfigError(f"must be a number, got {show_value(value)}", where=where, fix=example)
    if setting.whole and not float(value).is_integer():
        raise LLMConfigError(f"must be a whole number, got {show_value(value)}", where=where, fix=example)
    if value < 0:
        raise LLMConfigError(f"must not be negative, got {show_value(value)}", where=where, fix=example)
    if not setting.low <= value <= setting.high:
        raise LLMConfigError(f"must be from {setting.low:g} to {setting.high:g}, got {show_value(value)}",
                             where=where, fix=example)
    return int(value) if setting.whole else float(value)


def check_response_format(value: Any, where: str) -> str:
    if value not in RESPONSE_FORMATS:
        raise LLMConfigError(f"must be one of {', '.join(RESPONSE_FORMATS)}, got {show_value(value)}", where=where,
                             fix="auto tries json_schema, then json_object with the schema, then plain text, and "
                                 "remembers what the server took (docs/llm.md)")
    return value


def check_structured(value: Any, where: str) -> str:
    if value not in STRUCTURED_MODES:
        raise LLMConfigError(f"must be one of {', '.join(STRUCTURED_MODES)}, got {show_value(value)}", where=where,
                             fix="auto asks for a JSON-schema answer and stops once the server refuses it")
    return value


#: characters of a base URL at most (a real one is a few dozen; httpx's own bound is 65,536)
URL_CHARACTERS = 2048
_URL_FIX = "give the server's OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"


def check_base_url(url: str, where: str) -> str:
    """An http(s) URL the HTTP client accepts, with a host and no credentials, without a
    trailing slash. The client's own URL parser (httpx's, or httpx2's for the openai versions
    built on it) reads it here, so what passes here is what the client will send to; its host
    must also pass the IDNA encoding the socket applies (no empty label, none over 63 characters)."""
    text = url.strip()

    def fail(problem: str, fix: str = _URL_FIX) -> NoReturn:
        raise LLMConfigError(problem, where=where, fix=fix)

    shown = show_value(url)
    if not text:
        fail(f"{shown} is not a URL")
    if len(text) > URL_CHARACTERS:
        fail(f"is {len(text):,} characters long, more than the {URL_CHARACTERS:,} a base URL may have")
    bad = next((c for c in text if c.isspace() or not c.isprintable()), None)
    if bad is not None:
        kind = "a space" if bad.isspace() else "a control or format character"
        fail(f"{shown} is not a URL: it holds {kind} ({show_value(bad)})")
    try:
        parts = urlsplit(text)
        parts.port  # raises ValueError for a port that is not a number in range
    except ValueError as exc:
        fail(f"{shown} is not a valid URL ({exc})")
    if parts.scheme not in ("http", "https"):
        fail(f"{shown} is not an http or https URL")
    if not parts.hostname:
        fail(f"{shown} names no host")
    if parts.username is not None or parts.password is not None:
        # the URL is recorded and shown in messages; a secret in it would leak
        fail("the URL holds credentials (user:password@)", f"remove them from the URL and set {KEY_ENV} instead")
    http = _http_client_module()
    try:
        parsed = http.URL(text)
    except (http.InvalidURL, ValueError, UnicodeError) as exc:
        fail(f"{shown} is refused by the HTTP client ({show_value(str(exc), 120)})")
    host = parsed.raw_host.decode("ascii", "replace")
    if ":" not in host:  # an IPv6 literal needs no DNS
        try:
            host.encode("idna")
        except UnicodeError:
            fail(f"{shown} names the host {show_value(host)}, which is not a DNS name (a label is empty or "
                 "longer than 63 characters)")
    return text.rstrip("/")


def _http_client_module():
    """The module the openai client sends requests with: httpx2 for the versions built on it, else httpx."""
    try:
        import httpx2 as http
    except ImportError:
        import httpx as http
    return http


def _missing(path: Path) -> bool:
    """Only "no such file" makes the default config file optional: a looping link, a folder
    that cannot be searched, a path component that is a file are read, and refused by name."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return False


def read_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The checked `[llm]` table of the config file; {} when the file is missing and not `required`."""
    if not required and _missing(path):
        return {}
    where = str(path)
    text = read_user_text(path, LLMConfigError, _WHAT, _CONFIG_LIMIT)
    data = parse_toml_text(text, where, LLMConfigError, _WHAT)
    lines = KeyLines(text)

    def fail(key: str | None, message: str, fix: str) -> NoReturn:
        label = "[llm]" if key is None else f"[llm.{key if re.fullmatch(r'[A-Za-z0-9_-]{1,40}', key) else show_value(key)}]"
        line = lines.line("llm", key) if key is not None else lines.line("llm")
        at = f" line {line}" if line else ""
        raise LLMConfigError(message, where=f"{where}{at} {label}", fix=fix)

    table = data.get("llm", {})
    if not isinstance(table, dict):
        fail(None, f"must be a table, got {show_value(table)}", "write [llm] on a line, then key = value lines")
    checked: dict[str, Any] = {}
    for key, value in table.items():
        if key.lower().replace("-", "_") in ("api_key", "key", "openai_api_key", "token"):
            fail(key, "keys are read from OPENAI_API_KEY only, never from files",
                 f"remove this line and set {KEY_ENV} in the environment")
        if key not in FILE_KEYS:
            fail(key, f"unknown key {show_value(key)}", f"expected one of: {', '.join(FILE_KEYS)}")
        if key in NUMBERS:
            try:
                checked[key] = check_number(key, value, "")
            except LLMConfigError as exc:
                fail(key, exc.bare_message, exc.fix or "")
        elif key in ("structured", "response_format"):
            try:
                checked[key] = (check_structured if key == "structured" else check_response_format)(value, "")
            except LLMConfigError as exc:
                fail(key, exc.bare_message, exc.fix or "")
            if "structured" in checked and "response_format" in checked:
                fail(key, "give response_format or structured (its older form), not both",
                     'keep response_format = "auto" (or json_schema, json_object, plain)')
        elif not isinstance(value, str) or not value.strip():
            fail(key, f"must be a non-empty string, got {show_value(value)}",
                 f'e.g. {key} = "{"http://127.0.0.1:8000/v1" if key == "base_url" else "MODEL"}"')
        elif key == "base_url":
            try:
                checked[key] = check_base_url(value, "")
            except LLMConfigError as exc:
                fail(key, exc.bare_message, exc.fix or "")
        else:
            checked[key] = value.strip()
    return checked
