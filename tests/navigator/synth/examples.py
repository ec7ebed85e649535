"""Shared example problems for the engine tests."""

from __future__ import annotations

from navigator.lang import load_facts, load_library, parse_facts, parse_library
from tests.paths import NAVIGATOR_DATA

SCHED_LIBRARY = NAVIGATOR_DATA / "sched.hblib.toml"
SCHED_FACTS = NAVIGATOR_DATA / "sched.hb.toml"


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
