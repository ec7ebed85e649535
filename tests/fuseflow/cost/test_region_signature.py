"""Regions with one signature get one estimate (fuseflow.cost.signature), so the hints may cost
them once; and what the hints keep between processes reads back as the same hints."""

import math
from dataclasses import replace

import pytest

from fuseflow.cost.completion import candidates
from fuseflow.cost.estimate import region_cost
from fuseflow.cost.hardware import load_hardware
from fuseflow.cost.hints import CostHints
from fuseflow.cost.signature import region_signature
from fuseflow.cost.statistics import DataStatistics
from fuseflow.analysis.orders import OrderSpace
from fuseflow.analysis.unification import unify_region
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program

HW = load_hardware()
LAYERS = {"T": 8, "D": 4, "F": 8, "blocks": 3}
GCN = {"N": 6, "F": 3, "H": 2, "C": 2}


def windows(program, longest=3):
    """Every run of 1..longest consecutive ops that unifies into a region."""
    names = [op.name for op in program.ops]
    for width in range(1, longest + 1):
        for start in range(len(names) - width + 1):
            ops = tuple(names[start:start + width])
            try:
                unify_region(program, ops)
            except ValueError:
                continue
            yield ops


def test_the_layers_of_a_transformer_share_signatures_and_their_estimates_are_equal():
    program = resolve_program("transformer12", LAYERS)
    binding = bind(program, dims=LAYERS)
    stats = DataStatistics(program, binding)
    by_signature: dict[str, list[tuple[str, ...]]] = {}
    for ops in windows(program):
        by_signature.setdefault(region_signature(program, binding, ops), []).append(ops)
    shared = [group for group in by_signature.values() if len(group) > 1]
    # the middle layers' regions are alike, the first layer's input and the last one's output aside
    assert len(shared) >= len(by_signature) // 2
    checked = 0
    for group in shared:
        first = unify_region(program, group[0])
        order = tuple(next(iter(OrderSpace.of_region(first).listed())))
        for rs in candidates(first, order, binding, HW):
            expected = region_cost(program, binding, rs, HW, stats=stats)
            for ops in group[1:]:
                other = region_cost(program, binding, replace(rs, ops=ops), HW, stats=stats)
                for a, b in ((expected.timing.cycles, other.timing.cycles), (expected.bytes, other.bytes),
                             (expected.flops, other.flops)):
                    assert math.isclose(a, b, rel_tol=1e-12), (group[0], ops, rs)
                checked += 1
    assert checked > 20


def test_regions_that_differ_in_extents_data_or_structure_have_different_signatures():
    program = resolve_program("gcn", GCN)
    binding = bind(program, dims=GCN)
    signatures = {ops: region_signature(program, binding, ops) for ops in windows(program, 2)}
    assert len(set(signatures.values())) == len(signatures)   # gcn's two layers differ in their extents
    other = bind(program, dims={**GCN, "N": 7})   # every op runs over N
    assert all(region_signature(program, other, ops) != s for ops, s in signatures.items())


@pytest.mark.parametrize("damage", [None, [], {"estimates": "x"}, {"estimates": [[1, 2]], "shortlists": [1]},
                                    {"estimates": [["s", ["i"], ["x"], 1, False, 1, 2, 3]]}])
def test_kept_estimates_read_back_as_the_same_hints_and_anything_else_is_ignored(damage):
    program = resolve_program("gcn", GCN)
    binding = bind(program, dims=GCN)
    first = CostHints(program, binding, HW)
    best = first.best()
    kept = first.export()
    again = CostHints(program, binding, HW)
    assert again.absorb(kept) == first.estimated
    assert again.best() == best and again.estimated == first.estimated   # nothing estimated anew
    ignored = CostHints(program, binding, HW)
    assert ignored.absorb(damage) == 0
    assert ignored.best() == best
