"""The default config file may be missing, and only missing (issue 21): a looping symbolic
link, or a path through a file, is an error naming the file and the fix, never "no config"."""

from __future__ import annotations

import pytest

from navigator.llm.config import read_config_file
from navigator.llm.failures import LLMConfigError


def test_a_looping_link_as_the_config_file_is_an_error_not_a_missing_file(tmp_path):
    config = tmp_path / "navigator" / "config.toml"
    config.parent.mkdir()
    config.symlink_to(config)  # before: path.exists() said False, and the file was silently ignored
    with pytest.raises(LLMConfigError, match="too many levels of symbolic links") as exc:
        read_config_file(config, required=False)
    assert exc.value.where == str(config) and exc.value.fix
    in_the_way = tmp_path / "file"
    in_the_way.write_text("")
    with pytest.raises(LLMConfigError, match="a part of the path is a file"):
        read_config_file(in_the_way / "config.toml", required=False)
    assert read_config_file(tmp_path / "none" / "config.toml", required=False) == {}  # ENOENT: missing
