"""Scalar code of the element-wise math ops (dialects/tg/math.py) and tg.bitcast.

Each rule emits, for one element, the upstream arith/math ops that compute it in the
compute type (scalar.py: f16/bf16 carried as f32, integers signless). Transcendental
functions stay `math` ops, so that the target picks their implementation (a vectorized
polynomial, libm, libdevice); everything else is plain arith, which vectorizes.

Integer semantics are the machine's, without undefined behaviour: x mod 0 is 0 (the
divisor is made safe first), MIN mod -1 is 0, pow wraps (square and multiply over the
exponent's bits).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, llvm
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import flag
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import Index, broadcast_index
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    compute_type,
    element_of,
    is_unsigned,
    rule,
    shape_of,
    storage_type,
)

MATH_UNARY: dict[type[Operation], Callable[[SSAValue], Operation]] = {
    tg.LogOp: mathd.LogOp,
    tg.ErfOp: mathd.ErfOp,
    tg.Expm1Op: mathd.ExpM1Op,
    tg.Log1pOp: mathd.Log1pOp,
    tg.FloorOp: mathd.FloorOp,
    tg.CeilOp: mathd.CeilOp,
    tg.RoundOp: mathd.RoundEvenOp,
    tg.SinOp: mathd.SinOp,
    tg.CosOp: mathd.CosOp,
    tg.TanOp: mathd.TanOp,
    tg.AsinOp: mathd.AsinOp,
    tg.AcosOp: mathd.AcosOp,
    tg.AtanOp: mathd.AtanOp,
    tg.SinhOp: mathd.SinhOp,
    tg.CoshOp: mathd.CoshOp,
    tg.AsinhOp: mathd.AsinhOp,
    tg.AcoshOp: mathd.AcoshOp,
    tg.AtanhOp: mathd.AtanhOp,
}


def operands(b: ElementBuilder, op: Operation, idx: Index) -> list[SSAValue]:
    """Each operand's element at the (broadcast) index, in its compute type."""
    result = shape_of(op.results[0])
    return [b.value(v, broadcast_index(idx, shape_of(v), result)) for v in op.operands]


def select(b: ElementBuilder, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.SelectOp(cond, x, y))


def cmp(b: ElementBuilder, x: SSAValue, y: SSAValue, predicate: str, et: Attribute) -> SSAValue:
    """Compare two compute-type values of tg element type `et`: `predicate` is one of
    eq, ne, lt, le, gt, ge; floats are ordered (false with NaN), integers signed or not
    as `et` says, booleans unsigned."""
    if dtypes.is_float(et):
        return b.emit(arith.CmpfOp(x, y, {"ne": "une"}.get(predicate, "o" + predicate)))
    if predicate in ("eq", "ne"):
        return b.emit(arith.CmpiOp(x, y, predicate))
    sign = "u" if is_unsigned(et) or dtypes.is_bool(et) else "s"
    return b.emit(arith.CmpiOp(x, y, sign + predicate))


def minimum(b: ElementBuilder, x: SSAValue, y: SSAValue, et: Attribute) -> SSAValue:
    if dtypes.is_float(et):
        return b.emit(arith.MinimumfOp(x, y))
    return b.emit(arith.MinUIOp(x, y) if is_unsigned(et) or dtypes.is_bool(et) else arith.MinSIOp(x, y))


def maximum(b: ElementBuilder, x: SSAValue, y: SSAValue, et: Attribute) -> SSAValue:
    if dtypes.is_float(et):
        return b.emit(arith.MaximumfOp(x, y))
    return b.emit(arith.MaxUIOp(x, y) if is_unsigned(et) or dtypes.is_bool(et) else arith.MaxSIOp(x, y))


# --------------------------------------------------------------------------- unary


@rule(*MATH_UNARY)
def _math_unary(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    return b.emit(MATH_UNARY[type(op)](x))


@rule(tg.AbsOp)
def _abs(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    et = element_of(op.results[0])
    if dtypes.is_float(et):
        return b.emit(mathd.AbsFOp(x))
    if is_unsigned(et):
        return x
    return b.emit(mathd.AbsIOp(x))  # abs(MIN) wraps to MIN


@rule(tg.SignOp)
def _sign(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    et = element_of(op.results[0])
    t = x.type
    zero, one = b.const(0, t), b.const(1, t)
    if is_unsigned(et):
        return select(b, cmp(b, x, zero, "ne", et), one, zero)
    # floats keep x where it is neither positive nor negative: ±0 and NaN
    rest = select(b, cmp(b, x, zero, "lt", et), b.const(-1, t), x if dtypes.is_float(et) else zero)
    return select(b, cmp(b, x, zero, "gt", et), one, rest)


@rule(tg.ReciprocalOp)
def _reciprocal(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    return b.emit(arith.DivfOp(b.const(1.0, x.type), x))


# --------------------------------------------------------------------------- binary


@rule(tg.MinOp, tg.MaxOp)
def _min_max(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = operands(b, op, idx)
    combine = minimum if isinstance(op, tg.MinOp) else maximum
    return combine(b, x, y, element_of(op.results[0]))


@rule(tg.PowOp)
def _pow(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = operands(b, op, idx)
    et = element_of(op.results[0])
    if dtypes.is_float(et):
        return b.emit(mathd.PowFOp(x, y))
    return integer_pow(b, x, y, et)


def integer_pow(b: ElementBuilder, x: SSAValue, y: SSAValue, et: Attribute) -> SSAValue:
    """x^y by square and multiply over every bit of y (the wrapping product, exactly); a
    negative y gives 1 for x = 1, (-1)^y for x = -1 and 0 otherwise."""
    t = x.type
    assert isinstance(t, IntegerType)
    zero, one = b.const(0, t), b.const(1, t)
    result, base, e = one, x, y
    for bit in range(t.width.data):
        odd = b.emit(arith.CmpiOp(b.emit(arith.AndIOp(e, one)), zero, "ne"))
        result = select(b, odd, b.emit(arith.MuliOp(result, base)), result)
        if bit + 1 < t.width.data:
            base = b.emit(arith.MuliOp(base, base))
            e = b.emit(arith.ShRUIOp(e, one))
    if is_unsigned(et):
        return result
    odd_y = b.emit(arith.CmpiOp(b.emit(arith.AndIOp(y, one)), zero, "ne"))
    minus_one = b.const(-1, t)
    inverse = select(
        b,
        b.emit(arith.CmpiOp(x, one, "eq")),
        one,
        select(b, b.emit(arith.CmpiOp(x, minus_one, "eq")), select(b, odd_y, minus_one, one), zero),
    )
    return select(b, b.emit(arith.CmpiOp(y, zero, "slt")), inverse, result)


@rule(tg.ModOp)
def _mod(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = operands(b, op, idx)
    et = element_of(op.results[0])
    fmod = flag(op.properties, "fmod")
    t = x.type
    zero = b.const(0, t)
    if dtypes.is_float(et):
        r = b.emit(llvm.FRemOp(x, y))  # C's fmod, exact
        if fmod:
            return r
        # numpy's mod: move a nonzero remainder to the divisor's sign; a zero one takes it too
        differ = b.emit(arith.XOrIOp(cmp(b, r, zero, "lt", et), cmp(b, y, zero, "lt", et)))
        nonzero = b.emit(arith.CmpfOp(r, zero, "une"))  # NaN counts as nonzero, as in numpy
        moved = select(b, b.emit(arith.AndIOp(differ, nonzero)), b.emit(arith.AddfOp(r, y)), r)
        signed_zero = b.emit(mathd.CopySignOp(zero, y))
        return select(b, b.emit(arith.CmpfOp(r, zero, "oeq")), signed_zero, moved)
    one = b.const(1, t)
    is_zero = b.emit(arith.CmpiOp(y, zero, "eq"))
    if is_unsigned(et):
        r = b.emit(arith.RemUIOp(x, select(b, is_zero, one, y)))
        return select(b, is_zero, zero, r)
    # a divisor of 0 or -1 gives 0 (and would trap on MIN / -1)
    trivial = b.emit(arith.OrIOp(is_zero, b.emit(arith.CmpiOp(y, b.const(-1, t), "eq"))))
    r = b.emit(arith.RemSIOp(x, select(b, trivial, one, y)))
    if not fmod:
        differ = b.emit(arith.XOrIOp(b.emit(arith.CmpiOp(r, zero, "slt")), b.emit(arith.CmpiOp(y, zero, "slt"))))
        nonzero = b.emit(arith.CmpiOp(r, zero, "ne"))
        r = select(b, b.emit(arith.AndIOp(differ, nonzero)), b.emit(arith.AddiOp(r, y)), r)
    return select(b, trivial, zero, r)


# --------------------------------------------------------------------------- bits


@rule(tg.BitcastOp)
def _bitcast(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    src, dst = element_of(op.operands[0]), element_of(op.results[0])
    if dtypes.is_bool(src):  # a boolean's byte, read as an 8-bit integer
        wide = compute_type(dst)
        assert isinstance(wide, IntegerType)
        return b.emit(arith.ExtUIOp(x, wide))
    bits = b.narrow(x, storage_type(src)) if dtypes.is_float(src) else x
    if dtypes.is_bool(dst):
        return b.emit(arith.CmpiOp(bits, b.const(0, bits.type), "ne"))
    return _from_bits(b, bits, dst)


def _from_bits(b: ElementBuilder, bits: SSAValue, dst: Attribute) -> SSAValue:
    """The storage bits `bits` (an integer or float of dst's width) read as `dst`."""
    st = storage_type(dst)
    value = bits if bits.type == st else b.emit(arith.BitcastOp(bits, st))
    return b.widen(value, dst)
