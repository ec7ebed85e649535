"""What Navigator remembers about a model server between commands: the response format it takes.

`--response-format auto` finds, by asking, which form of `response_format` a server accepts
(llama.cpp's llama-server takes json_schema, llama-cpp-python's server only json_object with a
schema, others neither). Once found, it is written to `$XDG_STATE_HOME/navigator/llm-servers.json`
(else `~/.local/state/navigator/llm-servers.json`), keyed by the base URL and the model, so the
next command starts with the form that worked. The file holds nothing else: no key (the base
URL holds no credentials, config.check_base_url), no prompt. It is a cache: an unreadable
file is ignored and rewritten, a file that cannot be written is not an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from fuseflow.support.errors import UserError
from fuseflow.support.files import write_text_atomic
from fuseflow.support.readers import load_json_file

FILE_NAME = "llm-servers.json"
#: servers remembered at most (the oldest are forgotten)
KEPT = 64
_LIMIT = 256 * 1024


def memory_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME", "").strip()
    if state:
        return Path(state) / "navigator" / FILE_NAME
    home = env.get("HOME", "").strip() or os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "navigator" / FILE_NAME


class FormatMemory:
    """The response format each (base URL, model) took, read and written in `path`."""

    def __init__(self, path: Path | None):
        self.path = path

    @classmethod
    def default(cls, environ: Mapping[str, str] | None = None) -> FormatMemory:
        return cls(memory_path(environ))

    @staticmethod
    def _key(url: str, model: str) -> str:
        return f"{url} {model}"

    def _read(self) -> dict[str, str]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = load_json_file(self.path, UserError, "Navigator's server memory", _LIMIT)
        except UserError:
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            return {}
        return {k: v for k, v in servers.items() if isinstance(k, str) and isinstance(v, str)}

    def form(self, url: str, model: str) -> str | None:
        """The response format this server took last time, if remembered."""
        return self._read().get(self._key(url, model))

    def remember(self, url: str, model: str, form: str) -> None:
        if self.path is None:
            return
        servers = self._read()
        key = self._key(url, model)
        if servers.get(key) == form:
            return
        servers.pop(key, None)
        servers[key] = form
        kept = dict(list(servers.items())[-KEPT:])
        try:
            write_text_atomic(self.path, json.dumps({"version": 1, "servers": kept}, indent=1) + "\n")
        except (UserError, OSError):
            pass  # a cache: the next command finds the form again
