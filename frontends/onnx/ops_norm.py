"""Converters for normalizations and the softmax family: BatchNormalization,
LayerNormalization, RMSNormalization, GroupNormalization, InstanceNormalization,
LpNormalization, LRN, MeanVarianceNormalization, Softmax and LogSoftmax.

batch_norm, layer_norm and the softmaxes are tg ops; the others are compositions of
reductions and element-wise ops that tg-fuse turns back into few kernels (the statistics
as reductions with their element-wise prologue, the normalization as their epilogue):

    RMSNormalization(x)  = x / sqrt(mean(x * x) + eps) * scale
    InstanceNorm(x)      = (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale[c] + bias[c]
    GroupNorm(x)         = the same over (N, G, C/G * spatial), then per-channel scale/bias
    LpNormalization(x)   = x / sum(|x|) or x / sqrt(sum(x * x)), 0 where the norm is 0
    LRN(x)               = x / (bias + alpha * avg_pool(x * x over channels))^beta
    MVN(x)               = (x - mean) / (sqrt(mean(x * x) - mean^2) + 1e-9)

With `stash_type` (float32 by default) f16 and bf16 inputs compute their statistics in
float32, as ONNX's function bodies and onnxruntime do; wider inputs keep their type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, float_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast, onnx_element_type
from tessel.ir import dtypes


def _mean(ctx: NodeContext, x: SSAValue, axes: Sequence[int], keepdims: bool) -> SSAValue:
    return ctx.value(tg.ReduceMeanOp, [x], {"axes": ints_attr(axes), "keepdims": bool_attr(keepdims)})


@converter("BatchNormalization")
def convert_batch_norm(ctx: NodeContext) -> list[SSAValue]:
    epsilon = float_attr(ctx.attr("epsilon", 1e-5))
    x, scale, bias, mean, var = (ctx.input(i) for i in range(5))
    if not ctx.attr("training_mode", 0):
        return [ctx.value(tg.BatchNormOp, [x, scale, bias, mean, var], {"epsilon": epsilon})]
    # Training mode: normalize with the batch statistics and return the updated running ones.
    t = ctx.type(0)
    axes = [d for d in range(len(t.get_shape())) if d != 1]
    batch_mean = _mean(ctx, x, axes, keepdims=False)
    shape = [1 if d != 1 else n for d, n in enumerate(t.get_shape())]
    centered = ctx.value(tg.SubOp, [x, ctx.reshape(batch_mean, shape)])
    batch_var = _mean(ctx, ctx.value(tg.MulOp, [centered, centered]), axes, keepdims=False)
    y = ctx.value(tg.BatchNormOp, [x, scale, bias, batch_mean, batch_var], {"epsilon": epsilon})
    momentum = ctx.attr("momentum", 0.9)

    def running(old: SSAValue, new: SSAValue) -> SSAValue:
        kept = ctx.value(tg.MulOp, [old, ctx.scalar(momentum, t)])
        return ctx.value(tg.AddOp, [kept, ctx.value(tg.MulOp, [new, ctx.scalar(1.0 - momentum, t)])])

    return [y, running(mean, batch_mean), running(var, batch_var)]


@converter("LayerNormalization")
def convert_layer_norm(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    axis = ctx.attr("axis", -1)
    if not -rank <= axis < rank:
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    axis %= rank
    epsilon = ctx.attr("epsilon", 1e-5)
    operands = [ctx.input(0), ctx.input(1)] + ([b] if (b := ctx.optional_input(2)) is not None else [])
    y = ctx.value(tg.LayerNormOp, operands, {"axis": int_attr(axis), "epsilon": float_attr(epsilon)})
    if not (ctx.wants_output(1) or ctx.wants_output(2)):
        return [y]
    # Mean and InvStdDev, computed in the stash type (float32 unless stash_type says otherwise)
    x = ctx.input(0)
    if ctx.attr("stash_type", 1) == 1 and ctx.type(0).element_type != f32:
        x = cast(ctx, x, f32)
    axes = list(range(axis, rank))
    mean = _mean(ctx, x, axes, keepdims=True)
    centered = ctx.value(tg.SubOp, [x, mean])
    var = _mean(ctx, ctx.value(tg.MulOp, [centered, centered]), axes, keepdims=True)
    std = ctx.value(tg.SqrtOp, [_add_scalar(ctx, var, epsilon)])
    inv_std = ctx.value(tg.DivOp, [ctx.scalar(1.0, _tensor(std)), std])
    return [y, mean, inv_std]


@converter("Softmax", "LogSoftmax")
def convert_softmax(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    axis = ctx.attr("axis", -1)
    if not -rank <= axis < max(rank, 1):
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    op_type = tg.SoftmaxOp if ctx.node.op_type == "Softmax" else tg.LogSoftmaxOp
    return [ctx.value(op_type, [ctx.input(0)], {"axis": int_attr(axis % max(rank, 1))})]


# --------------------------------------------------------------------------- compositions


def _axis(ctx: NodeContext, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _require_float(ctx: NodeContext) -> None:
    et = ctx.type(0).element_type
    if not dtypes.is_float(et):
        ctx.fail(f"input of element type {et} is not supported (a float type is)")


def _stash(ctx: NodeContext, x: SSAValue) -> SSAValue:
    """x in the stash type where that is wider than its own (f16/bf16 -> f32)."""
    et = _tensor(x).element_type
    stash = onnx_element_type(ctx, ctx.attr("stash_type", 1), "stash_type")
    if not dtypes.is_float(stash):
        ctx.fail(f"stash_type {stash} is not supported (a float type is)")
    narrow = dtypes.to_numpy(et).itemsize < dtypes.to_numpy(stash).itemsize
    return cast(ctx, x, stash) if narrow else x


def _restore(ctx: NodeContext, y: SSAValue, et: Attribute) -> SSAValue:
    return y if _tensor(y).element_type == et else cast(ctx, y, et)


def _binary(ctx: NodeContext, op_type: type[tg.TgOp], a: SSAValue, b: SSAValue) -> SSAValue:
    return ctx.value(op_type, [a, b])


def _tensor(x: SSAValue) -> TensorType:
    assert isinstance(x.type, TensorType)
    return x.type


def _add_scalar(ctx: NodeContext, x: SSAValue, value: float) -> SSAValue:
    return _binary(ctx, tg.AddOp, x, ctx.scalar(value, _tensor(x)))


def _standardize(ctx: NodeContext, x: SSAValue, axes: Sequence[int], epsilon: float) -> SSAValue:
    """(x - mean) / sqrt(var + epsilon) over `axes` (the population variance)."""
    centered = _binary(ctx, tg.SubOp, x, _mean(ctx, x, axes, keepdims=True))
    var = _mean(ctx, _binary(ctx, tg.MulOp, centered, centered), axes, keepdims=True)
    return _binary(ctx, tg.DivOp, centered, ctx.value(tg.SqrtOp, [_add_scalar(ctx, var, epsilon)]))


def _per_channel(ctx: NodeContext, v: SSAValue, rank: int) -> SSAValue:
    """A (C,) parameter shaped (C, 1, ..., 1) to broadcast over (N, C, spatial...)."""
    (c,) = _tensor(v).get_shape()
    return ctx.reshape(v, [c] + [1] * (rank - 2))


@converter("RMSNormalization")
def convert_rms_norm(ctx: NodeContext) -> list[SSAValue]:
    _require_float(ctx)
    t = ctx.type(0)
    rank = len(t.get_shape())
    axis = _axis(ctx, ctx.attr("axis", -1), rank)
    x = _stash(ctx, ctx.input(0))
    square_mean = _mean(ctx, _binary(ctx, tg.MulOp, x, x), range(axis, rank), keepdims=True)
    rms = ctx.value(tg.SqrtOp, [_add_scalar(ctx, square_mean, ctx.attr("epsilon", 1e-5))])
    normalized = _restore(ctx, _binary(ctx, tg.DivOp, x, rms), t.element_type)
    return [_binary(ctx, tg.MulOp, normalized, ctx.input(1))]


@converter("InstanceNormalization")
def convert_instance_norm(ctx: NodeContext) -> list[SSAValue]:
    _require_float(ctx)
    rank = len(ctx.shape(0))
    if rank < 3:
        ctx.fail(f"input must be (N, C, D1, ...), got rank {rank}")
    y = _standardize(ctx, ctx.input(0), range(2, rank), ctx.attr("epsilon", 1e-5))
    y = _binary(ctx, tg.MulOp, y, _per_channel(ctx, ctx.input(1), rank))
    return [_binary(ctx, tg.AddOp, y, _per_channel(ctx, ctx.input(2), rank))]


@converter("GroupNormalization")
def convert_group_norm(ctx: NodeContext) -> list[SSAValue]:
    """Statistics per (sample, group of C/G channels). Since opset 21 scale and bias are per
    channel; opset 18 had them per group."""
    _require_float(ctx)
    t = ctx.type(0)
    shape = t.get_shape()
    if len(shape) < 3:
        ctx.fail(f"input must be (N, C, D1, ...), got rank {len(shape)}")
    n, c = shape[:2]
    groups = ctx.attr("num_groups")
    if groups is None or groups < 1 or c % groups:
        ctx.fail(f"num_groups = {groups} must divide the {c} channels")
    per_group = ctx.shape(1) == (groups,) and ctx.opset < 21
    if not per_group and (ctx.shape(1) != (c,) or ctx.shape(2) != (c,)):
        ctx.fail(f"scale {list(ctx.shape(1))} and bias {list(ctx.shape(2))} must have shape [{c}]")
    x = _stash(ctx, ctx.input(0))
    grouped = ctx.reshape(x, [n, groups, math.prod(shape) // (n * groups) if n * groups else 0])
    y = _standardize(ctx, grouped, [2], ctx.attr("epsilon", 1e-5))
    if per_group:
        scale, bias = (ctx.reshape(_stash(ctx, ctx.input(i)), [groups, 1]) for i in (1, 2))
        y = _binary(ctx, tg.AddOp, _binary(ctx, tg.MulOp, y, scale), bias)
        return [_restore(ctx, ctx.reshape(y, shape), t.element_type)]
    y = _restore(ctx, ctx.reshape(y, shape), t.element_type)
    y = _binary(ctx, tg.MulOp, y, _per_channel(ctx, ctx.input(1), len(shape)))
    return [_binary(ctx, tg.AddOp, y, _per_channel(ctx, ctx.input(2), len(shape)))]


@converter("LpNormalization")
def convert_lp_norm(ctx: NodeContext) -> list[SSAValue]:
    _require_float(ctx)
    rank = len(ctx.shape(0))
    axis = _axis(ctx, ctx.attr("axis", -1), rank)
    p = ctx.attr("p", 2)
    x = ctx.input(0)
    props: dict[str, Attribute] = {"axes": ints_attr([axis]), "keepdims": bool_attr(True)}
    if p == 1:
        norm = ctx.value(tg.ReduceSumOp, [ctx.value(tg.AbsOp, [x])], props)
    elif p == 2:
        norm = ctx.value(tg.SqrtOp, [ctx.value(tg.ReduceSumOp, [_binary(ctx, tg.MulOp, x, x)], props)])
    else:
        ctx.fail(f"p = {p} is not supported (ONNX defines 1 and 2)")
    # a zero norm gives zeros, not 0 / 0 (ONNX's reference and tests)
    zero = ctx.scalar(0, ctx.type(0))
    return [ctx.value(tg.WhereOp, [_binary(ctx, tg.EqualOp, norm, zero), zero, _binary(ctx, tg.DivOp, x, norm)])]


@converter("LRN")
def convert_lrn(ctx: NodeContext) -> list[SSAValue]:
    """The sum of squares over the `size` channels around each one is an average pool
    (kernel size x 1 over (N, 1, C, spatial), padding counted) times size."""
    _require_float(ctx)
    t = ctx.type(0)
    shape = t.get_shape()
    if len(shape) < 2:
        ctx.fail(f"input must be (N, C, ...), got rank {len(shape)}")
    size = ctx.attr("size")
    if size is None or size < 1:
        ctx.fail(f"size = {size} must be a positive integer")
    x = ctx.input(0)
    n, c = shape[:2]
    planes = ctx.reshape(_binary(ctx, tg.MulOp, x, x), [n, 1, c, math.prod(shape[2:])])
    before = (size - 1) // 2
    props: dict[str, Attribute] = {
        "kernel": ints_attr([size, 1]),
        "strides": ints_attr([1, 1]),
        "pads": ints_attr([before, 0, size - 1 - before, 0]),
        "dilations": ints_attr([1, 1]),
        "ceil_mode": bool_attr(False),
        "count_include_pad": bool_attr(True),
    }
    average = ctx.reshape(ctx.value(tg.AvgPool2dOp, [planes], props), shape)
    scaled = _binary(ctx, tg.MulOp, average, ctx.scalar(ctx.attr("alpha", 1e-4), t))
    base = _add_scalar(ctx, scaled, ctx.attr("bias", 1.0))
    return [_binary(ctx, tg.DivOp, x, _binary(ctx, tg.PowOp, base, ctx.scalar(ctx.attr("beta", 0.75), t)))]


@converter("MeanVarianceNormalization")
def convert_mvn(ctx: NodeContext) -> list[SSAValue]:
    """ONNX's definition: the standard deviation from E[x^2] - E[x]^2, plus 1e-9."""
    _require_float(ctx)
    rank = len(ctx.shape(0))
    axes = sorted({_axis(ctx, a, rank) for a in ctx.attr("axes", [0, 2, 3])})
    x = ctx.input(0)
    mean = _mean(ctx, x, axes, keepdims=True)
    square_mean = _mean(ctx, _binary(ctx, tg.MulOp, x, x), axes, keepdims=True)
    variance = _binary(ctx, tg.SubOp, square_mean, _binary(ctx, tg.MulOp, mean, mean))
    std = _add_scalar(ctx, ctx.value(tg.SqrtOp, [variance]), 1e-9)
    return [_binary(ctx, tg.DivOp, _binary(ctx, tg.SubOp, x, mean), std)]
