"""When each primitive fires: its steps, one per cycle, in SAM's semantics.

A `Firing` lists a primitive's steps. Step `s` happens in one cycle; by its end the primitive
has consumed `needs[q][s]` tokens of the stream of input `q` (cumulative) and emitted
`emits[s]` tokens (cumulative). `simulator.pipeline` schedules these steps on a graph of
bounded queues. The rules follow the Sparse Abstract Machine's primitives:

* a level iterator (scanner, dense or empty) emits one token per cycle; its first coordinate
  of a fiber takes the parent's reference, its closing stop takes the parent's stop when the
  two merge (`S_n` becomes `S_{n+1}`), and a bare parent stop passes in one cycle;
* a locator or repeater emits one token per token of its signal (the level's coordinates)
  and takes its parent's reference like an iterator does;
* a joiner spends one cycle per step of its merge: both sides when the coordinates (or stops)
  are equal, otherwise the smaller side, emitting only what the mode keeps;
* a reducer spends a cycle per input token, emits the sum on the stop that closes the reduced
  levels, and spends one more cycle to emit each stop of a higher order;
* a sparse accumulator emits a row only when the next row starts (or at the done token), one
  cycle per output token, after the cycle that consumed the row's first token;
* arrays, ALUs, forks, lane joins and coordinate droppers are one token in, one token out;
  a writer consumes one token per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Firing:
    emits: list[int]                                     # cumulative tokens emitted, per step
    needs: dict[int, list[int]] = field(default_factory=dict)   # input pid -> cumulative consumed, per step

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


def expand_consumption(parent: list, child: list) -> list[int]:
    """Per token of `child` (a stream one level deeper than `parent`, as a level iterator builds
    it), how many parent tokens have been consumed by then."""
    out: list[int] = []
    i = j = 0
    n_child = len(child)
    while j < n_child:
        tok = parent[i]
        if tok.__class__ is tuple:
            while child[j].__class__ is tuple:
                out.append(i + 1)
                j += 1
            if parent[i + 1].__class__ is int:    # the closing stop merges the parent's stop
                i += 2
            else:
                i += 1
            out.append(i)
        else:                                      # a bare stop, or done
            i += 1
            out.append(i)
        j += 1
    return out


def expanded(parent_pid: int | None, parent: list, child: list, signal_pids=()) -> Firing:
    """A level iterator (no signal), or a locator / repeater following `signal_pids`."""
    steps = _count(len(child))
    needs = {q: steps for q in signal_pids}
    if parent_pid is not None:
        needs[parent_pid] = expand_consumption(parent, child)
    return Firing(steps, needs)


def joined(a_pid: int, b_pid: int, trace: tuple[list[int], list[int], list[int]]) -> Firing:
    taken_a, taken_b, emitted = trace
    return Firing(emitted, {a_pid: taken_a, b_pid: taken_b})


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
    """A sparse accumulator whose rows are the first `row` coordinates of a path."""
    groups: list[list] = []              # [row key, output tokens] in output order
    leading = 0
    for tok in out[:-1]:
        if tok.__class__ is tuple:
            key = tok[0][:row]
            if not groups or groups[-1][0] != key:
                groups.append([key, 0])
            groups[-1][1] += 1
        elif groups:
            groups[-1][1] += 1
        else:
            leading += 1
    emits: list[int] = []
    needs: list[int] = []
    e = c = g = 0
    for tok in stream:
        c += 1
        if tok.__class__ is tuple:
            key = tok[0][:row]
            while g < len(groups) and groups[g][0] < key:
                for _ in range(groups[g][1]):
                    e += 1
                    emits.append(e)
                    needs.append(c)
                g += 1
        elif tok.__class__ is not int:   # done: every row left, then the done token
            for _ in range(leading + sum(n for _, n in groups[g:])):
                e += 1
                emits.append(e)
                needs.append(c)
            e += 1
        emits.append(e)
        needs.append(c)
    if e != len(out):
        return proportional(len(stream), len(out), (pid_in,))
    return Firing(emits, {pid_in: needs})
