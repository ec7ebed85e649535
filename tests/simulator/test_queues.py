"""Bounded queues: the cycle-level pipeline (simulator.pipeline) over the exact executor's steps
(simulator.firing), hand-computed on two small graphs, and the fast executor's bound."""

import dataclasses

import numpy as np
import pytest

from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule
from simulator import firing, timing
from simulator.evaluate import run_schedule
from simulator.pipeline import sam_graph, schedule, simulate
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


def _pid(region, label: str) -> int:
    return next(p.pid for p in region.plan.primitives if p.label.startswith(label))


def test_spmm_gustavson_by_hand_at_depth_2(tmp_path):
    """C(i,j) = sum_k A(i,k) B(k,j), order i k j, A = [[0,1],[1,0]], J = 3.

    The graph SAM runs (pipeline.sam_graph): locate A.i is dense i's reference, locate B.k is
    scan A.k's coordinate (B's parent reference is the root's), so repeat ref B over i is
    dropped, and locate B.j is dense j's reference; array A moves behind repeat value A over j,
    whose signal passes a signal generator; the accumulator reads through a stop dropper.

    Unbounded: dense i emits (0) (1) S0 D at 0-3. scan A.k emits (k=1) at 1, S0 at 2 (it
    peeks at i's token 2, there at 2) and merges i's S0, (k=0) at 3, S1 at 4, D at 5. dense j
    emits 0 1 2 S1 0 1 2 S2 D at 2-10; array B reads at 3-11. The signal generator follows
    dense j at 3-11; the repeater loads k=1's reference at 2, emits 0 0 0 at 4-6, S1 at 7
    (taking scan A.k's S0), loads k=0's at 8 and emits its first value in the same cycle, then
    9, 10, S2 at 11, D at 12; array A reads behind it at 5-13, the ALU at 6-14, the dropper at
    7-15, the accumulator's intake at 8-16. Row 0 goes out once the intake takes row 1's first
    token (its step 4, cycle 12): 12, 13, 14; S0 and row 1 wait for the done token (16): S0 at
    16, 17-19, S1 at 20, D at 21. The writer takes them at 13-15 and 17-22: 23 cycles.

    Depth 2: a producer skips a cycle while a consumer had taken fewer than all but 2 of the
    tokens it emitted two cycles before. Array B emits at 3, 4, 5, 6 but the ALU takes its first
    B value only at 6 (the A value comes late), so at 7 (3 emitted by 5, 1 taken by 5: no), 8
    (4 by 6, 2 taken by 6: no) it waits, and steps at 9 (2 taken by 7): 9-13. dense j then
    waits for array B to take its 6th token (10): its D goes at 12 instead of 10, and the done
    tokens follow at 13 (signal), 14 (repeater), 15 (array A), 16 (ALU), 17 (dropper), 18
    (intake): S0 at 18, row 1 at 19-21, S1 at 22, D at 23, the writer's last at 24: 25 cycles.
    SAM's reference simulator, wired by hand, gives 23 and 25 as well.
    """
    region = _one_region(tmp_path, "spmm", ("i", "k", "j"), {"J": 3})
    assert simulate(region.plan, region.run.firings, 0) == 23
    assert simulate(region.plan, region.run.firings, 2) == 25
    times = schedule(region.plan, region.run.firings, 2)
    assert times[_pid(region, "read B values")] == [3, 4, 5, 6, 9, 10, 11, 12, 13]
    assert times[_pid(region, "dense j")][-1] == 12
    spacc = _pid(region, "spacc")
    assert times[spacc] == [12, 13, 14, 18, 19, 20, 21, 22, 23]
    assert region.run.firings[spacc].after_intake == [4, 4, 4, 8, 8, 8, 8, 8, 8]
    stages = sam_graph(region.plan, region.run.firings)
    assert _pid(region, "locate B.k") not in stages and _pid(region, "repeat ref B over i") not in stages
    assert _pid(region, "read A values") not in stages and ("array", _pid(region, "repeat value A")) in stages


def test_sddmm_by_hand_at_depth_2(tmp_path):
    """C(i,j) = A(i,j) * sum_k B(i,k) D(j,k), order i j k, K = 3, A = [[0,1],[1,0]].

    locate D.j is scan A.j's coordinate (D's parent reference is the root's) and locate D.k
    dense k's reference; locate B.k combines B's row with k and keeps its hop.
    Unbounded: dense i at 0-3, scan A.j (j=1) S0 (j=0) S1 D at 1-5, dense k 0 1 2 S1 0 1 2 S2 D
    at 2-10, array D behind it at 3-11. locate B.k emits at 4-12 (its parent, B's row repeated
    over j, loads row 0 at 3), repeat value A over k at 4-12 behind its signal generator (3-11),
    array A at 5-13 and array B at 5-13, the products at 6-14 and 7-15. The reducer spends a
    cycle per token (8-16) and one more on each higher-order stop: the sums on S1 (11) and S2
    (15), S0 at 12 and S1 at 17, D at 18. The writer takes 5 tokens at 12, 13, 17, 18, 19: 20.

    Depth 2: array D is the short path into the second product, which takes its first D value
    only at 7: array D emits at 3-6, then waits until the product has taken 2 tokens by two
    cycles before (8 + 2 = 10): 10-14. dense k waits for array D's 6th take (11): its D at 13
    instead of 10, then the done tokens at 14 (signal, locate B.k), 15 (repeater, array B), 16
    (array A), 17 (first product), 18 (second), 19 (reducer), 20 (writer): 21 cycles, as SAM's
    reference simulator gives.
    """
    region = _one_region(tmp_path, "sddmm", ("i", "j", "k"), {"K": 3})
    assert simulate(region.plan, region.run.firings, 0) == 20
    assert simulate(region.plan, region.run.firings, 2) == 21
    times = schedule(region.plan, region.run.firings, 2)
    assert times[_pid(region, "read D values")] == [3, 4, 5, 6, 10, 11, 12, 13, 14]
    reduce = _pid(region, "reduce")
    assert region.run.firings[reduce].emits == [0, 0, 0, 1, 2, 2, 2, 2, 3, 4, 5]
    assert times[reduce][-1] == 19


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


def _both_executors(depth):
    """(program, schedule, exact region result, fast region result) for a random legal schedule
    of each program on random small data, with queues of `depth` tokens."""
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
            yield name, schedule, re, rf


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_exact_and_fast_agree_on_counts_and_cycles(depth):
    """On small data the fast executor steps every region's pipeline (simulator.timing.steps_fit),
    so both executors give the same counts and the same cycles at every queue depth."""
    for name, schedule, re, rf in _both_executors(depth):
        assert {p: c.as_tuple() for p, c in re.run.counts.items()} == \
            {p: c.as_tuple() for p, c in rf.run.counts.items()}
        assert re.timing.queue_stall >= 1.0
        assert re.timing.cycles == rf.timing.cycles, (name, schedule)
        assert rf.timing.queue_model == ("stepped" if depth else "unbounded")


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_fast_cycles_of_regions_too_large_to_step_are_a_lower_bound(depth, monkeypatch):
    monkeypatch.setattr(timing, "STEPPED_TOKENS", 0)
    for _, _, re, rf in _both_executors(depth):
        assert rf.timing.queue_model == "bound" and rf.timing.queue_stall == 1.0
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
    """The same rules, applied cycle by cycle as SAM's test loop runs (an independent check of
    the event-driven schedule): in cycle t a stage skips its update if, at a consumer's update
    in cycle t - 1, that consumer's queue held more than `depth` tokens (the tokens it emitted
    by t - 2 less those the consumer took by t - 2); otherwise it takes its next step if the
    tokens it waits for were emitted early enough, and the steps after it marked `joint` in
    the same cycle."""
    stages = sam_graph(plan, firings)
    emitted_at = {k: [] for k in stages}                     # token -> cycle
    took_at = {(src, k): [] for k, st in stages.items() for src in st.takes}
    consumers = {k: [c for c, st in stages.items() if k in st.takes and not st.sink] for k in stages}
    step = {k: 0 for k in stages}
    first = {}
    t = last = 0
    while any(step[k] < st.steps for k, st in stages.items()):
        for k, st in stages.items():         # an accumulator's intake comes before its output
            s = step[k]
            if s == st.steps:
                continue
            if depth and any(sum(1 for e in emitted_at[k] if e <= t - 2) -
                             sum(1 for x in took_at[(k, c)] if x <= t - 2) > depth for c in consumers[k]):
                continue
            taken_here = False
            while s < st.steps:
                if taken_here and not (st.joint and st.joint[s]):
                    break
                if s == 0 and any(w not in first or first[w] + 1 > t for w in st.after):
                    break
                if not all(sum(1 for e in emitted_at[src] if e <= t - lat) >= req[s] for src, req, lat in st.waits):
                    break
                before = st.emits[s - 1] if s else 0
                emitted_at[k].extend([t] * (st.emits[s] - before))
                for src, need in st.takes.items():
                    took_at[(src, k)].extend([t] * (need[s] - len(took_at[(src, k)])))
                first.setdefault(k, t)
                last = t + 1
                s += 1
                taken_here = True
            step[k] = s
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
