"""When each primitive fires: its steps, one per cycle, in SAM's semantics.

A `Firing` lists a primitive's steps. Step `s` happens in one cycle; by its end the primitive
has consumed `needs[q][s]` tokens of the stream of input `q` (cumulative) and emitted
`emits[s]` tokens (cumulative). A step may also have to *see* tokens it does not consume yet:
`sees[q][s]` tokens of input `q` must have arrived (SAM's primitives peek at the head of an
input queue). `simulator.pipeline` schedules these steps on a graph of bounded queues. The
rules follow the Sparse Abstract Machine's primitives (sam/sim/src, the back-pressure
versions):

* a level iterator emits one token per cycle; the first coordinate of a fiber takes the
  parent's reference, and the closing stop peeks at the parent's next token, taking it when
  it is a stop (`S_n` becomes `S_{n+1}`); a compressed scanner also waits, for each later
  coordinate of a fiber, until the parent's next token has arrived (rd_scanner.py,
  CompressedCrdRdScan.update: it advances only while its input queue is not empty); a dense
  one does not (UncompressCrdRdScan);
* a locator or repeater emits one token per token of its signal; it loads its parent's next
  token as soon as it has finished a fiber, before the signal arrives (a step the signal's
  first step may share a cycle with), and for a stop peeks at the parent's next token as an
  iterator does (repeater.py, Repeat.update);
* a joiner holds one token of each side in a register: a first step loads both, then each
  step compares the registers and reloads the side(s) it advances, and it steps only when
  both input queues hold a token (joiner.py, Intersect2/Union2.update), except for its done
  token;
* a reducer spends a cycle per input token, emits the sum on the stop that closes the reduced
  levels, and spends one more cycle to emit each stop of a higher order (accumulator.py,
  Reduce);
* a sparse accumulator takes one input token per cycle, and emits in parallel: a row goes out
  from the cycle that takes the next row's first token (or the done token), one token per
  cycle, a row's closing stop with that next row (accumulator.py, SparseAccumulator1 and its
  CrdPtConverter); its `intake` is a stage of its own;
* arrays, ALUs, forks, lane joins and coordinate droppers are one token in, one token out;
  a writer consumes one token per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Firing:
    emits: list[int]                                     # cumulative tokens emitted, per step
    needs: dict[int, list[int]] = field(default_factory=dict)   # input pid -> cumulative consumed, per step
    sees: dict[int, list[int]] = field(default_factory=dict)    # input pid -> tokens arrived by then (>= needs)
    #: per step: may share the cycle of the step before (one update doing both); None: never
    joint: list[bool] | None = None
    #: a decoupled input stage (the sparse accumulator's): it consumes on its own, one token per
    #: cycle; step `s` of this firing waits for intake step `after_intake[s]` (same cycle allowed)
    intake: "Firing | None" = None
    after_intake: list[int] | None = None

    @property
    def steps(self) -> int:
        return len(self.emits)


def _count(n: int) -> list[int]:
    return list(range(1, n + 1))


def source(n: int) -> Firing:
    """A primitive fed by no stream (a root iterator, a constant ALU): one token per cycle."""
    return Firing(_count(n))


def one_to_one(n: int, inputs) -> Firing:
    steps = _count(n)
    return Firing(steps, {q: steps for q in inputs})


def sink(n: int, inputs) -> Firing:
    """A writer: one input token per cycle, nothing emitted on chip."""
    return Firing([0] * n, {q: _count(n) for q in inputs})


def proportional(n_in: int, n_out: int, inputs) -> Firing:
    """A streaming transform whose token alignment is not modelled: the larger side sets the
    cycles and the other advances evenly."""
    n = max(n_in, n_out, 1)
    return Firing([-(-(s + 1) * n_out // n) for s in range(n)],
                  {q: [-(-(s + 1) * n_in // n) for s in range(n)] for q in inputs})


def expand_consumption(parent: list, child: list, look_ahead: bool = False) -> tuple[list[int], list[int], list[bool]]:
    """Per token of `child` (a stream one level deeper than `parent`, as a level iterator builds
    it): how many parent tokens have been consumed by then, how many must have arrived (the next
    one when the step peeks at it: a closing stop, and with `look_ahead` every coordinate after
    a fiber's first), and whether the token is the first one of its parent token (a fiber's
    first coordinate or its lone stop, the child of a bare stop, done)."""
    taken: list[int] = []
    seen: list[int] = []
    opens: list[bool] = []
    i = j = 0
    n_child = len(child)
    n_parent = len(parent)
    while j < n_child:
        tok = parent[i]
        if tok.__class__ is tuple:
            first = True
            while child[j].__class__ is tuple:
                taken.append(i + 1)
                seen.append(i + 1 if first or not look_ahead else min(i + 2, n_parent))
                opens.append(first)
                first = False
                j += 1
            peeked = min(i + 2, n_parent)
            if parent[i + 1].__class__ is int:    # the closing stop merges the parent's stop
                i += 2
            else:
                i += 1
            taken.append(i)
            seen.append(max(i, peeked))
            opens.append(first)
        else:                                      # a bare stop, or done
            i += 1
            taken.append(i)
            seen.append(i)
            opens.append(True)
        j += 1
    return taken, seen, opens


def expanded(parent_pid: int | None, parent: list, child: list, signal_pids=(), look_ahead: bool = False) -> Firing:
    """A level iterator (no signal), or a locator / repeater following `signal_pids`.
    `look_ahead`: a compressed scanner, which advances within a fiber only once the parent's
    next token has arrived. A locator or repeater takes its parent's next token as soon as it
    has finished the previous one, before the signal that uses it has arrived: a step of its
    own, which the signal's step may share a cycle with (Repeat.update pops its reference and
    its signal in one update when both are there)."""
    if parent_pid is None:
        steps = _count(len(child))
        return Firing(steps, {q: steps for q in signal_pids})
    taken, seen, opens = expand_consumption(parent, child, look_ahead)
    if not signal_pids:
        return Firing(_count(len(child)), {parent_pid: taken}, {parent_pid: seen})
    emits: list[int] = []
    needs: dict[int, list[int]] = {q: [] for q in signal_pids}
    ref_taken: list[int] = []
    ref_seen: list[int] = []
    joint: list[bool] = []
    before = 0
    for j, (t, sn, first) in enumerate(zip(taken, seen, opens)):
        if first:                                   # load the parent's token (a step of its own)
            loaded = before + 1
            emits.append(j)
            for q in signal_pids:
                needs[q].append(j)
            ref_taken.append(loaded)
            ref_seen.append(loaded)
            joint.append(False)
        emits.append(j + 1)
        for q in signal_pids:
            needs[q].append(j + 1)
        ref_taken.append(t)
        ref_seen.append(sn)
        joint.append(first)
        before = t
    needs[parent_pid] = ref_taken
    return Firing(emits, needs, {parent_pid: ref_seen}, joint=joint)


def joined(a_pid: int, b_pid: int, trace: tuple[list[int], list[int], list[int]], len_a: int,
           len_b: int) -> Firing:
    """A joiner from its merge (`trace`: per merge step, tokens of each side consumed and tokens
    emitted so far). SAM's joiner first loads one token of each side into its registers; each
    merge step then reloads the side(s) it advances, so by then it has consumed one token more
    of each side than the merge has, and it needs the next token of both sides in its queues,
    except for the last step (the done token, emitted from the registers)."""
    taken_a, taken_b, emitted = trace
    n = len(emitted)
    needs_a = [1] + [min(x + 1, len_a) for x in taken_a]
    needs_b = [1] + [min(x + 1, len_b) for x in taken_b]
    sees_a, sees_b = [1], [1]
    for s in range(n):
        before_a = taken_a[s - 1] if s else 0
        before_b = taken_b[s - 1] if s else 0
        sees_a.append(max(needs_a[s + 1], min(before_a + 2, len_a)))
        sees_b.append(max(needs_b[s + 1], min(before_b + 2, len_b)))
    return Firing([0] + list(emitted), {a_pid: needs_a, b_pid: needs_b}, {a_pid: sees_a, b_pid: sees_b})


def reducer(pid_in: int, stream: list, reduced: int, out: list) -> Firing:
    """Closes the `reduced` innermost levels of `stream` into `out`: a cycle per input token, the
    sum emitted on the stop that closes the reduced levels (none for a bare stop, which closes
    no visited fiber), and one more cycle for each stop of a higher order."""
    emits: list[int] = []
    needs: list[int] = []
    o = c = 0
    for tok in stream:
        c += 1
        if tok.__class__ is int and tok >= reduced - 1:
            if out[o].__class__ is tuple:
                o += 1                  # the sum of the closed fiber
                if tok >= reduced:
                    emits.append(o)
                    needs.append(c)
                    o += 1              # a higher-order stop: one more cycle for S_{n-reduced}
            elif tok >= reduced:
                o += 1                  # a bare stop passes on
        elif tok.__class__ is not tuple and tok.__class__ is not int:
            while o < len(out) - 1:     # done
                o += 1
                emits.append(o)
                needs.append(c)
            o += 1
        emits.append(o)
        needs.append(c)
    if o != len(out):
        return proportional(len(stream), len(out), (pid_in,))
    return Firing(emits, {pid_in: needs})


def accumulator(pid_in: int, stream: list, out: list, row: int) -> Firing:
    """A sparse accumulator whose rows are the first `row` coordinates of a path: an intake
    that takes one input token per cycle, and an output of one token per cycle, whose tokens
    of a row (and the stops before that row's first token) wait for the intake to take the
    first token of a later row (or the done token)."""
    n_in = len(stream)
    if not n_in or not out:
        return proportional(n_in, len(out), (pid_in,))
    # intake step at which each row's emission is triggered: the first data token of a later row
    starts: list[tuple] = []            # (row key, intake step) of each row's first data token
    for s, tok in enumerate(stream):
        if tok.__class__ is tuple:
            key = tok[0][:row]
            if not starts or starts[-1][0] != key:
                starts.append((key, s))
    done_step = n_in - 1
    after: list[int] = []
    nxt = 0                             # index into `starts`: the first row starting after the token's row
    pending = 0                         # stops waiting for the next data token
    for tok in out[:-1]:
        if tok.__class__ is tuple:
            key = tok[0][:row]
            while nxt < len(starts) and starts[nxt][0] <= key:
                nxt += 1
            trigger = starts[nxt][1] if nxt < len(starts) else done_step
            after.extend([trigger] * (pending + 1))
            pending = 0
        else:
            pending += 1
    after.extend([done_step] * (pending + 1))   # trailing stops and the done token
    intake = Firing([0] * n_in, {pid_in: _count(n_in)})
    return Firing(_count(len(out)), intake=intake, after_intake=after)
