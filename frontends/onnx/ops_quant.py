"""Converters for ONNX quantization: QuantizeLinear, DequantizeLinear (per tensor, per axis,
blocked), DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.

Scales and zero points are shaped here to broadcast against the data (a per-axis vector
onto its axis, a blocked scale repeated over its block by reshape and expand, which fuse
into the consumer), so the tg ops see one broadcasting rule. An absent zero point is a
zero of the quantized type. The QLinear operators are the integer contraction followed by
`tg.requantize` at ONNX's reference precision (the int32 accumulator times the float
multiplier in float64); DynamicQuantizeLinear is its ONNX function body, with the
degenerate range (all zeros) handled as the operator's reference does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, TensorType, f32, f64, i1
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, float_attr, int_attr, ints_attr
from tessel.dialects.tg.quant import QUANTIZED, int_kind
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast, onnx_element_type
from tessel.ir import dtypes

# --------------------------------------------------------------------------- helpers


def zero_of(ctx: NodeContext, element: Attribute) -> SSAValue:
    """A rank-0 zero of `element` (an absent zero point)."""
    return ctx.constant(np.zeros((), dtypes.to_numpy(element)))


def _axis(ctx: NodeContext, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def broadcast_param(
    ctx: NodeContext, value: SSAValue, shape: Sequence[int], axis: int, block_size: int, what: str
) -> SSAValue:
    """A scale or zero point shaped to broadcast against data of `shape`: one value becomes
    rank 0, a vector lies on `axis`, a blocked one is repeated `block_size` times along it
    (the last block may be partial)."""
    t = value.type
    assert isinstance(t, TensorType)
    given = t.get_shape()
    rank = len(shape)
    if math.prod(given) == 1 and not block_size:
        return ctx.reshape(value, ())
    axis = _axis(ctx, axis, rank)
    if not block_size:
        if len(given) != 1 or given[0] != shape[axis]:
            ctx.fail(
                f"{what} of shape {list(given)} must be one value or one per element of axis {axis} ({shape[axis]})"
            )
        return ctx.reshape(value, [shape[axis] if d == axis else 1 for d in range(rank)])
    if block_size < 0:
        ctx.fail(f"block_size must be positive, got {block_size}")
    blocks = -(-shape[axis] // block_size)
    expected = [blocks if d == axis else n for d, n in enumerate(shape)]
    if list(given) != expected:
        ctx.fail(f"{what} of shape {list(given)} must be {expected} for blocks of {block_size} along axis {axis}")
    split = [*shape[:axis], blocks, 1, *shape[axis + 1 :]]
    grown = [*shape[:axis], blocks, block_size, *shape[axis + 1 :]]
    repeated = ctx.value(tg.ExpandOp, [ctx.reshape(value, split)], result_types=[TensorType(t.element_type, grown)])
    full = ctx.reshape(repeated, [*shape[:axis], blocks * block_size, *shape[axis + 1 :]])
    if blocks * block_size == shape[axis]:
        return full
    props: dict[str, Attribute] = {"starts": ints_attr([0] * rank), "steps": ints_attr([1] * rank)}
    return ctx.value(tg.SliceOp, [full], props, result_types=[TensorType(t.element_type, list(shape))])


def per_tensor(ctx: NodeContext, value: SSAValue, what: str) -> SSAValue:
    """One value as a rank-0 tensor."""
    t = value.type
    assert isinstance(t, TensorType)
    if math.prod(t.get_shape()) != 1:
        ctx.fail(f"{what} must be one value (per tensor), got shape {list(t.get_shape())}")
    return ctx.reshape(value, ())


_FLOAT_RANK: dict[type, int] = {Float16Type: 1, BFloat16Type: 1, Float32Type: 2, Float64Type: 3}


def division_type(x: Attribute, scale: Attribute) -> Attribute:
    """The type numpy divides x by scale in (ONNX's reference): the wider float; float64
    when an int32 takes part; float32 for float16 with bfloat16."""
    if not dtypes.is_float(x) or not dtypes.is_float(scale):
        return f64
    if x == scale:
        return x
    rx, rs = _FLOAT_RANK[type(x)], _FLOAT_RANK[type(scale)]
    if rx == rs:  # float16 and bfloat16
        return f32
    return x if rx > rs else scale


def _check_quantized(ctx: NodeContext, element: Attribute, what: str) -> None:
    if int_kind(element) not in QUANTIZED:
        ctx.fail(f"{what} {element} is not supported (int8, uint8, int16 and uint16 are)")


# --------------------------------------------------------------------------- (de)quantize


@converter("QuantizeLinear")
def convert_quantize_linear(ctx: NodeContext) -> list[SSAValue]:
    x, scale = ctx.input(0), ctx.input(1)
    shape = ctx.shape(0)
    axis, block_size = ctx.attr("axis", 1), ctx.attr("block_size", 0)
    zp = ctx.optional_input(2)
    if zp is not None:
        out = ctx.type(2).element_type
        requested = ctx.attr("output_dtype", 0)
        if requested and onnx_element_type(ctx, requested, "output_dtype") != out:
            ctx.fail(f"output_dtype differs from the zero point's type {out}")
    else:
        out = onnx_element_type(ctx, ctx.attr("output_dtype", 0) or onnx.TensorProto.UINT8, "output_dtype")
    _check_quantized(ctx, out, "quantizing to")
    for i, what in ((0, "input"), (1, "scale")):
        et = ctx.type(i).element_type
        if not (dtypes.is_float(et) or int_kind(et) == (32, True)):
            ctx.fail(f"the {what} must be float or int32, got {et}")
    precision = ctx.attr("precision", 0)
    compute = (
        onnx_element_type(ctx, precision, "precision")
        if precision
        else division_type(ctx.type(0).element_type, ctx.type(1).element_type)
    )
    if not dtypes.is_float(compute):
        ctx.fail(f"precision {compute} is not a float type")
    if ctx.type(0).element_type != compute:
        x = cast(ctx, x, compute)
    if ctx.type(1).element_type != compute:
        scale = cast(ctx, scale, compute)
    scale = broadcast_param(ctx, scale, shape, axis, block_size, "the scale")
    zp = zero_of(ctx, out) if zp is None else broadcast_param(ctx, zp, shape, axis, block_size, "the zero point")
    return [ctx.value(tg.QuantizeOp, [x, scale, zp])]


@converter("DequantizeLinear")
def convert_dequantize_linear(ctx: NodeContext) -> list[SSAValue]:
    x, scale = ctx.input(0), ctx.input(1)
    shape = ctx.shape(0)
    et = ctx.type(0).element_type
    if int_kind(et) not in (*QUANTIZED, (32, True)):
        ctx.fail(f"dequantizing {et} is not supported (int8, uint8, int16, uint16 and int32 are)")
    axis, block_size = ctx.attr("axis", 1), ctx.attr("block_size", 0)
    zp = ctx.optional_input(2)
    zp = zero_of(ctx, et) if zp is None else broadcast_param(ctx, zp, shape, axis, block_size, "the zero point")
    scale = broadcast_param(ctx, scale, shape, axis, block_size, "the scale")
    y = ctx.value(tg.DequantizeOp, [x, scale, zp])
    requested = ctx.attr("output_dtype", 0)
    if requested and (out := onnx_element_type(ctx, requested, "output_dtype")) != ctx.type(1).element_type:
        y = cast(ctx, y, out)
    return [y]


@converter("DynamicQuantizeLinear")
def convert_dynamic_quantize_linear(ctx: NodeContext) -> list[SSAValue]:
    """uint8 with the range [min(x, 0), max(x, 0)] mapped onto [0, 255]: ONNX's function
    body (ReduceMax/ReduceMin, Div, Round, Clip...), except that an all-zero range gives
    the scale 1/255 as the operator's reference says (the body would divide by zero)."""
    x = ctx.input(0)
    t = ctx.type(0)
    if t.element_type != f32:
        ctx.fail(f"the input must be float32, got {t.element_type}")
    everything: dict[str, Attribute] = {"axes": ints_attr(range(len(t.get_shape()))), "keepdims": bool_attr(False)}
    high = ctx.value(tg.ReduceMaxOp, [x], everything)
    low = ctx.value(tg.NegOp, [ctx.value(tg.ReduceMaxOp, [ctx.value(tg.NegOp, [x])], everything)])
    high = ctx.value(tg.ClipOp, [high], {"min": float_attr(0.0)})
    low = ctx.value(tg.ClipOp, [low], {"max": float_attr(0.0)})
    span = ctx.value(tg.SubOp, [high, low])
    scalar = TensorType(f32, [])
    # 1.0 where the span is zero, else 0.0: the cast to bool is (span != 0)
    nonzero = cast(ctx, cast(ctx, span, i1), f32)
    span = ctx.value(tg.AddOp, [span, ctx.value(tg.SubOp, [ctx.scalar(1.0, scalar), nonzero])])
    scale = ctx.value(tg.DivOp, [span, ctx.scalar(255.0, scalar)])
    u8 = dtypes.from_numpy(np.uint8)
    zp = ctx.value(tg.QuantizeOp, [ctx.value(tg.NegOp, [low]), scale, zero_of(ctx, u8)])
    y = ctx.value(tg.QuantizeOp, [x, scale, zp])
    return [y, scale, zp]


# --------------------------------------------------------------------------- integer contractions


def _optional_zero_point(ctx: NodeContext, i: int, like: int) -> SSAValue:
    zp = ctx.optional_input(i)
    element = ctx.type(like).element_type
    if zp is None:
        return zero_of(ctx, element)
    if ctx.type(i).element_type != element:
        ctx.fail(f"input #{i} (zero point) must be {element} like input #{like}, got {ctx.type(i).element_type}")
    return zp


def _matmul_zero_points(ctx: NodeContext, az: SSAValue, bz: SSAValue, a: Sequence[int], b: Sequence[int]):
    """a's zero point per tensor or per row (M,) -> (M, 1); b's per tensor or per column."""

    def shaped(v: SSAValue, rows: bool, shape: Sequence[int]) -> SSAValue:
        given = tg.tensor_of(v).get_shape()
        if math.prod(given) == 1:
            return ctx.reshape(v, ())
        if len(given) == 1 and rows and len(shape) >= 2 and given[0] == shape[-2]:
            return ctx.reshape(v, (given[0], 1))
        return v  # the op checks that it broadcasts

    return shaped(az, True, a), shaped(bz, False, b)


@converter("MatMulInteger")
def convert_matmul_integer(ctx: NodeContext) -> list[SSAValue]:
    az, bz = _matmul_zero_points(
        ctx, _optional_zero_point(ctx, 2, 0), _optional_zero_point(ctx, 3, 1), ctx.shape(0), ctx.shape(1)
    )
    return [ctx.value(tg.MatmulIntegerOp, [ctx.input(0), ctx.input(1), az, bz])]


def _conv_window(ctx: NodeContext, sizes: Sequence[int], kernel: Sequence[int]) -> dict[str, list[int]]:
    """strides, pads ([begin..., end...], auto_pad resolved) and dilations of a conv node."""
    rank = len(sizes)
    strides = list(ctx.attr("strides", [1] * rank))
    dilations = list(ctx.attr("dilations", [1] * rank))
    if len(strides) != rank or len(dilations) != rank:
        ctx.fail(f"strides and dilations need {rank} entries, got {strides} and {dilations}")
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    if auto_pad == "NOTSET":
        pads = list(ctx.attr("pads", [0] * 2 * rank))
    elif auto_pad == "VALID":
        pads = [0] * 2 * rank
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for n, k, s, d in zip(sizes, kernel, strides, dilations):
            total = max(0, (math.ceil(n / s) - 1) * s + (k - 1) * d + 1 - n)
            small, large = total // 2, total - total // 2
            begin.append(small if auto_pad == "SAME_UPPER" else large)
            end.append(large if auto_pad == "SAME_UPPER" else small)
        pads = begin + end
    else:
        ctx.fail(f"auto_pad={auto_pad!r} is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID")
    if len(pads) != 2 * rank:
        ctx.fail(f"pads has {len(pads)} entries, expected {2 * rank}")
    return {"strides": strides, "pads": pads, "dilations": dilations}


def integer_conv(ctx: NodeContext, x: SSAValue, w: SSAValue, xz: SSAValue, wz: SSAValue) -> SSAValue:
    """tg.conv2d_integer for a 1-D or 2-D conv node (1-D lifted to a unit height)."""
    xs, ws = tg.tensor_of(x).get_shape(), tg.tensor_of(w).get_shape()
    rank = len(xs) - 2
    if rank not in (1, 2) or len(ws) != len(xs):
        ctx.fail(f"{rank}-D {ctx.node.op_type} is not supported (1-D and 2-D are)")
    kernel = list(ws[2:])
    if (declared := ctx.attr("kernel_shape")) is not None and list(declared) != kernel:
        ctx.fail(f"kernel_shape {declared} differs from the weight's spatial shape {kernel}")
    window = _conv_window(ctx, xs[2:], kernel)
    if rank == 1:
        x = ctx.reshape(x, (xs[0], xs[1], 1, xs[2]))
        w = ctx.reshape(w, (ws[0], ws[1], 1, ws[2]))
        window = {
            "strides": [1, *window["strides"]],
            "pads": [0, window["pads"][0], 0, window["pads"][1]],
            "dilations": [1, *window["dilations"]],
        }
    xz = per_tensor(ctx, xz, "the input zero point")
    wz_shape = tg.tensor_of(wz).get_shape()
    wz = ctx.reshape(wz, ()) if math.prod(wz_shape) == 1 else ctx.reshape(wz, (ws[0],))
    props: dict[str, Attribute] = {k: ints_attr(v) for k, v in window.items()}
    props["groups"] = int_attr(ctx.attr("group", 1))
    y = ctx.value(tg.Conv2dIntegerOp, [x, w, xz, wz], props)
    if rank == 1:
        n, m, _, length = tg.tensor_of(y).get_shape()
        y = ctx.reshape(y, (n, m, length))
    return y


@converter("ConvInteger")
def convert_conv_integer(ctx: NodeContext) -> list[SSAValue]:
    xz, wz = _optional_zero_point(ctx, 2, 0), _optional_zero_point(ctx, 3, 1)
    return [integer_conv(ctx, ctx.input(0), ctx.input(1), xz, wz)]


def requantize(
    ctx: NodeContext, acc: SSAValue, scales: Sequence[SSAValue], zp: SSAValue, precision: Attribute
) -> SSAValue:
    kinds = {tg.tensor_of(s).element_type for s in scales}
    if len(kinds) != 1:
        ctx.fail(f"the scales must share one float type, got {', '.join(sorted(map(str, kinds)))}")
    return ctx.value(tg.RequantizeOp, [acc, *scales, zp], {"precision": precision})


def _output_zero_point(ctx: NodeContext, i: int, like: int) -> SSAValue:
    """y's zero point; absent, a zero of the input's type (ONNX's reference)."""
    zp = ctx.optional_input(i)
    if zp is None:
        return zero_of(ctx, ctx.type(like).element_type)
    _check_quantized(ctx, ctx.type(i).element_type, "quantizing to")
    return per_tensor(ctx, zp, "the output zero point")


@converter("QLinearConv")
def convert_qlinear_conv(ctx: NodeContext) -> list[SSAValue]:
    x, w = ctx.input(0), ctx.input(3)
    xz, wz = _optional_zero_point(ctx, 2, 0), _optional_zero_point(ctx, 5, 3)
    acc = integer_conv(ctx, x, w, xz, wz)
    spatial = len(ctx.shape(0)) - 2
    m = ctx.shape(3)[0]
    if (bias := ctx.optional_input(8)) is not None:
        if ctx.shape(8) != (m,) or int_kind(ctx.type(8).element_type) != (32, True):
            ctx.fail(f"the bias must be int32 of shape ({m},), got {ctx.type(8)}")
        acc = ctx.value(tg.AddOp, [acc, ctx.reshape(bias, (m,) + (1,) * spatial)])
    w_scale = ctx.input(4)
    count = math.prod(ctx.shape(4))
    if count == 1:
        w_scale = ctx.reshape(w_scale, ())
    elif ctx.shape(4) == (m,):
        w_scale = ctx.reshape(w_scale, (m,) + (1,) * spatial)
    else:
        ctx.fail(f"w_scale must be one value or one per output channel ({m}), got shape {list(ctx.shape(4))}")
    scales = [per_tensor(ctx, ctx.input(1), "x_scale"), w_scale, per_tensor(ctx, ctx.input(6), "y_scale")]
    return [requantize(ctx, acc, scales, _output_zero_point(ctx, 7, 0), f64)]


@converter("QLinearMatMul")
def convert_qlinear_matmul(ctx: NodeContext) -> list[SSAValue]:
    a, b = ctx.input(0), ctx.input(3)
    az, bz = _matmul_zero_points(
        ctx, _optional_zero_point(ctx, 2, 0), _optional_zero_point(ctx, 5, 3), ctx.shape(0), ctx.shape(3)
    )
    acc = ctx.value(tg.MatmulIntegerOp, [a, b, az, bz])
    a_scale, b_scale = ctx.input(1), ctx.input(4)
    a_scale = ctx.reshape(a_scale, ()) if math.prod(ctx.shape(1)) == 1 else ctx.reshape(a_scale, (ctx.shape(1)[0], 1))
    b_scale = ctx.reshape(b_scale, ()) if math.prod(ctx.shape(4)) == 1 else b_scale
    scales = [a_scale, b_scale, per_tensor(ctx, ctx.input(6), "y_scale")]
    return [requantize(ctx, acc, scales, _output_zero_point(ctx, 7, 0), f64)]
