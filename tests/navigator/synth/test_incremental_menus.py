"""Menus after a step are worked out from the step before (Oracle._collect_after: only the new
application and its parent are analysed again); they equal the menus of a whole walk of the
sketch, for random libraries and random steps, the default holes' marks and blocked sketches
included."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.synth import Oracle
from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems


def whole_walk(oracle: Oracle, sketch):
    """The menus as a first look at `sketch` finds them (nothing kept from earlier steps)."""
    oracle._collected.clear()
    oracle._menu_cache.clear()
    return oracle.menus(sketch)


def described(menus):
    return menus.to_dict()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=problems(), data=st.data())
def test_menus_after_each_step_equal_a_whole_walk(texts, data):
    library, facts = load(texts)
    stepping = Oracle(library, facts)
    fresh = Oracle(library, facts)
    sketch = stepping.initial_sketch()
    for _ in range(data.draw(st.integers(1, 12))):
        menus = stepping.menus(sketch)
        assert described(menus) == described(whole_walk(fresh, sketch))
        options = list(menus.options())
        if menus.blocked is not None or not options:
            break
        sketch = stepping.apply(sketch, data.draw(st.sampled_from(options)))
