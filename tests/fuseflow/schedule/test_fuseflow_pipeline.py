"""The schedule as FuseFlow's sam-opt pipeline options (fuseflow.schedule.fuseflow_pipeline).

The compiler's list of orders is recomputed here from its definition alone: every permutation
of the logical ids in lexicographic order, kept when every operand's levels nest in storage
order, the first 21 of them."""

from __future__ import annotations

import dataclasses
import itertools
import shlex
from pathlib import Path
import time

import pytest
from hypothesis import given, settings, strategies as st

from fuseflow.analysis.fusion import legal_groupings
from fuseflow.analysis.unification import unify_region
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.program.frontend import parse_program
from fuseflow.program.ir import Operand, Region
from fuseflow.schedule import RegionSchedule, Schedule, default_schedule, schedule_problems
from fuseflow.schedule.rules import default_region_schedule
from fuseflow.schedule.fuseflow_pipeline import (
    ORDER_CAP, closest_order, compiler_orders, inversions, order_index, parallelizer_options, pipeline_document,
    pipeline_text, region_pipeline, unlisted_note, vectorizer_options,
)

PROGRAMS = ("gcn", "graphsage", "sparse_autoencoder", "block_attention", "nested_matmul", "spmm", "sddmm")
GCN_FIRST_LAYER = ("aggregate1", "transform1", "activate1")
GCN_SECOND_LAYER = ("aggregate2", "transform2", "bias2")


def brute_orders(region: Region) -> list[tuple[str, ...]]:
    """The compiler's list, by its definition: permutations of the ids, lexicographic, filtered."""
    def keeps_storage_orders(order):
        position = {v: i for i, v in enumerate(order)}
        return all(position[a] < position[b] for o in region.operands for a, b in zip(o.vars, o.vars[1:]))

    by_id = (tuple(region.vars[i] for i in ids) for ids in itertools.permutations(range(len(region.vars))))
    return list(itertools.islice(filter(keeps_storage_orders, by_id), 21))


def brute_closest(listed, order) -> tuple[int, int]:
    """(index, distance) of the listed order with the fewest pairs nested the other way, lowest index first."""
    def distance(other):
        return sum(1 for a, b in itertools.combinations(order, 2) if other.index(a) > other.index(b))

    return min(((i, distance(o)) for i, o in enumerate(listed)), key=lambda pair: (pair[1], pair[0]))


def bundled_regions(name: str) -> list[Region]:
    program = resolve_program(name)
    groups = sorted({group for grouping in legal_groupings(program) for group in grouping})
    return [unify_region(program, group) for group in groups]


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_enumeration_is_the_compilers_on_every_region_of_bundled_programs(name):
    regions = bundled_regions(name)
    assert regions
    for region in regions:
        assert list(compiler_orders(region)) == brute_orders(region), region.ops


@pytest.mark.parametrize("name", PROGRAMS)
def test_index_0_is_the_default_order(name):
    program = resolve_program(name)
    document = pipeline_document(program, bind(program), default_schedule(program))
    assert [r["order_index"] for r in document["regions"]] == [0] * len(program.ops)
    assert all("note" not in r and r["pass_options"] == [] for r in document["regions"])


@st.composite
def regions(draw, max_vars=7):  # at most 9
    """A region of up to max_vars variables, named so that name order is not id order, read by
    a few operands whose storage orders are random chains (cycles included), dense or not."""
    n = draw(st.integers(1, max_vars))
    names = tuple(draw(st.permutations("qwertyuio"))[:n])
    operands = []
    for index in range(draw(st.integers(0, 4))):
        chain = draw(st.lists(st.sampled_from(names), min_size=1, max_size=min(4, n), unique=True))
        formats = tuple(draw(st.sampled_from(["dense", "compressed"])) for _ in chain)
        operands.append(Operand(f"T{index}", tuple(chain), formats))
    return Region(ops=("op",), vars=names, var_dims={v: "D" for v in names}, op_vars={}, operands=tuple(operands),
                  results=())


@settings(max_examples=300, deadline=None)
@given(regions())
def test_the_enumeration_is_the_compilers_on_random_regions(region):
    listed = compiler_orders(region)
    assert list(listed) == brute_orders(region)
    for index, order in enumerate(listed):
        assert order_index(region, order) == index


@settings(max_examples=200, deadline=None)
@given(regions(max_vars=6), st.data())
def test_an_unlisted_order_gets_a_note_and_the_closest_listed_order(region, data):
    order = tuple(data.draw(st.permutations(region.vars)))
    listed = brute_orders(region)
    if order in listed:
        assert order_index(region, order) == listed.index(order)
        return
    assert order_index(region, order) is None
    closest = closest_order(region, order)
    if not listed:
        assert closest is None and "lists no order" in unlisted_note(region, order)
        return
    assert (closest.index, closest.inversions) == brute_closest(listed, order)
    assert closest.order == listed[closest.index]
    assert " ".join(order) in unlisted_note(region, order)


def test_a_large_region_stops_at_21_orders_at_once():
    names = tuple(f"v{i}" for i in range(16))
    free = Region(("op",), names, {v: "D" for v in names}, {}, (), ())
    started = time.perf_counter()
    listed = compiler_orders(free)
    assert listed == tuple(itertools.islice(itertools.permutations(names), ORDER_CAP))
    # two variables in a cycle among 14 free ones: no order, found without walking 14! prefixes
    cyclic = dataclasses.replace(free, operands=(Operand("A", ("v3", "v9"), ("dense", "dense")),
                                                 Operand("B", ("v9", "v3"), ("dense", "compressed"))))
    assert compiler_orders(cyclic) == ()
    assert time.perf_counter() - started < 5


def test_inversions_count_pairs_nested_the_other_way():
    assert inversions(("a", "b", "c"), ("a", "b", "c")) == 0
    assert inversions(("a", "b", "c"), ("c", "b", "a")) == 3
    assert inversions(("a", "b", "c", "d"), ("b", "a", "c", "d")) == 1


OUTER = """
name = "outer"
[dims]
A = 2
B = 3
C = 4
D = 5
[tensors]
P = { shape = ["A"], source = "random" }
Q = { shape = ["B"], source = "random" }
R = { shape = ["C"], source = "random" }
S = { shape = ["D"], source = "random" }
[[ops]]
name = "outer"
expr = "Z(a,b,c,d) = P(a) * Q(b) * R(c) * S(d)"
"""


def test_an_order_past_the_first_21_gets_the_closest_listed_one():
    program = parse_program(OUTER, "outer.toml")
    region = unify_region(program, ("outer",))
    assert region.vars == ("a", "b", "c", "d")  # 24 orders, none constrained: the last three are unlisted
    listed = brute_orders(region)
    assert len(listed) == ORDER_CAP and listed[-1] == ("d", "b", "a", "c")
    schedule = Schedule((RegionSchedule(("outer",), ("d", "c", "b", "a"), (1, 1, 1, 1)),))
    binding = bind(program)
    assert schedule_problems(program, binding, schedule) == []
    [entry] = pipeline_document(program, binding, schedule)["regions"]
    assert entry["order_index"] is None and entry["orders_listed"] == ORDER_CAP
    assert "comes after the first 21 orders" in entry["note"]
    index, distance = brute_closest(listed, ("d", "c", "b", "a"))
    assert (index, distance) == (17, 1)  # c d b a; d b c a and d c a b, one swap away too, are unlisted
    assert entry["closest_order"] == {"index": 17, "names": ["c", "d", "b", "a"], "ids": ["i2", "i3", "i1", "i0"],
                                      "inversions": 1}


def gcn_fused(order2=("i", "k", "h", "c"), factors1=(1, 1, 2, 1), shape1=16, block2=False):
    return Schedule((RegionSchedule(GCN_FIRST_LAYER, ("i", "k", "f", "h"), factors1, shape1, False),
                     RegionSchedule(GCN_SECOND_LAYER, order2, (2, 1, 1, 1), 4, block2)))


def test_stream_level_is_the_logical_id_not_the_position():
    program = resolve_program("gcn")
    region = unify_region(program, GCN_FIRST_LAYER)
    assert region.vars == ("i", "f", "k", "h")  # f is i1, and the order i k f h puts it at level 2
    rs = gcn_fused().regions[0]
    assert parallelizer_options(region, rs) == ["--stream-parallelizer=stream-level=1 par-factor=2"]
    both = dataclasses.replace(rs, par_factors=(4, 1, 2, 1))
    assert parallelizer_options(region, both) == ["--stream-parallelizer=stream-level=0 par-factor=4",
                                                  "--stream-parallelizer=stream-level=1 par-factor=2"]


def test_the_vectorizer_option_only_when_it_changes_something():
    rs = RegionSchedule(("spmm",), ("i", "k", "j"), (1, 1, 1))
    assert vectorizer_options(rs) == []
    assert vectorizer_options(dataclasses.replace(rs, stream_shape=16)) == ["--stream-vectorizer=stream-shape=16"]
    assert vectorizer_options(dataclasses.replace(rs, block_sparse=True)) == [
        "--stream-vectorizer=stream-shape=1 enable-block-sparse"]
    assert vectorizer_options(dataclasses.replace(rs, stream_shape=4, block_sparse=True)) == [
        "--stream-vectorizer=stream-shape=4 enable-block-sparse"]


def test_the_document_of_a_fused_gcn_schedule():
    program = resolve_program("gcn")
    binding = bind(program)
    schedule = gcn_fused(order2=("i", "h", "k", "c"), block2=True)
    assert schedule_problems(program, binding, schedule) == []  # legal, though H1 is read k above h
    document = pipeline_document(program, binding, schedule)
    assert (document["format"], document["version"], document["program"]) == ("fuseflow-pipeline", 1, "gcn")
    first, second = document["regions"]
    assert first["region"] == 0 and [op["name"] for op in first["ops"]] == list(GCN_FIRST_LAYER)
    assert first["ops"][0] == {"name": "aggregate1", "statement": "AX(i,f) = A(i,k) * X(k,f)"}
    assert first["variables"][1] == {"id": "i1", "name": "f", "dimension": "F",
                                     "extent": binding.extent("F")}
    assert first["order"] == {"names": ["i", "k", "f", "h"], "ids": ["i0", "i2", "i1", "i3"]}
    assert first["order_index"] == 0 and "note" not in first and "closest_order" not in first
    assert first["pass_options"] == ["--stream-parallelizer=stream-level=1 par-factor=2",
                                     "--stream-vectorizer=stream-shape=16"]
    assert second["order_index"] is None
    assert "H1 stores k above h" in second["note"]
    assert second["closest_order"] == {"index": 0, "names": ["i", "k", "h", "c"], "ids": ["i0", "i2", "i1", "i3"],
                                       "inversions": 1}
    assert second["pass_options"] == ["--stream-parallelizer=stream-level=0 par-factor=2",
                                      "--stream-vectorizer=stream-shape=4 enable-block-sparse"]
    for entry in document["regions"]:
        words = shlex.split(entry["command"])
        assert words[:2] == ["sam-opt", "--linalg-to-sam"] and words[2:] == entry["pass_options"]
    assert pipeline_text(program, binding, schedule).endswith("}\n")


MLIR_MODELS = Path(__file__).resolve().parents[1] / "program" / "mlir_models"
MLIR_DIMS = {"spmm_chain": {"D1": 32}}


@pytest.mark.parametrize("name", ["attention", "gcn", "graphsage", "sparse_autoencoder", "spmm_chain"])
def test_on_each_imported_fixture_every_fusable_region_is_enumerated_as_the_compiler_does(name):
    """The MLIR fixtures, imported: every region fusion may form, its list recomputed independently;
    and the document of the default and of a fused schedule names each op's line in the model."""
    pytest.importorskip("torch_mlir")
    from fuseflow.analysis.fusion_steps import fusion_steps
    from fuseflow.program.frontend import load_program

    dims = MLIR_DIMS.get(name, {})
    program = load_program(MLIR_MODELS / f"{name}.mlir", dims=dims)
    groups = list(fusion_steps(program).regions())
    assert len(groups) > len(program.ops)  # some fused regions besides the single ops
    for group in groups:
        region = unify_region(program, group)
        assert list(compiler_orders(region)) == brute_orders(region), group
    binding = bind(program, None, dims)
    document = pipeline_document(program, binding, default_schedule(program))
    lines = (MLIR_MODELS / f"{name}.mlir").read_text(encoding="utf-8").splitlines()
    for entry in document["regions"]:
        assert entry["order_index"] == 0
        for op in entry["ops"]:
            file, _, rest = op["origin"].partition(":")
            line, _, mlir_op = rest.partition(" ")
            assert file == f"{name}.mlir" and mlir_op in lines[int(line) - 1]
    largest = max(groups, key=len)
    rs = default_region_schedule(unify_region(program, largest))
    entry = region_pipeline(program, binding, 0, rs)
    assert entry["order_index"] == 0 and len(entry["ops"]) == len(largest)
