"""The oracle against independent reference semantics, on random small libraries.

1. Menus are exactly the sound steps: at every state of a random walk, the options at each
   hole are precisely the (function, metadata) fills after which the reference finds a
   completion (this is strong soundness, and completeness step by step).
2. Every complete program up to a size bound, enumerated explicitly, is reachable through
   offered steps alone (strong completeness), also via `navigator.navigation.replay`.
3. Counts: every option's count (whole programs after the step), subtree count and the
   menu total equal the reference's; "unbounded" exactly when the reference finds trees
   deeper than the number of inhabited pairs; and finite counts match explicit
   enumeration whenever every program fits within the size bound.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.navigation.replay import replay
from navigator.synth import Oracle, sketch_to_json

from tests.navigator.synth.oracle_checks import as_ref, assert_oracle_matches_reference, load
from tests.navigator.synth.random_problems import problems
from tests.navigator.synth.reference import INF, Reference

def examples(n):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def fill(library, sketch, hole_id, function, meta):
    decl = library.functions[function]
    names = library.types[decl.ret].field_names
    return sketch.fill(hole_id, function, tuple(zip(names, meta)),
                       tuple((p.name, p.type) for p in decl.params))


@examples(400)
@given(texts=problems(), data=st.data())
def test_menus_are_exactly_the_completable_steps(texts, data):
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    sketch = oracle.initial_sketch()
    for _ in range(5):
        menus = oracle.menus(sketch)
        assert as_ref(menus.total) == ref.completions(sketch)
        assert menus.completable == (ref.completions(sketch) != 0)
        for hole in sketch.holes():
            expected = {}
            for decl in library.functions_returning(hole.type):
                for meta in ref.metas[decl.ret]:
                    count = ref.completions(fill(library, sketch, hole.id, decl.name, meta))
                    if count != 0:
                        expected[(decl.name, meta)] = count
            menu = menus.for_hole(hole.id)
            offered = {(o.function, o.meta): o for o in menu.options}
            assert set(offered) == set(expected), f"at ?{hole.id}"
            for key, option in offered.items():
                assert as_ref(option.count) == expected[key], key
                assert as_ref(option.subtree_count) == ref.subtree_count(*key), key
            assert len({o.id for o in menu.options}) == len(menu.options)
            assert sum(o.is_default for o in menu.options) <= 1
        options = list(menus.options())
        if not options or len(sketch.holes()) > 4:
            break
        sketch = oracle.apply(sketch, data.draw(st.sampled_from(options)))


@examples(200)
@given(texts=problems())
def test_every_small_program_is_reachable_and_counted(texts):
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    ref = Reference(library, facts)
    bound = 6
    programs, exhaustive = ref.goal_programs(bound)
    for program, size in programs[:40]:
        sketch = oracle.initial_sketch()
        targets = {0: program}
        while not sketch.complete:
            menus = oracle.menus(sketch)
            hole = sketch.holes()[0]
            node = targets.pop(hole.id)
            option = menus.find(hole.id, node.function, node.metadata_dict())
            assert option is not None, f"{node.function}{node.metadata} not offered at ?{hole.id}"
            first = sketch.next_hole
            sketch = oracle.apply(sketch, option)
            for i, (_, child) in enumerate(node.args):
                targets[first + i] = child
        assert sketch.root == program
        assert oracle.count(sketch).value == 1
    for program, size in programs[:10]:
        report = replay(library, facts, sketch_to_json_program(program))
        assert report.reached and len(report.rounds) == size

    if not exhaustive:
        return
    root_menu = oracle.menus(oracle.initial_sketch()).holes[0]
    for option in root_menu.options:
        found = sum(1 for p, _ in programs if p.function == option.function and p.meta == option.meta)
        if option.count.unbounded:
            # Programs of every depth exist beneath it (reference: deeper than the bound).
            assert ref.subtree_count(option.function, option.meta) is INF
            continue
        assert found <= option.count.value
        if max_size(ref, option.function, option.meta) <= bound:
            assert found == option.count.value, option.id


def sketch_to_json_program(program):
    from navigator.synth.sketch import Sketch
    return sketch_to_json(Sketch(program, 0))


def max_size(ref, function, meta, memo=None):
    """Largest program rooted at (function, meta) in a finite space (reference data only)."""
    memo = {} if memo is None else memo
    decl = ref.library.functions[function]
    best = 0
    for d, children in ref.by_label[(decl.ret, meta)]:
        if d.name != function:
            continue
        size = 1
        for p, c in zip(decl.params, children):
            size += _label_max(ref, p.type, c, memo)
        best = max(best, size)
    return best


def _label_max(ref, type_name, meta, memo):
    key = (type_name, meta)
    if key not in memo:
        memo[key] = max((max_size(ref, d.name, meta, memo) for d, _ in ref.by_label[key]),
                        default=0)
    return memo[key]


@examples(300)
@given(texts=problems())
def test_inhabitation_matches_reference(texts):
    assert_oracle_matches_reference(*load(texts))


@examples(100)
@given(texts=problems(), data=st.data())
def test_random_walk_survives_json_save_load_and_replay(texts, data, tmp_path_factory):
    from navigator.navigation.roundtrip import verify_session_roundtrip
    from navigator.navigation.session import Session
    from navigator.navigation.session_format import load_session, save_session
    from navigator.synth import sketch_from_json

    library, facts = load(texts)
    session = Session(library, facts)
    for _ in range(6):
        options = list(session.menus().options())
        if not options:
            break
        option = data.draw(st.sampled_from(options))
        by = "default" if option.is_default else data.draw(
            st.sampled_from(["user", "strategy:random"]))
        session.apply(option.hole, option.id, by=by)
    sketch = session.sketch
    assert sketch_from_json(sketch_to_json(sketch), library, facts.goal.type).root == sketch.root
    path = tmp_path_factory.mktemp("walk") / "session.json"
    save_session(session, path)
    loaded = load_session(path, library, facts, oracle=session.oracle)
    assert loaded.sketch == sketch and loaded.steps == session.steps
    verify_session_roundtrip(session)
    if sketch.complete:
        report = replay(library, facts, sketch_to_json(sketch), oracle=session.oracle)
        assert report.reached and report.final_sketch.root == sketch.root
