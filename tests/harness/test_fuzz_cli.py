"""The fuzz harness under pytest: the issues' known hostile inputs, then a bounded number of
mutated inputs per class (programs, schedules, sessions, data files, libraries; and issue 21's
TUI, model answers and transport faults, caches, recordings and kills, fewer of each: they are slower).

Every case runs `navigator` in a forked child and must: exit 0, 1 or 2; print no traceback
and no internal error; leave no crash file; finish before the timeout; stay under the
memory limit; change no file but the outputs its command line names; and on exit 2 end
stderr with one "navigator: error:" line. benchmarks/fuzz.py runs the same cases longer.

Hypothesis drives the mutations through `st.randoms()`, derandomized and without a
database, so every run makes the same cases; shrinking is off (set NAVIGATOR_FUZZ_SHRINK=1
to turn it on while debugging), because the assertion message already holds the case.
NAVIGATOR_FUZZ_EXAMPLES sets the cases per command-line class (default 60; the others get a
share of it, EXAMPLES_SHARE).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from harness.fuzz.cases import CLASSES
from harness.fuzz.harness import run_case
from harness.fuzz.hostile import HOSTILE_NAMES, hostile_cases
from tests.harness.conftest import failure_report

EXAMPLES = int(os.environ.get("NAVIGATOR_FUZZ_EXAMPLES", "60"))
#: the share of EXAMPLES each class runs: a TUI case takes seconds, a model case up to two (timeouts)
EXAMPLES_SHARE = {"tui": 1 / 60, "llm": 1 / 6, "cache": 1 / 6, "recording": 1 / 10, "kill": 1 / 10}
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if os.environ.get("NAVIGATOR_FUZZ_SHRINK") else ())


#: hostile cases of seconds each (a TUI session) that the bounded run leaves to `--slow` and the benchmark:
#: one TUI case (export's enter+escape) stays in it
SLOW_HOSTILE = {"tui-gcn-ctrl+p-pageup", "tui-gcn-auto-enter+escape", "tui-deep_gcn-tree-after-step"}


def _params(names):
    params = []
    for name in names:
        marks = [pytest.mark.slow] if name in SLOW_HOSTILE else []
        params.append(pytest.param(name, marks=marks))
    return params


def _examples(klass: str) -> int:
    return max(1, round(EXAMPLES * EXAMPLES_SHARE.get(klass, 1)))

@pytest.fixture(scope="module")
def hostile(fuzz_corpus):
    return hostile_cases(fuzz_corpus)


@pytest.mark.parametrize("name", _params(HOSTILE_NAMES))
def test_known_hostile_input(name, hostile, fuzz_runner, fuzz_scratch, record):
    outcome = run_case(hostile[name], fuzz_runner, fuzz_scratch)
    record(outcome)
    if not outcome.ok:  # pytest.fail, not assert: the report holds the case; no repr of the outcome's files
        pytest.fail(failure_report(outcome), pytrace=False)


def _mutated_inputs(klass: str):
    @settings(max_examples=_examples(klass), deadline=None, derandomize=True, database=None, phases=PHASES,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(rng=st.randoms(use_true_random=False))
    def run(rng, fuzz_corpus, fuzz_runner, fuzz_scratch, record):
        from harness.fuzz.generators import generate

        case = generate(klass, rng, fuzz_corpus)
        outcome = run_case(case, fuzz_runner, fuzz_scratch)
        record(outcome)
        if not outcome.ok:
            pytest.fail(failure_report(outcome), pytrace=False)

    return run


@pytest.mark.parametrize("klass", _params(CLASSES))
def test_mutated_inputs(klass, fuzz_corpus, fuzz_runner, fuzz_scratch, record):
    _mutated_inputs(klass)(fuzz_corpus=fuzz_corpus, fuzz_runner=fuzz_runner, fuzz_scratch=fuzz_scratch,
                           record=record)
