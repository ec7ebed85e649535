"""Load a tensor program from TOML (fuseflow/programs/*.toml) and check it.

Every problem raises ProgramError naming the file, the line and key, what was expected and
how to fix it. See docs/program-format.md for the format and its limits.

The limits keep everything after the reader cheap and safe: names are short ASCII
identifiers (they end up in fact files, schedule JSON, generated scripts and file names),
extents are small enough that products of up to MAX_TENSOR_ORDER of them stay finite
floats, and an op's index variables are few enough to order by dynamic programming over
their subsets (fuseflow.analysis.orders).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Mapping, NoReturn

from fuseflow.program.block_masks import MAX_PATTERN_BLOCKS, PATTERN_DEFAULTS, BigBirdPattern
from fuseflow.support.errors import ProgramError, show_value as show
from fuseflow.program.expr import (FUNCTIONS, MAX_NAME_LENGTH, ExprSyntaxError, ExprTooLargeError, Statement, accesses,
                           parse_statement, resolve_extents)
from fuseflow.support.files import read_user_text
from fuseflow.program.ir import FORMATS, MAX_EXTENT, MAX_OPS, MAX_VARS, REDUCTIONS, DataSpec, Op, Program, TensorDecl
from fuseflow.support.readers import parse_toml_text
from fuseflow.program.repeats import (BlockMark, Entry, Repeats, block_order, expand_ops, expand_tensors, read_repeats,
                              top_level_ops)
from fuseflow.support.toml_lines import KeyLines

TOP_KEYS = {"name", "description", "data", "dims", "tensors", "ops", "repeat"}
TENSOR_KEYS = {"shape", "format", "source", "density", "block", "pattern"}
OP_KEYS = {"name", "expr", "reduce", "origin"}
#: an op's `origin`: one line naming where it was imported from
MAX_ORIGIN_LENGTH = 200
DATA_KEYS = {"preset", "symmetrize", "self_loops", "normalize", "seed"}
SOURCES = ("graph.adjacency", "graph.features", "random", "ones", "bigbird")
DIM_BINDINGS = ("graph.vertices", "graph.features", "graph.hidden", "graph.classes")
NORMALIZATIONS = ("none", "row", "sym")

#: Declared dimensions and declared tensors in one program (ops: ir.MAX_OPS).
MAX_DIMS = 1000
MAX_TENSORS = 1000
#: Dimensions of one tensor (each op's distinct index variables are bounded by ir.MAX_VARS).
MAX_TENSOR_ORDER = MAX_VARS
#: Edge of a block-sparse tile.
MAX_BLOCK = 4096
#: `[data] seed`: what numpy's generators accept, as an unsigned 63-bit number.
MAX_SEED = 2**63 - 1
MAX_DESCRIPTION_LENGTH = 1000

#: Tensor, dimension, op and index names: they flow into expressions, fact files and scripts.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A program's name may also hold '-' and '.', as file names do (it names output files).
PROGRAM_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

_SPLIT = "split the program into several programs"


def _some(names, limit: int = 10) -> str:
    """The first few names of a list, for a message."""
    names = list(names)
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _key_text(part) -> str:
    """One part of a key path (a TOML key or an array position), as a message shows it."""
    if isinstance(part, bool) or not isinstance(part, (str, int)):
        # a formatted location or a list here would print as a Python repr: a bug in the caller
        raise TypeError(f"a key path part must be a key or a position, not {type(part).__name__}")
    text = str(part)
    return text if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", text) else show(text, 40)


class _Checker:
    def __init__(self, path: str, text: str):
        self.path = path
        self.keys = KeyLines(text)
        #: tensor name -> the key path of its declaration (a template's, with its block, when repeated)
        self.tensor_at: dict[str, tuple] = {}
        #: the program's dimensions, once read
        self.dims: dict = {}
        #: whether the program has [[repeat]] blocks
        self.repeated = False

    def fail(self, message: str, *key_path, fix: str) -> NoReturn:
        """Raise the ProgramError: at the line of `key_path` (its deepest known prefix), naming the key
        and, for a key of a repeated block, the block (`[repeat.0.ops.1.expr, block l=3]`).
        A key path of "--dim" names the command-line option instead."""
        if key_path == ("--dim",):
            raise ProgramError(message, where="--dim", fix=fix)
        blocks = [p for p in key_path if isinstance(p, BlockMark)]
        keys = [p for p in key_path if not isinstance(p, BlockMark)]
        line = self.keys.line(*keys) if keys else None
        where = self.path + (f":{line}" if line else "")
        if keys:
            where += " [" + ".".join(_key_text(p) for p in keys) + "".join(f", block {b}" for b in blocks) + "]"
        raise ProgramError(message, where=where, fix=fix)

    def where_key(self, *key_path) -> str:
        """`file:line [key]`, for messages that name a key without failing at it."""
        line = self.keys.line(*key_path)
        return self.path + (f":{line}" if line else "") + " [" + ".".join(_key_text(p) for p in key_path) + "]"

    def unknown_keys(self, table: dict, allowed: set[str], *key_path) -> None:
        for key in table:
            if key not in allowed:
                self.fail(f"unknown key {show(key)}", *key_path, key,
                          fix=f"expected one of: {', '.join(sorted(allowed))}")

    def identifier(self, name, what: str, *key_path) -> None:
        if not isinstance(name, str) or not IDENTIFIER.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
            self.fail(f"{show(name)} is not a valid {what} name", *key_path,
                      fix=f"use ASCII letters, digits and _, starting with a letter or _, "
                          f"at most {MAX_NAME_LENGTH} characters")

    def at_most(self, count: int, limit: int, what: str, *key_path, fix: str = _SPLIT) -> None:
        if count > limit:
            self.fail(f"{count:,} {what}, more than the {limit:,} allowed", *key_path, fix=fix)

    def table(self, value, what: str, *key_path, fix: str) -> dict:
        if not isinstance(value, dict):
            self.fail(f"must be {what}", *key_path, fix=fix)
        return value


def load_program(path: str | Path, text: str | None = None, dims: Mapping[str, int] | None = None) -> Program:
    """Read and check a program file (a .toml, or a .mlir model imported on the way); `text`
    overrides reading from disk (for tests)."""
    path = str(path)
    if text is None:
        text = read_program_text(path, dims)
    return parse_program(text, path, dims)


def read_program_text(path: str, dims: Mapping[str, int] | None = None) -> str:
    """The program text of a file: a .toml as written, a .mlir model as `navigator import`
    writes it (fuseflow.program.mlir; `dims` bind its `?` extents)."""
    from fuseflow.program.mlir import import_mlir_text, is_mlir_path

    if is_mlir_path(path):
        return import_mlir_text(read_user_text(path, ProgramError, "an MLIR model (.mlir)"), path, dims)
    return read_user_text(path, ProgramError, "a .toml program, or the name of a bundled program")


def parse_program(text: str, path: str = "<program>", dims: Mapping[str, int] | None = None) -> Program:
    """Read and check a program. `dims` are the command line's `--dim` overrides: those of a
    repeat count decide how many blocks a `[[repeat]]` expands to (fuseflow.program.repeats), so a
    program must be read with the overrides it will be bound with (fuseflow.program.binding.bind
    refuses a repeat count that differs from the program's)."""
    raw = parse_toml_text(text, path, ProgramError, "a tensor program")
    check = _Checker(path, text)
    check.unknown_keys(raw, TOP_KEYS)
    name = _parse_name(check, raw, path)
    description = raw.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION_LENGTH \
            or any(c < " " or c == "\x7f" for c in description):
        check.fail(f"must be one line of text of at most {MAX_DESCRIPTION_LENGTH} characters", "description",
                   fix='e.g. description = "relu(A·X + b)"')
    data = _parse_data(check, raw.get("data", {}))
    declared = _parse_dims(check, raw.get("dims"))
    top_tensors = raw.get("tensors")
    top_ops = raw.get("ops")
    repeats = read_repeats(raw.get("repeat"), declared, dims or {}, check.fail,
                           top_ops=len(top_ops) if isinstance(top_ops, list) else 0,
                           top_tensors=len(top_tensors) if isinstance(top_tensors, dict) else 0,
                           max_ops=MAX_OPS, max_tensors=MAX_TENSORS)
    declared.update(repeats.counts)  # a repeat count is the extent of its dimension
    check.dims = declared
    check.repeated = bool(repeats.blocks)
    tensors = _parse_tensors(check, top_tensors, declared, repeats)
    ops = _parse_ops(check, top_ops, tensors, repeats, declared)
    program = Program(name=name, description=description, dims=declared, tensors=tensors, ops=ops,
                      data=data, path=path, repeat_dims=tuple(repeats.counts))
    _check_sources_match_data(check, program)
    return program


def _parse_name(check: _Checker, raw: dict, path: str) -> str:
    if "name" not in raw:
        # The file's name, made into a valid program name.
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(path).stem)[:MAX_NAME_LENGTH].lstrip(".-")
        return stem or "program"
    name = raw["name"]
    if not isinstance(name, str) or not PROGRAM_NAME.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
        check.fail(f"{show(name)} is not a valid program name", "name",
                   fix=f"use ASCII letters, digits, _, - and ., starting with a letter, digit or _, "
                       f"at most {MAX_NAME_LENGTH} characters")
    return name


def _parse_data(check: _Checker, table) -> DataSpec:
    table = check.table(table, "a table", "data", fix='e.g. [data] preset = "cora"')
    check.unknown_keys(table, DATA_KEYS, "data")
    spec = DataSpec()
    if "preset" in table:
        from fuseflow.data.presets import PRESETS

        if not isinstance(table["preset"], str) or table["preset"] not in PRESETS:
            check.fail(f"unknown graph preset {show(table['preset'])}", "data", "preset",
                       fix=f"use one of: {', '.join(sorted(PRESETS))}")
        spec.preset = table["preset"]
    for flag in ("symmetrize", "self_loops"):
        if flag in table:
            if not isinstance(table[flag], bool):
                check.fail(f"must be true or false, got {show(table[flag])}", "data", flag,
                           fix=f"write {flag} = true or {flag} = false")
            setattr(spec, flag, table[flag])
    if "normalize" in table:
        if table["normalize"] not in NORMALIZATIONS:
            check.fail(f"unknown normalization {show(table['normalize'])}", "data", "normalize",
                       fix=f"use one of: {', '.join(NORMALIZATIONS)}")
        spec.normalize = table["normalize"]
    if "seed" in table:
        seed = table["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            check.fail(f"must be a whole number from 0 to 2**63 - 1, got {show(seed)}", "data", "seed",
                       fix="e.g. seed = 0")
        spec.seed = seed
    return spec


def _parse_dims(check: _Checker, table) -> dict[str, int | str]:
    if table is None:
        check.fail("missing [dims] table", fix="declare every dimension, e.g. [dims] N = 1024")
    if not isinstance(table, dict) or not table:
        check.fail("must be a non-empty table of dimension = extent", "dims", fix="e.g. [dims] N = 1024")
    check.at_most(len(table), MAX_DIMS, "dimensions", "dims")
    dims: dict[str, int | str] = {}
    for name, value in table.items():
        check.identifier(name, "dimension", "dims", name)
        extent_fix = f"e.g. {name} = 64, or {name} = \"graph.vertices\" to bind it to the data"
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            check.fail(f"an extent is a positive integer or a data binding, got {show(value)}", "dims", name,
                       fix=extent_fix)
        if isinstance(value, int) and value < 1:
            check.fail(f"extent must be positive, got {show(value)}", "dims", name, fix=extent_fix)
        if isinstance(value, int) and value > MAX_EXTENT:
            check.fail(f"extent {show(value)} is larger than 2**40, the largest supported", "dims", name,
                       fix=f"use an extent of at most {MAX_EXTENT:,}")
        if isinstance(value, str) and value not in DIM_BINDINGS:
            check.fail(f"unknown data binding {show(value)}", "dims", name,
                       fix=f"use one of: {', '.join(DIM_BINDINGS)}")
        dims[name] = value
    return dims


def _parse_tensors(check: _Checker, table, dims, repeats: Repeats) -> dict[str, TensorDecl]:
    if table is None:
        check.fail("missing [tensors] table", fix="declare each input tensor with shape, format and source")
    table = check.table(table, "a table of tensors", "tensors",
                        fix='e.g. [tensors] A = { shape = ["N", "N"], source = "random" }')
    check.at_most(len(table), MAX_TENSORS, "tensors", "tensors")
    for name in table:
        if "{" in name or "}" in name:
            check.fail(f"{show(name)}: a placeholder in a tensor's name is read only in a repeated block", "tensors",
                       name, fix="declare the tensor under [repeat.tensors] of its [[repeat]]")
    entries = [Entry(name, spec, ("tensors", name)) for name, spec in table.items()]
    entries += expand_tensors(repeats, check.fail)
    tensors: dict[str, TensorDecl] = {}
    declared_at: dict[str, tuple] = {}
    for entry in entries:
        name, at = entry.name, entry.at
        check.identifier(name, "tensor", *at)
        if name in FUNCTIONS:
            check.fail(f"{name!r} is the name of a function", *at, fix="rename the tensor")
        if name in tensors:
            check.fail(f"tensor {name!r} is declared twice, the first time at {check.where_key(*declared_at[name])}",
                       *at, fix="give each tensor one declaration: rename one of them")
        declared_at[name] = tuple(p for p in at if not isinstance(p, BlockMark))
        check.tensor_at[name] = at
        tensors[name] = _parse_tensor(check, name, entry.spec, dims, at)
    return tensors


def _parse_tensor(check: _Checker, name: str, spec, dims, at: tuple) -> TensorDecl:
    spec = check.table(spec, "a table with shape and format", *at,
                       fix=f'e.g. {name} = {{ shape = ["N", "N"], source = "random" }}')
    check.unknown_keys(spec, TENSOR_KEYS, *at)
    shape = spec.get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, str) for d in shape):
        check.fail("shape must be a list of dimension names", *at, "shape", fix='e.g. shape = ["N", "F"]')
    check.at_most(len(shape), MAX_TENSOR_ORDER, "dimensions", *at, "shape",
                  fix="reshape the data into a tensor of fewer dimensions")
    for dim in shape:
        if dim not in dims:
            check.fail(f"unknown dimension {show(dim)}", *at, "shape",
                       fix=f"declare it in [dims] (known: {_some(dims)})")
    formats = spec.get("format", ["dense"] * len(shape))
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        check.fail("format must be a list of level formats", *at, "format",
                   fix='e.g. format = ["dense", "compressed"]')
    if len(formats) != len(shape):
        check.fail(f"format lists {len(formats)} levels but the shape has {len(shape)}", *at, "format",
                   fix="give one format per level, in storage order")
    for fmt in formats:
        if fmt not in FORMATS:
            check.fail(f"unknown level format {show(fmt)}", *at, "format",
                       fix="each level is \"dense\" or \"compressed\"")
    source = spec.get("source")
    if source is not None and source not in SOURCES:
        check.fail(f"unknown data source {show(source)}", *at, "source",
                   fix=f"use one of: {', '.join(SOURCES)}; computed tensors have no source")
    density = spec.get("density")
    if density is not None:
        # TOML allows nan and inf; neither is a fraction.
        if isinstance(density, bool) or not isinstance(density, (int, float)) or not math.isfinite(density) \
                or not 0 < density <= 1:
            check.fail(f"density must be a number in (0, 1], got {show(density)}", *at, "density",
                       fix="give the fraction of entries stored, e.g. density = 0.1")
        if source not in ("random", "ones"):
            check.fail("density applies only to source = \"random\" or \"ones\"", *at, "density",
                       fix="remove density, or set source = \"random\"")
    block = spec.get("block")
    if block is not None:
        if isinstance(block, bool) or not isinstance(block, int) or not 1 <= block <= MAX_BLOCK:
            check.fail(f"block must be a whole number from 1 to {MAX_BLOCK}, got {show(block)}", *at, "block",
                       fix="give the edge of a block-sparse tile, e.g. block = 16")
        if len(shape) < 2:
            check.fail("block-sparse data needs at least two levels", *at, "block",
                       fix="remove block, or give the tensor two or more dimensions")
        too_small = [d for d in shape[-2:] if isinstance(dims[d], int) and dims[d] < block]
        if too_small:
            check.fail(f"block {block} is larger than dimension {too_small[0]} = {dims[too_small[0]]}", *at, "block",
                       fix=f"use a block of at most {min(dims[d] for d in too_small)}")
    pattern = _parse_pattern(check, spec, source, block, shape, at)
    return TensorDecl(name, tuple(shape), tuple(formats), source,
                      float(density) if density is not None else None, block,
                      check.keys.line(*(p for p in at if not isinstance(p, BlockMark))), pattern)


def _parse_pattern(check: _Checker, spec: dict, source, block, shape, at: tuple):
    """A BigBird mask's pattern (fuseflow.program.block_masks): only with source = "bigbird", which needs
    a block and two dimensions."""
    table = spec.get("pattern")
    if source != "bigbird":
        if table is not None:
            check.fail("pattern applies only to source = \"bigbird\"", *at, "pattern",
                       fix="remove pattern, or set source = \"bigbird\"")
        return None
    if len(shape) != 2:
        check.fail("a bigbird mask has two dimensions (query and key positions)", *at, "shape",
                   fix='e.g. shape = ["T", "T"]')
    if block is None:
        check.fail("a bigbird mask needs the edge of its blocks", *at, fix="add block = 16 (or another edge)")
    table = check.table({} if table is None else table, "a table", *at, "pattern",
                        fix="e.g. pattern = { window = 3, global = 2, random = 3, causal = false }")
    check.unknown_keys(table, set(PATTERN_DEFAULTS), *at, "pattern")
    values = {**PATTERN_DEFAULTS, **table}
    if not isinstance(values["causal"], bool):
        check.fail(f"causal must be true or false, got {show(values['causal'])}", *at, "pattern", "causal",
                   fix="causal = true keeps only keys at or before each query (a decoder)")
    for key in ("window", "global", "random"):
        value = values[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PATTERN_BLOCKS:
            check.fail(f"{key} must be a whole number of blocks from 0 to {MAX_PATTERN_BLOCKS}, got {show(value)}",
                       *at, "pattern", key, fix=f"e.g. {key} = {PATTERN_DEFAULTS[key]}")
    if values["window"] % 2 == 0:
        check.fail(f"window must be odd (the blocks centred on the diagonal), got {values['window']}", *at,
                   "pattern", "window", fix="e.g. window = 3: the diagonal block and one on each side")
    return BigBirdPattern(values["window"], values["global"], values["random"], values["causal"])


def _parse_ops(check: _Checker, items, tensors: dict[str, TensorDecl], repeats: Repeats, dims) -> list[Op]:
    if (items is None or items == []) and not repeats.blocks:
        check.fail("missing [[ops]]: a program needs at least one op",
                   fix='add [[ops]] with expr = "T(i,j) = A(i,k) * B(k,j)"')
    items = [] if items is None else items
    if not isinstance(items, list):
        check.fail("must be an array of tables, one [[ops]] entry per op", "ops",
                   fix='write each op as [[ops]] followed by expr = "..."')
    check.at_most(len(items), MAX_OPS, "ops", "ops")
    entries, statements = _ordered_ops(check, top_level_ops(items, repeats, check.fail),
                                       expand_ops(repeats, check.fail))
    items = [entry.spec for entry in entries]
    # The first op writing each tensor, so a read before it can say so.
    writer: dict[str, int] = {}
    for index, statement in enumerate(statements):
        writer.setdefault(statement.output.tensor, index)
    ops: list[Op] = []
    names: set[str] = set()
    computed: dict[str, int] = {}
    for index, (entry, item, statement) in enumerate(zip(entries, items, statements)):
        # A bare name that is a dimension and no tensor is the dimension's extent, as a number.
        statement = Statement(statement.output, resolve_extents(
            statement.expr, lambda name: name in dims and name not in tensors and name not in writer))
        _check_statement(check, index, _key(entry, "expr"), statement, tensors, computed, writer)
        reduce = item.get("reduce", "sum")
        if reduce not in REDUCTIONS:
            check.fail(f"unknown reduction {show(reduce)}", *_key(entry, "reduce"),
                       fix=f"use one of: {', '.join(REDUCTIONS)}")
        name = item.get("name", statement.output.tensor)
        check.identifier(name, "op", *_key(entry, "name"))
        if name in names:
            check.fail(f"duplicate op name {name!r}", *_key(entry, "name"), fix="op names must be unique")
        names.add(name)
        origin = item.get("origin")
        if origin is not None and (not isinstance(origin, str) or not origin.strip()
                                   or len(origin) > MAX_ORIGIN_LENGTH or any(c < " " or c == "\x7f" for c in origin)):
            check.fail(f"origin must be one line of text of at most {MAX_ORIGIN_LENGTH} characters",
                       *_key(entry, "origin"), fix='e.g. origin = "gcn.mlir:14 linalg.matmul", or remove it')
        computed[statement.output.tensor] = index
        ops.append(Op(name, statement, reduce, check.keys.line(*_key(entry, "expr", block=False)), origin))
    for entry, op in zip(entries, ops):
        # One name, one thing: an op may share only its own output's name.
        if op.name in tensors and op.name != op.output.tensor:
            check.fail(f"op name {op.name!r} is the name of another tensor", *_key(entry, "name"),
                       fix=f"name the op after its output ({op.output.tensor!r}) or choose a name no tensor has")
    for name, decl in tensors.items():
        if decl.source is None and name not in computed:
            check.fail(f"tensor {name!r} has no source and no op computes it", *check.tensor_at[name],
                       fix=f"give it a source ({', '.join(SOURCES)}) or compute it in an op")
    return ops


def _key(entry: Entry, key: str, block: bool = True) -> tuple:
    """The key path of one of an op's keys, with the block it was expanded for last."""
    path = tuple(p for p in entry.at if not isinstance(p, BlockMark)) + (key,)
    return path + ((entry.block,) if block and entry.block is not None else ())


def _ordered_ops(check: _Checker, top: list[Entry],
                 groups: list[list[Entry]]) -> tuple[list[Entry], list[Statement]]:
    """The top-level ops and the expanded blocks, and their statements, in program order
    (fuseflow.program.repeats.block_order)."""
    parsed = [[(entry, _parse_statement(check, entry)) for entry in group] for group in [top, *groups]]
    if not groups:
        pairs = parsed[0]
    else:
        top_reads = [{a.tensor for a in accesses(statement.expr)} for _, statement in parsed[0]]
        outputs = [{statement.output.tensor for _, statement in group} for group in parsed[1:]]
        pairs = [pair for kind, i in block_order(top_reads, outputs)
                 for pair in (parsed[0][i:i + 1] if kind == "op" else parsed[1 + i])]
    return [entry for entry, _ in pairs], [statement for _, statement in pairs]


def _parse_statement(check: _Checker, entry: Entry) -> Statement:
    item = check.table(entry.spec, "a table", *entry.at,
                       fix='each [[ops]] entry holds expr = "..." and optional name, reduce')
    check.unknown_keys(item, OP_KEYS, *entry.at)
    text = item.get("expr")
    if text is None:
        check.fail("missing expr", *entry.at, fix='e.g. expr = "T(i,j) = A(i,k) * B(k,j)"')
    if not isinstance(text, str):
        check.fail(f"expr must be a string, got {show(text)}", *_key(entry, "expr"),
                   fix='e.g. expr = "T(i,j) = A(i,k) * B(k,j)"')
    try:
        return parse_statement(text)
    except ExprTooLargeError as exc:
        check.fail(f"too large to read: {exc}", *_key(entry, "expr"), fix=exc.fix)
    except ExprSyntaxError as exc:
        check.fail(f"cannot parse {show(text)}: {exc}", *_key(entry, "expr"), fix=exc.fix)


def _check_statement(check: _Checker, index: int, at: tuple, statement: Statement, tensors: dict[str, TensorDecl],
                     computed: dict[str, int], writer: dict[str, int]) -> None:
    """Names, arities and extents of one op; adds an undeclared output to `tensors`."""
    out = statement.output
    declared_out = tensors.get(out.tensor)
    if declared_out is not None and declared_out.source is not None:
        check.fail(f"op writes {out.tensor!r}, which is an input with source {declared_out.source!r}", *at,
                   fix="write to a new tensor name")
    if out.tensor in computed:
        check.fail(f"tensor {out.tensor!r} is already computed by op {computed[out.tensor] + 1}", *at,
                   fix="each tensor is computed by exactly one op")
    if len(set(out.indices)) != len(out.indices):
        check.fail(f"output {out} repeats an index", *at, fix="name each output index once, e.g. T(i,j)")
    extents: dict[str, tuple[str, str]] = {}
    for access in accesses(statement.expr):
        if access.tensor == out.tensor:
            check.fail(f"op reads its own output {out.tensor!r}", *at,
                       fix=f"write the result to a new tensor and read {out.tensor!r} in a later op")
        decl = tensors.get(access.tensor)
        if access.tensor not in computed and (decl is None or decl.source is None):
            if writer.get(access.tensor, -1) > index:
                check.fail(f"tensor {access.tensor!r} is used before the op that computes it", *at,
                           fix="list ops in dependency order" + (
                               "; a [[repeat]] runs just before the first [[ops]] entry that reads one of its "
                               "tensors" if check.repeated else ""))
            if decl is None:
                check.fail(f"unknown tensor {access.tensor!r}", *at,
                           fix="declare it under [tensors] with shape, format and source "
                               f"(functions are: {', '.join(FUNCTIONS)})")
            check.fail(f"tensor {access.tensor!r} has no source and no op computes it", *at,
                       fix=f"give it a source ({', '.join(SOURCES)}) or compute it in an earlier op")
        _bind_indices(check, at, access, decl, extents)
    if declared_out is not None:
        if declared_out.order != len(out.indices):
            check.fail(f"{out} uses {len(out.indices)} indices but {out.tensor!r} is declared with "
                       f"{declared_out.order} dimensions", *at, fix="give the output one index per dimension")
        _bind_indices(check, at, out, declared_out, extents)
    for var in out.indices:
        if var not in extents:
            check.fail(f"output index {var!r} does not appear on the right-hand side", *at,
                       fix="every output index must be bound by an input")
    if len(extents) > MAX_VARS:
        check.fail(f"the op has {len(extents)} index variables, more than the {MAX_VARS} allowed", *at,
                   fix="split it into several ops, each with fewer index variables")
    if declared_out is None:
        shape = tuple(extents[v][0] for v in out.indices)
        tensors[out.tensor] = TensorDecl(out.tensor, shape, ("dense",) * len(shape), None)


def _bind_indices(check: _Checker, at: tuple, access, decl: TensorDecl, extents: dict) -> None:
    """Record each index variable's dimension; one variable must keep one dimension."""
    if len(set(access.indices)) != len(access.indices):
        check.fail(f"{access} repeats an index; diagonal access is not supported", *at,
                   fix="use a distinct index per dimension")
    if len(access.indices) != decl.order:
        fix = f"give {access.tensor} one index per dimension"
        if not access.indices and access.tensor in check.dims:
            fix = f"the tensor {access.tensor!r} hides the dimension of that name: rename the tensor to use the " \
                  f"extent, or {fix}"
        check.fail(f"{access} uses {len(access.indices)} indices but {access.tensor!r} has "
                   f"{decl.order} dimensions", *at, fix=fix)
    for var, dim in zip(access.indices, decl.dims):
        if var in extents and extents[var][0] != dim:
            first_dim, first_at = extents[var]
            check.fail(f"index {var!r} is used with two different extents: {first_dim} in {first_at} "
                       f"and {dim} in {access}", *at, fix="use a different index name, or make the shapes agree")
        extents.setdefault(var, (dim, str(access)))


def _check_sources_match_data(check: _Checker, program: Program) -> None:
    uses_graph = any((d.source or "").startswith("graph.") for d in program.tensors.values()) or \
        any(isinstance(v, str) for v in program.dims.values())
    if uses_graph and program.data.preset is None:
        check.fail("the program binds graph data but [data] names no preset", "data",
                   fix='add [data] preset = "cora" (or another preset)')
    for name, decl in program.tensors.items():
        if decl.source == "graph.adjacency" and (decl.order != 2 or decl.dims[0] != decl.dims[1]):
            check.fail("graph.adjacency needs a square two-dimensional tensor", "tensors", name, "shape",
                       fix='e.g. shape = ["N", "N"]')
        if decl.source == "graph.features" and decl.order != 2:
            check.fail("graph.features needs a two-dimensional tensor (vertices x features)", "tensors", name,
                       "shape", fix='e.g. shape = ["N", "F"]')
