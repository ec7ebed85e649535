"""navigator.llm.prompt: what the language model is told. Golden prompts for gcn and a Honeybee
problem, hole-qualified ids that resolve to offered options, long menus cut with a note, and
byte-identical prompts for the same state."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from navigator.auto.base import StrategyContext
from navigator.llm import describe, prompt as prompt_module
from navigator.llm.prompt import build_prompt, option_ids
from navigator.llm.tokens import estimate_tokens
from navigator.navigation.session import Session
from navigator.fuseflow.schedule_space import ScheduleSpace
from tests.navigator.fuseflow.space_helpers import prefill_randomly
from tests.paths import DOCS

GOLDEN = Path(__file__).parent / "golden"
#: placeholders for what the caller supplies
SYSTEM = "(the system message: the caller's)"
INSTRUCTIONS = "(the answer instructions and JSON schema: the caller's)"
SMALL = {"spmm": {"N": 2, "J": 2}, "sddmm": {"N": 2, "K": 2}, "gcn": {"N": 1, "F": 1, "H": 1, "C": 1}}


@functools.lru_cache(maxsize=None)
def space_of(name: str, dims: tuple = ()) -> ScheduleSpace:
    program = resolve_program(name, dict(dims))
    return ScheduleSpace.build(program, bind(program, dims=dict(dims)))


def session_after(space, picks) -> Session:
    """A session of `space` after taking, at each (hole, menu number), that option."""
    session = Session(space.library, space.facts, oracle=space.oracle)
    for hole, number in picks:
        session.apply(hole, session.menus().for_hole(hole).options[number - 1].id)
    return session


def context_of(session, space) -> StrategyContext:
    return StrategyContext.of(session, space)


def gcn_prompt(picks, holes=None, **options):
    space = space_of("gcn")
    session = session_after(space, picks)
    holes = holes if holes is not None else [h.id for h in session.sketch.holes()]
    return build_prompt(context_of(session, space), holes, instructions=INSTRUCTIONS, system=SYSTEM, **options)


#: gcn with `schedule` taken: the fusion hole ?1 is open
GCN_FUSION = [(0, 1)]
#: gcn with its first region placed (aggregate1 alone): ?3 (its schedule), ?4 (the next region)
GCN_FIRST_REGION = [(0, 1), (1, 1), (2, 1), (3, 1)]


def test_gcn_prompt_at_the_fusion_hole(golden):
    golden(GOLDEN / "gcn_fusion.txt", gcn_prompt(GCN_FUSION).text)


def test_gcn_prompt_at_an_order_hole(golden):
    space = space_of("gcn")
    session = session_after(space, GCN_FIRST_REGION)
    order_hole = next(m.hole for m in session.menus().holes if m.type == "Order")
    result = build_prompt(context_of(session, space), [order_hole], instructions=INSTRUCTIONS, system=SYSTEM)
    assert result.holes == (order_hole,)
    assert f"### ?{order_hole} : Order" in result.text
    golden(GOLDEN / "gcn_order.txt", result.text)


def test_a_honeybee_problem_gets_its_goal_facts_sketch_and_menus(golden):
    from navigator.honeybee.problem import ProblemSpace

    example = DOCS / "examples" / "honeybee"
    space = ProblemSpace.build(example / "pipeline.hb.toml", example / "pipeline.hblib.toml")
    session = Session(space.library, space.facts, oracle=space.oracle)
    context = StrategyContext.of(session)  # space None: no cost model, no data
    result = build_prompt(context, [0], instructions=INSTRUCTIONS, system=SYSTEM)
    text = result.text
    assert str(example) not in text  # file names only: the prompt is the same wherever they lie
    assert "# Honeybee problem" in text and "## Data" not in text and "## Regions" not in text
    assert set(result.entries) == set(option_ids(session.menus(), [0]))
    golden(GOLDEN / "honeybee_problem.txt", text)


def test_messages_and_the_token_estimate():
    result = gcn_prompt(GCN_FUSION, feedback="4.9 is not offered at ?4")
    assert [m["role"] for m in result.messages] == ["system", "user"]
    assert result.messages[0]["content"] == SYSTEM and result.messages[1]["content"] == result.text
    # the feedback comes before the answer section, which ends the prompt
    assert result.text.index("## Feedback on the previous round\n4.9 is not offered") < result.text.index("## Answer")
    assert result.text.endswith(f"## Answer\n{INSTRUCTIONS}\n")
    total = len(SYSTEM) + len(result.text)
    # counted by character class (navigator.llm.tokens), not characters / 4, which was 1.47x low
    assert result.estimated_tokens == estimate_tokens(result.messages) > -(-total // 4) * 1.3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SMALL)), data=st.data())
def test_every_id_resolves_to_an_offered_option(name, data):
    space = space_of(name, tuple(SMALL[name].items()))
    session = Session(space.library, space.facts, oracle=space.oracle)
    prefill_randomly(session, data)
    if session.complete:
        return
    open_holes = [h.id for h in session.sketch.holes()]
    holes = data.draw(st.lists(st.sampled_from(open_holes), min_size=1, unique=True), label="holes")
    max_options = data.draw(st.integers(1, 6), label="max_options")
    menus = session.menus()
    result = build_prompt(context_of(session, space), holes, instructions="I", system="S", max_options=max_options)
    ids = option_ids(menus, holes)
    assert len(ids) == sum(len(menus.for_hole(h).options) for h in holes)
    for label, (hole, option) in ids.items():
        number = int(label.split(".")[1])
        assert label == f"{hole}.{number}" and menus.for_hole(hole).options[number - 1].id == option
        assert menus.option(hole, option) is not None
    for label, entry in result.entries.items():
        assert ids[label] == (entry.hole, entry.option_id) and f"\n{label}  " in result.text
    for hole in holes:
        listed = [e for e in result.entries.values() if e.hole == hole]
        assert len(listed) == min(max_options, len(menus.for_hole(hole).options))


def test_a_long_menu_lists_the_default_then_the_best_by_hint_and_says_so():
    full = gcn_prompt(GCN_FIRST_REGION, holes=[4])
    cut = gcn_prompt(GCN_FIRST_REGION, holes=[4], max_options=3)
    assert len(full.entries) == 5 and "not listed" not in full.text
    listed = list(cut.entries.values())
    assert len(listed) == 3 and listed[0].default
    rest = [e.hint.key for e in listed[1:]]
    assert rest == sorted(rest)
    best_left_out = min(e.hint.key for e in full.entries.values() if not e.default and e.id not in cut.entries)
    assert all(key <= best_left_out for key in rest)
    assert "showing 3 of 5 (the default, then the best by cost hint); other ids 4.1 to 4.5 are valid too " \
           "but not listed" in cut.text


def test_a_region_with_thousands_of_orders_is_cut_to_max_options():
    space = space_of("graphsage")
    session = Session(space.library, space.facts, oracle=space.oracle)
    session.apply(0, session.menus().for_hole(0).options[0].id)
    session.apply(1, next(o.id for o in session.menus().for_hole(1).options if o.function == "fuse"))
    region = max(session.menus().for_hole(2).options, key=lambda o: len(str(o.metadata_dict()["region"])))
    session.apply(2, region.id)
    session.apply(3, session.menus().for_hole(3).options[0].id)
    order_hole = next(m for m in session.menus().holes if m.type == "Order")
    assert len(order_hole.options) > 1000
    result = build_prompt(context_of(session, space), [order_hole.hole], instructions="I", system="S")
    assert len(result.entries) == 20
    assert re.search(rf"showing 20 of {len(order_hole.options):,} .* other ids {order_hole.hole}\.1 to "
                     rf"{order_hole.hole}\.{len(order_hole.options)} are valid too but not listed", result.text)


def test_the_same_state_gives_a_byte_identical_prompt():
    first = gcn_prompt(GCN_FIRST_REGION)
    again = gcn_prompt(GCN_FIRST_REGION)
    prompt_module._STATES.clear()
    describe._BRIEFS.clear()
    program = resolve_program("gcn", {})
    fresh_space = ScheduleSpace.build(program, bind(program))  # another space, the same program and data
    session = session_after(fresh_space, GCN_FIRST_REGION)
    fresh = build_prompt(context_of(session, fresh_space), [h.id for h in session.sketch.holes()],
                         instructions=INSTRUCTIONS, system=SYSTEM)
    assert first.text == again.text == fresh.text
    assert first.messages == fresh.messages and first.entries == fresh.entries


def test_several_holes_in_scope_list_each_menu():
    result = gcn_prompt(GCN_FIRST_REGION)
    assert len(result.holes) >= 2
    for hole in result.holes:
        assert f"### ?{hole} : " in result.text
    assert {e.hole for e in result.entries.values()} == set(result.holes)
    # only the holes asked for: another open hole's menu is left out
    first, last = result.holes[0], result.holes[-1]
    only = gcn_prompt(GCN_FIRST_REGION, holes=[last])
    assert f"### ?{first}" not in only.text and f"to fill: ?{last})" in only.text


def test_the_program_data_and_hardware_are_described():
    text = gcn_prompt(GCN_FUSION).text
    assert "aggregate2: AH(i,h) = A(i,k) * H1(k,h); sum over k; reads A, H1 (from activate1)" in text
    assert re.search(r"A: 2,708 x 2,708; nnz [\d,]+, density [\d.e-]+; row nnz max \d+, mean [\d.]+, CV [\d.]+, "
                     r"Gini [\d.]+; 4x4 blocks: [\d,]+ hold entries, occupancy [\d.e-]+", text)
    assert "16 lanes; on-chip buffer 1,048,576 bytes" in text
    assert re.search(r"aggregate1 \[order i k f\]: (memory|compute)-bound, est\. [\d,.e]+ cycles \((memory|arithmetic|sparse accumulator|reducer|lane fork)\)", text)


def test_an_empty_scope_is_refused_by_the_menus():
    space = space_of("gcn")
    session = session_after(space, GCN_FUSION)
    with pytest.raises(KeyError):
        build_prompt(context_of(session, space), [99], instructions="I", system="S")


def test_docs_show_the_gcn_prompt(request):
    """docs/llm.md's gcn prompt is the one build_prompt writes (--update-golden rewrites it)."""
    doc = DOCS / "llm.md"
    text = doc.read_text(encoding="utf-8")
    begin = text.index("```text\n", text.index("test_docs_show_the_gcn_prompt: begin")) + len("```text\n")
    end = text.index("```\n<!-- generated: end -->", begin)
    current = gcn_prompt(GCN_FUSION).text
    if request.config.getoption("--update-golden"):
        doc.write_text(text[:begin] + current + text[end:], encoding="utf-8")
        return
    assert text[begin:end] == current, "docs/llm.md shows another gcn prompt; rerun with --update-golden"
