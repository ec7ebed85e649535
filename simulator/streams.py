"""SAM stream primitives over Python token lists (used by the exact executor).

A data token is a tuple `(path, payload)`; a stop token is an int `n` (S_n); a stream ends
with DONE. Every function consumes whole input lists and returns its output list.
"""

from __future__ import annotations

from simulator.fibertree import FiberTree

DONE = "D"


def _expand(parent: list, fiber) -> list:
    """A level iterator: each parent data token opens the fiber `fiber(token)` yields, and the
    fibers are closed by stop tokens one level deeper (S_n in becomes S_{n+1})."""
    out = []
    i, n = 0, len(parent)
    while i < n:
        tok = parent[i]
        if tok.__class__ is tuple:
            out.extend(fiber(tok))
            nxt = parent[i + 1]
            if nxt.__class__ is int:
                out.append(nxt + 1)
                i += 2
                continue
            out.append(0)
        elif tok.__class__ is int:
            out.append(tok + 1)
        else:
            out.append(DONE)
        i += 1
    return out


def scan(parent: list, tree: FiberTree, level: int, key: str) -> list:
    """Compressed level scanner: each parent reference opens its fiber of stored coordinates."""
    pos, crd = tree.pos[level], tree.crd[level]

    def fiber(tok):
        path, ref = tok
        if ref is None:
            return ()
        return [(path + (int(crd[r]),), {key: r}) for r in range(int(pos[ref]), int(pos[ref + 1]))]

    return _expand(parent, fiber)


def dense(parent: list, extent: int, empty: bool = False) -> list:
    """Dense level iterator (every coordinate of the extent), or an empty one."""
    coords = range(0 if empty else extent)
    return _expand(parent, lambda tok: [(tok[0] + (c,), {}) for c in coords])


def join(a: list, b: list, mode: str, trace: bool = False) -> tuple[list, list, tuple[list, list, list]]:
    """Intersect ("and"), union ("or") or left join ("left") two aligned coordinate streams.
    Returns the output, the walked paths (one per cycle that consumed data), and (with `trace`)
    the steps: per cycle of the merge, the tokens of `a` and of `b` consumed and the tokens
    emitted so far."""
    out, walked = [], []
    taken_a, taken_b, emitted = [], [], []
    i = j = 0
    while True:
        ta, tb = a[i], b[j]
        da, db = ta.__class__ is tuple, tb.__class__ is tuple
        if da and db:
            ka, kb = ta[0][-1], tb[0][-1]
            if ka == kb:
                assert ta[0] == tb[0], "joined streams are not aligned"
                walked.append(ta[0])
                out.append((ta[0], {**ta[1], **tb[1]}))
                i += 1
                j += 1
            elif ka < kb:
                walked.append(ta[0])
                if mode != "and":
                    out.append(ta)
                i += 1
            else:
                walked.append(tb[0])
                if mode == "or":
                    out.append(tb)
                j += 1
        elif da:
            walked.append(ta[0])
            if mode != "and":
                out.append(ta)
            i += 1
        elif db:
            walked.append(tb[0])
            if mode == "or":
                out.append(tb)
            j += 1
        else:
            assert ta == tb, "joined streams close fibers differently"
            out.append(ta)
            i += 1
            j += 1
        if trace:
            taken_a.append(i)
            taken_b.append(j)
            emitted.append(len(out))
        if ta == DONE and tb == DONE:
            return out, walked, (taken_a, taken_b, emitted)


def _aligned(parent: list, child: list):
    """Pairs each data token of `child` with the parent token whose path is its prefix."""
    p = 0
    for tok in child:
        if tok.__class__ is tuple:
            prefix = tok[0][:-1]
            while parent[p].__class__ is not tuple or parent[p][0] != prefix:
                p += 1
            yield tok, parent[p][1]
        else:
            yield tok, None


def repeat(parent: list, signal: list) -> list:
    """Repeat each parent payload once per coordinate of its fiber in the signal stream."""
    return [(tok[0], payload) if tok.__class__ is tuple else tok for tok, payload in _aligned(parent, signal)]


def locate(parent: list, signal: list, tree: FiberTree, levels: tuple[int, ...], positions: list[int]) -> list:
    """Child references at dense levels: ref * extent + coordinate, level by level."""
    out = []
    for tok, ref in _aligned(parent, signal):
        if tok.__class__ is not tuple:
            out.append(tok)
            continue
        path = tok[0]
        if ref is not None:
            for s, k in zip(levels, positions):
                ref = tree.locate(s, ref, path[k])
                if ref is None:
                    break
        out.append((path, ref))
    return out


def extract(stream: list, key: str) -> list:
    return [(t[0], t[1].get(key)) if t.__class__ is tuple else t for t in stream]


def array(refs: list, tree: FiberTree) -> list:
    """The value stream of a tensor's references. A pattern (a tensor the fast executor wrote
    without numerics) reads as zeros: tokens and steps do not depend on values."""
    values = tree.values
    if values is None:
        return [(t[0], 0.0) if t.__class__ is tuple else t for t in refs]
    return [(t[0], float(values[t[1]]) if t[1] is not None else 0.0) if t.__class__ is tuple else t
            for t in refs]


def alu(fn, *streams) -> list:
    out = []
    for toks in zip(*streams):
        first = toks[0]
        if first.__class__ is tuple:
            out.append((first[0], fn(*[t[1] for t in toks])))
        else:
            out.append(first)
    return out


def emit_tree(levels: list[list[tuple]], value) -> list:
    """A stream over nested path sets (levels[e]: sorted paths of length e+1), SAM style:
    each fiber closes with one stop, merged into the enclosing fiber's stop when it is last."""
    depth = len(levels)
    if depth == 0:
        return [((), value(())), DONE]
    children: list[dict] = [dict() for _ in range(depth)]
    children[0][()] = levels[0]
    for e in range(1, depth):
        table = children[e]
        for p in levels[e]:
            table.setdefault(p[:-1], []).append(p)
    out: list = []

    def visit(node: tuple, e: int) -> None:
        if e == depth:
            out.append((node, value(node)))
            return
        start = len(out)
        for child in children[e].get(node, ()):
            visit(child, e + 1)
        stop = depth - 1 - e
        if len(out) > start and out[-1].__class__ is int:
            out[-1] = stop
        else:
            out.append(stop)

    visit((), 0)
    out.append(DONE)
    return out


def scalar(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return 0.0 if a == 0 or b == 0 else a * b    # 0 * NaN is 0, as for an unstored zero
    return a / b if b != 0 else 0.0
