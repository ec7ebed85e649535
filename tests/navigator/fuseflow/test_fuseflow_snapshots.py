"""The optimised engine offers exactly the menus the unoptimised one did, on real FuseFlow facts.

`fuseflow_snapshots.py` recorded, with the engine as it was before demand-driven tables and
compiled plans, full navigations (defaults, and seeded random choices at the first hole or
at any hole) over a snapshot of the FuseFlow library and of small-size facts of bundled
programs: at every round a digest of all menus with their options, counts, subtree counts,
defaults and allowed metadata. Here the current engine replays the same choices and must
produce the same digests, round by round.
"""

from __future__ import annotations

import json

import pytest

from navigator.synth import Oracle

from tests.navigator.fuseflow.fuseflow_snapshots import BASELINE, SNAPSHOTS, load, walk

BASE = json.loads(BASELINE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_menus_and_counts_match_the_recorded_engine(name):
    recorded = BASE[name]
    library, facts = load(name)
    assert len(facts.facts) == recorded["facts"]
    oracle = Oracle(library, facts)
    assert oracle.count(oracle.initial_sketch()).to_json() == recorded["count"]
    for key, rounds in recorded["walks"].items():
        kind, seed = key.split("/")
        got = walk(oracle, kind, int(seed))
        assert len(got) == len(rounds), key
        for i, (g, r) in enumerate(zip(got, rounds)):
            assert g == r, f"{name} {key} round {i}"


def test_gcn_small_count_is_the_recorded_one():
    # A readable anchor besides the digests (gcn with N=8, F=8, H=4, C=2).
    assert BASE["gcn_small"]["count"] == 45741267597313
