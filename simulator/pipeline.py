"""A region's pipeline cycle by cycle, with bounded queues (back-pressure), as SAM runs it.

**The graph SAM would run.** Each primitive's steps come from `simulator.firing`. The
pipeline runs them on the graph the reference would wire for the same region
(`sam_graph`), which differs from the lowered graph in four places:

* a repeater reads its signal through a repeat-signal generator, a primitive of its own
  (sam/sim/src/repeater.py, RepeatSigGen feeding Repeat): one hop and one queue more on the
  signal's path;
* SAM's repeaters carry references, so a repeated value is read after the repeat: the array
  that reads it moves behind the repeater (its reference stream is repeated instead);
* a dense locator that only names the reference a dense level scanner emits anyway is that
  scanner's reference output (UncompressCrdRdScan emits `parent_ref * extent + crd` with each
  coordinate): one locating a single level whose parent reference is the root's (repeated),
  so that the reference is the coordinate, or whose signal is a dense iterator fed by the
  locator's parent stream. It takes no hop and holds no queue. Other locators keep a hop;
  primitives left without consumers (the root's repeats such locators read) are dropped;
* a sparse accumulator reads its values through a stop-token dropper (StknDrop) and takes one
  token per cycle in a stage of its own, while its output follows (`Firing.intake`).

**The cycle.** As SAM's test loop does, in every cycle each consumer first takes what its
producers emitted in the previous cycle, then every primitive updates once. A step fires at
the first cycle where:

* every input token it consumes or peeks at has arrived: a token emitted in cycle `t` can be
  taken from cycle `t + 1` on (one hop, one cycle); the accumulator's output may follow its
  intake in the same cycle;
* no consumer holds it back. A queue of depth `D` reports "full" when, at the start of its
  consumer's update, it holds more than `D` tokens, and the producer sees that report in the
  next cycle and skips that whole cycle, emitting or not (back_en: `fifo_avail`,
  `set_backpressure`, `check_backpressure`). So a step may fire in cycle `t` only if every
  consumer had taken, by cycle `t - 2`, all but `D` of the tokens the producer had emitted by
  cycle `t - 2`. Writers never hold their producers back (wr_scanner.py disables it).
  `D = 0` means unbounded.

A stream crossing into an on-chip buffer (a producer op's writer, scanned by a consumer op) is
no queue: the consumer's first step waits one cycle after the writer's first step, as data
streams through the buffer.

The schedule is computed event by event (the cycle of each step from the cycles it depends
on), which gives exactly the cycle-by-cycle result without stepping through idle cycles.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from fuseflow.lower.plan import RegionPlan
from simulator.firing import Firing


class Deadlock(RuntimeError):
    """No primitive can take its next step (a trace that needs more tokens than fit a queue)."""


@dataclass
class Stage:
    """One primitive of the graph SAM would run: a lowered primitive, or one the reference
    adds (a repeat-signal generator, a moved array, a stop dropper, an accumulator's intake)."""

    key: object
    emits: list[int]                                       # cumulative tokens emitted, per step
    #: (producer, tokens it must have emitted by each step (cumulative), latency in cycles)
    waits: list[tuple[object, list[int], int]] = field(default_factory=list)
    #: producer -> tokens consumed by each step (cumulative): what frees the producer's queues
    takes: dict[object, list[int]] = field(default_factory=dict)
    after: list[object] = field(default_factory=list)       # buffer writers its first step follows
    sink: bool = False                                      # a writer: never holds its producers back
    joint: list[bool] | None = None                         # per step: may share the previous step's cycle

    @property
    def steps(self) -> int:
        return len(self.emits)


def _count(n: int) -> list[int]:
    return list(range(1, n + 1))


def _roles(plan: RegionPlan):
    """Per locator: levels located; per repeater: "ref" or "value"."""
    located, repeated = {}, {}
    for op in plan.ops:
        for level in op.levels:
            for pid, _key, levels in level.locates:
                located[pid] = len(levels)
            for pid, _key, what in level.repeats:
                repeated[pid] = what
    return located, repeated


def sam_graph(plan: RegionPlan, firings: dict[int, Firing]) -> dict[object, Stage]:
    """The stages SAM would run for the region (see the module docstring), keyed by pid for
    lowered primitives and by (role, pid) for the ones the reference adds."""
    prims = {p.pid: p for p in plan.primitives}
    kinds = {pid: p.kind for pid, p in prims.items()}
    located, repeated = _roles(plan)

    def split(pid):            # (parent, signal) of a locator or repeater; a buffer's root is no stream
        ins = prims[pid].inputs
        parent, signal = (ins[0], ins[1]) if len(ins) == 2 else (None, ins[0] if ins else None)
        return (None if parent is not None and kinds[parent] == "write" else parent), signal

    alias: dict[int, int] = {}

    def resolve(pid):
        while pid in alias:
            pid = alias[pid]
        return pid

    def root_ref(pid) -> bool:
        """A stream of the root's reference (repeated): its references are all 0."""
        if kinds.get(pid) != "repeat" or repeated.get(pid) != "ref":
            return False
        parent, _ = split(pid)
        return parent is None or root_ref(resolve(parent))

    for pid in sorted(firings):
        if kinds[pid] != "locate" or located.get(pid, 0) != 1:
            continue
        parent, signal = split(pid)
        if signal is None:
            continue
        sig = resolve(signal)
        if parent is None or root_ref(resolve(parent)):
            alias[pid] = sig
        elif kinds.get(sig) in ("dense", "empty") and prims[sig].inputs and \
                resolve(prims[sig].inputs[0]) == resolve(parent):
            alias[pid] = sig

    # value repeats read their value behind the repeat: they repeat the array's reference stream
    moved: dict[int, int] = {}
    for pid in firings:
        if kinds[pid] == "repeat" and repeated.get(pid) == "value":
            parent, _ = split(pid)
            if parent is not None and kinds.get(parent) == "array" and prims[parent].inputs:
                moved[pid] = resolve(prims[parent].inputs[0])

    # a locator that reads the root's reference repeated reads the coordinates it was repeated
    # over instead (the repeat's signal, aligned with it): SAM has no stream of zeros to repeat
    rerouted: dict[int, int] = {}
    for pid in firings:
        if kinds[pid] == "locate" and pid not in alias:
            parent, _ = split(pid)
            if parent is not None and root_ref(resolve(parent)):
                rerouted[pid] = resolve(split(resolve(parent))[1])

    def source_of(pid):
        pid = resolve(pid)
        return ("array", pid) if pid in moved else pid

    stages: dict[object, Stage] = {}
    for pid, f in firings.items():
        if pid in alias:
            continue
        kind = kinds[pid]
        if f.intake is not None:                      # the sparse accumulator
            (q, need), = f.intake.needs.items()
            n = len(need)
            src = source_of(q)
            stages[("drop", pid)] = Stage(("drop", pid), _count(n), [(src, _count(n), 1)], {src: _count(n)})
            stages[("intake", pid)] = Stage(("intake", pid), _count(n), [(("drop", pid), need, 1)],
                                            {("drop", pid): need})
            stages[pid] = Stage(pid, f.emits, [(("intake", pid), [k + 1 for k in f.after_intake], 0)])
            continue
        parent, signal = split(pid) if kind in ("repeat", "locate") else (None, None)
        waits, takes = [], {}
        for q, need in f.needs.items():
            if kinds[q] == "write":
                continue                # a buffer: its writer's first step starts the op (`after`)
            seen = f.sees.get(q, need)
            req = need if seen is need else [max(a, b) for a, b in zip(need, seen)]
            if kind == "repeat" and q == signal:
                src = ("signal", pid)
                n = need[-1] if need else 0
                stages[src] = Stage(src, _count(n), [(source_of(q), _count(n), 1)], {source_of(q): _count(n)})
            elif pid in moved and q == parent:
                src = moved[pid]
            elif pid in rerouted and q == parent:
                src = rerouted[pid]
            else:
                src = source_of(q)
            waits.append((src, req, 1))
            takes[src] = need
        after = [q for q in prims[pid].inputs if kinds[q] == "write" and q in firings]
        stages[pid] = Stage(pid, f.emits, waits, takes, after, sink=kind == "write", joint=f.joint)
        if pid in moved:
            n = f.emits[-1] if f.emits else 0
            stages[("array", pid)] = Stage(("array", pid), _count(n), [(pid, _count(n), 1)], {pid: _count(n)})
    # drop what nothing reads any more (the root's repeats that only free locators read)
    while True:
        read = {src for st in stages.values() for src, _, _ in st.waits} | \
               {w for st in stages.values() for w in st.after}
        dead = [k for k, st in stages.items() if k not in read and not st.sink]
        dead = [k for k in dead if not (isinstance(k, int) and firings[k].intake is not None)]
        if not dead:
            return stages
        for k in dead:
            del stages[k]


def _first_steps(cumulative: np.ndarray) -> np.ndarray:
    """Token k -> the step at which it is emitted / consumed (cumulative counts per step)."""
    total = int(cumulative[-1]) if len(cumulative) else 0
    return np.searchsorted(cumulative, np.arange(total), side="right")


def _changes(cumulative: np.ndarray) -> np.ndarray:
    """Per step: the index of the last token it needs, -1 when it needs no new one."""
    if not len(cumulative):
        return cumulative
    running = np.maximum.accumulate(cumulative)
    before = np.concatenate(([0], running[:-1]))
    return np.where(running > before, running - 1, -1)


def simulate(plan: RegionPlan, firings: dict[int, Firing], depth: int) -> int:
    """Cycles until the last step of the region's last primitive, with queues of `depth` tokens."""
    times = schedule(plan, firings, depth)
    return max((t[-1] + 1 for t in times.values() if t), default=0)


def schedule(plan: RegionPlan, firings: dict[int, Firing], depth: int) -> dict[object, list[int]]:
    """The cycle of every step of every stage of `sam_graph`, with queues of `depth` tokens."""
    stages = sam_graph(plan, firings)
    keys = list(stages)
    emits = {k: np.asarray(stages[k].emits, dtype=np.int64) for k in keys}
    emitted_at = {k: _first_steps(emits[k]).tolist() for k in keys}
    cum_emits = {k: emits[k].tolist() for k in keys}
    times: dict[object, list[int]] = {k: [] for k in keys}
    # per step: (producer's step times, producer's step emitting the token waited for, latency)
    ins: dict[object, list[tuple[list[int], list[int], int]]] = {}
    for k in keys:
        rows = []
        for src, req, lat in stages[k].waits:
            need = _changes(np.asarray(req, dtype=np.int64))
            steps_of = emitted_at[src]
            rows.append((times[src], [steps_of[x] if x >= 0 else -1 for x in need.tolist()], lat))
        ins[k] = rows
    # per producer: (consumer's step times, consumer's step that took each token, tokens it takes)
    outs: dict[object, list[tuple[list[int], list[int], int]]] = {k: [] for k in keys}
    neighbours: dict[object, set] = {k: set() for k in keys}
    for k in keys:
        st = stages[k]
        for src, _, _ in st.waits:
            neighbours[src].add(k)
            neighbours[k].add(src)
        for src, need in st.takes.items():
            if not st.sink and depth:
                took = _first_steps(np.asarray(need, dtype=np.int64)).tolist()
                outs[src].append((times[k], took, len(took)))
        for w in st.after:
            neighbours[w].add(k)
    n_steps = {k: stages[k].steps for k in keys}
    work = deque(k for k in keys if n_steps[k])
    queued = set(work)
    while work:
        p = work.popleft()
        queued.discard(p)
        mine = times[p]
        n = n_steps[p]
        s = len(mine)
        st = stages[p]
        if s == 0:
            if any(not times[w] for w in st.after):
                continue
            t = max((times[w][0] + 1 for w in st.after), default=0)
        else:
            t = mine[-1] + 1
        rows = ins[p]
        room = outs[p]
        cum = cum_emits[p]
        joint = st.joint
        begun = s
        while s < n:
            if s and joint is not None and joint[s]:
                t = mine[-1]                # one update may do both steps
            ready = True
            try:                            # (an IndexError: a token not emitted yet)
                for tq, w, lat in rows:
                    at = w[s]
                    if at >= 0:
                        v = tq[at] + lat
                        if v > t:
                            t = v
                if room and s and t > mine[-1]:
                    # a consumer holds it back while it has not taken all but `depth` of the tokens
                    # emitted by cycle t - 2 (a step in the same cycle as the previous one passed)
                    while True:
                        i = s - 1
                        while i >= 0 and mine[i] > t - 2:
                            i -= 1
                        k = (cum[i] if i >= 0 else 0) - depth
                        if k <= 0:
                            break
                        later = t
                        for tc, took, n_took in room:
                            if k <= n_took:     # (a consumer that never takes the token holds nothing)
                                v = tc[took[k - 1]] + 2
                                if v > later:
                                    later = v
                        if later == t:
                            break
                        t = later
            except IndexError:
                ready = False
            if not ready:
                break
            mine.append(t)
            t += 1
            s += 1
        if s > begun:
            for m in neighbours[p]:
                if m not in queued and len(times[m]) < n_steps[m]:
                    work.append(m)
                    queued.add(m)
    if any(len(times[k]) < n_steps[k] for k in keys):
        raise Deadlock(f"no primitive of the region can step (queue depth {depth})")
    return times
