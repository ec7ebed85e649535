"""The fuzz harness under pytest: the issue's known hostile inputs, then a bounded number of
mutated inputs per class (programs, schedules, sessions, data files, libraries).

Every case runs `navigator` in a forked child and must: exit 0, 1 or 2; print no traceback
and no internal error; leave no crash file; finish before the timeout; stay under the
memory limit; change no file but the outputs its command line names; and on exit 2 end
stderr with one "navigator: error:" line. benchmarks/fuzz.py runs the same cases longer.

Hypothesis drives the mutations through `st.randoms()`, derandomized and without a
database, so every run makes the same cases; shrinking is off (set NAVIGATOR_FUZZ_SHRINK=1
to turn it on while debugging), because the assertion message already holds the case.
NAVIGATOR_FUZZ_EXAMPLES sets the cases per class (default 60).
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
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if os.environ.get("NAVIGATOR_FUZZ_SHRINK") else ())

@pytest.fixture(scope="module")
def hostile(fuzz_corpus):
    return hostile_cases(fuzz_corpus)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_known_hostile_input(name, hostile, fuzz_runner, fuzz_scratch, record):
    outcome = run_case(hostile[name], fuzz_runner, fuzz_scratch)
    record(outcome)
    if not outcome.ok:  # pytest.fail, not assert: the report holds the case; no repr of the outcome's files
        pytest.fail(failure_report(outcome), pytrace=False)


@pytest.mark.parametrize("klass", CLASSES)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_inputs(klass, rng, fuzz_corpus, fuzz_runner, fuzz_scratch, record):
    from harness.fuzz.generators import generate

    case = generate(klass, rng, fuzz_corpus)
    outcome = run_case(case, fuzz_runner, fuzz_scratch)
    record(outcome)
    if not outcome.ok:
        pytest.fail(failure_report(outcome), pytrace=False)
