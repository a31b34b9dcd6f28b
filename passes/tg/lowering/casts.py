"""tg.cast's scalar code: numpy's astype between element types, in compute types.

16-bit floats are carried in f32 and rounded where numpy rounds; a float becomes an integer
as numpy does on x86-64 (never LLVM's poison for an out-of-range value). Also used by the
rules that change a value's type on the way (attention's mask and probabilities).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tessel.dialects import tg
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import Index
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    _operands,
    compute_type,
    element_of,
    float_type,
    int_type,
    is_unsigned,
    rule,
    storage_type,
)


@rule(tg.CastOp)
def _cast(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = _operands(b, op, idx)
    return convert(b, x, element_of(op.operands[0]), element_of(op.results[0]))


def convert(b: ElementBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """numpy astype between compute types (floats to integers truncate toward zero)."""
    st, dt = compute_type(src), compute_type(dst)
    if dtypes.is_bool(dst):
        zero = b.const(0, st)
        if dtypes.is_float(src):
            return b.emit(arith.CmpfOp(x, zero, "une"))
        return b.emit(arith.CmpiOp(x, zero, "ne"))
    if dtypes.is_float(src) and dtypes.is_float(dst):
        if st == dt:
            if isinstance(dst, Float16Type | BFloat16Type) and not isinstance(src, Float16Type | BFloat16Type):
                # f32 -> f16 is carried as f32 but must round like f16
                narrow = b.emit(arith.TruncFOp(x, storage_type(dst)))
                return b.emit(arith.ExtFOp(narrow, dt))
            if (
                isinstance(src, Float16Type | BFloat16Type)
                and isinstance(dst, Float16Type | BFloat16Type)
                and type(src) is not type(dst)
            ):
                return b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(x, storage_type(dst))), dt))
            return x
        width = 32 if type(st) is Float32Type else 64
        dwidth = 32 if type(dt) is Float32Type else 64
        if isinstance(dst, Float16Type | BFloat16Type):
            return b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(x, storage_type(dst))), dt))
        return b.emit(arith.ExtFOp(x, dt) if dwidth > width else arith.TruncFOp(x, dt))
    if dtypes.is_float(src):
        return float_to_int(b, x, dst)
    if dtypes.is_float(dst):
        ft = float_type(dt)
        value = b.emit(arith.UIToFPOp(x, ft) if is_unsigned(src) or dtypes.is_bool(src) else arith.SIToFPOp(x, ft))
        if isinstance(dst, Float16Type | BFloat16Type):
            value = b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(value, storage_type(dst))), dt))
        return value
    si, di = int_type(st), int_type(dt)
    sw, dw = si.width.data, di.width.data
    if sw == dw:
        return x
    if dw < sw:
        return b.emit(arith.TruncIOp(x, di))
    return b.emit(arith.ExtUIOp(x, di) if is_unsigned(src) or dtypes.is_bool(src) else arith.ExtSIOp(x, di))


def float_to_int(b: ElementBuilder, x: SSAValue, dst: Attribute) -> SSAValue:
    """numpy's astype from a float to an integer type on x86-64, the reference's meaning:
    truncation toward zero; where the value is outside the conversion's range or NaN, the
    conversion's "integer indefinite" (its most negative value). Types narrower than 32
    bits convert through 32 bits and wrap, ui32 through 64; ui64 subtracts 2^63 first from
    values at or above it. Never LLVM's fptosi of an out-of-range value (poison)."""
    assert isinstance(dst, IntegerType)
    width = dst.width.data
    if is_unsigned(dst) and width == 64:
        msb = b.const(-(1 << 63), IntegerType(64))
        top = b.const(2.0**63, x.type)
        high = b.emit(arith.XOrIOp(_indefinite(b, b.emit(arith.SubfOp(x, top)), 64), msb))
        return b.emit(arith.SelectOp(b.emit(arith.CmpfOp(x, top, "oge")), high, _indefinite(b, x, 64)))
    through = 64 if width == 64 or (width == 32 and is_unsigned(dst)) else 32
    value = _indefinite(b, x, through)
    return value if width == through else b.emit(arith.TruncIOp(value, IntegerType(width)))


def _indefinite(b: ElementBuilder, x: SSAValue, bits: int) -> SSAValue:
    """x truncated to a signed `bits`-bit integer, or its most negative value where x is
    outside [-2^(bits-1), 2^(bits-1)) or NaN (x86's cvttss2si)."""
    t = IntegerType(bits)
    bound = float(2 ** (bits - 1))
    inside = b.emit(
        arith.AndIOp(
            b.emit(arith.CmpfOp(x, b.const(-bound, x.type), "oge")),
            b.emit(arith.CmpfOp(x, b.const(bound, x.type), "olt")),
        )
    )
    safe = b.emit(arith.SelectOp(inside, x, b.const(0.0, x.type)))
    return b.emit(arith.SelectOp(inside, b.emit(arith.FPToSIOp(safe, t)), b.const(-(1 << (bits - 1)), t)))
