"""Converters for convolutions, pooling, normalizations and softmax.

ONNX's auto_pad is resolved here into explicit pads; 1-D convolutions and pools are
lifted to 2-D with a unit height (reshape in, reshape out), which computes the same
values and indices. Multi-output training forms (BatchNormalization running statistics,
LayerNormalization's Mean and InvStdDev) are decomposed into tg reductions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, float_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.ir import dtypes


def _spatial_rank(ctx: NodeContext, supported: Sequence[int]) -> int:
    rank = len(ctx.shape(0)) - 2
    if rank not in supported:
        ctx.fail(f"{rank}-D {ctx.node.op_type} is not supported (supported: {', '.join(f'{r}-D' for r in supported)})")
    return rank


def _auto_pads(
    ctx: NodeContext, sizes: Sequence[int], kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int]
) -> list[int]:
    """Explicit [begin..., end...] pads from auto_pad (or the pads attribute when NOTSET)."""
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    rank = len(sizes)
    if auto_pad == "NOTSET":
        pads = ctx.attr("pads", [0] * 2 * rank)
        if len(pads) != 2 * rank:
            ctx.fail(f"pads has {len(pads)} entries, expected {2 * rank}")
        return list(pads)
    if auto_pad == "VALID":
        return [0] * 2 * rank
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        ctx.fail(f"auto_pad={auto_pad!r} is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID")
    begin, end = [], []
    for n, k, s, d in zip(sizes, kernel, strides, dilations):
        total = max(0, (math.ceil(n / s) - 1) * s + (k - 1) * d + 1 - n)
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin + end


def _lift_1d(ctx: NodeContext, x: SSAValue) -> SSAValue:
    n, c, length = x.type.get_shape()  # type: ignore[attr-defined]
    return ctx.reshape(x, (n, c, 1, length))


def _window(ctx: NodeContext, kernel: Sequence[int], lifted: bool) -> dict[str, list[int]]:
    """strides, dilations and pads of a conv or pool node (2-D form when lifted from 1-D)."""
    rank = len(kernel)
    strides = list(ctx.attr("strides", [1] * rank))
    dilations = list(ctx.attr("dilations", [1] * rank))
    if len(strides) != rank or len(dilations) != rank:
        ctx.fail(f"strides and dilations need {rank} entries, got {strides} and {dilations}")
    pads = _auto_pads(ctx, ctx.shape(0)[2:], kernel, strides, dilations)
    if lifted:
        return {"strides": [1, *strides], "pads": [0, pads[0], 0, pads[1]], "dilations": [1, *dilations]}
    return {"strides": strides, "pads": pads, "dilations": dilations}


def _ints_props(window: dict[str, list[int]]) -> dict:
    return {k: ints_attr(v) for k, v in window.items()}


# --------------------------------------------------------------------------- convolution


@converter("Conv")
def convert_conv(ctx: NodeContext) -> list[SSAValue]:
    rank = _spatial_rank(ctx, (1, 2))
    kernel = list(ctx.shape(1)[2:])
    if (declared := ctx.attr("kernel_shape")) is not None and list(declared) != kernel:
        ctx.fail(f"kernel_shape {declared} differs from the weight's spatial shape {kernel}")
    lifted = rank == 1
    x, w = ctx.input(0), ctx.input(1)
    if lifted:
        x = _lift_1d(ctx, x)
        w = ctx.reshape(w, (*ctx.shape(1)[:2], 1, kernel[0]))
    props = _ints_props(_window(ctx, kernel, lifted))
    props["groups"] = int_attr(ctx.attr("group", 1))
    operands = [x, w] + ([b] if (b := ctx.optional_input(2)) is not None else [])
    y = ctx.value(tg.Conv2dOp, operands, props)
    if lifted:
        n, m, _, length = y.type.get_shape()  # type: ignore[attr-defined]
        y = ctx.reshape(y, (n, m, length))
    return [y]


@converter("ConvTranspose")
def convert_conv_transpose(ctx: NodeContext) -> list[SSAValue]:
    rank = _spatial_rank(ctx, (1, 2))
    sizes = list(ctx.shape(0)[2:])
    kernel = list(ctx.shape(1)[2:])
    strides = list(ctx.attr("strides", [1] * rank))
    dilations = list(ctx.attr("dilations", [1] * rank))
    output_padding = list(ctx.attr("output_padding", [0] * rank))
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    output_shape = ctx.attr("output_shape")
    natural = [
        s * (n - 1) + op + d * (k - 1) + 1 for n, k, s, d, op in zip(sizes, kernel, strides, dilations, output_padding)
    ]
    if output_shape is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        output_shape = [n * s for n, s in zip(sizes, strides)]
    if output_shape is not None:
        # ONNX: total padding = natural size - requested size, split by auto_pad; a negative
        # total (a larger output) grows the end, which is what output_padding does.
        if len(output_shape) != rank:
            ctx.fail(f"output_shape {output_shape} needs {rank} entries")
        begin, end = [], []
        for i, (nat, want) in enumerate(zip(natural, output_shape)):
            total = nat - want
            small, large = total // 2, total - total // 2
            b, e = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
            if e < 0:
                output_padding[i] -= e
                e = 0
            if b < 0:
                ctx.fail(f"output_shape {output_shape} needs negative leading padding")
            begin.append(b)
            end.append(e)
        pads = begin + end
    else:
        pads = list(ctx.attr("pads", [0] * 2 * rank))
    lifted = rank == 1
    x, w = ctx.input(0), ctx.input(1)
    if lifted:
        x = _lift_1d(ctx, x)
        w = ctx.reshape(w, (*ctx.shape(1)[:2], 1, kernel[0]))
        strides, dilations, output_padding = [1, *strides], [1, *dilations], [0, *output_padding]
        pads = [0, pads[0], 0, pads[1]]
    props = _ints_props({"strides": strides, "pads": pads, "dilations": dilations, "output_padding": output_padding})
    props["groups"] = int_attr(ctx.attr("group", 1))
    operands = [x, w] + ([b] if (b := ctx.optional_input(2)) is not None else [])
    y = ctx.value(tg.ConvTranspose2dOp, operands, props)
    if lifted:
        n, m, _, length = y.type.get_shape()  # type: ignore[attr-defined]
        y = ctx.reshape(y, (n, m, length))
    return [y]


# --------------------------------------------------------------------------- pooling


def _pool(ctx: NodeContext, ops: dict[int, type[tg.TgOp]], extra: dict) -> tuple[type[tg.TgOp], SSAValue, dict]:
    """The tg pool op for this node's rank, its (possibly lifted) input and properties."""
    rank = _spatial_rank(ctx, (1, 2, 3))
    kernel = list(ctx.attr("kernel_shape") or [])
    if len(kernel) != rank:
        ctx.fail(f"kernel_shape {kernel} needs {rank} entries")
    lifted = rank == 1
    x = _lift_1d(ctx, ctx.input(0)) if lifted else ctx.input(0)
    props = {"kernel": ints_attr([1, *kernel] if lifted else kernel), **_ints_props(_window(ctx, kernel, lifted))}
    props["ceil_mode"] = bool_attr(ctx.attr("ceil_mode", 0))
    props.update(extra)
    op_type = ops[2 if lifted else rank]
    return op_type, x, props


def _unlift(ctx: NodeContext, value: SSAValue, lifted: bool) -> SSAValue:
    if not lifted:
        return value
    n, c, _, length = value.type.get_shape()  # type: ignore[attr-defined]
    return ctx.reshape(value, (n, c, length))


@converter("MaxPool")
def convert_max_pool(ctx: NodeContext) -> list[SSAValue]:
    order = ctx.attr("storage_order", 0)
    extra = {"storage_order": int_attr(order)} if order else {}
    op_type, x, props = _pool(ctx, {2: tg.MaxPool2dOp, 3: tg.MaxPool3dOp}, extra)
    lifted = len(ctx.shape(0)) == 3
    values_type = op_type.infer_result_types([x.type], props)[0]
    result_types = [values_type]
    if ctx.wants_output(1):
        result_types.append(TensorType(dtypes.from_numpy("int64"), values_type.get_shape()))
    op = ctx.emit(op_type, [x], props, result_types)
    return [_unlift(ctx, r, lifted) for r in op.results]


@converter("AveragePool")
def convert_avg_pool(ctx: NodeContext) -> list[SSAValue]:
    extra = {"count_include_pad": bool_attr(ctx.attr("count_include_pad", 0))}
    op_type, x, props = _pool(ctx, {2: tg.AvgPool2dOp, 3: tg.AvgPool3dOp}, extra)
    return [_unlift(ctx, ctx.value(op_type, [x], props), len(ctx.shape(0)) == 3)]


@converter("GlobalAveragePool")
def convert_global_avg_pool(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    if rank == 4:
        return [ctx.value(tg.GlobalAvgPool2dOp, [ctx.input(0)])]
    if rank < 3:
        ctx.fail(f"input must be (N, C, D1, ...), got rank {rank}")
    props = {"axes": ints_attr(range(2, rank)), "keepdims": bool_attr(True)}
    return [ctx.value(tg.ReduceMeanOp, [ctx.input(0)], props)]


# --------------------------------------------------------------------------- normalization


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
    std = ctx.value(tg.SqrtOp, [ctx.value(tg.AddOp, [var, ctx.scalar(epsilon, var.type)])])
    inv_std = ctx.value(tg.DivOp, [ctx.scalar(1.0, std.type), std])
    return [y, mean, inv_std]


@converter("Softmax", "LogSoftmax")
def convert_softmax(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    axis = ctx.attr("axis", -1)
    if not -rank <= axis < max(rank, 1):
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    op_type = tg.SoftmaxOp if ctx.node.op_type == "Softmax" else tg.LogSoftmaxOp
    return [ctx.value(op_type, [ctx.input(0)], {"axis": int_attr(axis % max(rank, 1))})]
