"""A linalg op's body (the scalar computation per loop point) as a program expression.

The body's block arguments are the op's operands, element by element: `operand(i)` gives
the expression that reads operand i at the loop point (an Access, or a number for a fill or
a splat). A reduction's combiner (the op that reads the output argument) decides the
reduction: `addf` is a sum, `maximumf`/`maxnumf` or `select(cmpf ogt, x, out)` a max.

Idioms with one meaning in the program are recognized, never approximated:
- relu: `maximumf(x, 0)`, `select(cmpf ugt x, 0, x, 0)` and the mirrored forms;
- masks: `select(m, x, 0)` with an i1 operand `m` is `x * m` (a 0/1 tensor), `uitofp m` is m;
- `negf` is a negation; `extf`/`truncf` keep the value (the program computes in float64).
Anything else stops the import with the op's line and name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from fuseflow.program.expr import BinOp, Call, Const, Expr, Neg
from fuseflow.program.mlir.bindings import line_of
from fuseflow.support.errors import ProgramError

BINARY = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
UNARY = {"math.exp": "exp", "math.log": "log", "math.rsqrt": "rsqrt", "math.tanh": "tanh", "math.sqrt": "sqrt"}
MAXIMUM = ("arith.maximumf", "arith.maxnumf")
SAME_VALUE = ("arith.extf", "arith.truncf")
#: arith.cmpf predicates (CmpFPredicate): x > y and x < y, ordered or not
GREATER = {2, 3, 9, 10}   # ogt, oge, ugt, uge
LESS = {4, 5, 11, 12}     # olt, ole, ult, ule
#: a body's ops, at most: an expression is at most 64 levels deep anyway (docs/program-format.md),
#: and reading it recurses once per op
MAX_BODY_OPS = 256
SUPPORTED = sorted([*BINARY, *UNARY, *MAXIMUM, "arith.negf", "arith.select", "arith.cmpf", "arith.constant",
                    "arith.uitofp", *SAME_VALUE])


def as_written(attribute) -> float:
    """A float or integer attribute's value, exactly: an f32's 9.99999974E-6 is the float64
    9.999999747378752e-06 (the program computes in float64 from what it is given)."""
    return float(attribute.value)


@dataclass(frozen=True)
class Combined:
    """The first result of a body: `expr` combined into the output by `reduce` (None: not at all)."""

    expr: Expr
    reduce: str | None


class BodyReader:
    """Reads one linalg op's body; `operand(i)` is the expression of block argument i."""

    def __init__(self, ir, op, operand: Callable[[int], Expr], is_mask: Callable[[int], bool], where: str):
        self.ir = ir
        self.op = op
        self.block = op.regions[0].blocks[0]
        self.operand = operand
        self.is_mask = is_mask
        self.where = where
        self.n_inputs = len(self.block.arguments) - len(op.results)
        count = sum(1 for _ in self.block.operations)
        if count > MAX_BODY_OPS:
            raise self._error(op, f"has a body of {count} ops, more than the {MAX_BODY_OPS} an op's expression "
                                  "can hold", "split the computation into several linalg ops")

    # ---- the yield ----

    def first_result(self) -> Combined:
        """The first yielded value, split into what is combined and how."""
        terminator = self._terminator()
        value = terminator.operands[0]
        out = self.block.arguments[self.n_inputs]
        if not self._reads(value, out):
            return Combined(self.expr(value), None)
        producer = self._producer(value)
        name = producer.name if producer is not None else ""
        if name == "arith.addf":
            other = self._other(producer, out)
            if other is not None:
                return Combined(self.expr(other), "sum")
        if name in MAXIMUM:
            other = self._other(producer, out)
            if other is not None:
                return Combined(self.expr(other), "max")
        if name == "arith.select":
            chosen = self._select_max(producer, out)
            if chosen is not None:
                return Combined(self.expr(chosen), "max")
        raise self._error(producer, "combines into the output in a way that is neither a sum nor a max",
                          "reduce with arith.addf (sum) or arith.maximumf (max) of the output and one value")

    def unused_results_ok(self) -> None:
        """Results after the first must have no uses (the arg-max idiom's index)."""
        for index, result in enumerate(list(self.op.results)[1:], start=1):
            if list(result.uses):
                raise self._error(self.op, f"result {index} is used; only an op's first result can be imported",
                                  "compute the other result in an op of its own")

    # ---- expressions ----

    def expr(self, value) -> Expr:
        if isinstance(value, self.ir.BlockArgument) and value.owner == self.block:
            return self.operand(value.arg_number)
        producer = self._producer(value)
        if producer is None:
            raise ProgramError("a body reads a value defined neither in it nor as a constant", where=self.where)
        name = producer.name
        if name == "arith.constant":
            return Const(self._number(producer))
        if not self._inside(producer):
            raise self._error(producer, "is read inside a linalg body but defined outside it",
                              "pass it to the op as an operand")
        operands = list(producer.operands)
        if name in BINARY:
            return BinOp(BINARY[name], self.expr(operands[0]), self.expr(operands[1]))
        if name in UNARY:
            return Call(UNARY[name], self.expr(operands[0]))
        if name == "arith.negf":
            return Neg(self.expr(operands[0]))
        if name in SAME_VALUE:
            return self.expr(operands[0])
        if name == "arith.uitofp" and self._mask_argument(operands[0]) is not None:
            return self.operand(self._mask_argument(operands[0]))
        if name in MAXIMUM:
            relu = self._relu_of_maximum(operands)
            if relu is not None:
                return Call("relu", self.expr(relu))
            raise self._error(producer, "is the maximum of two values; the program has max only as a reduction",
                              "write max(x, 0) (relu), or reduce with maximumf into the output")
        if name == "arith.select":
            return self._select(producer)
        raise self._error(producer, "is not supported in a linalg body",
                          f"supported: {', '.join(SUPPORTED)}")

    def _select(self, select) -> Expr:
        condition, if_true, if_false = list(select.operands)
        mask = self._mask_argument(condition)
        if mask is not None:
            if self._is_zero(if_false):
                return BinOp("*", self.expr(if_true), self.operand(mask))
            raise self._error(select, "selects by a mask with a value other than 0 where the mask is unset",
                              "write select(mask, x, 0.0): the program multiplies by a 0/1 mask")
        sign = self._sign_test(condition)
        if sign is not None:
            value, positive = sign  # the condition is value > 0 (positive) or value < 0
            kept, dropped = (if_true, if_false) if positive else (if_false, if_true)
            if kept == value and self._is_zero(dropped):
                return Call("relu", self.expr(value))
        raise self._error(select, "is a select the program cannot express",
                          "use relu (x > 0 ? x : 0), a mask (select(mask, x, 0.0)) or a max reduction")

    def _sign_test(self, condition):
        """(x, True) for a cmpf meaning x > 0, (x, False) for x < 0; None otherwise."""
        compare = self._producer(condition)
        if compare is None or compare.name != "arith.cmpf":
            return None
        predicate = int(compare.attributes["predicate"].value)
        lhs, rhs = list(compare.operands)
        if self._is_zero(rhs) and predicate in GREATER | LESS:
            return lhs, predicate in GREATER
        if self._is_zero(lhs) and predicate in GREATER | LESS:
            return rhs, predicate in LESS  # 0 < x is x > 0
        return None

    def _select_max(self, select, out):
        """select(x > out, x, out) or select(out < x, x, out): x, for a max reduction."""
        condition, if_true, if_false = list(select.operands)
        compare = self._producer(condition)
        if compare is None or compare.name != "arith.cmpf":
            return None
        predicate = int(compare.attributes["predicate"].value)
        lhs, rhs = list(compare.operands)
        if if_false == out and ((predicate in GREATER and lhs == if_true and rhs == out)
                                or (predicate in LESS and rhs == if_true and lhs == out)):
            return if_true
        return None

    def _relu_of_maximum(self, operands):
        lhs, rhs = operands
        if self._is_zero(rhs):
            return lhs
        if self._is_zero(lhs):
            return rhs
        return None

    # ---- helpers ----

    def _inside(self, producer) -> bool:
        parent = producer.parent
        return parent is not None and parent.operation == self.op.operation

    def _number(self, constant) -> float:
        value = constant.attributes["value"]
        if isinstance(value, (self.ir.FloatAttr, self.ir.IntegerAttr)):
            number = as_written(value)
        elif isinstance(value, self.ir.DenseFPElementsAttr) and value.is_splat:
            number = as_written(value.get_splat_value())
        else:
            raise self._error(constant, f"is a constant the body cannot use as a number ({value})",
                              "use a scalar or splat float constant")
        if not math.isfinite(number):
            raise self._error(constant, f"is {number}; a program's numbers are finite",
                              "a -inf initial value belongs in the linalg.fill of a max reduction's output")
        return number

    def _is_zero(self, value) -> bool:
        producer = self._producer(value)
        if producer is None or producer.name != "arith.constant":
            return False
        attribute = producer.attributes["value"]
        try:
            return float(attribute.value) == 0.0
        except (AttributeError, TypeError, ValueError):
            return False

    def _mask_argument(self, value) -> int | None:
        if isinstance(value, self.ir.BlockArgument) and value.owner == self.block and self.is_mask(value.arg_number):
            return value.arg_number
        return None

    def _reads(self, value, target, depth: int = 0) -> bool:
        if value == target:
            return True
        producer = self._producer(value)
        if producer is None or depth > 64 or not self._inside(producer):
            return False
        return any(self._reads(operand, target, depth + 1) for operand in producer.operands)

    def _other(self, producer, out):
        lhs, rhs = list(producer.operands)
        if lhs == out and not self._reads(rhs, out):
            return rhs
        if rhs == out and not self._reads(lhs, out):
            return lhs
        return None

    def _producer(self, value):
        if isinstance(value, self.ir.OpResult):
            return value.owner
        return None

    def _terminator(self):
        operations = list(self.block.operations)
        return operations[-1].operation

    def _error(self, op, what: str, fix: str) -> ProgramError:
        line = line_of(op) if op is not None else None
        name = op.name if op is not None else "the body"
        where = f"{self.where}:{line}" if line else self.where
        return ProgramError(f"{name} {what}", where=where, fix=fix)
