"""Fixtures of the fuzz tests: one fork runner, one corpus and one scratch folder per session,
and a tally of every case run, whose contract findings are summarized at the end."""

from __future__ import annotations

import json

import pytest

from harness.fuzz.harness import Outcome, Tally
from harness.fuzz.runner import ForkRunner, Limits, preload, threads_other_than_main

#: seconds before a case counts as a hang (a valid case takes well under one)
TIMEOUT = 15.0

_tally = Tally()


@pytest.fixture(scope="session")
def fuzz_runner() -> ForkRunner:
    preload()
    assert not threads_other_than_main(), "fork after importing, before any thread starts (harness/fuzz/runner.py)"
    return ForkRunner(Limits(timeout=TIMEOUT))


@pytest.fixture(scope="session")
def fuzz_scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="session")
def fuzz_corpus(fuzz_runner, fuzz_scratch):
    from harness.fuzz.corpus import build_corpus

    return build_corpus(fuzz_runner, fuzz_scratch)


def failure_report(outcome: Outcome) -> str:
    """The assertion message: what failed, and the case to replay (see docs/fuzzing.md)."""
    return "fuzz case failed:\n" + json.dumps(outcome.describe(preview=600), indent=2, ensure_ascii=False)


@pytest.fixture(scope="session")
def record():
    """record(outcome): count it in the session's tally (for the contract summary)."""
    return _tally.add


def pytest_terminal_summary(terminalreporter):
    if not _tally.cases:
        return
    data = _tally.to_json(reproducers=0)
    contract = ", ".join(f"{kind} {count}" for kind, count in data["contract_violations"].items())
    terminalreporter.write_line(f"fuzz: {data['cases']} cases {data['cases_per_class']}, exit codes "
                                f"{data['exit_codes']}; error-message contract findings (not failures): {contract}")
