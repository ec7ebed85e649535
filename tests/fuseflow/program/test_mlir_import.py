"""The MLIR importer, construct by construct: each case is a small function as torch-mlir writes
it, and the program it must become (statements, formats, extents), or the one-line error it
must stop with (its line and op)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch_mlir", reason="the MLIR bindings are in the test extra")

from fuseflow.program.frontend import parse_program  # noqa: E402
from fuseflow.program.mlir import import_mlir_text  # noqa: E402
from fuseflow.support.errors import ProgramError  # noqa: E402

CSR = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>"
CSC = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>"
MAPS = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
"""


def module(signature: str, body: str, encodings: str = "") -> str:
    return f"""#CSR = {CSR}
#CSC = {CSC}
{encodings}{MAPS}module {{
  func.func @forward({signature} {{
{body}
  }}
}}
"""


def imported(text: str, dims=None):
    toml = import_mlir_text(text, "model.mlir", dims)
    return parse_program(toml, "model.mlir (imported)", dims), toml


def statements(program) -> list[str]:
    return [str(op.statement) for op in program.ops]


def refused(text: str, dims=None) -> str:
    with pytest.raises(ProgramError) as caught:
        imported(text, dims)
    message = str(caught.value)
    assert "\n" not in message
    return message


ZERO = "    %zero = arith.constant 0.000000e+00 : f32"

SPMM = module("%A: tensor<8x8xf32, #CSR>, %X: tensor<8x4xf32>) -> tensor<8x4xf32>", f"""{ZERO}
    %e = tensor.empty() : tensor<8x4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %y = linalg.matmul ins(%A, %X : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>""")


def test_matmul_into_a_zero_fill_is_one_op_with_the_inputs_formats_and_extents():
    program, toml = imported(SPMM)
    assert statements(program) == ["y(i,j) = A(i,k) * X(k,j)"]
    assert program.tensors["A"].formats == ("dense", "compressed")
    assert program.tensors["A"].source == "random" and program.tensors["A"].density == 0.1
    assert program.tensors["X"].formats == ("dense", "dense")
    extents = {d: program.dims[d] for d in program.tensors["A"].dims + program.tensors["X"].dims}
    assert [extents[d] for d in program.tensors["A"].dims] == [8, 8]
    assert [extents[d] for d in program.tensors["X"].dims] == [8, 4]
    assert program.tensors["A"].dims[1] == program.tensors["X"].dims[0]  # the contracted axes are one dimension
    assert program.ops[0].origin == "model.mlir:13 linalg.matmul"


def test_matvec_and_a_csc_argument_stored_column_first():
    text = module("%A: tensor<8x6xf32, #CSC>, %x: tensor<6xf32>) -> tensor<8xf32>", f"""{ZERO}
    %e = tensor.empty() : tensor<8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %y = linalg.matvec ins(%A, %x : tensor<8x6xf32, #CSC>, tensor<6xf32>) outs(%f : tensor<8xf32>) -> tensor<8xf32>
    return %y : tensor<8xf32>""")
    program, _ = imported(text)
    assert statements(program) == ["y(i) = A(j,i) * x(j)"]
    a = program.tensors["A"]
    assert [program.dims[d] for d in a.dims] == [6, 8] and a.formats == ("dense", "compressed")


def test_a_matmul_accumulating_into_a_broadcast_bias_is_the_product_then_the_sum():
    text = module("%X: tensor<8x4xf32>, %W: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<8x3xf32>", """
    %e = tensor.empty() : tensor<8x3xf32>
    %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<3xf32>) outs(%e : tensor<8x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x3xf32>
    %y = linalg.matmul ins(%X, %W : tensor<8x4xf32>, tensor<4x3xf32>) outs(%bb : tensor<8x3xf32>) -> tensor<8x3xf32>
    return %y : tensor<8x3xf32>""")
    program, _ = imported(text)
    # a broadcast is not an op (an op binds every output index): its reader reads the bias
    assert statements(program) == ["y_part(i,j) = X(i,k) * W(k,j)", "y(i,j) = y_part(i,j) + b(j)"]


RELU_BODIES = {
    "cmpf ugt then select": """%c = arith.cmpf ugt, %in, %zero : f32
      %r = arith.select %c, %in, %zero : f32""",
    "maximumf with 0": "%r = arith.maximumf %in, %zero : f32",
    "0 < x, mirrored": """%c = arith.cmpf olt, %zero, %in : f32
      %r = arith.select %c, %in, %zero : f32""",
    "x < 0 picks 0": """%c = arith.cmpf ult, %in, %zero : f32
      %r = arith.select %c, %zero, %in : f32""",
}


@pytest.mark.parametrize("body", RELU_BODIES.values(), ids=list(RELU_BODIES))
def test_relu_idioms_are_relu(body):
    text = module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", f"""{ZERO}
    %e = tensor.empty() : tensor<8x4xf32>
    %y = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}} ins(%X : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {{
    ^bb0(%in: f32, %out: f32):
      {body}
      linalg.yield %r : f32
    }} -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>""")
    program, _ = imported(text)
    assert statements(program) == ["y(i,j) = relu(X(i,j))"]


def _log_softmax(max_body: str, results: str = "%m", extra_outs: str = "", extra_types: str = "") -> str:
    return module("%Z: tensor<8x4xf32>) -> tensor<8x4xf32>", f"""{ZERO}
    %ninf = arith.constant 0xFF800000 : f32
    %e1 = tensor.empty() : tensor<8x1xf32>
    %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
    {extra_outs}
    {results} = linalg.generic {{indexing_maps = [#id, #keep{', #keep' if extra_types else ''}], iterator_types = ["parallel", "reduction"]}} ins(%Z : tensor<8x4xf32>) outs(%f1{extra_types} : tensor<8x1xf32>{', tensor<8x1xi64>' if extra_types else ''}) {{
    {max_body}
    }} -> (tensor<8x1xf32>{', tensor<8x1xi64>' if extra_types else ''})
    %e = tensor.empty() : tensor<8x4xf32>
    %s = linalg.generic {{indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]}} ins(%Z, %m : tensor<8x4xf32>, tensor<8x1xf32>) outs(%e : tensor<8x4xf32>) {{
    ^bb0(%z: f32, %mx: f32, %out: f32):
      %d = arith.subf %z, %mx : f32
      %x = math.exp %d : f32
      linalg.yield %x : f32
    }} -> tensor<8x4xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %sum = linalg.generic {{indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"]}} ins(%s : tensor<8x4xf32>) outs(%f0 : tensor<8x1xf32>) {{
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }} -> tensor<8x1xf32>
    %y = linalg.generic {{indexing_maps = [#id, #keep, #keep, #id], iterator_types = ["parallel", "parallel"]}} ins(%Z, %m, %sum : tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>) outs(%e : tensor<8x4xf32>) {{
    ^bb0(%z: f32, %mx: f32, %t: f32, %out: f32):
      %l = math.log %t : f32
      %d = arith.subf %z, %mx : f32
      %r = arith.subf %d, %l : f32
      linalg.yield %r : f32
    }} -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>""")


LOG_SOFTMAX = ["m(i) = Z(i,j)", "s(i,j) = exp(Z(i,j) - m(i))", "sum(i) = s(i,j)",
               "y(i,j) = (Z(i,j) - m(i)) - log(sum(i))"]


def test_log_softmax_with_keepdim_reductions_squeezes_the_axes_of_size_1():
    text = _log_softmax("""^bb0(%in: f32, %acc: f32):
      %x = arith.maximumf %in, %acc : f32
      linalg.yield %x : f32""")
    program, _ = imported(text)
    assert statements(program) == LOG_SOFTMAX
    assert [op.reduce for op in program.ops] == ["max", "sum", "sum", "sum"]
    assert all(program.dims[d] != 1 for d in program.dims)


def test_the_arg_max_idiom_keeps_the_maximum_and_drops_the_unused_index():
    text = _log_softmax("""^bb0(%in: f32, %acc: f32, %idx: i64):
      %i = linalg.index 1 : index
      %c = arith.index_cast %i : index to i64
      %x = arith.maximumf %in, %acc : f32
      %g = arith.cmpf ogt, %in, %acc : f32
      %k = arith.select %g, %c, %idx : i64
      linalg.yield %x, %k : f32, i64""", results="%m, %mi",
                        extra_outs="""%ei = tensor.empty() : tensor<8x1xi64>""", extra_types=", %ei")
    program, _ = imported(text)
    assert statements(program) == LOG_SOFTMAX
    assert program.ops[0].reduce == "max"


def test_select_by_an_i1_mask_multiplies_by_it_and_the_mask_is_ones():
    # (MLIR's parser refuses a sparse encoding on i1 tensors: the mask is dense, the result sparse)
    text = module("%S: tensor<8x8xf32>, %M: tensor<8x8xi1>) -> tensor<8x8xf32, #CSR>", f"""{ZERO}
    %e = tensor.empty() : tensor<8x8xf32, #CSR>
    %y = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}} ins(%S, %M : tensor<8x8xf32>, tensor<8x8xi1>) outs(%e : tensor<8x8xf32, #CSR>) {{
    ^bb0(%s: f32, %m: i1, %out: f32):
      %r = arith.select %m, %s, %zero : f32
      linalg.yield %r : f32
    }} -> tensor<8x8xf32, #CSR>
    return %y : tensor<8x8xf32, #CSR>""")
    program, toml = imported(text)
    assert statements(program) == ["y(i,j) = S(i,j) * M(i,j)"]
    assert program.tensors["M"].source == "ones" and program.tensors["M"].density == 0.1
    assert program.tensors["y"].formats == ("dense", "compressed") and program.tensors["y"].source is None


def test_transpose_splat_scalar_constants_and_math_functions():
    text = module("%X: tensor<8x4xf32>) -> tensor<4x8xf32>", """
    %one = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
    %eps = arith.constant 1.000000e-05 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%X : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x8xf32>
    %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %one : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %eps : f32
      %r = math.rsqrt %s : f32
      %h = math.tanh %r : f32
      %n = arith.negf %h : f32
      %d = arith.divf %n, %b : f32
      %m = arith.mulf %d, %a : f32
      linalg.yield %m : f32
    } -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>""")
    program, _ = imported(text)
    assert statements(program) == ["t(i,j) = X(j,i)", "y(i,j) = (-tanh(rsqrt(t(i,j) + 9.999999747378752e-06)) / 1) * t(i,j)"]


def test_dead_ops_are_dropped_even_unsupported_ones():
    text = SPMM.replace("    return %y", """    %dead = tensor.collapse_shape %X [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
    %d2 = linalg.matmul ins(%A, %X : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %y""")
    program, _ = imported(text)
    assert statements(program) == ["y(i,j) = A(i,k) * X(k,j)"]


def test_dynamic_dimensions_are_bound_with_dim():
    text = SPMM.replace("tensor<8x4xf32>", "tensor<8x?xf32>").replace(
        "%e = tensor.empty() : tensor<8x?xf32>", "%c1 = arith.constant 1 : index\n    %n = tensor.dim %X, %c1 : tensor<8x?xf32>\n"
                                                 "    %e = tensor.empty(%n) : tensor<8x?xf32>")
    message = refused(text)
    assert "model.mlir: dimension D2 (%X axis 1) is dynamic (?) (bind it with --dim D2=N)" == message
    program, _ = imported(text, {"D2": 5})
    assert program.dims["D2"] == 5 and statements(program) == ["y(i,j) = A(i,k) * X(k,j)"]


def test_a_weight_given_only_by_shape_is_random_data_of_that_shape():
    text = SPMM.replace(
        "    %y = linalg.matmul ins(%A, %X", "    %W = arith.constant dense_resource<__elided__> : tensor<8x4xf32>\n"
                                            "    %y = linalg.matmul ins(%A, %W")
    program, toml = imported(text)
    assert statements(program) == ["y(i,j) = A(i,k) * W(k,j)"]
    assert program.tensors["W"].source == "random" and "X" not in program.tensors  # %X is dead now


@pytest.mark.parametrize("text, expected", [
    (SPMM.replace("linalg.matmul", "linalg.batch_reduce_matmul"), "model.mlir:"),
    (module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", """
    %e = tensor.empty() : tensor<8x4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%X : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = math.sin %in : f32
      linalg.yield %r : f32
    } -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>"""), "model.mlir:14: math.sin is not supported in a linalg body"),
    (module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", """
    %y = tensor.pad %X low[0, 0] high[1, 0] {
    ^bb0(%i: index, %j: index):
      %z = arith.constant 0.0 : f32
      tensor.yield %z : f32
    } : tensor<8x4xf32> to tensor<9x4xf32>
    %e = tensor.empty() : tensor<8x4xf32>
    return %X : tensor<8x4xf32>""".replace("return %X", "%s = tensor.extract_slice %y[0, 0] [8, 4] [1, 1] : "
                                          "tensor<9x4xf32> to tensor<8x4xf32>\n    return %s")),
     "model.mlir:11: tensor.pad is not supported"),
    (module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", """
    %e = tensor.empty() : tensor<8x4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%X : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %in : f32
      linalg.yield %r : f32
    } -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>"""), "arith.maximumf is the maximum of two values"),
    (module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", """
    %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
    %e = tensor.empty() : tensor<8x4xf32>
    %y = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]} ins(%X, %w : tensor<8x4xf32>, tensor<1x4xf32>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%in: f32, %v: f32, %out: f32):
      %r = arith.addf %in, %v : f32
      linalg.yield %r : f32
    } -> tensor<8x4xf32>
    return %y : tensor<8x4xf32>"""), "model.mlir:"),
    (SPMM.replace("%zero = arith.constant 0.000000e+00", "%zero = arith.constant 1.000000e+00"), None),
    ("module {\n  func.func @f() {\n    %0 = foo.bar : i32\n  }\n}\n", "model.mlir:3: Dialect `foo' not found"),
    (module("%X: tensor<8x4xf32>) -> tensor<8x4xf32>", "    return %X : tensor<8x4xf32>"),
     "the function returns a value no op computes"),
    (SPMM.replace("#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>",
                  "#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed(nonunique), d1 : singleton) }>"),
     "level 1 is singleton"),
    (SPMM.replace("module {", "module {\n  func.func private @g(%a: tensor<8xf32>) -> tensor<8xf32>"),
     "the module must hold exactly one func.func (it has @g, @forward)"),
])
def test_what_cannot_be_mapped_stops_with_its_line_and_op(text, expected):
    if expected is None:  # a matmul into a fill of 1: the product, then + 1
        program, _ = imported(text)
        assert statements(program) == ["y_part(i,j) = A(i,k) * X(k,j)", "y(i,j) = y_part(i,j) + 1"]
        return
    assert expected in refused(text)


def test_a_max_reduction_into_anything_but_minus_infinity_is_refused():
    text = _log_softmax("""^bb0(%in: f32, %acc: f32):
      %x = arith.maximumf %in, %acc : f32
      linalg.yield %x : f32""").replace("%f1 = linalg.fill ins(%ninf", "%f1 = linalg.fill ins(%zero")
    assert "reduces (max) into an output that is not initialized to -inf" in refused(text)


def test_keepdim_through_expand_shape_and_collapse_shape_and_an_alloc_tensor_output():
    """torch-mlir's max(dim=1, keepdim=True): reduce into tensor<8xf32>, then expand_shape to 8x1."""
    text = module("%Z: tensor<8x4xf32>) -> tensor<8xf32>", f"""{ZERO}
    %ninf = arith.constant 0xFF800000 : f32
    %e1 = tensor.empty() : tensor<8xf32>
    %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
    %m = linalg.generic {{indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}} ins(%Z : tensor<8x4xf32>) outs(%f1 : tensor<8xf32>) {{
    ^bb0(%in: f32, %acc: f32):
      %x = arith.maximumf %in, %acc : f32
      linalg.yield %x : f32
    }} -> tensor<8xf32>
    %mk = tensor.expand_shape %m [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %e = bufferization.alloc_tensor() : tensor<8x4xf32>
    %s = linalg.generic {{indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]}} ins(%Z, %mk : tensor<8x4xf32>, tensor<8x1xf32>) outs(%e : tensor<8x4xf32>) {{
    ^bb0(%z: f32, %mx: f32, %out: f32):
      %d = arith.subf %z, %mx : f32
      linalg.yield %d : f32
    }} -> tensor<8x4xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
    %r = linalg.generic {{indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}} ins(%s : tensor<8x4xf32>) outs(%f0 : tensor<8xf32>) {{
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }} -> tensor<8xf32>
    %r2 = tensor.expand_shape %r [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %r3 = tensor.collapse_shape %r2 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %y = linalg.generic {{indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}} ins(%r3 : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %t = math.exp %in : f32
      linalg.yield %t : f32
    }} -> tensor<8xf32>
    return %y : tensor<8xf32>""")
    text = text.replace("#row, #row], iterator_types = [\"parallel\", \"parallel\"]",
                        "#vec, #vec], iterator_types = [\"parallel\"]").replace(
        "#tr = ", "#vec = affine_map<(d0) -> (d0)>\n#tr = ")
    program, _ = imported(text)
    assert statements(program) == ["m(i) = Z(i,j)", "s(i,j) = Z(i,j) - m(i)", "r(i) = s(i,j)", "y(i) = exp(r(i))"]
    assert [op.reduce for op in program.ops] == ["max", "sum", "sum", "sum"]


def test_a_reshape_that_merges_real_axes_is_refused():
    text = module("%X: tensor<8x4xf32>) -> tensor<32xf32>", """
    %y = tensor.collapse_shape %X [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
    %e = tensor.empty() : tensor<32xf32>
    %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y : tensor<32xf32>) outs(%e : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = math.exp %in : f32
      linalg.yield %t : f32
    } -> tensor<32xf32>
    return %z : tensor<32xf32>""")
    assert "model.mlir:11: tensor.collapse_shape merges or splits axes larger than 1" in refused(text)


def test_hostile_models_stop_before_anything_recurses_or_grows():
    """100,000 nested modules crash MLIR's own parser (it recurses): refused before parsing. A body
    of thousands of ops and a model of more ops than a program may have are refused too."""
    nested = "module {\n" + "builtin.module {\n" * 100_000 + "}\n" * 100_000 + "}\n"
    assert "model.mlir:257: brackets nest more than 256 levels deep" in refused(nested)
    chain = "\n".join(f"      %v{k + 1} = arith.addf %v{k}, %v{k} : f32" for k in range(300))
    long_body = module("%X: tensor<8xf32>) -> tensor<8xf32>", f"""
    %e = tensor.empty() : tensor<8xf32>
    %y = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%X : tensor<8xf32>) outs(%e : tensor<8xf32>) {{
    ^bb0(%v0: f32, %out: f32):
{chain}
      linalg.yield %v300 : f32
    }} -> tensor<8xf32>
    return %y : tensor<8xf32>""")
    assert "has a body of 301 ops, more than the 256" in refused(long_body)
    from tests.mlir_models import deep_gcn_mlir

    assert "the result depends on 1,002 linalg ops, more than the 1,000" in refused(deep_gcn_mlir(334))
