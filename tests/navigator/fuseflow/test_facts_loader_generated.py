"""Facts a generator just made load through a fast path that builds the same facts and gives
the same errors on a library that does not fit them."""

import pytest

from fuseflow.program.binding import bind
from fuseflow.program.bundled import bundled_program_names, resolve_program
from navigator.fuseflow.facts import program_facts
from navigator.lang import FactError, parse_library
from navigator.lang.facts_loader import facts_from_generator, facts_from_records
from navigator.fuseflow.bundled_library import bundled_library_text, load_scheduling_library


@pytest.mark.parametrize("name", bundled_program_names())
def test_the_fast_path_builds_the_same_facts(name):
    program = resolve_program(name)
    generated = program_facts(program, bind(program))
    library, _ = load_scheduling_library()
    fast = facts_from_generator(generated.facts, generated.goal, library, "g")
    full = facts_from_records(generated.facts, generated.goal, library, "g")
    assert fast.facts == full.facts and fast.goal == full.goal


def test_a_library_whose_props_do_not_fit_fails_the_same_way():
    program = resolve_program("spmm")
    generated = program_facts(program, bind(program))
    text = bundled_library_text().replace('[Prop.RegionVarCount]\n', '[Prop.RegionVarCount]\nparams.levels = "Int"\n')
    library = parse_library(text, "lib.hblib.toml")
    errors = []
    for load in (facts_from_generator, facts_from_records):
        with pytest.raises(FactError) as info:
            load(generated.facts, generated.goal, library, "g")
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "levels" in errors[0]
