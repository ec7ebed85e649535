"""Which typed values are derivable: the least fixpoint of the library's rules.

Read each function as a Datalog rule: `Ret(m)` holds if every parameter type holds at some
metadata and the condition is satisfied. Starting from nothing, apply rules until no new
(type, metadata) pair appears. Metadata ranges over the finite domain, so this terminates
even for recursive libraries whose programs are infinitely many. A pair is in the result
exactly when at least one complete program of that type with that metadata exists.
"""

from __future__ import annotations

import itertools
from collections import deque

from navigator.synth.compiled import CompiledFunction, FactIndex, Meta
from navigator.synth.domain import Domain
from navigator.synth.solver import ComponentResult, solve


def assemble_ret(cf: CompiledFunction, components: list[ComponentResult],
                 keys_of=lambda c: c.keys) -> list[Meta]:
    """Every return metadata the components allow: the product of their return keys."""
    arity = len(cf.slot_fields[0])
    with_ret = [c for c in components if c.ret_fields]
    if not with_ret:
        return [()] if arity == 0 else []
    out = []
    key_lists = [sorted(keys_of(c), key=_sort_key) for c in with_ret]
    for combo in itertools.product(*key_lists):
        meta = [None] * arity
        for comp, key in zip(with_ret, combo):
            for f, v in zip(comp.ret_fields, key):
                meta[f] = v
        out.append(tuple(meta))
    return out


def _sort_key(values: tuple) -> tuple:
    return tuple((type(v).__name__, v) for v in values)


def compute_inhabited(functions: tuple[CompiledFunction, ...], type_names, domain: Domain,
                      facts: FactIndex) -> dict[str, list[Meta]]:
    """The inhabited metadata of every type, each list in discovery order."""
    found: dict[str, set[Meta]] = {t: set() for t in type_names}
    ordered: dict[str, list[Meta]] = {t: [] for t in type_names}
    dependents: dict[str, list[CompiledFunction]] = {t: [] for t in type_names}
    for cf in functions:
        for t in set(cf.slot_types[1:]):
            dependents[t].append(cf)

    queue = deque(functions)
    queued = {cf.index for cf in functions}
    while queue:
        cf = queue.popleft()
        queued.discard(cf.index)
        # Snapshot the candidate lists: they must not grow while this rule is solved.
        snapshot = {s: list(ordered[cf.slot_types[s]]) for s in range(1, cf.arity + 1)}
        components = solve(cf, {}, snapshot.__getitem__, domain, facts, project=True)
        if components is None:
            continue
        ret_type = cf.ret_type
        grew = False
        for meta in assemble_ret(cf, components):
            if meta not in found[ret_type]:
                found[ret_type].add(meta)
                ordered[ret_type].append(meta)
                grew = True
        if grew:
            for dependent in dependents[ret_type]:
                if dependent.index not in queued:
                    queued.add(dependent.index)
                    queue.append(dependent)
    return ordered
