"""Converters for pooling: MaxPool (and its Indices), AveragePool, LpPool, the global
pools and MaxUnpool.

Windows (kernel, strides, dilations, pads from auto_pad) are resolved by the helpers of
ops_nn.py, and 1-D pools run as 2-D ones of unit height. GlobalMaxPool is a reduce_max
over the spatial dims; MaxUnpool scatters its values into zeros (tg.scatter_elements over
the flattened tensor, as ONNX's reference writes them) and pads to output_shape.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import StringAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import scalar_attr
from tessel.frontends.onnx.ops_nn import _ints_props, _lift_1d, _spatial_rank, _window


def _pool(ctx: NodeContext, ops: dict[int, type[tg.TgOp]], extra: dict) -> tuple[type[tg.TgOp], SSAValue, dict]:
    """The tg pool op for this node's rank, its (possibly lifted) input and properties."""
    rank = _spatial_rank(ctx, (1, 2, 3))
    kernel = list(ctx.attr("kernel_shape") or [])
    if len(kernel) != rank:
        ctx.fail(f"kernel_shape {kernel} needs {rank} entries")
    lifted = rank == 1
    x = _lift_1d(ctx, ctx.input(0)) if lifted else ctx.input(0)
    props: dict[str, Attribute] = {
        "kernel": ints_attr([1, *kernel] if lifted else kernel),
        **_ints_props(_window(ctx, kernel, lifted)),
    }
    props["ceil_mode"] = bool_attr(ctx.attr("ceil_mode", 0))
    props.update(extra)
    op_type = ops[2 if lifted else rank]
    return op_type, x, props


def _unlift(ctx: NodeContext, value: SSAValue, lifted: bool) -> SSAValue:
    if not lifted:
        return value
    n, c, _, length = tg.tensor_of(value).get_shape()
    return ctx.reshape(value, (n, c, length))


@converter("MaxPool")
def convert_max_pool(ctx: NodeContext) -> list[SSAValue]:
    order = ctx.attr("storage_order", 0)
    extra = {"storage_order": int_attr(order)} if order else {}
    op_type, x, props = _pool(ctx, {2: tg.MaxPool2dOp, 3: tg.MaxPool3dOp}, extra)
    lifted = len(ctx.shape(0)) == 3
    assert isinstance(x.type, TensorType)
    values_type = op_type.infer_result_types([x.type], props)[0]
    result_types = [values_type]
    if ctx.wants_output(1):
        result_types.append(TensorType(i64, values_type.get_shape()))
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
    props: dict[str, Attribute] = {"axes": ints_attr(range(2, rank)), "keepdims": bool_attr(True)}
    return [ctx.value(tg.ReduceMeanOp, [ctx.input(0)], props)]


@converter("GlobalMaxPool")
def convert_global_max_pool(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    if rank < 3:
        ctx.fail(f"input must be (N, C, D1, ...), got rank {rank}")
    props: dict[str, Attribute] = {"axes": ints_attr(range(2, rank)), "keepdims": bool_attr(True)}
    return [ctx.value(tg.ReduceMaxOp, [ctx.input(0)], props)]


@converter("LpPool")
def convert_lp_pool(ctx: NodeContext) -> list[SSAValue]:
    p = ctx.attr("p", 2)
    if int(p) != p or p < 1:
        ctx.fail(f"p = {p} is not supported (a positive integer is)")
    op_type, x, props = _pool(ctx, {2: tg.LpPool2dOp, 3: tg.LpPool3dOp}, {"p": int_attr(int(p))})
    return [_unlift(ctx, ctx.value(op_type, [x], props), len(ctx.shape(0)) == 3)]


@converter("MaxUnpool", static=(2,))
def convert_max_unpool(ctx: NodeContext) -> list[SSAValue]:
    """Y.flat[I.flat[j]] = X.flat[j] (the last write wins) in zeros of the unpooled shape
    (N, C, (in - 1) * stride - pads + kernel per dim), then zeros up to output_shape."""
    shape = ctx.shape(0)
    rank = _spatial_rank(ctx, (1, 2, 3))
    kernel = list(ctx.attr("kernel_shape") or [])
    strides = list(ctx.attr("strides", [1] * rank))
    pads = list(ctx.attr("pads", [0] * 2 * rank))
    if len(kernel) != rank or len(strides) != rank or len(pads) != 2 * rank:
        ctx.fail(f"kernel_shape {kernel}, strides {strides} and pads {pads} do not fit {rank} spatial dims")
    if ctx.shape(1) != shape:
        ctx.fail(f"indices of shape {list(ctx.shape(1))} do not match the input's {list(shape)}")
    unpooled = [*shape[:2]] + [
        (shape[2 + d] - 1) * strides[d] - (pads[d] + pads[rank + d]) + kernel[d] for d in range(rank)
    ]
    requested = ctx.const_ints(2, "output_shape")
    out = unpooled if requested is None else requested
    if len(out) != len(shape) or any(o < u for o, u in zip(out, unpooled)):
        ctx.fail(f"output_shape {out} is smaller than the unpooled shape {unpooled}")
    et = ctx.type(0).element_type
    total, count = math.prod(unpooled), math.prod(shape)
    zeros = ctx.value(tg.FillOp, [], {"value": scalar_attr(0, et)}, result_types=[TensorType(et, [1, total])])
    props: dict[str, Attribute] = {"axis": int_attr(1), "reduction": StringAttr("none")}
    flat = [ctx.reshape(ctx.input(1), [1, count]), ctx.reshape(ctx.input(0), [1, count])]
    y = ctx.reshape(ctx.value(tg.ScatterElementsOp, [zeros, *flat], props), unpooled)
    if out == unpooled:
        return [y]
    grow = [o - u for o, u in zip(out, unpooled)]
    return [ctx.value(tg.PadOp, [y], {"pads": ints_attr([0] * len(out) + grow), "mode": StringAttr("constant")})]
