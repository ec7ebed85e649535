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

from fuseflow.lower.plan import RegionPlan
from simulator.firing import Firing


class Deadlock(RuntimeError):
    """No primitive can take its next step (a trace that needs more tokens than fit a queue)."""


def _first_steps(cumulative: list[int]) -> list[int]:
    """Token k -> the step at which it is emitted / consumed."""
    out: list[int] = []
    before = 0
    for s, n in enumerate(cumulative):
        while before < n:
            out.append(s)
            before += 1
    return out


def simulate(plan: RegionPlan, firings: dict[int, Firing], depth: int) -> int:
    """Cycles until the last step of the region's last primitive, with queues of `depth` tokens."""
    prims = [p.pid for p in plan.primitives if p.pid in firings]
    kinds = {p.pid: p.kind for p in plan.primitives}
    emit_step = {p: _first_steps(firings[p].emits) for p in prims}
    channels: dict[int, list[tuple[int, list[int]]]] = {p: [] for p in prims}   # producer -> consumers
    after: dict[int, list[int]] = {p: [] for p in prims}
    inputs: dict[int, list[tuple[int, list[int], list[int]]]] = {}
    for p in prims:
        prim = plan.primitives[p]
        mine = []
        for q, need in firings[p].needs.items():
            if q not in firings or kinds[q] == "write":
                continue
            mine.append((q, need, emit_step[q]))
            channels[q].append((p, _first_steps(need)))
        inputs[p] = mine
        after[p] = [q for q in prim.inputs if kinds[q] == "write" and q in firings]
    times: dict[int, list[int]] = {p: [] for p in prims}
    pending = [p for p in prims if firings[p].steps]
    slack = depth + 1
    last = 0
    while pending:
        progressed = False
        still = []
        for p in pending:
            mine = times[p]
            emits = firings[p].emits
            n = len(emits)
            ins = inputs[p]
            outs = channels[p] if depth else ()
            s = len(mine)
            if s == 0 and n:
                if any(not times[q] for q in after[p]):
                    still.append(p)
                    continue
                start = max((times[q][0] + 1 for q in after[p]), default=0)
            while s < n:
                if s:
                    t = mine[s - 1] + 1
                    prev_emit = emits[s - 1]
                else:
                    t = start
                    prev_emit = 0
                ready = True
                for q, need, produced in ins:
                    k = need[s]
                    if k and (s == 0 or k != need[s - 1]):
                        tq = times[q]
                        at = produced[k - 1]
                        if at >= len(tq):
                            ready = False
                            break
                        t = max(t, tq[at] + 1)
                if ready and emits[s] != prev_emit:
                    j = emits[s] - 1 - slack
                    if j >= 0:
                        for c, popped in outs:
                            if j >= len(popped):
                                continue
                            tc = times[c]
                            at = popped[j]
                            if at >= len(tc):
                                ready = False
                                break
                            t = max(t, tc[at] + 2)
                if not ready:
                    break
                mine.append(t)
                s += 1
                progressed = True
            if s < n:
                still.append(p)
            elif n:
                last = max(last, mine[-1] + 1)
        if not progressed:
            raise Deadlock(f"no primitive of the region can step (queue depth {depth})")
        pending = still
    return last
