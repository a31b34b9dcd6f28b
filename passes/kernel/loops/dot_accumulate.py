"""Reductions of dot instructions that add into their destination (kernel.dot4 as
vpdpbusd / pmaddwd, kernel.bf16dot2 as vdpbf16ps): the loop builder's combine step folds
`acc + dot(0, a, b)` into `dot(acc, a, b)`."""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import SSAValue

from tessel.dialects import kernel
from tessel.passes.kernel.loops.emitter import Emitter


def accumulate_dot(e: Emitter, acc: SSAValue, term: SSAValue) -> SSAValue | None:
    """acc + kernel.dot4(0, a, b) as kernel.dot4(acc, a, b), and the same of kernel.bf16dot2:
    the body computes its term from zero (it cannot see the accumulator), and vpdpbusd and
    vdpbf16ps add into their destination, so the sum would otherwise cost a second
    instruction per step. The zero-based dot is dropped when nothing else reads it."""
    dot = term.owner
    if not isinstance(dot, kernel.Dot4Op | kernel.Bf16Dot2Op) or not is_zero(dot.acc) or dot.acc.type != acc.type:
        return None
    fused = e.emit(type(dot).create(operands=[acc, dot.lhs, dot.rhs], result_types=[acc.type]))
    if not dot.result.uses:
        dot.detach()
        dot.erase()
    return fused


def is_zero(v: SSAValue) -> bool:
    """A zero (integer or float): a constant, or a vector broadcast of one."""
    owner = v.owner
    if isinstance(owner, vector.BroadcastOp):
        return is_zero(owner.source)
    if isinstance(owner, arith.ConstantOp):
        value = owner.value
        if isinstance(value, IntegerAttr | FloatAttr):
            return value.value.data == 0
        values = getattr(value, "get_values", lambda: None)()
        return values is not None and all(x == 0 for x in values)
    return False
