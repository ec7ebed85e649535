"""Bounded queues: the cycle-level pipeline (simulator.pipeline) over the exact executor's steps
(simulator.firing), hand-computed on two small graphs, and the fast executor's bound."""

import dataclasses

import numpy as np
import pytest

from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule
from simulator import firing
from simulator.evaluate import run_schedule
from simulator.pipeline import simulate
from simulator.program_data import materialize
from tests.simulator.helpers import SMALL_DIMS, random_schedule

BOUNDED = dataclasses.replace(load_hardware(), queue_depth=2)   # the exact executor records its steps


def _one_region(tmp_path, name, order, dims):
    """A two-vertex graph with the edge 0-1 (symmetrized: A = [[0, 1], [1, 0]])."""
    path = tmp_path / "edge.txt"
    path.write_text("0 1\n")
    program = resolve_program(name)
    binding = bind(program, str(path), dims)
    data = materialize(program, binding, 0)
    ops = tuple(op.name for op in program.ops)
    schedule = Schedule((RegionSchedule(ops, order, (1,) * len(order)),))
    results, _ = run_schedule(program, binding, schedule, "exact", "accumulate", data, BOUNDED)
    return results[0]


def test_spmm_gustavson_by_hand_at_depth_2(tmp_path):
    """C(i,j) = sum_k A(i,k) B(k,j), order i k j, A = [[0,1],[1,0]], J = 2.

    Streams: dense i emits (0) (1) S0 D: 4 tokens, cycles 0-3. locate A.i follows one hop later
    (1-4). scan A.k emits (k=1) S0 (k=0) S1 D; its first coordinate needs A.i's first reference
    (cycle 1), so it steps at 2, 3, 4, 5, 6. dense j emits 2 coordinates per k plus stops
    (7 tokens): (0,1,0) (0,1,1) S0 (1,0,0) (1,0,1) S1 D, at 3, 4, 5, 6, 7, 8, 9 (each fiber
    waits for its k one hop earlier). locate B.j and the B values follow at 4-10 and 5-11, the
    repeated A values at 4-10, so the product (ALU) emits its 7 tokens at 6-12.
    The sparse accumulator (13 steps) consumes row 0's three tokens at 7, 8, 9; row 1's first
    token arrives at 10: it consumes it and emits row 0 (two sums and S0) at 10, 11, 12, then
    accumulates it (13); row 1's next two tokens at 14, 15, the done token at 16, then emits
    row 1 (two sums, S1) and D at 16, 17, 18, 19. The writer takes each token one cycle after
    it is emitted: 11, 12, 13 and 17, 18, 19, 20, so the region ends after cycle 20: 21 cycles.
    Depth 2: a channel takes token k two cycles after each consumer took token k - 3. scan A.k's
    done token (k = 4) waits for dense j to take token 1 (cycle 5, with its second fiber): 5 + 2
    = 7 instead of 6, and the done tokens after it shift by one cycle (dense j 10, product 13).
    The accumulator needs the product's done token only at its step 9 (cycle 16): the total
    stays 21.
    """
    region = _one_region(tmp_path, "spmm", ("i", "k", "j"), {"J": 2})
    assert simulate(region.plan, region.run.firings, 2) == 21
    assert simulate(region.plan, region.run.firings, 0) == 21
    spacc = next(p.pid for p in region.plan.primitives if p.kind == "spacc")
    assert region.run.firings[spacc].emits == [0, 0, 0, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7]


def test_sddmm_by_hand_at_depth_2(tmp_path):
    """C(i,j) = A(i,j) * sum_k B(i,k) D(j,k), order i j k, K = 1, A = [[0,1],[1,0]].

    dense i emits 4 tokens at 0-3; scan A.j emits (0,1) S0 (1,0) S1 D at 2-6; dense k (one
    coordinate per j) emits 5 tokens at 3-7. Both products wait for their last input: the first
    ALU at 6, 7, 8, 9, 10 (the repeated A value arrives last), the second at 7-11. The reducer
    (closing k) spends a cycle per token and one more on each stop of a higher order: tokens
    (0,1,0) S1 (1,0,0) S2 D give steps 8 (consume), 9 (S1: the sum), 10 (S1: emit S0),
    11 (consume), 12 (S2: the sum), 13 (S2: emit S1), 14 (D). The writer takes the 5 emitted
    tokens at 10, 11, 13, 14, 15: 16 cycles.
    Depth 2 stalls the short path and not the total: locate B.i's token 3 (its done) must wait
    two cycles after the repeater of B over j took token 0, which happens only at cycle 3 with
    j's first coordinate, so it is emitted at 5 instead of 4; the longer path hides it.
    """
    region = _one_region(tmp_path, "sddmm", ("i", "j", "k"), {"K": 1})
    assert simulate(region.plan, region.run.firings, 2) == 16
    assert simulate(region.plan, region.run.firings, 0) == 16
    reduce = next(p.pid for p in region.plan.primitives if p.kind == "reduce")
    assert region.run.firings[reduce].emits == [0, 1, 2, 2, 3, 4, 5]


def test_a_shallow_queue_on_the_short_path_throttles_a_fork_join(tmp_path):
    """Depth 1 lets a channel hold fewer tokens than a rejoin needs: the pipeline slows down."""
    region = _one_region(tmp_path, "spmm", ("i", "k", "j"), {"J": 6})
    free = simulate(region.plan, region.run.firings, 0)
    assert simulate(region.plan, region.run.firings, 1) > free
    assert simulate(region.plan, region.run.firings, 8) == free


def test_reducer_steps_follow_the_reference():
    # Two fibers of two values closed by S0 then S1 (reduce the innermost level): sums on the
    # stops, one extra cycle for the higher-order S1 that becomes S0.
    stream = [((0, 0), 1.0), ((0, 1), 2.0), 0, ((1, 0), 3.0), 1, "D"]
    out = [((0,), 3.0), ((1,), 3.0), 0, "D"]
    f = firing.reducer(7, stream, 1, out)
    assert f.emits == [0, 0, 1, 1, 2, 3, 4]
    assert f.needs[7] == [1, 2, 3, 4, 5, 5, 6]


PROGRAMS = ["spmm", "sddmm", "gcn", "graphsage", "nested_matmul", "sparse_autoencoder"]


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_fast_cycles_are_exact_unbounded_and_a_lower_bound_otherwise(depth):
    hw = dataclasses.replace(load_hardware(), queue_depth=depth)
    rng = np.random.default_rng(depth)
    for name in PROGRAMS:
        program = resolve_program(name)
        binding = bind(program, dims=SMALL_DIMS[name])
        data = materialize(program, binding, int(rng.integers(100)))
        schedule = random_schedule(program, binding, rng)
        exact, _ = run_schedule(program, binding, schedule, "exact", "stream", data, hw, numerics=False)
        fast, _ = run_schedule(program, binding, schedule, "fast", "stream", data, hw, numerics=False)
        for re, rf in zip(exact, fast):
            assert {p: c.as_tuple() for p, c in re.run.counts.items()} == \
                {p: c.as_tuple() for p, c in rf.run.counts.items()}
            assert re.timing.queue_stall >= 1.0
            if depth == 0:
                assert re.timing.cycles == rf.timing.cycles
            else:
                assert rf.timing.cycles <= re.timing.cycles
                assert re.timing.compute_cycles == pytest.approx(rf.timing.compute_cycles * re.timing.queue_stall)


def test_every_reducer_and_accumulator_trace_matches_its_stream(monkeypatch):
    """The rule-based steps never fall back to the even alignment on random schedules."""
    calls = []
    monkeypatch.setattr(firing, "proportional", lambda *a: calls.append(a))
    rng = np.random.default_rng(5)
    for name in ["gcn", "graphsage", "sddmm", "spmm", "sparse_autoencoder"]:
        program = resolve_program(name)
        binding = bind(program, dims=SMALL_DIMS[name])
        data = materialize(program, binding, 1)
        for _ in range(3):
            results, _ = run_schedule(program, binding, random_schedule(program, binding, rng), "exact", "stream",
                                      data, BOUNDED, numerics=False)
            assert all(r.run.firings for r in results)
    assert calls == []


def _stepped(plan, firings, depth):
    """The same rules, applied cycle by cycle (an independent check of the event-driven schedule):
    in cycle t a primitive takes its next step if the tokens it needs were emitted before t and,
    when it emits token k, every consumer had taken token k - depth - 1 by cycle t - 2."""
    kinds = {p.pid: p.kind for p in plan.primitives}
    emitted_at = {p: [] for p in firings}                    # token -> cycle
    taken_at = {}                                             # (producer, consumer) -> token -> cycle
    step = {p: 0 for p in firings}
    consumers = {p: [] for p in firings}
    for p, f in firings.items():
        for q in f.needs:
            if kinds[q] != "write":
                consumers[q].append(p)
                taken_at[(q, p)] = []
    first = {}
    t = last = 0
    while any(step[p] < f.steps for p, f in firings.items()):
        fired = []
        for p, f in firings.items():
            s = step[p]
            if s == f.steps:
                continue
            writers = [q for q in plan.primitives[p].inputs if kinds[q] == "write"]
            if s == 0 and any(q not in first or first[q] + 1 > t for q in writers):
                continue
            ok = all(sum(1 for c in emitted_at[q] if c < t) >= need[s]
                     for q, need in f.needs.items() if kinds[q] != "write")
            before = f.emits[s - 1] if s else 0
            if ok and depth and f.emits[s] > before:
                k = f.emits[s] - 1
                # (a consumer that never takes token k - depth - 1 does not hold it back)
                ok = all(sum(1 for when in taken_at[(p, c)] if when <= t - 2) >= k - depth
                         for c in consumers[p] if firings[c].needs[p][-1] > k - depth - 1)
            if ok:
                fired.append(p)
        for p in fired:
            f = firings[p]
            s = step[p]
            before = f.emits[s - 1] if s else 0
            emitted_at[p].extend([t] * (f.emits[s] - before))
            for q, need in f.needs.items():
                if kinds[q] != "write":
                    taken = taken_at[(q, p)]
                    taken.extend([t] * (need[s] - len(taken)))
            first.setdefault(p, t)
            step[p] += 1
            last = t + 1
        t += 1
    return last


@pytest.mark.parametrize("name,order", [("spmm", ("i", "k", "j")), ("spmm", ("i", "j", "k")),
                                        ("sddmm", ("i", "j", "k")), ("gcn", None)])
def test_event_schedule_equals_cycle_by_cycle_stepping(tmp_path, name, order):
    program = resolve_program(name)
    binding = bind(program, dims={"spmm": {"N": 6, "J": 3}, "sddmm": {"N": 6, "K": 2},
                                  "gcn": {"N": 5, "F": 2, "H": 2, "C": 2}}[name])
    data = materialize(program, binding, 3)
    if order is None:
        schedule = random_schedule(program, binding, np.random.default_rng(2))
    else:
        schedule = Schedule((RegionSchedule((name,), order, (1, 1, 1)),))
    results, _ = run_schedule(program, binding, schedule, "exact", "stream", data, BOUNDED, numerics=False)
    for region in results:
        for depth in (0, 1, 2, 3):
            assert simulate(region.plan, region.run.firings, depth) == \
                _stepped(region.plan, region.run.firings, depth), depth
