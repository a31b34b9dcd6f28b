"""Scalar code of the comparison, logic, selection and bit ops (dialects/tg/logic.py).

Comparisons are IEEE-ordered on floats (false with NaN) and signed or unsigned on
integers as the element type says. Shifts never shift by the width or more (undefined
in LLVM): the amount is checked once, as unsigned, which also catches negative amounts.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.ir import Operation, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, string
from tessel.passes.tg.lowering.elementwise import cmp, operands, select
from tessel.passes.tg.lowering.index_maps import Index
from tessel.passes.tg.lowering.scalar import ElementBuilder, element_of, int_type, is_unsigned, rule

PREDICATES: dict[type[Operation], str] = {
    tg.EqualOp: "eq",
    tg.LessOp: "lt",
    tg.GreaterOp: "gt",
    tg.LessEqualOp: "le",
    tg.GreaterEqualOp: "ge",
}
LOGIC: dict[type[Operation], Callable[[SSAValue, SSAValue], Operation]] = {
    tg.AndOp: arith.AndIOp,
    tg.OrOp: arith.OrIOp,
    tg.XorOp: arith.XOrIOp,
}


@rule(*PREDICATES)
def _compare(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = operands(b, op, idx)
    return cmp(b, x, y, PREDICATES[type(op)], element_of(op.operands[0]))


@rule(*LOGIC)
def _logic(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, y = operands(b, op, idx)
    return b.emit(LOGIC[type(op)](x, y))


@rule(tg.NotOp)
def _not(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    return b.emit(arith.XOrIOp(x, b.const(-1, x.type)))  # all ones: true for i1


@rule(tg.WhereOp)
def _where(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    c, x, y = operands(b, op, idx)
    return select(b, c, x, y)


@rule(tg.IsNanOp)
def _isnan(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    return b.emit(arith.CmpfOp(x, x, "uno"))


@rule(tg.IsInfOp)
def _isinf(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    (x,) = operands(b, op, idx)
    negative = flag(op.properties, "detect_negative", True)
    positive = flag(op.properties, "detect_positive", True)
    inf = b.const(float("inf"), x.type)
    if negative and positive:
        return b.emit(arith.CmpfOp(b.emit(mathd.AbsFOp(x)), inf, "oeq"))
    if positive:
        return b.emit(arith.CmpfOp(x, inf, "oeq"))
    if negative:
        return b.emit(arith.CmpfOp(x, b.const(float("-inf"), x.type), "oeq"))
    return b.emit(arith.CmpfOp(x, x, "false"))


@rule(tg.BitShiftOp)
def _bitshift(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, amount = operands(b, op, idx)
    et = element_of(op.results[0])
    t = x.type
    width = int_type(t).width.data
    zero = b.const(0, t)
    valid = b.emit(arith.CmpiOp(amount, b.const(width, t), "ult"))  # also false for negative amounts
    safe = select(b, valid, amount, zero)
    if string(op.properties, "direction", ("left", "right")) == "left":
        return select(b, valid, b.emit(arith.ShLIOp(x, safe)), zero)
    if is_unsigned(et):
        return select(b, valid, b.emit(arith.ShRUIOp(x, safe)), zero)
    fill = b.emit(arith.ShRSIOp(x, b.const(width - 1, t)))  # -1 or 0
    return select(b, valid, b.emit(arith.ShRSIOp(x, safe)), fill)
