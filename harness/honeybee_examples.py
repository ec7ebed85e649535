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


# A problem whose every program is a chain `n` applications deep under the goal (Peano numbers:
# `Succ` facts count up to the goal's n): sketches as deep as the engine allows
# (navigator.synth.sketch.MAX_SKETCH_DEPTH) for the tests of deep sessions. Two functions step
# down at each level, so nothing is forced: there are 2^n programs, and a fill makes n + 1 steps.
DEEP = """
[[Preamble]]
content = '''
import sys
'''

[Prop.Succ]
params.n = "Int"
params.next = "Int"

[Type.Nat]
params.n = "Int"
info.code = '''
class Nat:
    def __init__(self, path, n):
        self.path, self.n = path, n
'''

[Function.zero]
params = {}
ret = "Nat"
condition = ["ret.n = 0"]
default = true
info.title = "Zero"
info.code = '''
print(__hb_ret.n)
'''

[Function.succ]
params.prev = "Nat"
ret = "Nat"
condition = ["Succ { n = prev.n, next = ret.n }"]
default = true
info.title = "One more"
info.code = '''
print(__hb_prev.n + 1)
'''

[Function.also_succ]
params.prev = "Nat"
ret = "Nat"
condition = ["Succ { n = prev.n, next = ret.n }"]
info.title = "One more, another way"
info.code = '''
print(1 + __hb_prev.n)
'''
"""


def deep_facts_text(n: int) -> str:
    """The problem whose programs nest n + 1 applications: the goal Nat{n} and the Succ facts below it."""
    facts = "".join(f'[[Prop]]\nname = "Succ"\nargs = {{ n = {i}, next = {i + 1} }}\n' for i in range(n))
    return facts + f'[Goal]\nname = "Nat"\nargs = {{ n = {n} }}\n'


def deep(n: int):
    library = parse_library(DEEP, "deep.hblib.toml")
    return library, parse_facts(deep_facts_text(n), library, f"deep{n}.hb.toml")


def write_deep(folder: Path, n: int) -> tuple[Path, Path]:
    """The deep problem's files in `folder`: (problem, library)."""
    problem, library = folder / f"deep{n}.hb.toml", folder / "deep.hblib.toml"
    problem.write_text(deep_facts_text(n), encoding="utf-8")
    library.write_text(DEEP, encoding="utf-8")
    return problem, library
