"""Distinct keys come from fuseflow.support.arrays: numpy's hash-based `np.unique(x)` (and
`np.union1d`) took 37 of 75 s of a `compare` on the OGB-Collab-shaped graph."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuseflow.support.arrays import union_sorted, unique_sorted

ROOT = Path(__file__).resolve().parents[1]
#: keywords that make np.unique sort (it returns what only a sort gives)
SORTING = {"return_index", "return_inverse", "return_counts", "axis"}


def _slow_set_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        if name in ("union1d",) or (name == "unique" and not SORTING & {k.arg for k in node.keywords}):
            if isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy"):
                yield node.lineno, name


def test_library_code_takes_distinct_keys_by_sorting():
    found = [f"{path.relative_to(ROOT)}:{line} np.{name}"
             for package in ("fuseflow", "simulator", "navigator")
             for path in sorted((ROOT / package).rglob("*.py"))
             for line, name in _slow_set_calls(ast.parse(path.read_text(), str(path)))]
    assert found == [], "use fuseflow.support.arrays.unique_sorted / union_sorted: " + ", ".join(found)


keys = st.lists(st.integers(-2 ** 40, 2 ** 40), max_size=60).map(lambda x: np.array(x, dtype=np.int64))


@given(keys, keys)
def test_the_sorting_forms_equal_numpys(a, b):
    assert np.array_equal(unique_sorted(a), np.unique(a))
    assert np.array_equal(union_sorted(a, b), np.union1d(a, b))
    assert unique_sorted(a).dtype == a.dtype
