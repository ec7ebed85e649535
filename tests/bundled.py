"""Which bundled programs the tests that enumerate every fusion grouping can take."""

from fuseflow.bundled import bundled_program_names

#: Bundled programs whose fusion groupings cannot be listed one by one (they pass the grouping
#: budget: transformer_block has 23 ops, transformer12 276). Tests that enumerate groupings, regions
#: or facts leave them out until the region-by-region fusion lands; the tests that need no
#: enumeration (the default schedule's simulation, tests/simulator/test_bundled_defaults.py) run them.
LARGE_PROGRAMS = frozenset({"transformer_block", "transformer12"})


def enumerable_program_names() -> list[str]:
    """The bundled programs without LARGE_PROGRAMS."""
    return [name for name in bundled_program_names() if name not in LARGE_PROGRAMS]
