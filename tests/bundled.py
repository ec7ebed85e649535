"""Which bundled programs the tests that enumerate every fusion grouping can take."""

from fuseflow.program.bundled import bundled_program_names

#: Bundled programs whose fusion groupings cannot be listed one by one (they pass the grouping
#: budget: transformer_block has about 1.7 million, transformer12 about 4e76). Only the tests that
#: enumerate groupings (comparing against `fusion.legal_groupings`, or simulating many of them)
#: leave them out; navigation, counting and the fusion steps are tested on them
#: (tests/fuseflow/analysis/test_fusion_steps.py, tests/navigator/commands/test_large_programs.py).
LARGE_PROGRAMS = frozenset({"transformer_block", "transformer12"})


def enumerable_program_names() -> list[str]:
    """The bundled programs without LARGE_PROGRAMS."""
    return [name for name in bundled_program_names() if name not in LARGE_PROGRAMS]
