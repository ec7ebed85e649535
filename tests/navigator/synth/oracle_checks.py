"""Loading a random problem and comparing the oracle with the reference semantics; shared by
the property tests and the tests of the engine's evaluation strategies."""

from __future__ import annotations

from navigator.lang import parse_facts, parse_library
from navigator.synth import Oracle

from tests.navigator.synth.reference import INF, Reference


def load(texts):
    library_text, facts_text = texts
    library = parse_library(library_text, "random.hblib.toml")
    return library, parse_facts(facts_text, library, "random.hb.toml")


def as_ref(count):
    return INF if count.unbounded else count.value


def assert_oracle_matches_reference(library, facts, walk_steps: int = 0) -> None:
    """Inhabitation and every pair's count equal the reference's; then, along a walk of up to
    `walk_steps` steps (the middle option each time), so does each sketch's total."""
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    for type_name in library.types:
        assert set(oracle.inhabited[type_name]) == ref.inhabited[type_name]
        for meta in ref.inhabited[type_name]:
            assert as_ref(oracle.counts.value(type_name, meta)) == ref.value_count(type_name, meta)
    sketch = oracle.initial_sketch()
    for _ in range(walk_steps):
        menus = oracle.menus(sketch)
        assert as_ref(menus.total) == ref.completions(sketch)
        options = list(menus.options())
        if not options:
            break
        sketch = oracle.apply(sketch, options[len(options) // 2])
