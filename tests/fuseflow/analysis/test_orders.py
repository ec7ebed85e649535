"""Legal orders equal all permutations filtered by concordance; counts and ranks agree."""

import itertools

from hypothesis import given, settings, strategies as st

from fuseflow.analysis.orders import OrderSpace


@st.composite
def order_spaces(draw):
    n = draw(st.integers(1, 6))
    names = tuple(f"v{i}" for i in range(n))
    # Random chains like storage orders of sparse operands; cycles are possible and must give 0.
    chains = draw(st.lists(st.lists(st.sampled_from(names), min_size=2, max_size=4, unique=True), max_size=4)) if n > 1 else []
    pairs = frozenset((a, b) for chain in chains for a, b in zip(chain, chain[1:]))
    return OrderSpace(names, pairs)


def concordant(order, pairs):
    position = {v: i for i, v in enumerate(order)}
    return all(position[a] < position[b] for a, b in pairs)


@settings(max_examples=300, deadline=None)
@given(order_spaces())
def test_enumeration_equals_filtered_permutations(space):
    brute = [p for p in itertools.permutations(space.vars) if concordant(p, space.pairs)]
    listed = list(space)
    assert sorted(listed) == sorted(brute)
    assert len(set(listed)) == len(listed)
    assert space.count() == len(brute)


@settings(max_examples=200, deadline=None)
@given(order_spaces(), st.data())
def test_prefix_counts_and_unrank(space, data):
    listed = list(space)
    for rank, order in enumerate(listed):
        assert space.unrank(rank) == order
        assert space.is_legal(order)
    if listed:
        order = data.draw(st.sampled_from(listed))
        cut = data.draw(st.integers(0, len(order)))
        prefix = order[:cut]
        assert space.count(prefix) == sum(1 for o in listed if o[:cut] == prefix)
        assert set(space.next_choices(prefix)) == {o[cut] for o in listed if o[:cut] == prefix and cut < len(o)}


@settings(max_examples=100, deadline=None)
@given(order_spaces())
def test_violated_names_a_broken_constraint(space):
    for perm in itertools.permutations(space.vars):
        broken = space.violated(perm)
        assert (broken is None) == concordant(perm, space.pairs)
        if broken:
            assert broken in space.pairs


def test_counting_does_not_enumerate_a_large_space():
    names = tuple(f"v{i}" for i in range(16))
    space = OrderSpace(names, frozenset({("v0", "v1"), ("v1", "v2")}))
    # 16! / 3! orders: far too many to list, counted exactly.
    assert space.count() == 20922789888000 // 6


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.just(tuple(f"v{i}" for i in range(n))),
    st.frozensets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] < p[1])))))
def test_orders_ending_with_each_variable_partition_the_orders(case):
    names, raw = case
    space = OrderSpace(names, frozenset((names[a], names[b]) for a, b in raw))
    listed = list(space)
    assert list(space.listed()) == listed
    for var in names:
        assert space.count_ending_with(var) == sum(1 for order in listed if order[-1] == var)
    assert sum(space.count_ending_with(v) for v in names) == space.count() == len(listed)
