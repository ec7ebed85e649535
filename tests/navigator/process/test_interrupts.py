"""A Ctrl-C that surfaces as another exception (an ImportError from numpy, Python's
"Error calling __set_name__") is still reported as an interruption, not as a bug."""

from __future__ import annotations

import pytest

from navigator.process import interrupts


def _raising(exc: BaseException):
    def run(args):
        raise exc
    return run


def _chained(outer: Exception) -> Exception:
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as inner:
            raise outer from inner
    except Exception as caught:  # noqa: BLE001 - the test builds the chain Python would
        return caught


@pytest.mark.parametrize("outer", [ImportError("numpy failed to import"),
                                   RuntimeError("Error calling __set_name__ on '_Feature' instance")])
def test_an_interrupt_wrapped_by_an_import_is_an_interruption(cli, monkeypatch, outer):
    import navigator.commands.compiler as compiler

    monkeypatch.setattr(compiler, "cmd_check", _raising(_chained(outer)))
    result = cli("check", "gcn")
    assert result.returncode == 130
    assert result.stderr.strip() == "navigator: interrupted"  # and no crash file (tests/conftest.py)


def test_only_interrupts_count():
    plain = RuntimeError("a bug")
    assert not interrupts.was_interrupted(plain)
    assert interrupts.was_interrupted(_chained(ImportError("x")))
    looped = ValueError("a")
    other = ValueError("b")
    looped.__context__, other.__context__ = other, looped  # a cycle in the chain ends the walk
    assert not interrupts.was_interrupted(looped)


def test_a_marked_sigint_makes_any_exception_an_interruption(monkeypatch):
    monkeypatch.setattr(interrupts, "_seen", True)
    assert interrupts.was_interrupted(RuntimeError("whatever came out of the interrupted import"))
