"""Evaluate an `img.map`/`img.stencil` body on whole numpy arrays at once.

The body is MLIR arithmetic over signless scalars; applying each op to arrays (one element
per pixel) gives the same values as running it pixel by pixel, in one numpy call per op.
Signless iN values are held as uintN arrays; the signed ops reinterpret them. What MLIR
leaves undefined gets a fixed meaning here, which the CPU lowering must match: integer
division by zero gives 0, shifts by the width or more give 0 (or the sign for shrsi), float
to integer conversions saturate (NaN gives 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.predicates import CMPF_PREDICATES, CMPI_PREDICATES

Array = np.ndarray


def storage(t: Attribute) -> np.dtype:
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    if isinstance(t, IntegerType):
        width = t.width.data
        return np.dtype(np.bool_) if width == 1 else np.dtype(f"uint{width}")
    raise TesselError(f"image bodies compute on integers and f32, not {t}")


def _signed(a: Array) -> Array:
    if a.dtype == np.bool_:  # a signed i1 is 0 or -1 (all bits set)
        return np.where(a, -1, 0).astype(np.int8)
    return a.view(np.dtype(a.dtype.name[1:])) if a.dtype.kind == "u" else a


def _unsigned(a: Array) -> Array:
    return a.view(np.dtype("u" + a.dtype.name)) if a.dtype.kind == "i" else a


def _width(t: Attribute) -> int:
    if not isinstance(t, IntegerType):
        raise TesselError(f"expected an integer type in an image body, got {t}")
    return t.width.data


def _div(a: Array, b: Array, signed: bool, rem: bool) -> Array:
    x, y = (
        (_signed(a).astype(np.int64), _signed(b).astype(np.int64))
        if signed
        else (a.astype(np.uint64), b.astype(np.uint64))
    )
    safe = np.where(y == 0, 1, y)
    if signed:
        q = np.abs(x) // np.abs(safe) * (np.sign(x) * np.sign(safe))  # truncation toward zero
        r = x - q * safe
    else:
        q, r = x // safe, x % safe
    return np.where(y == 0, 0, r if rem else q).astype(a.dtype)  # integer casts wrap


def _shift(a: Array, b: Array, kind: str) -> Array:
    width = a.dtype.itemsize * 8
    big = b.astype(np.uint64) >= width
    amount = np.minimum(b.astype(np.uint64), width - 1).astype(np.int64)
    if kind == "shrs":
        s = _signed(a).astype(np.int64)
        return np.where(big, np.where(s < 0, -1, 0), s >> amount).astype(a.dtype)
    x = a.astype(np.uint64)
    shifted = x << amount.astype(np.uint64) if kind == "shl" else x >> amount.astype(np.uint64)
    return np.where(big, 0, shifted).astype(a.dtype)


def _cmp(a: Array, b: Array, pred: int) -> Array:
    name = CMPI_PREDICATES[pred]
    if name[0] == "s":
        a, b = _signed(a), _signed(b)
    op = {
        "eq": np.equal,
        "ne": np.not_equal,
        "lt": np.less,
        "le": np.less_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
    }
    return op[name if name in ("eq", "ne") else name[1:]](a, b)


def _fp_to_int(x: Array, t: Attribute, signed: bool) -> Array:
    width = _width(t)
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    v = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0)
    v = np.clip(v, lo, hi).astype(np.int64)
    return _unsigned(v.astype(np.dtype(f"int{width}"))) if signed else v.astype(np.dtype(f"uint{width}"))


Rule = Callable[[Operation, list[Array]], Array]

_BINARY: dict[type, Callable[[Array, Array], Array]] = {
    arith.AddiOp: np.add, arith.SubiOp: np.subtract, arith.MuliOp: np.multiply,
    arith.AndIOp: np.bitwise_and, arith.OrIOp: np.bitwise_or, arith.XOrIOp: np.bitwise_xor,
    arith.MaxUIOp: np.maximum, arith.MinUIOp: np.minimum,
    arith.MaxSIOp: lambda a, b: _unsigned(np.maximum(_signed(a), _signed(b))),
    arith.MinSIOp: lambda a, b: _unsigned(np.minimum(_signed(a), _signed(b))),
    arith.DivUIOp: lambda a, b: _div(a, b, False, False), arith.DivSIOp: lambda a, b: _div(a, b, True, False),
    arith.RemUIOp: lambda a, b: _div(a, b, False, True), arith.RemSIOp: lambda a, b: _div(a, b, True, True),
    arith.ShLIOp: lambda a, b: _shift(a, b, "shl"), arith.ShRUIOp: lambda a, b: _shift(a, b, "shru"),
    arith.ShRSIOp: lambda a, b: _shift(a, b, "shrs"),
    arith.AddfOp: np.add, arith.SubfOp: np.subtract, arith.MulfOp: np.multiply, arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum, arith.MinimumfOp: np.minimum,
}  # fmt: skip


def apply(op: Operation, args: list[Array]) -> Array:
    """One arithmetic op on arrays (or numpy scalars)."""
    if not op.results:
        raise TesselError(f"{op.name} yields no value in an image body", op_location(op))
    t = op.results[0].type
    with np.errstate(all="ignore"):
        if type(op) in _BINARY:
            return np.asarray(_BINARY[type(op)](args[0], args[1])).astype(storage(t))
        if isinstance(op, arith.ConstantOp):
            v = op.value
            if isinstance(v, IntegerAttr):
                return np.asarray(
                    v.value.data & ((1 << _width(t)) - 1) if _width(t) > 1 else bool(v.value.data)
                ).astype(storage(t))
            if isinstance(v, FloatAttr):
                return np.asarray(np.float32(v.value.data))
        if isinstance(op, arith.ExtUIOp):
            return args[0].astype(storage(t))
        if isinstance(op, arith.ExtSIOp):
            src = args[0]
            wide = _signed(src).astype(np.dtype(f"int{_width(t)}"))
            return _unsigned(wide)
        if isinstance(op, arith.TruncIOp):
            return args[0].astype(storage(t))  # uint narrowing wraps
        if isinstance(op, arith.CmpiOp):
            return _cmp(args[0], args[1], op.predicate.value.data)
        if isinstance(op, arith.CmpfOp):
            pred = CMPF_PREDICATES[op.predicate.value.data]
            fn = {
                "eq": np.equal,
                "gt": np.greater,
                "ge": np.greater_equal,
                "lt": np.less,
                "le": np.less_equal,
                "ne": np.not_equal,
            }
            if pred in ("false", "true", "ord", "uno"):
                raise TesselError(f"arith.cmpf predicate {pred} is not supported in image bodies", op_location(op))
            return fn[pred[1:]](args[0], args[1])
        if isinstance(op, arith.SelectOp):
            return np.where(args[0], args[1], args[2]).astype(args[1].dtype)
        if isinstance(op, arith.UIToFPOp):
            return args[0].astype(np.float32)
        if isinstance(op, arith.SIToFPOp):
            return _signed(args[0]).astype(np.float32)
        if isinstance(op, arith.FPToUIOp | arith.FPToSIOp):
            return _fp_to_int(args[0], t, isinstance(op, arith.FPToSIOp))
        if isinstance(op, arith.NegfOp):
            return np.negative(args[0])
        if isinstance(op, math.AbsFOp):
            return np.abs(args[0])
        if isinstance(op, math.AbsIOp):
            return _unsigned(np.abs(_signed(args[0])))
        if isinstance(op, math.SqrtOp):
            return np.sqrt(args[0]).astype(np.float32)
    raise TesselError(f"{op.name} is not supported in image bodies", op_location(op))


SUPPORTED = (*_BINARY, arith.ConstantOp, arith.ExtUIOp, arith.ExtSIOp, arith.TruncIOp, arith.CmpiOp, arith.CmpfOp,
             arith.SelectOp, arith.UIToFPOp, arith.SIToFPOp, arith.FPToUIOp, arith.FPToSIOp, arith.NegfOp,
             math.AbsFOp, math.AbsIOp, math.SqrtOp)  # fmt: skip


def evaluate(block: Block, args: Sequence[Array]) -> Array:
    """The body's yielded value for argument arrays (all of one shape, or scalars)."""
    env: dict[SSAValue, Array] = dict(zip(block.args, args))
    for op in block.ops:
        if op.name == "img.yield":
            return np.asarray(env[op.operands[0]])
        env[op.results[0]] = apply(op, [env[v] for v in op.operands])
    raise TesselError("image body has no img.yield")


def check_body(block: Block, where: Mapping | None = None) -> None:
    """Every op in a body must be one the evaluator (and the CPU lowering) knows."""
    for op in block.ops:
        if op.name != "img.yield" and not isinstance(op, SUPPORTED):
            raise TesselError(f"{op.name} is not supported in image bodies", op_location(op))
