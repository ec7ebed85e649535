"""The numpy/scipy reference: every op evaluated with dense semantics.

Unstored entries are zero, `x / 0` is 0, `0 * x` is 0 even for a NaN or infinite x, and
reductions (sum or max) run over the full index range. Dense arrays are used whenever the
op's index space is small; products with one sparse two-level factor use scipy (a
sparse-dense product, or the product sampled at the stored entries), so the reference also
runs on graphs with millions of edges.

Every result is a dense array, so an N x N output of a large graph needs N^2 * 8 bytes: each
allocation is checked against the memory budget before it is made (`check_memory`).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from fuseflow.data.graph_limits import clamp_bytes
from fuseflow.support.errors import DataError
from fuseflow.program.expr import Access, BinOp, Call, Const, Expr, Neg, bind_extents
from fuseflow.program.ir import Op, Program
from fuseflow.support.memory import check_memory

DENSE_LIMIT = 60_000_000       # elements of a broadcast evaluation before we refuse


def _check_bytes(op: Op, nbytes: int, what: str) -> None:
    check_memory(clamp_bytes(nbytes), f"the numpy reference of op {op.name} ({what})", "reference",
                 fix="shrink the problem with --dim or use a smaller graph")


def _dense_size(ext: dict[str, int], vars_) -> str:
    return " x ".join(f"{ext[v]:,}" for v in vars_) or "scalar"


def evaluate_program(program: Program, inputs: dict, extents: dict[str, int]) -> dict[str, np.ndarray]:
    """Dense values of every computed tensor."""
    # Every result is kept (and compared against a dense copy of the simulated one), so the
    # whole set is checked up front; each op checks its own temporaries as it runs.
    total = 0
    for op in program.ops:
        total += 2 * 8 * math.prod(extents[program.var_dim(op, v)] for v in op.output_vars)
    check_memory(clamp_bytes(total), f"the dense results of the numpy reference for {program.name}", "reference",
                 fix="shrink the problem with --dim or use a smaller graph")
    values = dict(inputs)
    out: dict[str, np.ndarray] = {}
    for op in program.ops:
        result = evaluate_op(program, op, values, extents)
        values[op.output.tensor] = result
        out[op.output.tensor] = result
    return out


def op_extents(program: Program, op: Op, extents: dict[str, int]) -> dict[str, int]:
    return {v: extents[program.var_dim(op, v)] for v in op.vars}


def evaluate_op(program: Program, op: Op, values: dict, extents: dict[str, int]) -> np.ndarray:
    ext = op_extents(program, op, extents)
    out_vars = op.output_vars
    # the result and one working copy of it (a transpose, a sum's output, a scaled product)
    _check_bytes(op, 2 * 8 * math.prod(ext[v] for v in out_vars), f"a dense {_dense_size(ext, out_vars)} result")
    expr = bind_extents(op.expr, extents)  # an extent used as a number is its bound value
    factors = _product_factors(expr)
    # The product kernels multiply by IEEE rules (0 * NaN is NaN); with a NaN or an infinity in
    # a factor only the element-wise path below gives the language's 0 * anything = 0.
    if op.reduce == "sum" and factors is not None and _all_finite(factors, values):
        sparse = [f for f in factors if isinstance(f, Access) and sp.issparse(values[f.tensor])]
        if len(sparse) == 1 and len(sparse[0].indices) == 2:
            result = _sparse_product(op, factors, sparse[0], values, ext, out_vars)
            if result is not None:
                return result
        if not sparse:
            return _einsum_product(factors, values, out_vars)
    size = math.prod(ext[v] for v in op.vars)
    if size > DENSE_LIMIT:
        raise DataError(f"op {op.name} spans {size:,} index points, too many for the dense reference",
                        where="reference", fix="shrink the problem with --dim")
    # every node of the expression may hold a broadcast array of the full index space
    _check_bytes(op, 8 * size * (_nodes(expr) + 1), f"{_dense_size(ext, op.vars)} index points")
    full = _broadcast(expr, op.vars, values, ext)
    axes = tuple(range(len(out_vars), len(op.vars)))
    full = np.broadcast_to(full, tuple(ext[v] for v in op.vars))
    if axes:
        full = full.max(axis=axes) if op.reduce == "max" else full.sum(axis=axes)
    return np.array(full, dtype=np.float64)


def _all_finite(factors, values) -> bool:
    for f in factors:
        if isinstance(f, Access):
            value = values[f.tensor]
            if not np.isfinite(value.data if sp.issparse(value) else np.asarray(value)).all():
                return False
    return True


def _nodes(expr: Expr) -> int:
    """Nodes of an expression tree, counted without recursion."""
    count, stack = 0, [expr]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, BinOp):
            stack += [node.lhs, node.rhs]
        elif isinstance(node, (Call, Neg)):
            stack.append(node.arg)
    return count


def dense(value) -> np.ndarray:
    return value.toarray() if sp.issparse(value) else np.asarray(value, dtype=np.float64)


def _product_factors(expr: Expr) -> list | None:
    """The factors of a pure product of accesses and constants, or None."""
    if isinstance(expr, (Access, Const)):
        return [expr]
    if isinstance(expr, BinOp) and expr.op == "*":
        lhs, rhs = _product_factors(expr.lhs), _product_factors(expr.rhs)
        return None if lhs is None or rhs is None else lhs + rhs
    return None


def _letters(names) -> dict[str, str]:
    return {v: chr(ord("a") + i) for i, v in enumerate(names)}


def _einsum_product(factors, values, out_vars) -> np.ndarray:
    names = []
    for f in factors:
        if isinstance(f, Access):
            names += [v for v in f.indices if v not in names]
    letter = _letters(names)
    scale = 1.0
    operands, specs = [], []
    for f in factors:
        if isinstance(f, Const):
            scale *= f.value
        else:
            operands.append(dense(values[f.tensor]))
            specs.append("".join(letter[v] for v in f.indices))
    spec = ",".join(specs) + "->" + "".join(letter[v] for v in out_vars)
    return scale * np.einsum(spec, *operands, optimize=True)


def _sparse_product(op: Op, factors, sparse_access: Access, values, ext, out_vars) -> np.ndarray | None:
    matrix = sp.csr_matrix(values[sparse_access.tensor])
    u, w = sparse_access.indices
    others = [f for f in factors if f is not sparse_access]
    scale = 1.0
    dense_factors = []
    for f in others:
        if isinstance(f, Const):
            scale *= f.value
        else:
            dense_factors.append(f)
    if u in out_vars and w not in out_vars and len(dense_factors) == 1 and \
            w in dense_factors[0].indices and u not in dense_factors[0].indices:
        f = dense_factors[0]
        rest = [v for v in f.indices if v != w]
        if all(v in out_vars for v in rest):
            array = dense(values[f.tensor])
            array = np.moveaxis(array, f.indices.index(w), 0).reshape(array.shape[f.indices.index(w)], -1)
            product = np.asarray(matrix @ array).reshape([ext[u]] + [ext[v] for v in rest])
            current = [u] + rest
            return scale * np.transpose(product, [current.index(v) for v in out_vars])
    if w in out_vars and u not in out_vars and len(dense_factors) == 1 and \
            u in dense_factors[0].indices and w not in dense_factors[0].indices:
        f = dense_factors[0]
        rest = [v for v in f.indices if v != u]
        if all(v in out_vars for v in rest):
            array = dense(values[f.tensor])
            array = np.moveaxis(array, f.indices.index(u), -1)
            shape = array.shape[:-1]
            product = np.asarray((matrix.T @ array.reshape(-1, array.shape[-1]).T).T)
            product = product.reshape(list(shape) + [ext[w]])
            current = rest + [w]
            return scale * np.transpose(product, [current.index(v) for v in out_vars])
    if u in out_vars and w in out_vars:
        rest_points = math.prod(ext[v] for v in out_vars if v not in (u, w))
        # gathered rows of each dense factor and the sampled product, per stored entry
        _check_bytes(op, 8 * matrix.nnz * rest_points * (len(dense_factors) + 2),
                     f"{matrix.nnz:,} stored entries x {rest_points:,}")
        coo = matrix.tocoo()
        names = ["@"]
        for f in dense_factors:
            names += [v for v in f.indices if v not in (u, w) and v not in names]
        letter = _letters(names)
        operands, specs = [coo.data], [letter["@"]]
        for f in dense_factors:
            array = dense(values[f.tensor])
            gathered, spec = array, ""
            index = []
            for v in f.indices:
                index.append(coo.row if v == u else coo.col if v == w else slice(None))
            # Fancy indexing along u and w puts the entry axis first.
            gathered = array[tuple(index)] if any(not isinstance(i, slice) for i in index) else array
            kept = [v for v in f.indices if v not in (u, w)]
            spec = (letter["@"] if len(kept) < len(f.indices) else "") + "".join(letter[v] for v in kept)
            operands.append(gathered)
            specs.append(spec)
        rest = [v for v in out_vars if v not in (u, w)]
        spec = ",".join(specs) + "->" + letter["@"] + "".join(letter[v] for v in rest)
        sampled = scale * np.einsum(spec, *operands, optimize=True)
        out_shape = [ext[v] for v in (u, w, *rest)]
        result = np.zeros(out_shape)
        np.add.at(result, (coo.row, coo.col), sampled)
        return np.transpose(result, [[u, w, *rest].index(v) for v in out_vars])
    return None


_FUNCS = {
    "relu": lambda x: np.maximum(x, 0.0),
    "neg": lambda x: -x,
    "exp": np.exp,
    "log": np.log,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: safe_divide(1.0, np.sqrt(x)),
    "tanh": np.tanh,
    "gelu": lambda x: gelu(x),
}
#: sqrt(2 / pi), the slope inside gelu's tanh form.
_GELU_SLOPE = math.sqrt(2.0 / math.pi)


def gelu(x):
    """GELU in its tanh form (GPT-2, BERT): 0.5·x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x³))).
    It differs from the erf form x·Φ(x) by less than 1e-3 everywhere."""
    return 0.5 * x * (1.0 + np.tanh(_GELU_SLOPE * (x + 0.044715 * x * x * x)))


def apply_function(name: str, x):
    with np.errstate(all="ignore"):
        return _FUNCS[name](x)


def safe_multiply(a, b):
    """a * b, with 0 * anything = 0 (also 0 * NaN and 0 * inf): an unstored zero annihilates the
    product whatever the other factor holds, as in every sparse executor."""
    with np.errstate(all="ignore"):
        product = np.asarray(np.multiply(a, b))
    if not np.isfinite(product).all():   # only a NaN or an infinity survives a zero factor
        np.copyto(product, 0.0, where=(np.asarray(a) == 0) | (np.asarray(b) == 0))
    return product


def safe_divide(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    out = np.zeros(a.shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


def combine(op: str, lhs, rhs):
    """A binary op of the expression language on arrays, by the rules above (streams.scalar is
    the same on one pair of values)."""
    if op == "+":
        return lhs + rhs
    if op == "-":
        return lhs - rhs
    if op == "*":
        return safe_multiply(lhs, rhs)
    return safe_divide(lhs, rhs)


def _broadcast(expr: Expr, order: tuple[str, ...], values, ext):
    if isinstance(expr, Const):
        return np.float64(expr.value)
    if isinstance(expr, Access):
        array = dense(values[expr.tensor])
        if not expr.indices:
            return np.float64(array.reshape(-1)[0]) if array.size else np.float64(0)
        perm = sorted(range(len(expr.indices)), key=lambda i: order.index(expr.indices[i]))
        array = np.transpose(array, perm)
        shape = [ext[v] if v in expr.indices else 1 for v in order]
        return array.reshape(shape)
    if isinstance(expr, Call):
        return apply_function(expr.func, _broadcast(expr.arg, order, values, ext))
    if isinstance(expr, Neg):
        return -_broadcast(expr.arg, order, values, ext)
    return combine(expr.op, _broadcast(expr.lhs, order, values, ext), _broadcast(expr.rhs, order, values, ext))
