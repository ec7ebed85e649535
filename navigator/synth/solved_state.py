"""An oracle's solved tables and counts as JSON data, and back (what a cache keeps).

Solving is what every process pays to open a large program (transformer12: 100,000 tables
and 91,000 counts, 1.3 s); decoding them back takes about a third of that. The form interns
what repeats: every value once (`values`), every metadata tuple once per type (`metas`, as
value indices), and tables and counts refer to metadata by index. Counts past 2^53 are hex
strings (JSON numbers that long would be decoded in quadratic time). N_f is kept only where
it is not N of a pair's one deriving function, A and A_f only where they exist.

Only what is exact is kept: finished tables, and pairs that are counted. An inhabited pair
whose count was not settled yet is left out, so it is evaluated again, with the derivations
its count needs. Plans, heights and menus are rebuilt on demand as before.

`restore` raises (ValueError, KeyError, TypeError, IndexError) on data of another shape;
the caller solves from scratch then.
"""

from __future__ import annotations

from typing import Any

from navigator.synth.compiled import Meta
from navigator.synth.counting import DerivationCounts
from navigator.synth.inhabitation import Tables

#: the layout of the data; change it when the form changes
FORMAT = 1
_EXACT_INT = 2 ** 53


class _Interner:
    def __init__(self) -> None:
        self.values: list = []
        self._value_ids: dict[tuple[type, Any], int] = {}
        self.metas: dict[str, list[list[int]]] = {}
        self._meta_ids: dict[str, dict[Meta, int]] = {}

    def value(self, v) -> int:
        key = (v.__class__, v)  # True and 1 are equal keys otherwise
        found = self._value_ids.get(key)
        if found is None:
            found = self._value_ids[key] = len(self.values)
            self.values.append(v)
        return found

    def meta(self, type_name: str, meta: Meta) -> int:
        ids = self._meta_ids.get(type_name)
        if ids is None:
            ids = self._meta_ids[type_name] = {}
            self.metas[type_name] = []
        found = ids.get(meta)
        if found is None:
            found = ids[meta] = len(ids)
            self.metas[type_name].append([self.value(v) for v in meta])
        return found


def snapshot(tables: Tables, counts: DerivationCounts, goal_type: str, goal_metadata: list[Meta]) -> dict:
    """The solved state as JSON data."""
    interner = _Interner()
    meta = interner.meta
    counted = counts._n
    groups = []
    for (type_name, positions), group in tables._groups.items():
        if positions == tables.full_positions[type_name]:
            inhabited = [meta(type_name, m) for m, found in group.items()
                         if found.__class__ is tuple and found and (type_name, m) in counted]
            empty = [meta(type_name, m) for m, found in group.items() if found.__class__ is tuple and not found]
            groups.append([type_name, list(positions), inhabited, empty])
        else:
            groups.append([type_name, list(positions),
                           [[[interner.value(v) for v in values], [meta(type_name, a) for a in found]]
                            for values, found in group.items() if found.__class__ is tuple]])
    deriver_ids: dict[tuple[int, ...], int] = {}
    per_type: dict[str, list[list]] = {}
    for (type_name, m), n in counted.items():
        derivers = counts._derivers[(type_name, m)]
        index = deriver_ids.setdefault(derivers, len(deriver_ids))
        row = per_type.setdefault(type_name, [[], [], []])
        row[0].append(meta(type_name, m))
        row[1].append(_encode(n))
        row[2].append(index)
    functions = counts.functions
    by_function = []
    for (fi, m), n in counts._nf.items():
        type_name = functions[fi].ret_type
        if counts._derivers.get((type_name, m)) == (fi,) and counted.get((type_name, m)) == n:
            continue
        by_function.append([fi, meta(type_name, m), _encode(n)])
    return {
        "format": FORMAT,
        "values": interner.values,
        "metas": interner.metas,
        "groups": groups,
        "counts": per_type,
        "derivers": [list(d) for d in deriver_ids],
        "by_function": by_function,
        "with_aliases": [[t, meta(t, m), _encode(n)] for (t, m), n in counts._a.items()],
        "by_function_with_aliases": [[fi, meta(functions[fi].ret_type, m), _encode(n)]
                                     for (fi, m), n in counts._af.items()],
        "goal": [meta(goal_type, m) for m in goal_metadata],
    }


def restore(data: dict, tables: Tables, counts: DerivationCounts, goal_type: str) -> list[Meta]:
    """Fill fresh `tables` and `counts` from `snapshot`'s data; the goal's metadata."""
    if data["format"] != FORMAT:
        raise ValueError("another format")
    values = data["values"]
    metas = {type_name: [tuple([values[i] for i in m]) for m in rows] for type_name, rows in data["metas"].items()}
    full = tables.full_positions
    groups: dict = {}
    for entry in data["groups"]:
        type_name, positions = entry[0], tuple(entry[1])
        of_type = metas.get(type_name, ())
        if positions != full[type_name] or len(entry) != 4:
            (rows,) = entry[2:]
            groups[(type_name, positions)] = {tuple([values[i] for i in key]): tuple([of_type[i] for i in found])
                                              for key, found in rows}
            continue
        group = {}
        for i in entry[2]:
            m = of_type[i]
            group[m] = (m,)
        for i in entry[3]:
            group[of_type[i]] = ()
        groups[(type_name, positions)] = group
    derivers = [tuple(d) for d in data["derivers"]]
    n, nf, by = counts._n, counts._nf, counts._derivers
    for type_name, (indices, numbers, deriving) in data["counts"].items():
        of_type = metas[type_name]
        for i, number, d in zip(indices, numbers, deriving):
            m = of_type[i]
            value = _decode(number)
            n[(type_name, m)] = value
            functions = by[(type_name, m)] = derivers[d]
            if len(functions) == 1:
                nf[(functions[0], m)] = value
    ret_type = [cf.ret_type for cf in counts.functions]
    for fi, i, number in data["by_function"]:
        nf[(fi, metas[ret_type[fi]][i])] = _decode(number)
    for type_name, i, number in data["with_aliases"]:
        counts._a[(type_name, metas[type_name][i])] = _decode(number)
    for fi, i, number in data["by_function_with_aliases"]:
        counts._af[(fi, metas[ret_type[fi]][i])] = _decode(number)
    tables._groups.update(groups)
    return [metas[goal_type][i] for i in data["goal"]]


def _encode(n: int | None) -> int | str | None:
    return n if n is None or n < _EXACT_INT else format(n, "x")


def _decode(number) -> int | None:
    if number is None or number.__class__ is int:
        return number
    if number.__class__ is not str:
        raise TypeError("a count is a whole number, a hex string or null")
    return int(number, 16)
