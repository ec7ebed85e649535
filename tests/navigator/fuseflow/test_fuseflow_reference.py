"""The real FuseFlow library (its recursive Regions and Levels lists included) against the
brute-force reference, on facts small enough for brute force: one grouping of two regions,
one of them with a two-level order. Inhabitation (over the whole domain, where `Levels` and
`Regions` are inhabited for every string), every count, and every menu of a walk are
compared."""

from __future__ import annotations

from navigator.lang import parse_facts, parse_library
from navigator.synth import Oracle

from tests.navigator.fuseflow.fuseflow_snapshots import LIBRARY
from tests.navigator.synth.reference import INF, Reference

FACTS = """
[[Prop]]
name = "Program"
args = { name = "p" }
[[Prop]]
name = "LegalGrouping"
args = { program = "p", grouping = "a", regions = 1, is_default = true }
[[Prop]]
name = "LegalGrouping"
args = { program = "p", grouping = "i", regions = 2, is_default = false }
[[Prop]]
name = "GroupRegion"
args = { grouping = "a", index = 0, region = "a" }
[[Prop]]
name = "GroupRegion"
args = { grouping = "i", index = 0, region = "a" }
[[Prop]]
name = "GroupRegion"
args = { grouping = "i", index = 1, region = "i" }
[[Prop]]
name = "LegalOrder"
args = { region = "a", order = "i", levels = 2, inner = "a", is_default = true }
[[Prop]]
name = "LegalOrder"
args = { region = "i", order = "a", levels = 1, inner = "i", is_default = true }
[[Prop]]
name = "OrderLevel"
args = { region = "a", order = "i", level = 0, var = "i" }
[[Prop]]
name = "OrderLevel"
args = { region = "a", order = "i", level = 1, var = "a" }
[[Prop]]
name = "OrderLevel"
args = { region = "i", order = "a", level = 0, var = "i" }
[[Prop]]
name = "ParFactor"
args = { region = "a", var = "i", factor = 1 }
[[Prop]]
name = "ParFactor"
args = { region = "a", var = "i", factor = 2 }
[[Prop]]
name = "ParFactor"
args = { region = "a", var = "a", factor = 1 }
[[Prop]]
name = "ParFactor"
args = { region = "i", var = "i", factor = 1 }
[[Prop]]
name = "StreamShape"
args = { region = "a", var = "a", shape = 1 }
[[Prop]]
name = "StreamShape"
args = { region = "a", var = "a", shape = 2 }
[[Prop]]
name = "StreamShape"
args = { region = "i", var = "i", shape = 1 }
[[Prop]]
name = "BlockSparse"
args = { region = "a", enabled = false }
[[Prop]]
name = "BlockSparse"
args = { region = "i", enabled = false }
[[Prop]]
name = "BlockSparse"
args = { region = "i", enabled = true }
[[Prop]]
name = "Succ"
args = { n = 0, next = 1 }
[[Prop]]
name = "Succ"
args = { n = 1, next = 2 }
[Goal]
name = "Schedule"
args = { program = "p" }
"""


def as_ref(count):
    return INF if count.unbounded else count.value


def test_fuseflow_library_matches_the_brute_force_reference():
    library = parse_library(LIBRARY.read_text(encoding="utf-8"), str(LIBRARY))
    facts = parse_facts(FACTS, library, "tiny.hb.toml")
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    # A fresh oracle answers menus before anything forces whole-domain tables.
    sketch = oracle.initial_sketch()
    rounds = 0
    while True:
        menus = oracle.menus(sketch)
        assert as_ref(menus.total) == ref.completions(sketch)
        if sketch.complete:
            break
        first = menus.holes[0]
        for hole in sketch.holes()[:1]:  # the hole the walk fills next, fully
            expected = {}
            for decl in library.functions_returning(hole.type):
                for meta in ref.metas[decl.ret]:
                    names = library.types[decl.ret].field_names
                    after = sketch.fill(hole.id, decl.name, tuple(zip(names, meta)),
                                        tuple((p.name, p.type) for p in decl.params))
                    count = ref.completions(after)
                    if count != 0:
                        expected[(decl.name, meta)] = count
            offered = {(o.function, o.meta): o for o in menus.for_hole(hole.id).options}
            assert set(offered) == set(expected), f"at ?{hole.id}"
            for key, option in offered.items():
                assert as_ref(option.count) == expected[key], key
                assert as_ref(option.subtree_count) == ref.subtree_count(*key), key
        # walk through the non-default grouping (two regions) to reach both recursions
        option = first.options[-1] if first.type == "Fusion" else (
            first.default or first.options[0])
        if first.type == "Schedule":
            option = first.default
        sketch = oracle.apply(sketch, option)
        rounds += 1
    assert rounds >= 20
    for type_name in library.types:
        assert set(oracle.inhabited[type_name]) == ref.inhabited[type_name], type_name
        for meta in ref.inhabited[type_name]:
            assert as_ref(oracle.counts.value(type_name, meta)) == \
                ref.value_count(type_name, meta), (type_name, meta)
