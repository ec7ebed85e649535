"""Load a tensor program from TOML (programs/*.toml) and check it.

Every problem raises ProgramError naming the file, the line, the key and what was expected.
See docs/program-format.md for the format.
"""

from __future__ import annotations

from pathlib import Path

from fuseflow.files import read_user_text
from fuseflow.readers import parse_toml_text
from fuseflow.errors import ProgramError
from fuseflow.expr import FUNCTIONS, ExprSyntaxError, accesses, parse_statement
from fuseflow.ir import FORMATS, REDUCTIONS, DataSpec, Op, Program, TensorDecl
from fuseflow.toml_lines import KeyLines

TOP_KEYS = {"name", "description", "data", "dims", "tensors", "ops"}
TENSOR_KEYS = {"shape", "format", "source", "density", "block"}
OP_KEYS = {"name", "expr", "reduce"}
DATA_KEYS = {"preset", "symmetrize", "self_loops", "normalize", "seed"}
SOURCES = ("graph.adjacency", "graph.features", "random", "ones")
DIM_BINDINGS = ("graph.vertices", "graph.features", "graph.hidden", "graph.classes")
NORMALIZATIONS = ("none", "row", "sym")


class _Checker:
    def __init__(self, path: str, text: str):
        self.path = path
        self.keys = KeyLines(text)

    def fail(self, message: str, *key_path, fix: str | None = None) -> None:
        line = self.keys.line(*key_path) if key_path else None
        where = self.path + (f":{line}" if line else "")
        if key_path:
            where += " [" + ".".join(str(p) for p in key_path) + "]"
        raise ProgramError(message, where=where, fix=fix)

    def unknown_keys(self, table: dict, allowed: set[str], *key_path) -> None:
        for key in table:
            if key not in allowed:
                self.fail(f"unknown key {key!r}", *key_path, key,
                          fix=f"expected one of: {', '.join(sorted(allowed))}")


def load_program(path: str | Path, text: str | None = None) -> Program:
    """Read and check a program file; `text` overrides reading from disk (for tests)."""
    path = str(path)
    if text is None:
        text = read_user_text(path, ProgramError, "a .toml program, or the name of a bundled program")
    return parse_program(text, path)


def parse_program(text: str, path: str = "<program>") -> Program:
    raw = parse_toml_text(text, path, ProgramError, "a tensor program")
    check = _Checker(path, text)
    check.unknown_keys(raw, TOP_KEYS)
    name = raw.get("name", Path(path).stem)
    if not isinstance(name, str) or not name:
        check.fail("must be a non-empty string", "name")
    description = raw.get("description", "")
    if not isinstance(description, str):
        check.fail("must be a string", "description")
    data = _parse_data(check, raw.get("data", {}))
    dims = _parse_dims(check, raw.get("dims"))
    tensors = _parse_tensors(check, raw.get("tensors"), dims)
    ops = _parse_ops(check, raw.get("ops"), tensors, dims)
    program = Program(name=name, description=description, dims=dims, tensors=tensors, ops=ops,
                      data=data, path=path)
    _check_sources_match_data(check, program)
    return program


def _parse_data(check: _Checker, table) -> DataSpec:
    if not isinstance(table, dict):
        check.fail("must be a table", "data")
    check.unknown_keys(table, DATA_KEYS, "data")
    spec = DataSpec()
    if "preset" in table:
        if not isinstance(table["preset"], str):
            check.fail("must be a preset name string", "data", "preset")
        spec.preset = table["preset"]
    for flag in ("symmetrize", "self_loops"):
        if flag in table:
            if not isinstance(table[flag], bool):
                check.fail("must be true or false", "data", flag)
            setattr(spec, flag, table[flag])
    if "normalize" in table:
        if table["normalize"] not in NORMALIZATIONS:
            check.fail(f"unknown normalization {table['normalize']!r}", "data", "normalize",
                       fix=f"use one of: {', '.join(NORMALIZATIONS)}")
        spec.normalize = table["normalize"]
    if "seed" in table:
        if not isinstance(table["seed"], int) or isinstance(table["seed"], bool):
            check.fail("must be an integer", "data", "seed")
        spec.seed = table["seed"]
    return spec


def _parse_dims(check: _Checker, table) -> dict[str, int | str]:
    if table is None:
        check.fail("missing [dims] table", fix="declare every dimension, e.g. [dims] N = 1024")
    if not isinstance(table, dict) or not table:
        check.fail("must be a non-empty table of dimension = extent", "dims")
    dims: dict[str, int | str] = {}
    for name, value in table.items():
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            check.fail("an extent is a positive integer or a data binding", "dims", name,
                       fix=f"e.g. {name} = 64 or {name} = \"graph.vertices\"")
        if isinstance(value, int) and value <= 0:
            check.fail(f"extent must be positive, got {value}", "dims", name)
        if isinstance(value, str) and value not in DIM_BINDINGS:
            check.fail(f"unknown data binding {value!r}", "dims", name,
                       fix=f"use one of: {', '.join(DIM_BINDINGS)}")
        dims[name] = value
    return dims


def _parse_tensors(check: _Checker, table, dims) -> dict[str, TensorDecl]:
    if table is None:
        check.fail("missing [tensors] table", fix="declare each input tensor with shape, format and source")
    if not isinstance(table, dict):
        check.fail("must be a table of tensors", "tensors")
    tensors: dict[str, TensorDecl] = {}
    for name, spec in table.items():
        if name in FUNCTIONS:
            check.fail(f"{name!r} is the name of a function", "tensors", name, fix="rename the tensor")
        if not isinstance(spec, dict):
            check.fail("must be a table with shape and format", "tensors", name)
        check.unknown_keys(spec, TENSOR_KEYS, "tensors", name)
        shape = spec.get("shape")
        if not isinstance(shape, list) or not all(isinstance(d, str) for d in shape):
            check.fail("shape must be a list of dimension names", "tensors", name, "shape",
                       fix='e.g. shape = ["N", "F"]')
        for dim in shape:
            if dim not in dims:
                check.fail(f"unknown dimension {dim!r}", "tensors", name, "shape",
                           fix=f"declare it in [dims] (known: {', '.join(dims)})")
        formats = spec.get("format", ["dense"] * len(shape))
        if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
            check.fail("format must be a list of level formats", "tensors", name, "format",
                       fix='e.g. format = ["dense", "compressed"]')
        if len(formats) != len(shape):
            check.fail(f"format lists {len(formats)} levels but the shape has {len(shape)}",
                       "tensors", name, "format", fix="give one format per level, in storage order")
        for fmt in formats:
            if fmt not in FORMATS:
                check.fail(f"unknown level format {fmt!r}", "tensors", name, "format",
                           fix="each level is \"dense\" or \"compressed\"")
        source = spec.get("source")
        if source is not None and source not in SOURCES:
            check.fail(f"unknown data source {source!r}", "tensors", name, "source",
                       fix=f"use one of: {', '.join(SOURCES)}; computed tensors have no source")
        density = spec.get("density")
        if density is not None:
            if isinstance(density, bool) or not isinstance(density, (int, float)) or not 0 < density <= 1:
                check.fail("density must be a number in (0, 1]", "tensors", name, "density")
            if source != "random":
                check.fail("density applies only to source = \"random\"", "tensors", name, "density")
        block = spec.get("block")
        if block is not None:
            if isinstance(block, bool) or not isinstance(block, int) or block < 1:
                check.fail("block must be a positive integer", "tensors", name, "block")
            if len(shape) < 2:
                check.fail("block-sparse data needs at least two levels", "tensors", name, "block")
        tensors[name] = TensorDecl(name, tuple(shape), tuple(formats), source,
                                   float(density) if density is not None else None, block,
                                   check.keys.line("tensors", name))
    return tensors


def _parse_ops(check: _Checker, items, tensors: dict[str, TensorDecl], dims) -> list[Op]:
    if not isinstance(items, list) or not items:
        check.fail("missing [[ops]]: a program needs at least one op",
                   fix='add [[ops]] with expr = "T(i,j) = A(i,k) * B(k,j)"')
    ops: list[Op] = []
    names: set[str] = set()
    computed: dict[str, int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            check.fail("each [[ops]] entry must be a table", "ops", index)
        check.unknown_keys(item, OP_KEYS, "ops", index)
        text = item.get("expr")
        if not isinstance(text, str):
            check.fail("missing expr", "ops", index, fix='e.g. expr = "T(i,j) = A(i,k) * B(k,j)"')
        try:
            statement = parse_statement(text)
        except ExprSyntaxError as exc:
            check.fail(f"cannot parse {text!r}: {exc}", "ops", index, "expr")
        reduce = item.get("reduce", "sum")
        if reduce not in REDUCTIONS:
            check.fail(f"unknown reduction {reduce!r}", "ops", index, "reduce",
                       fix=f"use one of: {', '.join(REDUCTIONS)}")
        name = item.get("name", statement.output.tensor)
        if not isinstance(name, str) or not name:
            check.fail("must be a non-empty string", "ops", index, "name")
        if name in names:
            check.fail(f"duplicate op name {name!r}", "ops", index, "name", fix="op names must be unique")
        names.add(name)
        out = statement.output
        declared_out = tensors.get(out.tensor)
        if declared_out is not None and declared_out.source is not None:
            check.fail(f"op writes {out.tensor!r}, which is an input with source {declared_out.source!r}",
                       "ops", index, "expr", fix="write to a new tensor name")
        if out.tensor in computed:
            check.fail(f"tensor {out.tensor!r} is already computed by op {computed[out.tensor] + 1}",
                       "ops", index, "expr", fix="each tensor is computed by exactly one op")
        if len(set(out.indices)) != len(out.indices):
            check.fail(f"output {out} repeats an index", "ops", index, "expr")
        extents: dict[str, tuple[str, str]] = {}
        for access in [out, *accesses(statement.expr)]:
            is_output = access is out
            decl = tensors.get(access.tensor)
            if decl is None and not is_output and access.tensor not in computed:
                later = [i for i, it in enumerate(items) if isinstance(it, dict)
                         and isinstance(it.get("expr"), str) and it["expr"].split("(")[0].split("=")[0].strip() == access.tensor]
                if later and later[0] > index:
                    check.fail(f"tensor {access.tensor!r} is used before the op that computes it",
                               "ops", index, "expr", fix="list ops in dependency order")
                check.fail(f"unknown tensor {access.tensor!r}", "ops", index, "expr",
                           fix="declare it under [tensors] with shape, format and source "
                               f"(functions are: {', '.join(FUNCTIONS)})")
            if decl is None and not is_output:
                decl = tensors[access.tensor]
            if len(set(access.indices)) != len(access.indices):
                check.fail(f"{access} repeats an index; diagonal access is not supported", "ops", index, "expr")
            if decl is None:
                continue  # undeclared output: its shape is inferred below
            if len(access.indices) != decl.order:
                check.fail(f"{access} uses {len(access.indices)} indices but {access.tensor!r} has "
                           f"{decl.order} dimensions", "ops", index, "expr")
            for position, (var, dim) in enumerate(zip(access.indices, decl.dims)):
                if var in extents and extents[var][0] != dim:
                    first_dim, first_at = extents[var]
                    check.fail(f"index {var!r} is used with two different extents: {first_dim} in {first_at} "
                               f"and {dim} in {access}", "ops", index, "expr",
                               fix="use a different index name, or make the shapes agree")
                extents.setdefault(var, (dim, str(access)))
        for var in out.indices:
            if var not in extents:
                check.fail(f"output index {var!r} does not appear on the right-hand side", "ops", index, "expr",
                           fix="every output index must be bound by an input")
        if out.tensor not in tensors:
            shape = tuple(extents[v][0] for v in out.indices)
            tensors[out.tensor] = TensorDecl(out.tensor, shape, ("dense",) * len(shape), None)
        elif tensors[out.tensor].order != len(out.indices):
            check.fail(f"{out} uses {len(out.indices)} indices but {out.tensor!r} is declared with "
                       f"{tensors[out.tensor].order} dimensions", "ops", index, "expr")
        computed[out.tensor] = index
        ops.append(Op(name, statement, reduce, check.keys.line("ops", index, "expr")))
    for name, decl in tensors.items():
        if decl.source is None and name not in computed:
            check.fail(f"tensor {name!r} has no source and no op computes it", "tensors", name,
                       fix=f"give it a source ({', '.join(SOURCES)}) or compute it in an op")
    return ops


def _check_sources_match_data(check: _Checker, program: Program) -> None:
    uses_graph = any((d.source or "").startswith("graph.") for d in program.tensors.values()) or \
        any(isinstance(v, str) for v in program.dims.values())
    if uses_graph and program.data.preset is None:
        check.fail("the program binds graph data but [data] names no preset", "data",
                   fix='add [data] preset = "cora" (or another preset)')
    for name, decl in program.tensors.items():
        if decl.source == "graph.adjacency" and (decl.order != 2 or decl.dims[0] != decl.dims[1]):
            check.fail("graph.adjacency needs a square two-dimensional tensor", "tensors", name, "shape")
