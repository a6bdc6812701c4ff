"""Verifiers of the floating point ops (`tileir.ops.floating_point`).

The reference's hand-written ``verify()`` of each op: the rounding modes an op accepts,
the modifiers (``flush_to_zero``, ``approx``, ``full``) that only f32 supports, and the
shapes and element types of the MMA ops.  (The comparisons' result type is the ODS trait
``TypesMatchWith``, declared with the ops.)
"""

from __future__ import annotations

from typing import Any, Sequence

from ...enums import RoundingMode
from ...types import (BF16, F4E2M1FN, F8E4M3FN, F8E5M2, F8E5M3FNU, F8E8M0FNU, F16, F32, F64, TF32,
                      TileType, Type, quoted)
from ..registry import Context, op_error, verifier
from ..text import shape_text
from ..traits import element_type

R = RoundingMode
_IEEE = (R.NEAREST_EVEN, R.ZERO, R.NEGATIVE_INF, R.POSITIVE_INF)

#: The rounding modes each op accepts, in the order its diagnostic lists them.
ROUNDING_MODES: dict[str, tuple[RoundingMode, ...]] = {
    "addf": _IEEE,
    "subf": _IEEE,
    "mulf": _IEEE,
    "fma": _IEEE,
    "divf": _IEEE + (R.APPROX, R.FULL),
    "sqrt": _IEEE + (R.APPROX,),
    "exp": (R.APPROX, R.FULL),
    "tanh": (R.APPROX, R.FULL),
}

#: Ops whose reference verifier reports a bad rounding mode but goes on as if it verified
#: (TanHOp::verify emits the error without returning failure).
NON_FATAL_ROUNDING = frozenset({"tanh"})

#: Ops on which ``rounding<full>`` is a modifier restricted to f32 (DivFOp only; exp and
#: tanh accept ``full`` on every float type).
FULL_NEEDS_F32 = frozenset({"divf"})

#: Ops whose only hand-written check is flush_to_zero on f32 (MLIR's verifyFtz).
FTZ_ONLY = ("exp2", "rsqrt", "maxf", "minf")


def result_element(op: Any) -> Type:
    """The element type of the op's (first) result, as MLIR's getElementTypeOrSelf."""
    return element_type(op.results[0].type)


def rounding_mode_error(op: Any, allowed: Sequence[RoundingMode]) -> str | None:
    """The reference's "invalid rounding mode specified" message when the op's mode is not
    in `allowed`, None when it is."""
    if op.enum("rounding_mode") in allowed:
        return None
    listed = ", ".join(mode.keyword for mode in allowed)
    return f"invalid rounding mode specified, expect one of [{listed}]"


def f32_only_error(modifier: str, ty: Type) -> str | None:
    """A modifier restricted to f32 (verifyFtz, verifyApprox) on an element type `ty`."""
    if ty == F32:
        return None
    return f"{modifier} modifier only supported for f32 data type, but got: {quoted(ty)}"


def modifier_error(op: Any) -> str | None:
    """The first of flush_to_zero, approx, full (in the reference's order) that the op uses
    on a non-f32 result."""
    ty = result_element(op)
    rounding = op.enum("rounding_mode") if op.opdef.attr_def("rounding_mode") else None
    used = (("flush_to_zero", op.has_flag("flush_to_zero")),
            ("approx", rounding is R.APPROX),
            ("full", rounding is R.FULL and op.opdef.name in FULL_NEEDS_F32))
    for modifier, present in used:
        if present and ty != F32:
            return f32_only_error(modifier, ty)
    return None


@verifier(*ROUNDING_MODES)
def _rounding_and_modifiers(op: Any, ctx: Context) -> None:
    """Rounding-mode whitelist, then the f32-only modifiers (AddFOp::verify and kin)."""
    message = rounding_mode_error(op, ROUNDING_MODES[op.opdef.name])
    if message is not None:
        if op.opdef.name not in NON_FATAL_ROUNDING:
            raise op_error(op, message)
        ctx.op_error(op, message)
        return
    message = modifier_error(op)
    if message is not None:
        raise op_error(op, message)


@verifier(*FTZ_ONLY)
def _flush_to_zero(op: Any, ctx: Context) -> None:
    """flush_to_zero only with f32 results (MLIR verifyFtz)."""
    message = modifier_error(op)
    if message is not None:
        raise op_error(op, message)


# ---- mma --------------------------------------------------


#: One dim comparison: (message prefix, operand a, dim of a, operand b, dim of b); dims
#: are "batch", "row" (M, or K of rhs) and "col" (K, or N of rhs), resolved per rank.
DimPair = tuple[str, str, str, str, str]

# The reference's messages for the M/N/K dims of verifyMmaShapes start with a space.
MMA_BATCH_PAIRS: tuple[DimPair, ...] = (("", "lhs", "batch", "rhs", "batch"),
                                        ("", "lhs", "batch", "acc", "batch"))
MMA_PAIRS: tuple[DimPair, ...] = ((" ", "lhs", "col", "rhs", "row"),
                                  (" ", "lhs", "row", "acc", "row"),
                                  (" ", "rhs", "col", "acc", "col"))
SCALE_BATCH_PAIRS: tuple[DimPair, ...] = (("", "lhs", "batch", "lhs_scale", "batch"),
                                          ("", "rhs", "batch", "rhs_scale", "batch"))
SCALE_PAIRS: tuple[DimPair, ...] = (("", "lhs", "row", "lhs_scale", "row"),
                                    ("", "rhs", "col", "rhs_scale", "col"),
                                    ("", "lhs_scale", "col", "rhs_scale", "row"))


def _dim_indices(rank: int) -> dict[str, int]:
    """Where the batch, row and column dims of an MMA operand of `rank` are."""
    batched = int(rank == 3)
    return {"batch": 0, "row": batched, "col": batched + 1}


def _dim_mismatch(shapes: dict[str, Sequence[int]], pairs: Sequence[DimPair],
                  rank: int) -> str | None:
    """The reference's "shape error: dim i of a (x) and dim j of b (y) must match" message
    for the first pair of dims that differ."""
    index = _dim_indices(rank)
    for prefix, a, a_dim, b, b_dim in pairs:
        i, j = index[a_dim], index[b_dim]
        a_shape, b_shape = shapes[a], shapes[b]
        if a_shape[i] != b_shape[j]:
            return (f"{prefix}shape error: dim {i} of {a} ({a_shape[i]}) and dim {j} of {b} "
                    f"({b_shape[j]}) must match, but got {a} shape ({shape_text(a_shape)}) and {b} "
                    f"shape ({shape_text(b_shape)})")
    return None


def _first(*messages: str | None) -> str | None:
    """The first message that is not None."""
    return next((m for m in messages if m is not None), None)


def _shapes(op: Any, names: Sequence[str]) -> dict[str, Sequence[int]]:
    """The shapes of the op's operands named `names`."""
    return {n: op.values_named(n)[0].type.shape for n in names}


def mma_shape_error(op: Any) -> str | None:
    """verifyMmaShapes: 2-d or 3-d operands, equal batch dims, (M, K) x (K, N) -> (M, N).

    The ranks of lhs, rhs and acc were checked equal by AllRanksMatch; when they are not
    (that trait failed first in the reference) this reports nothing.
    """
    shapes = _shapes(op, ("lhs", "rhs", "acc"))
    rank = len(shapes["lhs"])
    if rank not in (2, 3):
        return "operands must be 2D or 3D tiles"
    if any(len(shape) != rank for shape in shapes.values()):
        return None
    pairs = (MMA_BATCH_PAIRS if rank == 3 else ()) + MMA_PAIRS
    return _dim_mismatch(shapes, pairs, rank)


#: mmaf's input element types and the accumulator types each allows.
MMAF_ACCUMULATORS: dict[Type, tuple[Type, ...]] = {
    F4E2M1FN: (F16, F32),
    F8E4M3FN: (F16, F32),
    F8E5M2: (F16, F32),
    F16: (F16, F32),
    BF16: (F32,),
    TF32: (F32,),
    F32: (F32,),
    F64: (F64,),
}


def mmaf_element_error(lhs: Type, acc: Type) -> str | None:
    """The input/accumulator element type combinations mmaf supports."""
    allowed = MMAF_ACCUMULATORS.get(lhs)
    if allowed is None:
        return f"unsupported input element type: {quoted(lhs)}"
    if acc in allowed:
        return None
    listed = ", ".join(quoted(t) for t in allowed)
    return (f"unsupported combination of element types. Input type {quoted(lhs)} expects "
            f"accumulator/result type to be one of {{{listed}}}, but got {quoted(acc)}")


@verifier("mmaf")
def _mmaf(op: Any, ctx: Context) -> None:
    """MmaFOp::verify: shapes, then element types."""
    lhs, acc = (op.values_named(n)[0].type for n in ("lhs", "acc"))
    message = _first(mma_shape_error(op),
                     mmaf_element_error(lhs.element_type, acc.element_type))
    if message is not None:
        raise op_error(op, message)


#: Element types of lhs/rhs each scale element type allows (message text, types).
SCALE_INPUTS: dict[Type, tuple[str, tuple[Type, ...]]] = {
    F8E4M3FN: (quoted(F4E2M1FN), (F4E2M1FN,)),
    F8E8M0FNU: ("one of {" + ", ".join(quoted(t) for t in (F8E4M3FN, F8E5M2, F4E2M1FN)) + "}",
                (F8E4M3FN, F8E5M2, F4E2M1FN)),
    F8E5M3FNU: (quoted(F4E2M1FN), (F4E2M1FN,)),  # 13.4
}


def _scale_shape_error(op: Any) -> str | None:
    """Batch dims and M/N dims of the scales match their operands; the scales agree on K."""
    shapes = _shapes(op, ("lhs", "rhs", "lhs_scale", "rhs_scale"))
    rank = len(shapes["lhs"])
    pairs = (SCALE_BATCH_PAIRS if rank == 3 else ()) + SCALE_PAIRS
    return _dim_mismatch(shapes, pairs, rank)


def _scale_element_error(lhs: Type, scale: Type) -> str | None:
    """The lhs/rhs element types a scale element type allows."""
    entry = SCALE_INPUTS.get(scale)
    if entry is None or lhs in entry[1]:
        return None
    return (f"unsupported combination of element types. Scale type {quoted(scale)} expects "
            f"lhs and rhs element types to be {entry[0]}, but got {quoted(lhs)}")


#: Block scale factors (K of lhs / K of lhs_scale) allowed per (input, scale) element
#: types, with the message's subject and list.
BLOCK_SCALE_FACTORS: dict[tuple[Type, Type], tuple[str, tuple[int, ...]]] = {
    (F8E4M3FN, F8E8M0FNU): ("f8 element type", (32,)),
    (F8E5M2, F8E8M0FNU): ("f8 element type", (32,)),
    (F8E4M3FN, F8E4M3FN): ("f8 element type", (32,)),
    (F8E5M2, F8E4M3FN): ("f8 element type", (32,)),
    (F4E2M1FN, F8E4M3FN): ("f4E2M1FN element type with f8E4M3FN scales", (16,)),
    (F4E2M1FN, F8E8M0FNU): ("f4E2M1FN element type with f8E8M0FNU scales", (16, 32)),
    # 13.4: 16 and 32 observed to verify; the wording for other factors follows the rows above.
    (F4E2M1FN, F8E5M3FNU): ("f4E2M1FN element type with fnv8E5M3FNU scales", (16, 32)),
}


def _block_factor_error(lhs: TileType, lhs_scale: TileType) -> str | None:
    """K of lhs_scale divides K of lhs, with a quotient the element types allow."""
    col = _dim_indices(lhs.rank)["col"]
    k, scale_k = lhs.shape[col], lhs_scale.shape[col]
    if k % scale_k != 0:
        return (f"shape error: dim {col} of lhs_scale ({scale_k}) must be a divisor of dim "
                f"{col} of lhs ({k}), but got lhs_scale shape ({shape_text(lhs_scale.shape)}) and "
                f"lhs shape ({shape_text(lhs.shape)})")
    entry = BLOCK_SCALE_FACTORS.get((lhs.element_type, lhs_scale.element_type))
    factor = k // scale_k
    if entry is None or factor in entry[1]:
        return None
    subject, allowed = entry
    listed = " or ".join(str(f) for f in allowed)
    return (f"shape error: {subject} requires block scale factor of lhs_scale and rhs_scale "
            f"to be {listed}, but got {factor}")


@verifier("mmaf_scaled")
def _mmaf_scaled(op: Any, ctx: Context) -> None:
    """MmaFScaledOp::verify: mma shapes, scale shapes, element types, block factor."""
    lhs, rhs, lhs_scale, rhs_scale = (op.values_named(n)[0].type for n in
                                      ("lhs", "rhs", "lhs_scale", "rhs_scale"))
    message = mma_shape_error(op)
    if message is None and lhs.rank == rhs.rank == lhs_scale.rank == rhs_scale.rank:
        message = _first(_scale_shape_error(op),
                         _scale_element_error(lhs.element_type, lhs_scale.element_type),
                         _block_factor_error(lhs, lhs_scale))
    if message is not None:
        raise op_error(op, message)
