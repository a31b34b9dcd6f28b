"""Converters for the activation functions, each a composition of element-wise tg ops
(fusion puts them back into one kernel, so a composition costs nothing at run time).

Where ONNX's reference has a select-free form, that form is used, because it vectorizes
without per-lane compares: LeakyRelu(x) = max(x, 0) + alpha * min(x, 0); Elu(x) = max(x, 0)
+ alpha * expm1(min(x, 0)). They give the reference's values exactly (alpha * 0 adds 0).
Softplus is the overflow-free max(x, 0) + log1p(exp(-|x|)) (numpy's logaddexp(0, x)).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import TgOp
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import scalar_attr
from tessel.ir import dtypes


class Builder:
    """Arithmetic on the node's values, each step one tg op."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx
        t = ctx.type(0)
        self.type: TensorType = t

    def op(self, op_type: type[TgOp], *operands: SSAValue) -> SSAValue:
        return self.ctx.value(op_type, list(operands))

    def const(self, value: float) -> SSAValue:
        return self.ctx.scalar(value, self.type)

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(tg.AddOp, a, b)

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(tg.SubOp, a, b)

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(tg.MulOp, a, b)

    def scale(self, alpha: float, x: SSAValue) -> SSAValue:
        return x if alpha == 1.0 else self.mul(self.const(alpha), x)

    def positive(self, x: SSAValue) -> SSAValue:
        """max(x, 0)"""
        return self.op(tg.MaxOp, x, self.const(0))

    def negative(self, x: SSAValue) -> SSAValue:
        """min(x, 0)"""
        return self.op(tg.MinOp, x, self.const(0))

    def clip01(self, x: SSAValue) -> SSAValue:
        et = self.type.element_type
        props = {"min": scalar_attr(0, et), "max": scalar_attr(1, et)}
        return self.ctx.value(tg.ClipOp, [x], props)

    def softplus(self, x: SSAValue) -> SSAValue:
        tail = self.op(tg.Log1pOp, self.op(tg.ExpOp, self.op(tg.NegOp, self.op(tg.AbsOp, x))))
        return self.add(self.positive(x), tail)


def _float_attr(ctx: NodeContext, name: str, default: float) -> float:
    return float(ctx.attr(name, default))


@converter("LeakyRelu")
def convert_leaky_relu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.add(b.positive(x), b.scale(_float_attr(ctx, "alpha", 0.01), b.negative(x)))]


@converter("PRelu")
def convert_prelu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.add(b.positive(x), b.mul(b.negative(x), ctx.input(1)))]


@converter("Elu")
def convert_elu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    tail = b.op(tg.Expm1Op, b.negative(x))
    return [b.add(b.positive(x), b.scale(_float_attr(ctx, "alpha", 1.0), tail))]


@converter("Selu")
def convert_selu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    alpha = _float_attr(ctx, "alpha", 1.67326319217681884765625)
    gamma = _float_attr(ctx, "gamma", 1.05070102214813232421875)
    tail = b.scale(alpha, b.op(tg.Expm1Op, b.negative(x)))
    return [b.scale(gamma, b.add(b.positive(x), tail))]


@converter("Celu")
def convert_celu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    alpha = _float_attr(ctx, "alpha", 1.0)
    inner = x if alpha == 1.0 else b.op(tg.DivOp, x, b.const(alpha))
    return [b.add(b.positive(x), b.negative(b.scale(alpha, b.op(tg.Expm1Op, inner))))]


@converter("HardSigmoid")
def convert_hard_sigmoid(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    alpha, beta = _float_attr(ctx, "alpha", 0.2), _float_attr(ctx, "beta", 0.5)
    return [b.clip01(b.add(b.mul(x, b.const(alpha)), b.const(beta)))]


@converter("HardSwish")
def convert_hard_swish(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.mul(x, b.clip01(b.add(b.mul(x, b.const(1.0 / 6.0)), b.const(0.5))))]


@converter("Softplus")
def convert_softplus(ctx: NodeContext) -> list[SSAValue]:
    return [Builder(ctx).softplus(ctx.input(0))]


@converter("Softsign")
def convert_softsign(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.op(tg.DivOp, x, b.add(b.const(1), b.op(tg.AbsOp, x)))]


@converter("Mish")
def convert_mish(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.mul(x, b.op(tg.TanhOp, b.softplus(x)))]


@converter("Swish")
def convert_swish(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    return [b.mul(x, b.op(tg.SigmoidOp, b.scale(_float_attr(ctx, "alpha", 1.0), x)))]


@converter("ThresholdedRelu")
def convert_thresholded_relu(ctx: NodeContext) -> list[SSAValue]:
    b, x = Builder(ctx), ctx.input(0)
    above = b.op(tg.GreaterOp, x, b.const(_float_attr(ctx, "alpha", 1.0)))
    return [b.op(tg.WhereOp, above, x, b.const(0))]


@converter("Shrink")
def convert_shrink(ctx: NodeContext) -> list[SSAValue]:
    """x + bias below -lambd, x - bias above lambd, 0 between. On integers the attributes
    must be whole numbers (ONNX's reference would compute in floats and truncate)."""
    b, x = Builder(ctx), ctx.input(0)
    bias, lambd = _float_attr(ctx, "bias", 0.0), _float_attr(ctx, "lambd", 0.5)
    if not dtypes.is_float(b.type.element_type) and not (float(bias).is_integer() and float(lambd).is_integer()):
        ctx.fail(f"bias={bias} and lambd={lambd} must be whole numbers on {b.type.element_type}")
    unsigned = dtypes.to_numpy(b.type.element_type).kind == "u"
    if dtypes.is_integer(b.type.element_type):
        info = np.iinfo(dtypes.to_numpy(b.type.element_type))
        if not (info.min <= bias <= info.max and 0 <= lambd <= info.max and (unsigned or -lambd >= info.min)):
            ctx.fail(f"bias={bias} and lambd={lambd} do not fit {b.type.element_type}")
    high = b.op(tg.GreaterOp, x, b.const(lambd))
    inner = b.op(tg.WhereOp, high, b.sub(x, b.const(bias)), b.const(0))
    if unsigned and lambd > 0:
        return [inner]  # nothing is below -lambd
    low = b.op(tg.LessOp, x, b.const(-lambd))
    return [b.op(tg.WhereOp, low, b.add(x, b.const(bias)), inner)]
