"""Converters for convolutions, and the window helpers pooling shares (ops_pool.py).

ONNX's auto_pad is resolved here into explicit pads; 1-D convolutions and pools are
lifted to 2-D with a unit height (reshape in, reshape out), which computes the same
values and indices; 3-D convolutions are tg.conv3d and tg.conv_transpose3d.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter


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
    n, c, length = tg.tensor_of(x).get_shape()
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
    rank = _spatial_rank(ctx, (1, 2, 3))
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
    y = ctx.value(tg.Conv3dOp if rank == 3 else tg.Conv2dOp, operands, props)
    if lifted:
        n, m, _, length = tg.tensor_of(y).get_shape()
        y = ctx.reshape(y, (n, m, length))
    return [y]


@converter("ConvTranspose")
def convert_conv_transpose(ctx: NodeContext) -> list[SSAValue]:
    rank = _spatial_rank(ctx, (1, 2, 3))
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
    y = ctx.value(tg.ConvTranspose3dOp if rank == 3 else tg.ConvTranspose2dOp, operands, props)
    if lifted:
        n, m, _, length = tg.tensor_of(y).get_shape()
        y = ctx.reshape(y, (n, m, length))
    return [y]
