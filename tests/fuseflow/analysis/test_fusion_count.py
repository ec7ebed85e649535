"""The fusion-grouping counter equals brute force, without listing any grouping."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuseflow.analysis import fusion_count
from fuseflow.program.binding import bind
from fuseflow.program.frontend import load_program, parse_program
from fuseflow.analysis.fusion import enumerated_count, grouping_problem, legal_groupings
from fuseflow.analysis.fusion_steps import count_groupings
from fuseflow.support.memory import ResourceError
from fuseflow.schedule.space_size import schedule_space_size
from fuseflow.analysis.fusion_count import count_legal_groupings

from tests.bundled import LARGE_PROGRAMS
from tests.dag_programs import dag_programs
from tests.partitions import set_partitions
from tests.paths import PROGRAMS as PROGRAMS_FOLDER

PROGRAMS = sorted(p for p in PROGRAMS_FOLDER.glob("*.toml")
                  if p.stem not in LARGE_PROGRAMS)


@settings(max_examples=150, deadline=None)
@given(dag_programs(max_ops=9))
def test_count_equals_the_enumerated_groupings(text):
    program = parse_program(text, "dag.toml")
    assert count_legal_groupings(program) == len(list(legal_groupings(program)))


@settings(max_examples=80, deadline=None)
@given(dag_programs(max_ops=7))
def test_count_equals_the_partitions_the_validator_accepts(text):
    program = parse_program(text, "dag.toml")
    names = [op.name for op in program.ops]
    legal = sum(1 for p in set_partitions(names) if grouping_problem(program, p) is None)
    assert count_legal_groupings(program) == legal


@settings(max_examples=60, deadline=None)
@given(dag_programs(max_ops=7), st.integers(2, 5))
def test_weighted_count_sums_the_products_over_the_groupings(text, base):
    """A weight per region (here a hash-like number of its ops) turns the count into the sum
    over the groupings of the product of their regions' weights."""
    program = parse_program(text, "dag.toml")

    def weight(ops):
        return sum(base ** int(op[2:]) for op in ops) % 7 + 1

    expected = 0
    for grouping in legal_groupings(program):
        product = 1
        for ops in grouping:
            product *= weight(ops)
        expected += product
    assert count_legal_groupings(program, weight) == expected


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_every_bundled_program_counts_its_enumerated_groupings(path):
    program = load_program(path)
    assert count_groupings(program) == enumerated_count(program)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_weighted_by_region_schedules_the_count_is_the_closed_form(path):
    from fuseflow.schedule.space_size import region_space

    program = load_program(path)
    binding = bind(program)
    size = schedule_space_size(program, binding)
    total = count_legal_groupings(program, lambda ops: region_space(program, binding, ops)["schedules"])
    assert total == size["schedules"]


def elementwise_chain(n_ops: int) -> str:
    lines = ['name = "chain"', "[dims]", "N = 4", "[tensors]", 'T0 = { shape = ["N", "N"], source = "random" }']
    lines += [f'[[ops]]\nname = "e{k}"\nexpr = "T{k}(i,j) = exp(T{k - 1}(i,j))"' for k in range(1, n_ops + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("n_ops", [1, 2, 5, 40, 80])
def test_a_long_elementwise_chain_has_two_to_the_gaps_groupings(n_ops):
    # Every interval of an element-wise chain fuses, so each of the n-1 gaps is cut or not.
    assert count_legal_groupings(parse_program(elementwise_chain(n_ops), "chain.toml")) == 2 ** (n_ops - 1)


def deep_residual_gcn(layers: int) -> str:
    lines = ['name = "deep"', "[dims]", "N = 8", "[tensors]",
             'A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random" }',
             'H0 = { shape = ["N", "N"], source = "random" }', 'W = { shape = ["N", "N"], source = "random" }']
    for k in range(1, layers + 1):
        lines.append(f'[[ops]]\nname = "agg{k}"\nexpr = "AH{k}(i,f) = A(i,r) * H{k - 1}(r,f)"')
        lines.append(f'[[ops]]\nname = "lin{k}"\nexpr = "XW{k}(i,h) = AH{k}(i,f) * W(f,h)"')
        lines.append(f'[[ops]]\nname = "act{k}"\nexpr = "H{k}(i,h) = relu(XW{k}(i,h) + H{k - 1}(i,h))"')
    return "\n".join(lines) + "\n"


def test_a_deep_residual_gcn_has_four_times_seven_per_layer_groupings():
    """Enumeration finds 4 * 7**(layers - 1) groupings through five layers (a region cannot hold
    two consecutive activations: the residual would merge an aggregate's two row variables, so
    each layer adds the same choices). The counter must keep the pattern at 30 layers, 90 ops,
    where enumeration would have about 10**25 groupings to list."""
    for layers in range(1, 6):
        assert enumerated_count(parse_program(deep_residual_gcn(layers), "deep.toml")) == 4 * 7 ** (layers - 1)
    for layers in (1, 2, 5, 12, 30):
        assert count_legal_groupings(parse_program(deep_residual_gcn(layers), "deep.toml")) == 4 * 7 ** (layers - 1)


def fan_out_program(width: int) -> str:
    """One op read by `width` ops: the hub fuses with any subset of them, 2**width groupings."""
    lines = ['name = "fan"', "[dims]", "N = 4", "[tensors]", 'X = { shape = ["N", "N"], source = "random" }',
             '[[ops]]\nname = "hub"\nexpr = "H(i,j) = exp(X(i,j))"']
    lines += [f'[[ops]]\nname = "w{k}"\nexpr = "T{k}(i,j) = relu(H(i,j))"' for k in range(width)]
    return "\n".join(lines) + "\n"


def test_a_fan_out_counts_every_subset_of_consumers_the_hub_fuses_with():
    assert count_legal_groupings(parse_program(fan_out_program(10), "fan.toml")) == 2 ** 10


def test_a_wide_graph_runs_out_of_steps_with_a_user_error(monkeypatch):
    monkeypatch.setattr(fusion_count, "MAX_COUNT_STEPS", 20_000)
    with pytest.raises(ResourceError, match="steps counting fusion groupings") as info:
        count_legal_groupings(parse_program(fan_out_program(24), "fan.toml"))
    assert info.value.where == "fan.toml" and "split the program" in info.value.fix


def test_unconnected_parts_multiply():
    # Ops that share only an input never fuse (a region must be connected); each part is counted
    # on its own, so 30 independent ops cost no more than one.
    lines = [elementwise_chain(4)] + [f'[[ops]]\nname = "s{k}"\nexpr = "S{k}(i,j) = exp(T0(i,j))"' for k in range(30)]
    assert count_legal_groupings(parse_program("\n".join(lines), "parts.toml")) == 2 ** 3
