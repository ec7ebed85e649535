"""A program's fused regions written as MLIR, one `func.func` each: what FuseFlow compiles.

Each region becomes a function whose arguments are the tensors it reads from memory and whose
results are the tensors it writes; each op becomes one `linalg.generic` on tensors, as
torch-mlir writes them (fuseflow.program.mlir imports them back to the same ops):

- a tensor's dimensions are its program dimensions in storage order, and a tensor with a
  compressed level carries a `#sparse_tensor.encoding` with the identity map and its levels;
- an op's loop dimensions are its output indices, then the reduced ones; each access is an
  input with a projected-permutation indexing map;
- a sum reduces into a `linalg.fill` of 0, a max into one of -inf (`0xFF800000`);
- the body is the expression: `+ - * /` and negation as `arith` ops, `relu` as
  `arith.maximumf` with 0, `exp`/`log`/`sqrt`/`rsqrt`/`tanh` as `math` ops, `sigmoid` and
  `gelu` written out (1/(1+exp(-x)); gelu's tanh form), numbers and dimensions' extents as
  `arith.constant`s. The element type is f32, as in the models FuseFlow takes.

The program's own conventions where IEEE arithmetic differs (x/0 is 0, 0·NaN is 0;
docs/program-format.md) are not written into the MLIR: the compiler computes as MLIR does.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from fuseflow.program.expr import Access, BinOp, Call, Const, Expr, Extent, Neg
from fuseflow.program.ir import Op, Program, Region

ELEMENT = "f32"
#: the value a reduction starts from, by reduction
INITIAL = {"sum": "zero", "max": "ninf"}
BINARY = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf", "/": "arith.divf"}
MATH = {"exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "tanh": "math.tanh"}
#: gelu's tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
GELU_SCALE = math.sqrt(2 / math.pi)


def regions_module(program: Program, extents: Mapping[str, int], regions: Sequence[Region],
                   names: Sequence[str]) -> str:
    """An MLIR module with one function per region, named `names[i]`."""
    writer = _ModuleWriter(program, extents)
    functions = [writer.function(region, name) for region, name in zip(regions, names)]
    header = [f"// {program.name}: {len(regions)} fused region(s), one func.func each, written by navigator"]
    header += [f"{alias} = {encoding}" for encoding, alias in writer.encodings.items()]
    return "\n".join(header + ["module {"] + functions + ["}", ""])


def _number(value: float) -> str:
    if math.isinf(value):
        return "0xFF800000" if value < 0 else "0x7F800000"
    if math.isnan(value):
        return "0x7FC00000"
    return f"{value:.9e}"


class _ModuleWriter:
    def __init__(self, program: Program, extents: Mapping[str, int]):
        self.program = program
        self.extents = extents
        self.encodings: dict[str, str] = {}   # encoding text -> its alias

    def tensor_type(self, tensor: str) -> str:
        decl = self.program.tensors[tensor]
        shape = "x".join(str(self.extents[d]) for d in decl.dims)
        if "compressed" not in decl.formats:
            return f"tensor<{shape}x{ELEMENT}>" if shape else f"tensor<{ELEMENT}>"
        dims = ", ".join(f"d{k}" for k in range(len(decl.formats)))
        levels = ", ".join(f"d{k} : {f}" for k, f in enumerate(decl.formats))
        encoding = f"#sparse_tensor.encoding<{{ map = ({dims}) -> ({levels}) }}>"
        alias = self.encodings.setdefault(encoding, "#" + "".join(f[0] for f in decl.formats))  # #dc: CSR
        return f"tensor<{shape}x{ELEMENT}, {alias}>"

    def function(self, region: Region, name: str) -> str:
        # a tensor two ops of the region read is one argument (Region.operands lists each read)
        arguments = list(dict.fromkeys(o.tensor for o in region.operands))
        results = list(dict.fromkeys(r.tensor for r in region.results))
        signature = ", ".join(f"%{t}: {self.tensor_type(t)}" for t in arguments)
        returns = ", ".join(self.tensor_type(t) for t in results)
        ops = [self.program.op_by_name[op_name] for op_name in region.ops]
        lines = [f"  func.func @{name}({signature}) -> ({returns}) {{"]
        for start, value in (("sum", 0.0), ("max", -math.inf)):  # the reductions' initial values
            if any(op.reduction_vars and op.reduce == start for op in ops):
                lines.append(f"    %{INITIAL[start]} = arith.constant {_number(value)} : {ELEMENT}")
        for op in ops:
            lines += self.op(op)
        lines.append(f"    return {', '.join('%' + t for t in results)} : {returns}")
        lines.append("  }")
        return "\n".join(lines)

    def op(self, op: Op) -> list[str]:
        out = op.output.tensor
        out_type = self.tensor_type(out)
        loops = list(op.vars)  # output indices, then the reduced ones
        n = len(loops)
        domain = ", ".join(f"d{k}" for k in range(n))

        def affine(indices) -> str:
            return f"affine_map<({domain}) -> ({', '.join(f'd{loops.index(i)}' for i in indices)})>"

        inputs: list[Access] = []
        for access in op.inputs:
            if access not in inputs:
                inputs.append(access)
        maps = [affine(a.indices) for a in inputs] + [affine(op.output.indices)]
        iterators = ", ".join('"reduction"' if v in op.reduction_vars else '"parallel"' for v in loops)
        lines = [f"    %{out}_empty = tensor.empty() : {out_type}"]
        init = f"%{out}_empty"
        if op.reduction_vars:
            start = f"%{INITIAL[op.reduce]}"
            lines.append(f"    %{out}_init = linalg.fill ins({start} : {ELEMENT}) outs(%{out}_empty : {out_type}) "
                         f"-> {out_type}")
            init = f"%{out}_init"
        ins = ", ".join(f"%{a.tensor}" for a in inputs)
        in_types = ", ".join(self.tensor_type(a.tensor) for a in inputs)
        ins_clause = f"ins({ins} : {in_types}) " if inputs else ""
        lines.append(f"    %{out} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = "
                     f"[{iterators}]}} {ins_clause}outs({init} : {out_type}) {{")
        arguments = [f"%in{k}: {ELEMENT}" for k in range(len(inputs))] + [f"%out: {ELEMENT}"]
        lines.append(f"    ^bb0({', '.join(arguments)}):")
        body = _Body({a: f"%in{k}" for k, a in enumerate(inputs)}, self.extents)
        value = body.value(op.expr)
        if op.reduction_vars:
            combine = "arith.addf" if op.reduce == "sum" else "arith.maximumf"
            value = body.binary(combine, "%out", value)
        lines += body.lines
        lines += [f"      linalg.yield {value} : {ELEMENT}", f"    }} -> {out_type}"]
        return lines


class _Body:
    """The scalar ops of one body, in SSA form."""

    def __init__(self, arguments: dict[Access, str], extents: Mapping[str, int]):
        self.arguments = arguments
        self.extents = extents
        self.lines: list[str] = []

    def emit(self, text: str) -> str:
        name = f"%v{len(self.lines)}"
        self.lines.append(f"      {name} = {text}")
        return name

    def constant(self, value: float) -> str:
        return self.emit(f"arith.constant {_number(value)} : {ELEMENT}")

    def unary(self, op: str, x: str) -> str:
        return self.emit(f"{op} {x} : {ELEMENT}")

    def binary(self, op: str, x: str, y: str) -> str:
        return self.emit(f"{op} {x}, {y} : {ELEMENT}")

    def value(self, expr: Expr) -> str:
        if isinstance(expr, Access):
            return self.arguments[expr]
        if isinstance(expr, Const):
            return self.constant(expr.value)
        if isinstance(expr, Extent):
            return self.constant(float(self.extents[expr.dim]))
        if isinstance(expr, Neg):
            return self.unary("arith.negf", self.value(expr.arg))
        if isinstance(expr, BinOp):
            lhs, rhs = self.value(expr.lhs), self.value(expr.rhs)
            return self.binary(BINARY[expr.op], lhs, rhs)
        if isinstance(expr, Call):
            return self.call(expr.func, self.value(expr.arg))
        raise TypeError(f"not an expression: {expr!r}")

    def call(self, function: str, x: str) -> str:
        if function in MATH:
            return self.unary(MATH[function], x)
        if function == "relu":
            return self.binary("arith.maximumf", x, self.constant(0.0))
        if function == "neg":
            return self.unary("arith.negf", x)
        if function == "sigmoid":  # 1 / (1 + exp(-x))
            exp = self.unary("math.exp", self.unary("arith.negf", x))
            return self.binary("arith.divf", self.constant(1.0), self.binary("arith.addf", self.constant(1.0), exp))
        if function == "gelu":  # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
            cube = self.binary("arith.mulf", self.binary("arith.mulf", x, x), x)
            inner = self.binary("arith.addf", x, self.binary("arith.mulf", self.constant(0.044715), cube))
            tanh = self.unary("math.tanh", self.binary("arith.mulf", self.constant(GELU_SCALE), inner))
            half = self.binary("arith.mulf", self.constant(0.5), x)
            return self.binary("arith.mulf", half, self.binary("arith.addf", self.constant(1.0), tanh))
        raise ValueError(f"no MLIR for the function {function!r}")
