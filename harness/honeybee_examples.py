"""Example Honeybee problems for the engine's tests, the fuzz corpus and the CLI benchmark: `sched`
(harness/data: a small scheduling library and its facts, with the steps of one complete program)
and `recursive` (Honeybee's "eventually stabilize" shape: infinitely many programs)."""

from __future__ import annotations

from pathlib import Path

from navigator.lang import load_facts, load_library, parse_facts, parse_library

DATA = Path(__file__).resolve().parent / "data"
SCHED_LIBRARY = DATA / "sched.hblib.toml"
SCHED_FACTS = DATA / "sched.hb.toml"

#: the steps, from ?0, of one complete program of `sched` (holes as they are numbered when taken)
SCHED_STEPS = [
    (0, "unfused_schedule{fused=false}"),
    (1, 'choose_grouping{groups="0|1", regions=2}'),
    (2, "region_schedule{region=0}"),
    (4, 'choose_order{region=0, order="i j"}'),
    (5, 'par_level{region=0, order="i j", level=0, extent=64, factor=4}'),
    (6, 'choose_order{region=0, order="i j"}'),
    (3, "region_schedule{region=1}"),
    (7, 'choose_order{region=1, order="i k"}'),
    (8, 'par_level{region=1, order="i k", level=0, extent=2, factor=2}'),
    (9, 'choose_order{region=1, order="i k"}'),
]


def sched():
    library = load_library(SCHED_LIBRARY)
    return library, load_facts(SCHED_FACTS, library)


# Honeybee's "eventually stabilize" shape: recursion whose programs are infinitely many.
RECURSIVE = '''
[Prop.In]
params.x = "Int"
[Type.Choice]
params.x = "Int"
[Type.ES]
params.count = "Int"
[Function.choose]
params = {}
ret = "Choice"
condition = ["In { x = ret.x }"]
[Function.es_lt]
params.in = "ES"
ret = "ES"
condition = ["ret.count < in.count"]
[Function.es_eq]
params.in = "ES"
ret = "ES"
condition = ["ret.count = in.count"]
[Function.es_end]
params.in = "Choice"
ret = "ES"
condition = ["ret.count = in.x"]
'''
RECURSIVE_FACTS = '''
[[Prop]]
name = "In"
args.x = 3
[[Prop]]
name = "In"
args.x = 5
[Goal]
name = "ES"
args = { count = 3 }
'''


def recursive():
    library = parse_library(RECURSIVE, "recursive.hblib.toml")
    return library, parse_facts(RECURSIVE_FACTS, library, "recursive.hb.toml")
