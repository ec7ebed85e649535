"""Through the FuseFlow library's real menus, on random op DAGs: the groupings reachable region
by region are exactly the brute-force set (all partitions the validator accepts: connected,
convex, unifiable, acyclic region graph), every offered region can be completed, and the
engine's count of groupings at the first fusion hole equals the brute-force count."""

from hypothesis import example, given, settings

from fuseflow.program.binding import bind
from fuseflow.program.frontend import parse_program
from navigator.fuseflow.schedule_space import ScheduleSpace
from tests.dag_programs import dag_programs
from tests.navigator.fuseflow.space_helpers import validator_groupings


def groupings_through_menus(space, sketch):
    """Every grouping the Regions menus build from `sketch`, depth first, with the offered
    options' counts checked on the way (an offered option always has a completion)."""
    found = []
    stack = [(sketch, ())]
    while stack:
        current, placed = stack.pop()
        menus = space.oracle.menus(current)
        assert menus.completable, menus.blocked
        hole = next((h for h in menus.holes if h.type == "Regions"), None)
        if hole is None:
            found.append(placed)
            continue
        for option in hole.options:
            assert option.count.value > 0
            region = option.metadata_dict()["region"]
            stack.append((space.oracle.apply(current, option),
                          placed + ((tuple(region.split("+")),) if region else ())))
    return found


# Found by this test: X (sparse) read as (i,j) by op0 and, through the transpose, as (j,i) by op2;
# the region {op0, op2} unified but had no legal loop order, and building its facts crashed.
CONTRADICTORY_READS = ('name = "dag"\n[dims]\nN = 3\n[tensors]\n'
                       'X = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random" }\n'
                       'Y = { shape = ["N", "N"], source = "random" }\n'
                       '[[ops]]\nname = "op0"\nexpr = "T0(j,i) = relu(X(i,j))"\n'
                       '[[ops]]\nname = "op1"\nexpr = "T1(i,j) = exp(X(i,j))"\n'
                       '[[ops]]\nname = "op2"\nexpr = "T2(i,j) = X(i,j) + T0(i,j)"\n')


@example(CONTRADICTORY_READS)
@settings(max_examples=40, deadline=None)
@given(dag_programs(max_ops=6))
def test_the_menus_reach_exactly_the_legal_groupings(text):
    program = parse_program(text, "dag.toml")
    space = ScheduleSpace.build(program, bind(program))
    start = space.initial_sketch()
    sketch = space.oracle.apply(start, space.oracle.menus(start).option(0, 'schedule{program="dag"}'))
    fusion = space.oracle.menus(sketch).holes[0]
    fused = space.oracle.apply(sketch, next(o for o in fusion.options if o.function == "fuse"))
    built = groupings_through_menus(space, fused)
    assert len(built) == len(set(built))  # one derivation each
    assert set(built) == validator_groupings(program)
    # every shortcut offered is one of them, and none is counted in the hole's total
    total = sum(o.count.value for o in fusion.options if not o.alias)
    assert total == space.oracle.menus(sketch).total.value


def test_a_region_without_a_legal_loop_order_is_not_legal():
    from fuseflow.analysis.fusion import grouping_problem, region_problem

    program = parse_program(CONTRADICTORY_READS, "dag.toml")
    assert "no loop order reads every sparse operand" in region_problem(program, ("op0", "op2"))
    assert grouping_problem(program, [("op0", "op2"), ("op1",)]) is not None
