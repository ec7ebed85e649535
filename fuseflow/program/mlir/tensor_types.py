"""What a `tensor<...>` type says: extents, element type, and the storage its encoding gives.

`#sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>` stores the
dimensions in the order of the map's results, each level dense or compressed. A program
lists a tensor's dimensions in storage order, so `storage` is the permutation of logical
axes that the levels follow. Only the level types the program format has are accepted.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.support.errors import ProgramError

#: element types the program computes in (it computes in float64 whatever the model says)
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
#: a mask: select(mask, x, 0) is x where the mask is set
MASK_TYPE = "i1"


@dataclass(frozen=True)
class TensorType:
    extents: tuple[int | None, ...]     # per logical axis; None for `?`
    element: str                        # "f32", "i1", ...
    storage: tuple[int, ...]            # logical axes in storage order
    formats: tuple[str, ...]            # per storage level: "dense" | "compressed"
    sparse: bool                        # it has an encoding

    @property
    def rank(self) -> int:
        return len(self.extents)


def tensor_type(ir, mlir_type, where: str) -> TensorType:
    """The TensorType of a ranked tensor type; ProgramError for anything else."""
    if not isinstance(mlir_type, ir.RankedTensorType):
        raise ProgramError(f"{mlir_type} is not a ranked tensor type", where=where,
                           fix="give every tensor a rank: tensor<4x?xf32>, not tensor<*xf32>")
    extents = tuple(None if ir.ShapedType.is_dynamic_size(size) else int(size) for size in mlir_type.shape)
    element = str(mlir_type.element_type)
    encoding = mlir_type.encoding
    if encoding is None:
        return TensorType(extents, element, tuple(range(len(extents))), ("dense",) * len(extents), False)
    return _encoded(ir, mlir_type, extents, element, encoding, where)


def check_value_type(kind: TensorType, mlir_type, where: str) -> None:
    """A tensor that is a program's value (an input, an op's result) holds floats, or a mask."""
    if kind.element not in FLOAT_TYPES and kind.element != MASK_TYPE:
        raise ProgramError(f"{mlir_type}: element type {kind.element} is not supported", where=where,
                           fix=f"use a float type ({', '.join(FLOAT_TYPES)}), or i1 for a mask")


def _encoded(ir, mlir_type, extents, element, encoding, where: str) -> TensorType:
    from torch_mlir.dialects import sparse_tensor

    if not isinstance(encoding, sparse_tensor.EncodingAttr):
        try:
            encoding = sparse_tensor.EncodingAttr(encoding)
        except (ValueError, TypeError):
            raise ProgramError(f"{mlir_type}: the encoding {encoding} is not a #sparse_tensor.encoding",
                               where=where, fix="only sparse_tensor encodings describe storage") from None
    formats = []
    for level, level_format in enumerate(encoding.lvl_formats_enum):
        name = getattr(level_format, "name", str(level_format)).lower()
        if name not in ("dense", "compressed"):
            raise ProgramError(f"{mlir_type}: level {level} is {name}; the program format stores levels only "
                               "dense or compressed", where=where,
                               fix="use dense and compressed levels (CSR, CSC, DCSR, dense)")
        formats.append(name)
    for level, level_type in enumerate(encoding.lvl_types):
        properties = level_type & 0xFFFF  # the low bits: non-unique, non-ordered, ...
        if properties:
            raise ProgramError(f"{mlir_type}: level {level} is not ordered and unique (properties "
                               f"{properties:#x}); a stream needs sorted, unique coordinates", where=where,
                               fix="drop nonunique/nonordered from the encoding")
    dim_to_lvl = encoding.dim_to_lvl
    storage = _permutation(ir, dim_to_lvl, len(extents)) if dim_to_lvl is not None else tuple(range(len(extents)))
    if storage is None or len(storage) != len(formats):
        raise ProgramError(f"{mlir_type}: the encoding's map {dim_to_lvl} is not a permutation of the dimensions",
                           where=where, fix="blocked and strided encodings are not supported; give a permutation")
    return TensorType(extents, element, storage, tuple(formats), True)


def _permutation(ir, affine_map, rank: int) -> tuple[int, ...] | None:
    if affine_map.n_dims != rank or len(affine_map.results) != rank:
        return None
    axes = []
    for result in affine_map.results:
        if not isinstance(result, ir.AffineDimExpr):
            return None
        axes.append(result.position)
    return tuple(axes) if sorted(axes) == list(range(rank)) else None
