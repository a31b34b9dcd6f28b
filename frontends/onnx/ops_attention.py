"""Converters for attention: ONNX Attention (opsets 23-25) onto tg.attention.

The importer does the data movement around the op: 3-D inputs (batch, sequence, heads *
head size) are split into heads and transposed to (batch, heads, sequence, head size),
past keys and values are appended (tg.concat; the results are present_key and
present_value), and a 3-D output is transposed and merged back. Masks, causality, windows,
per-row key counts (nonpad_kv_seqlen), softcap, the softmax precision and the exposed
scores are the op's.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.attention import AttentionOp, scale_attr, segments
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import onnx_element_type
from tessel.ir import dtypes


def _split_heads(ctx: NodeContext, x: SSAValue, heads: int, what: str) -> SSAValue:
    """(B, S, H * D) -> (B, H, S, D)."""
    b, s, hidden = tg.tensor_of(x).get_shape()
    if heads < 1 or hidden % heads:
        ctx.fail(f"{what} hidden size {hidden} does not split into {heads} heads")
    x = ctx.reshape(x, (b, s, heads, hidden // heads))
    return ctx.value(tg.TransposeOp, [x], {"perm": ints_attr([0, 2, 1, 3])})


def _merge_heads(ctx: NodeContext, y: SSAValue) -> SSAValue:
    """(B, H, S, D) -> (B, S, H * D)."""
    b, h, s, d = tg.tensor_of(y).get_shape()
    y = ctx.value(tg.TransposeOp, [y], {"perm": ints_attr([0, 2, 1, 3])})
    return ctx.reshape(y, (b, s, h * d))


def _heads(ctx: NodeContext) -> tuple[int | None, int | None]:
    return ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")


@converter("Attention")
def convert_attention(ctx: NodeContext) -> list[SSAValue | None]:
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    ranks = {len(ctx.shape(i)) for i in range(3)}
    if ranks not in ({3}, {4}):
        ctx.fail(f"Q, K and V must all be 3-D or all 4-D, got ranks {[len(ctx.shape(i)) for i in range(3)]}")
    et = ctx.type(0).element_type
    if ctx.type(1).element_type != et or ctx.type(2).element_type != et:
        ctx.fail("Q, K and V of different element types are not supported")
    three_d = ranks == {3}
    q_heads, kv_heads = _heads(ctx)
    if three_d:
        if q_heads is None or kv_heads is None:
            ctx.fail("3-D inputs need the q_num_heads and kv_num_heads attributes")
        q = _split_heads(ctx, q, q_heads, "Q")
        k = _split_heads(ctx, k, kv_heads, "K")
        v = _split_heads(ctx, v, kv_heads, "V")
    elif ctx.opset >= 25 and (q_heads is not None or kv_heads is not None):
        ctx.fail("q_num_heads and kv_num_heads must not be given for 4-D inputs")

    offset = 0
    past_key, past_value = ctx.optional_input(4), ctx.optional_input(5)
    if (past_key is None) != (past_value is None):
        ctx.fail("past_key and past_value must be given together")
    lengths = ctx.optional_input(6)
    if past_key is not None and past_value is not None:
        if lengths is not None:
            ctx.fail("nonpad_kv_seqlen cannot be combined with past_key and past_value")
        offset = tg.tensor_of(past_key).get_shape()[2]
        k = ctx.value(tg.ConcatOp, [past_key, k], {"axis": int_attr(2)})
        v = ctx.value(tg.ConcatOp, [past_value, v], {"axis": int_attr(2)})

    mask = ctx.optional_input(3)
    if mask is not None:
        me = ctx.type(3).element_type
        if not (dtypes.is_bool(me) or dtypes.is_float(me)):
            ctx.fail(f"an attn_mask of element type {me} is not supported (boolean or float masks are)")

    head_size = tg.tensor_of(q).get_shape()[3]
    scale = ctx.attr("scale")
    props: dict[str, Attribute] = {
        "scale": scale_attr(1.0 / math.sqrt(head_size) if scale is None else scale),
        "operandSegmentSizes": segments(mask is not None, lengths is not None),
    }
    if ctx.attr("is_causal", 0):
        props["causal"] = bool_attr(True)
    if (softcap := ctx.attr("softcap", 0.0)) > 0:
        props["softcap"] = scale_attr(softcap)
    elif softcap < 0:
        ctx.fail(f"softcap={softcap} must be non-negative")
    if mode := ctx.attr("qk_matmul_output_mode", 0):
        props["scores_mode"] = int_attr(mode)
    if offset:
        props["offset"] = int_attr(offset)
    for key in ("left_window_size", "right_window_size"):
        if (size := ctx.attr(key, -1)) != -1:
            props[key.removesuffix("_size")] = int_attr(size)
    if (precision := ctx.attr("softmax_precision")) is not None:
        props["softmax_type"] = onnx_element_type(ctx, precision, "softmax_precision")
    operands = [q, k, v] + [x for x in (mask, lengths) if x is not None]
    y_type = AttentionOp.infer_result_types([x.type for x in operands], props)[0]  # type: ignore[misc]
    result_types: list[TensorType] = [y_type]
    if ctx.wants_output(3):
        b, hq, s, _ = y_type.get_shape()
        result_types.append(TensorType(et, [b, hq, s, tg.tensor_of(k).get_shape()[2]]))
    op = ctx.emit(AttentionOp, operands, props, result_types)
    y = _merge_heads(ctx, op.results[0]) if three_d else op.results[0]
    scores = op.results[1] if len(op.results) == 2 else None
    return [y, k, v, scores]
