"""A region's pipeline cycle by cycle, with bounded queues (back-pressure).

Every channel (a producer's stream into one consumer) is a queue. Each primitive runs its
steps (`simulator.firing`) in order, at most one per cycle. A step fires at the first cycle
where:

* every input token it consumes has arrived: a token emitted in cycle `t` can be consumed from
  cycle `t + 1` on (one hop, one cycle);
* when it emits, every consumer's queue has room. The reference's queues of depth `D` signal
  "full" one cycle late, when they already hold more than `D` tokens, so token `k` of a channel
  may be emitted only two cycles after token `k - D - 1` was consumed (a queue holds up to
  `D + 2` tokens in steady flow). `D = 0` means unbounded.

A stream crossing into an on-chip buffer (a producer op's writer, scanned by a consumer op) is
no queue: the consumer's first step waits one cycle after the writer's first step, as data
streams through the buffer.

The schedule is computed event by event (the cycle of each step from the cycles it depends
on), which gives exactly the cycle-by-cycle result without stepping through idle cycles.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from fuseflow.lower.plan import RegionPlan
from simulator.firing import Firing


class Deadlock(RuntimeError):
    """No primitive can take its next step (a trace that needs more tokens than fit a queue)."""


def _first_steps(cumulative: np.ndarray) -> np.ndarray:
    """Token k -> the step at which it is emitted / consumed (cumulative counts per step)."""
    total = int(cumulative[-1]) if len(cumulative) else 0
    return np.searchsorted(cumulative, np.arange(total), side="right")


def _changes(cumulative: np.ndarray) -> np.ndarray:
    """Per step: the index of the last token it takes (or emits), -1 when it takes none."""
    before = np.concatenate(([0], cumulative[:-1]))
    return np.where(cumulative > before, cumulative - 1, -1)


def simulate(plan: RegionPlan, firings: dict[int, Firing], depth: int) -> int:
    """Cycles until the last step of the region's last primitive, with queues of `depth` tokens."""
    prims = [p.pid for p in plan.primitives if p.pid in firings]
    kinds = {p.pid: p.kind for p in plan.primitives}
    emits = {p: np.asarray(firings[p].emits, dtype=np.int64) for p in prims}
    emit_step = {p: _first_steps(emits[p]) for p in prims}
    # Per step of each primitive, the step of another primitive it waits for (-1: none):
    # the producer step that emitted the last token it takes (arrival, +1 cycle), and the
    # consumer step that took the token `depth + 1` places before the one it emits (room, +2).
    waits_in: dict[int, list[tuple[int, list[int]]]] = {p: [] for p in prims}
    waits_out: dict[int, list[tuple[int, list[int]]]] = {p: [] for p in prims}
    after: dict[int, list[int]] = {}
    for p in prims:
        for q, need in firings[p].needs.items():
            if q not in firings or kinds[q] == "write":
                continue
            need = np.asarray(need, dtype=np.int64)
            last_taken = _changes(need)
            waits_in[p].append((q, np.where(last_taken >= 0, emit_step[q][np.maximum(last_taken, 0)]
                                            if len(emit_step[q]) else -1, -1).tolist()))
            if depth:
                popped = _first_steps(need)
                held = _changes(emits[q]) - (depth + 1)
                ok = (held >= 0) & (held < len(popped))
                waits_out[q].append((p, np.where(ok, popped[np.clip(held, 0, max(len(popped) - 1, 0))]
                                                 if len(popped) else -1, -1).tolist()))
        after[p] = [q for q in plan.primitives[p].inputs if kinds[q] == "write" and q in firings]
    times: dict[int, list[int]] = {p: [] for p in prims}
    # Who may move when a primitive takes steps: its consumers (new tokens), its producers (room)
    # and the ops waiting for its buffer.
    neighbours: dict[int, set[int]] = {p: set() for p in prims}
    for p in prims:
        for q, _ in waits_in[p]:
            neighbours[q].add(p)
            neighbours[p].add(q)
        for q in after[p]:
            neighbours[q].add(p)
    steps = {p: firings[p].steps for p in prims}
    ins_of = {p: [(times[q], w) for q, w in waits_in[p]] for p in prims}
    outs_of = {p: [(times[c], w) for c, w in waits_out[p]] for p in prims}
    lists = {p: (times[p], steps[p]) for p in prims}
    work = deque(p for p in prims if steps[p])
    queued = set(work)
    last = 0
    while work:
        p = work.popleft()
        queued.discard(p)
        mine = times[p]
        n = steps[p]
        s = len(mine)
        if s == 0:
            if any(not times[q] for q in after[p]):
                continue
            t = max((times[q][0] + 1 for q in after[p]), default=0)
        else:
            t = mine[-1] + 1
        ins = ins_of[p]
        outs = outs_of[p]
        begun = s
        while s < n:
            ready = True
            for tq, w in ins:
                at = w[s]
                if at >= 0:
                    if at >= len(tq):
                        ready = False
                        break
                    if tq[at] >= t:
                        t = tq[at] + 1
            if ready:
                for tc, w in outs:
                    at = w[s]
                    if at >= 0:
                        if at >= len(tc):
                            ready = False
                            break
                        if tc[at] + 2 > t:
                            t = tc[at] + 2
            if not ready:
                break
            mine.append(t)
            t += 1
            s += 1
        if s == n:
            last = max(last, mine[-1] + 1)
        if s > begun:
            for m in neighbours[p]:
                if m not in queued:
                    done, total = lists[m]
                    if len(done) < total:
                        work.append(m)
                        queued.add(m)
    if any(len(times[p]) < steps[p] for p in prims):
        raise Deadlock(f"no primitive of the region can step (queue depth {depth})")
    return last
