"""fuseflow.support.memory: allocations sized by user input are checked against a limit first."""

from __future__ import annotations

import pytest

from fuseflow.support import memory
from fuseflow.support.errors import UserError
from fuseflow.support.memory import ResourceError, check_memory, max_memory, parse_size, set_max_memory


@pytest.mark.parametrize("text, value", [("512M", 512 << 20), ("4G", 4 << 30), ("1.5GiB", 3 << 29),
                                         ("2g", 2 << 30), ("1048576", 1 << 20), ("3 TB", 3 << 40)])
def test_sizes(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "lots", "-1G", "4X", "10", "1.2.3G", "4Gi"])
def test_bad_sizes_name_the_option_and_the_fix(text):
    with pytest.raises(UserError) as exc:
        parse_size(text)
    assert exc.value.where == "--max-memory" and exc.value.fix


def test_the_limit_comes_from_the_option_then_the_environment_then_the_machine(monkeypatch):
    monkeypatch.delenv(memory.MAX_MEMORY_ENV, raising=False)
    monkeypatch.setattr(memory, "available_memory", lambda: 8 << 30)
    assert max_memory() == (4 << 30, "half the memory available now")
    monkeypatch.setenv(memory.MAX_MEMORY_ENV, "2G")
    assert max_memory() == (2 << 30, "$NAVIGATOR_MAX_MEMORY")
    set_max_memory(1 << 30)
    try:
        assert max_memory() == (1 << 30, "--max-memory")
    finally:
        set_max_memory(None)


def test_an_estimate_over_the_limit_is_refused_with_the_sizes(monkeypatch):
    monkeypatch.setenv(memory.MAX_MEMORY_ENV, "1G")
    check_memory(512 << 20, "a dense tensor")
    with pytest.raises(ResourceError) as exc:
        check_memory(19.2 * (1 << 50), "the dense tensor B (N x J)", where="--dim J", fix="use a smaller --dim J")
    text = str(exc.value)
    assert text.startswith("--dim J: the dense tensor B (N x J) would need about 19.2 PiB, more than the 1.0 GiB")
    assert "use a smaller --dim J, or raise the limit with --max-memory" in text


def test_the_command_line_option(cli):
    from tests.cli import assert_user_error

    assert_user_error(cli("check", "spmm", "--max-memory", "lots"), "--max-memory: cannot read the size 'lots'")
    assert cli("check", "spmm", "--max-memory", "2G").returncode == 0
    assert memory._limit is None  # the option does not outlive the command
