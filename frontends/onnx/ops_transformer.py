"""Converters for the pieces of a transformer layer around attention: RotaryEmbedding
(opset 23) and SwiGLU, each a composition of tg ops that fusion puts back into one kernel.

RotaryEmbedding rotates pairs of each head's first `rotary_embedding_dim` features by the
angle of the token's position: with x1, x2 the two halves (or the even and odd features,
`interleaved`) and cos, sin the caches' rows (indexed by position_ids when given),

    real = cos * x1 - sin * x2,    imag = sin * x1 + cos * x2

written back where x1 and x2 came from; the other features pass through. 3-D inputs
(batch, sequence, heads * head size) are split into heads (`num_heads`) and merged back.

SwiGLU(a, b) = a * sigmoid(alpha * a) * b.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_activation import Builder
from tessel.ir import dtypes


def _slice(ctx: NodeContext, x: SSAValue, start: int, size: int, step: int = 1) -> SSAValue:
    """x[..., start : start + size * step : step]."""
    t = x.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    if start == 0 and step == 1 and size == shape[-1]:
        return x
    rank = len(shape)
    props: dict[str, Attribute] = {
        "starts": ints_attr([0] * (rank - 1) + [start]),
        "steps": ints_attr([1] * (rank - 1) + [step]),
    }
    shape[-1] = size
    return ctx.value(tg.SliceOp, [x], props, result_types=[TensorType(t.element_type, shape)])


@converter("RotaryEmbedding")
def convert_rotary_embedding(ctx: NodeContext) -> list[SSAValue]:
    b = Builder(ctx)
    x = ctx.input(0)
    shape = list(ctx.shape(0))
    if not dtypes.is_float(ctx.type(0).element_type):
        ctx.fail(f"input must be a float tensor, got {ctx.type(0).element_type}")
    if len(shape) == 3:
        heads = ctx.attr("num_heads")
        if not heads or shape[2] % heads:
            ctx.fail(f"a 3-D input needs num_heads dividing its {shape[2]} features, got {heads}")
        batch, seq = shape[0], shape[1]
        x = ctx.reshape(x, [batch, seq, heads, shape[2] // heads])
        head_axis_first = False
    elif len(shape) == 4:
        batch, _, seq, _ = shape
        head_axis_first = True
    else:
        ctx.fail(f"input must be 3-D or 4-D, got shape {shape}")
    head_size = tg.tensor_of(x).get_shape()[-1]
    rotary = ctx.attr("rotary_embedding_dim", 0) or head_size
    if rotary % 2 or rotary > head_size:
        ctx.fail(f"rotary_embedding_dim {rotary} must be even and at most the head size {head_size}")
    half = rotary // 2

    def table(i: int, what: str) -> SSAValue:
        cache = ctx.input(i)
        if (positions := ctx.optional_input(3)) is not None:
            if ctx.shape(3) != (batch, seq):
                ctx.fail(f"position_ids must have shape {[batch, seq]}, got {list(ctx.shape(3))}")
            cache = ctx.value(tg.GatherOp, [cache, positions], {"axis": int_attr(0)})
        got = list(tg.tensor_of(cache).get_shape())
        if got != [batch, seq, half]:
            ctx.fail(f"{what} gives {got} per token, expected {[batch, seq, half]}")
        # (batch, 1, seq, half) against (batch, heads, seq, .); (batch, seq, 1, half) otherwise
        return ctx.reshape(cache, [batch, 1, seq, half] if head_axis_first else [batch, seq, 1, half])

    cos, sin = table(1, "cos_cache"), table(2, "sin_cache")
    interleaved = bool(ctx.attr("interleaved", 0))
    x1 = _slice(ctx, x, 0, half, 2) if interleaved else _slice(ctx, x, 0, half)
    x2 = _slice(ctx, x, 1, half, 2) if interleaved else _slice(ctx, x, half, half)
    real = b.sub(b.mul(cos, x1), b.mul(sin, x2))
    imag = b.add(b.mul(sin, x1), b.mul(cos, x2))
    if interleaved:
        pair_shape = [*tg.tensor_of(real).get_shape(), 1]
        pairs = [ctx.reshape(v, pair_shape) for v in (real, imag)]
        pair = ctx.value(tg.ConcatOp, pairs, {"axis": int_attr(len(pair_shape) - 1)})
        rotated = ctx.reshape(pair, [*pair_shape[:-2], rotary])
    else:
        rotated = ctx.value(tg.ConcatOp, [real, imag], {"axis": int_attr(3)})
    if rotary < head_size:
        rotated = ctx.value(tg.ConcatOp, [rotated, _slice(ctx, x, rotary, head_size - rotary)], {"axis": int_attr(3)})
    return [ctx.reshape(rotated, shape)]


@converter("SwiGLU")
def convert_swiglu(ctx: NodeContext) -> list[SSAValue]:
    b = Builder(ctx)
    a, gate = ctx.input(0), ctx.input(1)
    if ctx.type(0) != ctx.type(1):
        ctx.fail(f"A and B must have the same type (SwiGLU does not broadcast), got {ctx.type(0)} and {ctx.type(1)}")
    if not dtypes.is_float(ctx.type(0).element_type):
        ctx.fail(f"inputs must be float tensors, got {ctx.type(0).element_type}")
    alpha = float(ctx.attr("alpha", 1.0))
    return [b.mul(b.mul(a, b.op(tg.SigmoidOp, b.scale(alpha, a))), gate)]
