"""Draw complete schedules uniformly at random, using the menus' exact counts.

The space sampled is the programs built without aliases. A library marks a shortcut with
`alias = true` (the FuseFlow library's `default_schedule`): every program built through it is
also built without it, so drawing it would give those programs a second chance. The counts
leave alias derivations out everywhere (docs/engine.md#counting), and the sampler never takes
an alias option.

Why this is uniform: at each step take the lowest open hole. Every completion of the current
sketch (without aliases in its holes) fills that hole with exactly one offered option that is
not an alias, and such an option's `count` is the number of completions that go through it,
so the counts of the non-alias options at that hole partition the completions. Picking
option o with probability count(o) / Σ count gives every completion the probability

    count(o1)/total · count(o2)/count(o1) · … · 1/count(ok) = 1/total

(the product telescopes, since after a step the new total is the option's count). Nothing is
enumerated; the counts are exact Python integers, so this works for spaces of 10^16 schedules.
"""

from __future__ import annotations

import bisect
import random

from fuseflow.support.errors import UserError
from fuseflow.support.memory import ResourceError
from navigator.synth import MenuOption, Oracle, Sketch
from navigator.synth.inhabitation import gc_paused
from navigator.synth.lookup_budget import MAX_AUTO_STEPS


class SamplingError(UserError):
    """The space cannot be sampled uniformly (unbounded, or empty)."""


class UniformSampler:
    """Samples complete sketches of one oracle; memoizes the per-sketch choices it computed."""

    def __init__(self, oracle: Oracle, *, memo_limit: int = 200_000, max_steps: int = MAX_AUTO_STEPS):
        self.oracle = oracle
        self.max_steps = max_steps
        self._where = ", ".join(oracle.library.sources) or None
        self._memo: dict[Sketch, tuple[list[MenuOption], list[int]]] = {}
        self._memo_limit = memo_limit

    def size(self, sketch: Sketch | None = None) -> int:
        """How many complete sketches `sample` chooses among (those built without aliases)."""
        sketch = sketch or self.oracle.initial_sketch()
        if sketch.complete:
            return 1
        return self._choices(sketch)[1][-1]

    def _choices(self, sketch: Sketch) -> tuple[list[MenuOption], list[int]]:
        cached = self._memo.get(sketch)
        if cached is not None:
            return cached
        menus = self.oracle.menus(sketch)
        if menus.blocked:
            raise SamplingError(f"the space is empty: {menus.blocked}", where=self._where,
                                fix="the library's conditions admit no complete program for these facts; check them "
                                    "against the facts (`navigator facts PROGRAM` shows them)")
        menu = menus.for_hole(sketch.lowest_hole().id)  # only this hole's menu is built
        options = [o for o in menu.options if not o.alias]
        unbounded = [o.id for o in options if o.count.unbounded]
        if unbounded:
            raise SamplingError(f"?{menu.hole} leads to unboundedly many programs (through {unbounded[0]})",
                                where=self._where,
                                fix="uniform sampling needs a finite space; use a library without recursion "
                                    "that can grow without limit")
        cumulative, running = [], 0
        for option in options:
            running += option.count.value
            cumulative.append(running)
        if running == 0:
            raise SamplingError(f"?{menu.hole} offers nothing to sample", where=self._where,
                                fix="only shortcuts (alias = true) complete it: the library builds no program "
                                    "here without them")
        if len(self._memo) >= self._memo_limit:
            self._memo.clear()
        self._memo[sketch] = (options, cumulative)
        return options, cumulative

    def sample(self, rng: random.Random, sketch: Sketch | None = None) -> Sketch:
        """One complete sketch extending `sketch` (default ?0), uniformly at random, in at
        most `max_steps` steps."""
        sketch = sketch or self.oracle.initial_sketch()
        with gc_paused():   # thousands of steps build trees, which hold no cycles
            return self._walk(rng, sketch)

    def _walk(self, rng: random.Random, sketch: Sketch) -> Sketch:
        steps = 0
        while not sketch.complete:
            steps += 1
            if steps > self.max_steps:
                raise ResourceError(
                    f"a sampled program needs more than {self.max_steps:,} steps: the library's programs are "
                    "too large to build one step at a time", where=self._where,
                    fix="make the library's recursion end sooner")
            options, cumulative = self._choices(sketch)
            pick = rng.randrange(cumulative[-1])
            sketch = self.oracle.apply(sketch, options[bisect.bisect_right(cumulative, pick)])
        return sketch


def sample_schedules(space, n: int, seed: int | None = None) -> list:
    """`n` schedules of a ScheduleSpace, drawn independently and uniformly (repeats possible)."""
    sampler = UniformSampler(space.oracle)
    rng = random.Random(seed)
    return [space.schedule_of(sampler.sample(rng)) for _ in range(n)]
