"""Bundled variants (fuseflow.program.bundled.VARIANTS): a bundled program that is another with other
default dimensions, so a block is written once (transformer12 is transformer_block with 12 blocks)."""

import pytest

from fuseflow.program.bundled import VARIANTS, Variant, bundled_program_names, bundled_program_text, resolve_program, \
    variant_text


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_variant_is_its_base_with_its_dimensions(name):
    variant = VARIANTS[name]
    program, base = resolve_program(name), resolve_program(variant.base)
    assert name in bundled_program_names()
    assert (program.name, program.description) == (name, variant.description)
    assert program.dims == {**base.dims, **variant.dims}
    # the same program as the base read with the variant's dimensions on the command line
    again = resolve_program(variant.base, variant.dims)
    assert [str(op.statement) for op in program.ops] == [str(op.statement) for op in again.ops]
    assert bundled_program_text(name) != bundled_program_text(variant.base)  # sessions and caches tell them apart


def test_transformer12_has_twelve_blocks():
    program = resolve_program("transformer12")
    assert len(program.ops) == 12 * len(resolve_program("transformer_block").ops) == 276
    assert program.op_by_name["residual2_12"].output.tensor == "X12"


def test_a_variant_whose_base_lacks_a_line_is_a_bug_not_a_silent_default():
    base = bundled_program_text("transformer_block")
    with pytest.raises(RuntimeError, match="0 lines of transformer_block match"):
        variant_text("deeper", Variant("transformer_block", "d", {"depth": 3}), base)
    with pytest.raises(RuntimeError, match="0 lines"):
        variant_text("deeper", Variant("transformer_block", "d", {"blocks": 3}), base.replace("[dims]", "[sizes]"))
