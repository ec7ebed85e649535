"""One `func.func` of linalg on tensors, as the tensors, dimensions and ops of a program.

Each value the function returns is followed back through its operands: only the ops it
depends on are imported (dead ones are dropped, whatever they are). On the way:

- function arguments and elided constants (`dense_resource<__elided__>`) are input tensors;
- `tensor.empty` and `linalg.fill` are initial values, not ops; a fill read as an input is
  its number, and so is a splat constant;
- each `linalg.generic`, `linalg.matmul` and `linalg.matvec` is one op, from its indexing
  maps and body (fuseflow.program.mlir.body); a reduction into an initial value other than
  its identity (0 for a sum, -inf for a max) is two ops: the reduction, then the sum with the
  initial value;
- `tensor.cast` is the value it casts.

Dimensions are what the loops prove equal: the axes one loop dimension indexes are one
dimension (a union-find over axes), named D0, D1, ... in order of first appearance. A
dimension of extent 1 (keepdim axes, read with a constant 0) is dropped from every tensor and
loop. A `?` extent must be bound with --dim.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from fuseflow.program.expr import FUNCTIONS, Access, BinOp, Const, Expr, Statement
from fuseflow.program.ir import MAX_OPS
from fuseflow.program.mlir.bindings import SourceNames, line_of
from fuseflow.program.mlir.body import BodyReader, as_written
from fuseflow.program.mlir.tensor_types import MASK_TYPE, TensorType, check_value_type, tensor_type
from fuseflow.support.errors import ProgramError
from fuseflow.support.union_find import UnionFind

STRUCTURED = ("linalg.generic", "linalg.matmul", "linalg.matvec")
PASS_THROUGH = ("tensor.cast",)
#: reshapes that only add or remove axes of size 1 (keepdim): the same tensor in the program
UNIT_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")
#: no values, only a type: an output's shape and format
EMPTY = ("tensor.empty", "bufferization.alloc_tensor")
#: sizes of dynamic dimensions (`tensor.empty(%n)`): the union of axes decides extents instead
SIZES = ("tensor.dim",)
#: index names of an op's loop dimensions, in order
INDEX_NAMES = "ijklmnopqrstuvwxyzabcdefgh"


@dataclass
class TensorValue:
    """A tensor of the program: an input (with a source) or an op's result."""

    name: str
    type: TensorType
    slots: tuple[int, ...]       # one union-find slot per logical axis
    line: int | None
    what: str                    # "%arg0", "%cst_0", "%3"
    source: str | None = None    # inputs: "random" or "ones"


@dataclass(frozen=True)
class Number:
    """A fill, a splat or a scalar constant: the same number at every point."""

    value: float
    type: TensorType | None = None
    slots: tuple[int, ...] = ()


@dataclass(frozen=True)
class Empty:
    """`tensor.empty`: no values, only a type (an output's format)."""

    type: TensorType
    slots: tuple[int, ...]


@dataclass(frozen=True)
class Broadcast:
    """A generic that only copies its input along new axes (`Y(i,j) = b(j)`): no op of its own,
    since a program op must bind every output index; its readers read the input instead."""

    source: object                # TensorValue or Number
    source_map: object            # the generic's map of its input
    output_map: object            # ... and of its output
    type: TensorType
    slots: tuple[int, ...]


@dataclass
class ImportedOp:
    name: str
    statement: Statement
    reduce: str
    origin: str


@dataclass
class Imported:
    """What `translate` makes of a function: enough to write the program."""

    function: str
    dims: dict[str, int]                          # name -> extent, in order of first appearance
    dim_notes: dict[str, str]                     # name -> where it occurs
    #: (tensor, its dimensions in storage order, their formats): inputs, then computed tensors stored sparse
    inputs: list[tuple[TensorValue, tuple[str, ...], tuple[str, ...]]]
    declared: list[tuple[TensorValue, tuple[str, ...], tuple[str, ...]]]
    ops: list[ImportedOp]


class _Slots:
    """Tensor axes and loop dimensions, joined into classes (fuseflow.support.union_find), with
    each class's extent (None: `?`) and, for messages, where its first axis is."""

    def __init__(self):
        self.classes = UnionFind()
        self.extent: list[int | None] = []
        self.note: list[str] = []

    def new(self, extent: int | None, note: str) -> int:
        slot = len(self.extent)
        self.classes.add(slot)
        self.extent.append(extent)
        self.note.append(note)
        return slot

    def find(self, slot: int) -> int:
        return self.classes.find(slot)

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a == b:
            return
        if b < a:  # the older slot stays the root: its note names the class
            a, b = b, a
        self.classes.union(a, b)
        if self.extent[a] is None:
            self.extent[a] = self.extent[b]

    def class_extent(self, slot: int) -> int | None:
        return self.extent[self.find(slot)]


@dataclass
class _Pending:
    """A structured op seen in the first pass; its expressions are built once the extents are known."""

    op: object
    inputs: list
    outputs: list
    maps: list
    loop_slots: list[int]
    reduction: list[bool]
    result: TensorValue
    line: int | None


class Translator:
    def __init__(self, ir, module, text: str, where: str, dims: Mapping[str, int], density: float):
        self.ir = ir
        self.source_names = SourceNames(text)
        self.module = module
        self.where = where
        self.file = Path(where).name
        self.overrides = dict(dims)
        self.density = density
        self.slots = _Slots()
        self.values: dict = {}
        self.names: set[str] = set()
        self.inputs: list[TensorValue] = []
        self.pending: list[_Pending] = []

    # ---- the function ----

    def run(self) -> Imported:
        function = self._function()
        block = function.regions[0].blocks[0]
        returned = self._return(block)
        live = self._live(block, returned)
        ops = sum(1 for op in block.operations if op.operation.name in STRUCTURED
                  and any(result in live for result in op.operation.results))
        if ops > MAX_OPS:
            raise ProgramError(f"the result depends on {ops:,} linalg ops, more than the {MAX_OPS:,} a program may "
                               "have", where=self.where, fix="import a smaller model, or split it into several")
        for index, argument in enumerate(block.arguments):
            if argument in live:
                self._argument(argument, function, index)
        for operation in block.operations:
            operation = operation.operation
            if operation.name == "func.return" or not any(result in live for result in operation.results):
                continue
            self._operation(operation)
        for value in returned:
            result = self.values[value]
            if not isinstance(result, TensorValue) or result.source is not None:
                raise ProgramError("the function returns a value no op computes (an argument or a constant)",
                                   where=self.where, fix="return the result of a linalg op")
        return self._finish(str(function.attributes["sym_name"]).strip('"'))

    def _function(self):
        functions = [op.operation for op in self.module.body.operations if op.operation.name == "func.func"]
        others = [op.operation for op in self.module.body.operations
                  if op.operation.name not in ("func.func",)]
        if others:
            raise self._error(others[0], "is not supported at the top of the module", "keep one func.func")
        if len(functions) != 1:
            names = ", ".join("@" + str(f.attributes["sym_name"]).strip('"') for f in functions) or "none"
            raise ProgramError(f"the module must hold exactly one func.func (it has {names})", where=self.where,
                               fix="write one function per file; each fused region is a function of its own "
                                   "only when handing schedules back (docs/mlir.md)")
        function = functions[0]
        if not function.regions or not function.regions[0].blocks:
            raise self._error(function, "has no body", "give the function a body ending in return")
        if len(function.regions[0].blocks) != 1:
            raise self._error(function, "has more than one block", "write the function as one block of linalg ops")
        return function

    def _return(self, block) -> list:
        terminator = list(block.operations)[-1].operation
        if terminator.name != "func.return" or not list(terminator.operands):
            raise self._error(terminator, "must be a func.return of at least one tensor",
                              "return the model's output")
        return list(terminator.operands)

    def _live(self, block, returned) -> set:
        """The values the returned ones depend on (through operands and nothing else)."""
        live: set = set()
        work = list(returned)
        while work:
            value = work.pop()
            if value in live:
                continue
            live.add(value)
            if isinstance(value, self.ir.OpResult):
                owner = value.owner
                work.extend(owner.operands)
                for region in owner.regions:  # values a body reads from outside it
                    for inner in region.blocks:
                        for nested in inner.operations:
                            work.extend(v for v in nested.operation.operands
                                        if isinstance(v, self.ir.OpResult)
                                        and v.owner.parent is not None
                                        and v.owner.parent.operation != owner)
        return live

    # ---- values ----

    def _argument(self, argument, function, index: int) -> None:
        where = f"{self.where}:{line_of(function) or '?'}"
        kind = tensor_type(self.ir, argument.type, where)
        check_value_type(kind, argument.type, where)
        what = self.source_names.argument(argument)
        source = "ones" if kind.element == MASK_TYPE else "random"
        self._input(argument, kind, what, line_of(function), source)

    def _input(self, value, kind: TensorType, what: str, line: int | None, source: str) -> None:
        slots = tuple(self.slots.new(extent, f"{what} axis {axis}") for axis, extent in enumerate(kind.extents))
        tensor = TensorValue(self._name(what), kind, slots, line, what, source)
        self.inputs.append(tensor)
        self.values[value] = tensor

    def _operation(self, operation) -> None:
        name = operation.name
        if name == "arith.constant":
            self._constant(operation)
        elif name in EMPTY:
            if name == "bufferization.alloc_tensor" and list(operation.operands) and \
                    list(operation.attributes["operandSegmentSizes"])[1:2] != [0]:
                raise self._error(operation, "copies a tensor", "allocate an empty tensor (no copy operand)")
            kind = self._type(operation.results[0], operation)
            slots = tuple(self.slots.new(e, f"{self.source_names.result(operation.results[0])} axis {a}")
                          for a, e in enumerate(kind.extents))
            self.values[operation.results[0]] = Empty(kind, slots)
        elif name == "linalg.fill":
            self._fill(operation)
        elif name in SIZES:
            self.values[operation.results[0]] = Number(math.nan)
        elif name in PASS_THROUGH:
            self._cast(operation)
        elif name in UNIT_RESHAPES:
            self._unit_reshape(operation)
        elif name in STRUCTURED:
            self._structured(operation)
        else:
            raise self._error(operation, "is not supported",
                              "supported: func.func, func.return, tensor.empty, bufferization.alloc_tensor, tensor.cast, "
                              "tensor.dim, tensor.expand_shape and tensor.collapse_shape by axes of size 1, linalg.fill, "
                              "linalg.matmul, linalg.matvec, linalg.generic, arith.constant (docs/mlir.md)")

    def _constant(self, operation) -> None:
        value = operation.attributes["value"]
        result = operation.results[0]
        ir = self.ir
        if isinstance(value, (ir.FloatAttr, ir.IntegerAttr)):
            self.values[result] = Number(as_written(value))
            return
        kind = self._type(result, operation)
        if isinstance(value, ir.DenseElementsAttr) and value.is_splat:
            number = as_written(value.get_splat_value())
            self.values[result] = Number(number, kind, tuple(self.slots.new(e, "splat") for e in kind.extents))
            return
        if "dense_resource" in str(value):  # weights given by shape only: random data of that shape
            check_value_type(kind, result.type, self._at(operation))
            self._input(result, kind, self.source_names.result(result), line_of(operation), "random")
            return
        raise self._error(operation, "holds a dense constant with values; the program makes its inputs' data",
                          "give the weight as a function argument or as dense_resource<__elided__>")

    def _fill(self, operation) -> None:
        number = self.values.get(operation.operands[0])
        if not isinstance(number, Number) or number.type is not None:
            raise self._error(operation, "fills with a value that is not a scalar constant",
                              "fill with an arith.constant")
        target = self.values.get(operation.operands[1])
        kind = self._type(operation.results[0], operation)
        slots = getattr(target, "slots", None) or tuple(self.slots.new(e, "fill") for e in kind.extents)
        self.values[operation.results[0]] = Number(number.value, kind, tuple(slots))

    def _cast(self, operation) -> None:
        source = self.values[operation.operands[0]]
        kind = self._type(operation.results[0], operation)
        if isinstance(source, TensorValue):
            if kind.storage != source.type.storage or kind.formats != source.type.formats:
                raise self._error(operation, "changes the tensor's format", "convert formats outside the model")
            for slot, extent in zip(source.slots, kind.extents):
                if extent is not None and self.slots.class_extent(slot) is None:
                    self.slots.extent[self.slots.find(slot)] = extent
        self.values[operation.results[0]] = source

    def _unit_reshape(self, operation) -> None:
        """expand_shape/collapse_shape whose groups each hold at most one axis not of size 1: the
        axes of size 1 are dropped anyway, so the result is its operand, read with other axes."""
        source = self.values[operation.operands[0]]
        kind = self._type(operation.results[0], operation)
        groups = [[int(axis.value) for axis in group] for group in operation.attributes["reassociation"]]
        expanding = operation.name == "tensor.expand_shape"
        if not isinstance(source, TensorValue) or source.type.sparse or kind.sparse:
            raise self._error(operation, "reshapes a sparse tensor or a value that is not a tensor",
                              "reshape only dense tensors, by axes of size 1")
        many, few = (kind, source.type) if expanding else (source.type, kind)
        slots = [None] * kind.rank
        for few_axis, group in enumerate(groups):
            wide = [axis for axis in group if many.extents[axis] != 1]
            if len(wide) > 1:
                raise self._error(operation, "merges or splits axes larger than 1, which the program cannot "
                                             "follow", "reshape only by adding or removing axes of size 1")
            for axis in group:
                if expanding:
                    slots[axis] = source.slots[few_axis] if axis in wide else self.slots.new(1, "unit axis")
                elif axis in wide:
                    slots[few_axis] = source.slots[axis]
            if not expanding and slots[few_axis] is None:
                slots[few_axis] = self.slots.new(1, "unit axis")
        self.values[operation.results[0]] = TensorValue(source.name, kind, tuple(slots), source.line, source.what,
                                                        source.source)

    def _type(self, value, operation) -> TensorType:
        return tensor_type(self.ir, value.type, self._at(operation))

    # ---- structured ops ----

    def _structured(self, operation) -> None:
        segments = list(operation.attributes["operandSegmentSizes"])
        operands = list(operation.operands)
        inputs = [self.values[v] for v in operands[:segments[0]]]
        outputs = [self.values[v] for v in operands[segments[0]:segments[0] + segments[1]]]
        maps = self._maps(operation)
        if len(maps) != len(inputs) + len(outputs):
            raise self._error(operation, "has a different number of indexing maps and operands", "")
        n_loops = maps[0].n_dims
        loop_slots = [self.slots.new(None, f"loop d{d}") for d in range(n_loops)]
        reduction = self._iterators(operation, maps, n_loops)
        for value, affine_map in zip(inputs + outputs, maps):
            self._index(operation, value, affine_map, loop_slots)
        result_value = operation.results[0]
        kind = self._type(result_value, operation)
        check_value_type(kind, result_value.type, self._at(operation))
        what = self.source_names.result(result_value)
        slots = tuple(self.slots.new(e, f"{what} axis {a}") for a, e in enumerate(kind.extents))
        result = TensorValue(self._name(what), kind, slots, line_of(operation), what)
        self._index(operation, result, maps[len(inputs)], loop_slots)
        if outputs and getattr(outputs[0], "slots", None):
            for mine, theirs in zip(slots, outputs[0].slots):
                self.slots.union(mine, theirs)
        if self._is_broadcast(operation, inputs, maps):
            self.values[result_value] = Broadcast(inputs[0], maps[0], maps[1], kind, slots)
            self.names.discard(result.name)
            return
        self.values[result_value] = result
        self.pending.append(_Pending(operation, inputs, outputs, maps, loop_slots, reduction, result,
                                     line_of(operation)))

    def _is_broadcast(self, operation, inputs, maps) -> bool:
        """One input, yielded as it is, that some output loop dimension does not index."""
        if operation.name != "linalg.generic" or len(inputs) != 1 or len(maps) != 2 \
                or len(list(operation.results)) != 1:
            return False
        block = operation.regions[0].blocks[0]
        yielded = list(block.operations)[-1].operation.operands
        if len(yielded) != 1 or yielded[0] != block.arguments[0]:
            return False
        used = {r.position for r in maps[0].results if isinstance(r, self.ir.AffineDimExpr)}
        out = {r.position for r in maps[1].results if isinstance(r, self.ir.AffineDimExpr)}
        return used < out

    def _maps(self, operation) -> list:
        for key in ("indexing_maps", "linalg.memoized_indexing_maps"):
            if key in operation.attributes:
                return [attribute.value for attribute in operation.attributes[key]]
        raise self._error(operation, "has no indexing maps the bindings can read", "write it as a linalg.generic")

    def _iterators(self, operation, maps, n_loops: int) -> list[bool]:
        if "iterator_types" in operation.attributes:
            kinds = [str(kind) for kind in operation.attributes["iterator_types"]]
            return ["reduction" in kind for kind in kinds]
        in_output = {r.position for r in maps[-1].results if isinstance(r, self.ir.AffineDimExpr)}
        return [d not in in_output for d in range(n_loops)]

    def _index(self, operation, value, affine_map, loop_slots) -> None:
        """Unify each axis of `value` with the loop dimension indexing it."""
        if isinstance(value, Number) and value.type is None:
            return  # a scalar: no axes
        kind = value.type
        results = list(affine_map.results)
        if len(results) != kind.rank:
            raise self._error(operation, f"has an indexing map {affine_map} for a rank-{kind.rank} operand", "")
        for axis, expression in enumerate(results):
            if isinstance(expression, self.ir.AffineDimExpr):
                self.slots.union(value.slots[axis], loop_slots[expression.position])
            elif isinstance(expression, self.ir.AffineConstantExpr) and expression.value == 0 \
                    and kind.extents[axis] == 1:
                continue
            else:
                raise self._error(operation, f"indexes with {affine_map}, which is not a projected permutation",
                                  "index each axis with one loop dimension, or with 0 for an axis of size 1")

    # ---- the second pass: names, extents, expressions ----

    def _finish(self, function: str) -> Imported:
        dims, dim_of = self._dims()
        ops: list[ImportedOp] = []
        declared = []
        for pending in self.pending:
            ops.extend(self._ops(pending, dim_of))
            if pending.result.type.sparse:
                declared.append((pending.result, self._shape(pending.result, dim_of),
                                 self._formats(pending.result, dim_of)))
        inputs = [(tensor, self._shape(tensor, dim_of), self._formats(tensor, dim_of)) for tensor in self.inputs]
        return Imported(function, {n: e for n, (e, _) in dims.items()}, {n: w for n, (_, w) in dims.items()},
                        inputs, declared, ops)

    def _dims(self):
        """Name every class of axes that is not of extent 1, in order of first appearance."""
        dims: dict[str, tuple[int, str]] = {}
        dim_of: dict[int, str] = {}
        tensors = self.inputs + [p.result for p in self.pending]
        groups = [t.slots for t in tensors] + [tuple(p.loop_slots) for p in self.pending]
        for slots in groups:
            for slot in slots:
                root = self.slots.find(slot)
                extent = self.slots.extent[root]
                if root in dim_of or extent == 1:
                    continue
                name = f"D{len(dims)}"
                note = self.slots.note[root]
                if extent is None:
                    if name not in self.overrides:
                        raise ProgramError(f"dimension {name} ({note}) is dynamic (?)", where=self.where,
                                           fix=f"bind it with --dim {name}=N")
                    extent = self.overrides[name]
                dim_of[root] = name
                dims[name] = (extent, note)
        return dims, dim_of

    def _kept(self, slot: int, dim_of) -> str | None:
        return dim_of.get(self.slots.find(slot))

    def _shape(self, tensor: TensorValue, dim_of) -> tuple[str, ...]:
        return tuple(d for d in (self._kept(tensor.slots[a], dim_of) for a in tensor.type.storage) if d)

    def _formats(self, tensor: TensorValue, dim_of) -> tuple[str, ...]:
        return tuple(f for a, f in zip(tensor.type.storage, tensor.type.formats)
                     if self._kept(tensor.slots[a], dim_of))

    def _ops(self, pending: _Pending, dim_of) -> list[ImportedOp]:
        operation = pending.op
        letters = {}
        for d, slot in enumerate(pending.loop_slots):
            if self._kept(slot, dim_of):
                letters[d] = INDEX_NAMES[len(letters)]
        if len(letters) > len(INDEX_NAMES):
            raise self._error(operation, "has too many loop dimensions", "")
        operands = pending.inputs + pending.outputs

        def access(value, affine_map) -> Expr:
            results = list(affine_map.results)
            return read(value, [letters.get(r.position) if isinstance(r, self.ir.AffineDimExpr) else None
                                for r in results])

        def read(value, axis_letters) -> Expr:
            """`value` read with index `axis_letters[a]` at its logical axis a."""
            if isinstance(value, Number):
                return Const(value.value)
            if isinstance(value, Empty):
                raise self._error(operation, "reads a tensor.empty, which has no values",
                                  "fill it first (linalg.fill), or do not read the output in the body")
            if isinstance(value, Broadcast):
                out_axis = {r.position: a for a, r in enumerate(value.output_map.results)
                            if isinstance(r, self.ir.AffineDimExpr)}
                return read(value.source, [axis_letters[out_axis[r.position]]
                                           if isinstance(r, self.ir.AffineDimExpr) else None
                                           for r in value.source_map.results])
            return Access(value.name, tuple(axis_letters[a] for a in value.type.storage
                                            if self._kept(value.slots[a], dim_of)))

        def operand(index: int) -> Expr:
            return access(operands[index], pending.maps[index])

        def is_mask(index: int) -> bool:
            value = operands[index]
            return isinstance(value, TensorValue) and value.type.element == MASK_TYPE

        reader = BodyReader(self.ir, operation, operand, is_mask, self.where)
        reader.unused_results_ok()
        combined = reader.first_result()
        reduced = [d for d, is_reduction in enumerate(pending.reduction) if is_reduction and d in letters]
        output_map = pending.maps[len(pending.inputs)]
        in_output = {r.position for r in output_map.results if isinstance(r, self.ir.AffineDimExpr)}
        for d in letters:
            if (d in in_output) == (d in reduced):
                kind = "a reduction dimension indexes" if d in reduced else "a parallel dimension is missing from"
                raise self._error(operation, f"is not a linalg op the program can express: {kind} the output "
                                             f"(d{d})", "reduce exactly the dimensions the output omits")
        result = pending.result
        output = Access(result.name, tuple(letters[output_map.results[a].position] for a in result.type.storage
                                           if self._kept(result.slots[a], dim_of)))
        origin = f"{self.file}:{pending.line} {operation.name}" if pending.line else f"{self.file} {operation.name}"
        name = f"{operation.name.split('.')[-1]}_{result.name}"
        init = pending.outputs[0] if pending.outputs else None
        if combined.reduce is None:
            return [ImportedOp(name, Statement(output, combined.expr), "sum", origin)]
        if not reduced:  # an element-wise op that reads its output: out + x
            if combined.reduce != "sum":
                raise self._error(operation, "takes the maximum with its output element by element",
                                  "the program has max only as a reduction")
            return [ImportedOp(name, Statement(output, BinOp("+", operand(len(pending.inputs)), combined.expr)),
                               "sum", origin)]
        identity = 0.0 if combined.reduce == "sum" else -math.inf
        if isinstance(init, Number) and init.value == identity:
            return [ImportedOp(name, Statement(output, combined.expr), combined.reduce, origin)]
        if isinstance(init, Empty) or combined.reduce != "sum":
            raise self._error(operation, f"reduces ({combined.reduce}) into an output that is not initialized to "
                                         f"{identity}", f"fill the output with {identity} first")
        partial = self._name(f"{result.name}_part")
        first = ImportedOp(f"{name}_part", Statement(Access(partial, output.indices), combined.expr), "sum", origin)
        second = ImportedOp(name, Statement(output, BinOp("+", Access(partial, output.indices),
                                                          operand(len(pending.inputs)))), "sum", origin)
        return [first, second]

    # ---- names and messages ----

    def _name(self, what: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", what.lstrip("%")) or "t"
        if not re.match(r"[A-Za-z_]", base):
            base = f"t{base}"
        if base in FUNCTIONS or re.fullmatch(r"D\d+", base):
            base = f"{base}_"
        name, count = base, 1
        while name in self.names:
            count += 1
            name = f"{base}_{count}"
        self.names.add(name)
        return name

    def _at(self, operation) -> str:
        line = line_of(operation) if operation is not None else None
        return f"{self.where}:{line}" if line else self.where

    def _error(self, operation, what: str, fix: str) -> ProgramError:
        return ProgramError(f"{operation.name} {what}", where=self._at(operation), fix=fix or None)
