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

Markers: the product is being fixed in parallel (issue 9). Each case or class that fails
today because of a product defect is marked xfail(strict=False) with the defect named;
remove the marker when the fix is merged.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.cases import CLASSES
from tests.fuzz.conftest import failure_report
from tests.fuzz.harness import run_case
from tests.fuzz.hostile import HOSTILE_NAMES, hostile_cases

EXAMPLES = int(os.environ.get("NAVIGATOR_FUZZ_EXAMPLES", "60"))
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if os.environ.get("NAVIGATOR_FUZZ_SHRINK") else ())

#: hostile inputs that fail today, and the product defect behind each (being fixed on the issue 9 branches)
HOSTILE_DEFECTS: dict[str, str] = {
    "eval-dim-J=10^12": "simulator/data.py allocates the dense operands --dim asks for without check_memory",
    "dim-5000-digits": "parse_dims (navigator/commands/common.py) lets int()'s ValueError over 4,300 digits escape",
    "program-400-plus-terms": "fuseflow/expr.py prints and parses expressions recursively (RecursionError)",
    "program-400-nested-parentheses": "fuseflow/expr.py's recursive-descent parser (RecursionError)",
    "program-500-nested-relu": "fuseflow/expr.py's recursive-descent parser (RecursionError)",
    "program-1000-ops-check": "fuseflow/fusion.py legal_groupings recurses once per op (RecursionError)",
    "program-1000-ops-count": "fuseflow/fusion.py legal_groupings recurses once per op (RecursionError)",
    "edge-list-id-2^70": "load_edge_list converts ids to int64 unchecked (OverflowError)",
    "npz-empty-0x0": "fuseflow/binding.py divides by the vertex count of an empty graph (ZeroDivisionError)",
    "mtx-header-200000000": "a 76-byte .mtx declaring 200,000,000 rows is allocated: over 2 GiB resident, no check_memory",
    "session-lone-surrogate-rationale": "history prints a lone surrogate from the session file (UnicodeEncodeError)",
}
#: Every class finds product defects today (benchmarks/fuzz.py lists them; one example each here). Which
#: one a class meets first depends on the order Hypothesis draws the cases in, so all five are marked.
CLASS_DEFECTS: dict[str, str] = {
    "program": "RecursionError in fuseflow/expr.py and fusion.py (deep expressions, 1,000 ops); a 5,000-digit --dim",
    "schedule": "eval --dim N=10^12 allocates unchecked; batch decodes schedules without fuseflow.readers (NaN, "
                "5,000 digits, surrogates); replay KeyError in navigator/space.py; eval --dot into a missing folder",
    "session": "a hole or count of 5,000 digits (navigator/sessions/choice.py); a dim of 10^30 in the session "
               "overflows in fuseflow/binding.py; history prints lone surrogates",
    "data": "loaders: ids of 2**70 overflow int64, an .npz 'format' of several items, an empty 0x0 graph divides by "
            "zero; a --data symlink loop; batch --out /dev/full, a FIFO or a dangling link",
    "library": "navigator/lang/toml_fast.py loops forever on an unterminated string; 5,000-digit formula literals; "
               "multi-line formula errors; a --library symlink loop",
}


def _params(names, defects):
    return [pytest.param(name, marks=pytest.mark.xfail(reason=defects[name], strict=False))
            if name in defects else name for name in names]


@pytest.fixture(scope="module")
def hostile(fuzz_corpus):
    return hostile_cases(fuzz_corpus)


@pytest.mark.parametrize("name", _params(HOSTILE_NAMES, HOSTILE_DEFECTS))
def test_known_hostile_input(name, hostile, fuzz_runner, fuzz_scratch, record):
    outcome = run_case(hostile[name], fuzz_runner, fuzz_scratch)
    record(outcome)
    if not outcome.ok:  # pytest.fail, not assert: the report holds the case; no repr of the outcome's files
        pytest.fail(failure_report(outcome), pytrace=False)


@pytest.mark.parametrize("klass", _params(CLASSES, CLASS_DEFECTS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_inputs(klass, rng, fuzz_corpus, fuzz_runner, fuzz_scratch, record):
    from tests.fuzz.generators import generate

    case = generate(klass, rng, fuzz_corpus)
    outcome = run_case(case, fuzz_runner, fuzz_scratch)
    record(outcome)
    if not outcome.ok:
        pytest.fail(failure_report(outcome), pytrace=False)
