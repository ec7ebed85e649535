"""MLIR text of a deep residual GCN as torch-mlir writes it (linalg on tensors, a CSR adjacency),
for tests and benchmarks/import.py: `layers` blocks of three linalg ops each (A·H, ·W_l, then
relu(· + H_{l-1})), the same model as the bundled deep_gcn."""

from __future__ import annotations

CSR = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>"


def deep_gcn_mlir(layers: int, n: int = 64, f: int = 16) -> str:
    h = f"tensor<{n}x{f}xf32>"
    lines = [f"#CSR = {CSR}",
             "#map = affine_map<(d0, d1) -> (d0, d1)>",
             "module {",
             f"  func.func @forward(%adj: tensor<{n}x{n}xf32, #CSR>, %h0: {h}) -> {h} {{",
             "    %zero = arith.constant 0.000000e+00 : f32",
             f"    %empty = tensor.empty() : {h}",
             f"    %init = linalg.fill ins(%zero : f32) outs(%empty : {h}) -> {h}"]
    for layer in range(1, layers + 1):
        lines += [
            f"    %w{layer} = arith.constant dense_resource<__elided__> : tensor<{f}x{f}xf32>",
            f"    %ah{layer} = linalg.matmul ins(%adj, %h{layer - 1} : tensor<{n}x{n}xf32, #CSR>, {h}) "
            f"outs(%init : {h}) -> {h}",
            f"    %xw{layer} = linalg.matmul ins(%ah{layer}, %w{layer} : {h}, tensor<{f}x{f}xf32>) "
            f"outs(%init : {h}) -> {h}",
            f"    %h{layer} = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = "
            f"[\"parallel\", \"parallel\"]}} ins(%xw{layer}, %h{layer - 1} : {h}, {h}) outs(%empty : {h}) {{",
            "    ^bb0(%in: f32, %res: f32, %out: f32):",
            "      %s = arith.addf %in, %res : f32",
            "      %c = arith.cmpf ugt, %s, %zero : f32",
            "      %r = arith.select %c, %s, %zero : f32",
            "      linalg.yield %r : f32",
            f"    }} -> {h}"]
    lines += [f"    return %h{layers} : {h}", "  }", "}", ""]
    return "\n".join(lines)


def canonical_statements(program, ops) -> list[tuple[str, str]]:
    """(statement, reduction) of `ops` with tensors named T0, T1, ... in order of first use, each
    op's indices i0, i1, ... in order of first appearance, and numbers rounded to float32 (what
    an MLIR model holds): equal for programs that are the same up to renaming."""
    import re
    import struct

    from fuseflow.program.expr import Const, Statement, accesses, map_leaves, rename_tensors

    def f32(node):
        if isinstance(node, Const):
            return Const(struct.unpack("f", struct.pack("f", node.value))[0])
        return node

    names: dict[str, str] = {}
    found = []
    for op in ops:
        for access in [*accesses(op.expr), op.output]:
            names.setdefault(access.tensor, f"T{len(names)}")
        text = str(Statement(rename_tensors(op.output, names.get), map_leaves(rename_tensors(op.expr, names.get), f32)))
        order: dict[str, str] = {}
        for index in [*op.output.indices, *(i for a in accesses(op.expr) for i in a.indices)]:
            order.setdefault(index, f"i{len(order)}")
        text = re.sub(r"\(([a-z0-9_,]+)\)", lambda m: "(" + ",".join(order.get(i, i) for i in m.group(1).split(","))
                      + ")", text)
        found.append((text, op.reduce))
    return found
