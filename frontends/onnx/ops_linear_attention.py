"""Converters for the recurrent-state layers of linear-attention and state-space models:
LinearAttention and CausalConvWithState (opset 27), as compositions of tg ops.

LinearAttention keeps a state S (batch, kv heads, key size, value size) and, unrolled over
the static sequence, per step t (all in float32, as ONNX's reference):

    S = S * exp(decay_t)                          (gated rules)
    v = beta_t * (v_t - k_t S)                    (delta rules; else v = v_t)
    S = S + k_t^T v
    o_t = scale * q_t S                           (query heads grouped over kv heads)

CausalConvWithState is a depthwise 1-D convolution over the past state followed by the
input (zeros without a past), optionally SiLU-activated (in float32); the new state is the
last kernel - 1 positions of that concatenation.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.ir import dtypes

UPDATE_RULES = ("linear", "gated", "delta", "gated_delta")


def _value(ctx: NodeContext, op: type[tg.TgOp], *operands: SSAValue, **props: Attribute) -> SSAValue:
    return ctx.value(op, list(operands), props or None)


def _transpose(ctx: NodeContext, x: SSAValue, perm: list[int]) -> SSAValue:
    return _value(ctx, tg.TransposeOp, x, perm=ints_attr(perm))


def _heads(ctx: NodeContext, x: SSAValue, heads: int) -> SSAValue:
    """(B, T, H * D) -> (B, H, T, D)."""
    b, t, hd = tg.tensor_of(x).get_shape()
    return _transpose(ctx, ctx.reshape(x, [b, t, heads, hd // heads]), [0, 2, 1, 3])


def _step(ctx: NodeContext, x: SSAValue, t: int) -> SSAValue:
    """x[:, :, t : t + 1, :] of a (B, H, T, D) value."""
    shape = list(tg.tensor_of(x).get_shape())
    if shape[2] == 1:
        return x
    shape[2] = 1
    props: dict[str, Attribute] = {"starts": ints_attr([0, 0, t, 0]), "steps": ints_attr([1, 1, 1, 1])}
    return ctx.value(tg.SliceOp, [x], props, result_types=[TensorType(f32, shape)])


def _to_f32(ctx: NodeContext, x: SSAValue) -> SSAValue:
    return x if tg.tensor_of(x).element_type == f32 else cast(ctx, x, f32)


@converter("LinearAttention")
def convert_linear_attention(ctx: NodeContext) -> list[SSAValue]:
    rule = ctx.attr("update_rule", "gated_delta")
    if rule not in UPDATE_RULES:
        ctx.fail(f"update_rule={rule!r} must be one of {', '.join(UPDATE_RULES)}")
    q_heads, kv_heads = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    if not q_heads or not kv_heads or q_heads % kv_heads:
        ctx.fail(f"q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})")
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    decay, beta = ctx.optional_input(4), ctx.optional_input(5)
    if gating != (decay is not None):
        ctx.fail(f"update_rule {rule!r} {'requires' if gating else 'forbids'} the decay input")
    if delta != (beta is not None):
        ctx.fail(f"update_rule {rule!r} {'requires' if delta else 'forbids'} the beta input")
    for i, what in enumerate(("query", "key", "value")):
        if len(ctx.shape(i)) != 3 or not dtypes.is_float(ctx.type(i).element_type):
            ctx.fail(f"{what} must be a 3-D float tensor (B, T, H * D), got {ctx.type(i)}")
    batch, steps, q_width = ctx.shape(0)
    if q_width % q_heads or ctx.shape(1)[2] % kv_heads or ctx.shape(2)[2] % kv_heads:
        ctx.fail("the hidden sizes do not split into the given numbers of heads")
    dk, dv, group = q_width // q_heads, ctx.shape(2)[2] // kv_heads, q_heads // kv_heads
    if ctx.shape(1)[2] // kv_heads != dk:
        ctx.fail(f"query and key head sizes differ: {dk} and {ctx.shape(1)[2] // kv_heads}")
    q = _heads(ctx, _to_f32(ctx, ctx.input(0)), q_heads)
    k = _heads(ctx, _to_f32(ctx, ctx.input(1)), kv_heads)
    v = _heads(ctx, _to_f32(ctx, ctx.input(2)), kv_heads)
    gate = None
    if decay is not None:
        width = ctx.shape(4)[-1]
        if len(ctx.shape(4)) != 3 or width not in (kv_heads, kv_heads * dk):
            ctx.fail(f"decay must be (B, T, {kv_heads}) or (B, T, {kv_heads * dk}), got {list(ctx.shape(4))}")
        gate = ctx.reshape(_to_f32(ctx, decay), [batch, steps, kv_heads, width // kv_heads])
        gate = _transpose(ctx, _value(ctx, tg.ExpOp, gate), [0, 2, 1, 3])  # (B, Hkv, T, 1 or dk)
    weight = None
    if beta is not None:
        width = ctx.shape(5)[-1]
        if len(ctx.shape(5)) != 3 or width not in (kv_heads, 1):
            ctx.fail(f"beta must be (B, T, {kv_heads}) or (B, T, 1), got {list(ctx.shape(5))}")
        weight = _transpose(ctx, ctx.reshape(_to_f32(ctx, beta), [batch, steps, width, 1]), [0, 2, 1, 3])
    state_shape = [batch, kv_heads, dk, dv]
    past = ctx.optional_input(3)
    if past is not None:
        if list(ctx.shape(3)) != state_shape:
            ctx.fail(f"past_state must have shape {state_shape}, got {list(ctx.shape(3))}")
        state = _to_f32(ctx, past)
    else:
        state = ctx.constant(np.zeros(state_shape, np.float32))
    scale = ctx.attr("scale", 0.0) or 1.0 / math.sqrt(dk)
    scale_value = ctx.constant(np.asarray(scale, np.float32))

    outputs = []
    for t in range(steps):
        k_t, v_t = _step(ctx, k, t), _step(ctx, v, t)  # (B, Hkv, 1, dk), (B, Hkv, 1, dv)
        if gate is not None:
            g_t = _step(ctx, gate, t)  # (B, Hkv, 1, 1 or dk): over the key dim of S
            state = _value(
                ctx, tg.MulOp, state, ctx.reshape(g_t, [batch, kv_heads, tg.tensor_of(g_t).get_shape()[3], 1])
            )
        if weight is not None:
            retrieved = _value(ctx, tg.MatmulOp, k_t, state)  # (B, Hkv, 1, dv)
            v_t = _value(ctx, tg.MulOp, _step(ctx, weight, t), _value(ctx, tg.SubOp, v_t, retrieved))
        outer = _value(ctx, tg.MulOp, ctx.reshape(k_t, [batch, kv_heads, dk, 1]), v_t)
        state = _value(ctx, tg.AddOp, state, outer)
        q_t = ctx.reshape(_step(ctx, q, t), [batch, kv_heads, group, dk])
        read = ctx.reshape(_value(ctx, tg.MatmulOp, q_t, state), [batch, q_heads, 1, dv])
        outputs.append(_value(ctx, tg.MulOp, scale_value, read))
    y = outputs[0] if steps == 1 else _value(ctx, tg.ConcatOp, *outputs, axis=int_attr(2))
    y = ctx.reshape(_transpose(ctx, y, [0, 2, 1, 3]), [batch, steps, q_heads * dv])
    out_type = ctx.type(0).element_type
    state_type = ctx.type(3).element_type if past is not None else out_type
    y = y if out_type == f32 else cast(ctx, y, out_type)
    return [y, state if state_type == f32 else cast(ctx, state, state_type)]


@converter("CausalConvWithState")
def convert_causal_conv_with_state(ctx: NodeContext) -> list[SSAValue]:
    activation = ctx.attr("activation", "none")
    if activation not in ("none", "silu", "swish"):
        ctx.fail(f"activation={activation!r} must be none, silu or swish")
    if len(ctx.shape(0)) != 3 or len(ctx.shape(1)) != 3:
        ctx.fail(f"input (B, C, L) and weight (C, 1, k) must be 3-D, got {list(ctx.shape(0))} and {list(ctx.shape(1))}")
    batch, channels, length = ctx.shape(0)
    et = ctx.type(0).element_type
    if not dtypes.is_float(et):
        ctx.fail(f"input must be a float tensor, got {et}")
    wc, one, kernel = ctx.shape(1)
    if wc != channels or one != 1:
        ctx.fail(f"weight must have shape [{channels}, 1, k], got {list(ctx.shape(1))}")
    history = kernel - 1
    x = ctx.input(0)
    past = ctx.optional_input(3)
    if past is not None and ctx.shape(3) != (batch, channels, history):
        ctx.fail(f"past_state must have shape {[batch, channels, history]}, got {list(ctx.shape(3))}")
    if history:
        if past is None:
            past = ctx.constant(np.zeros((batch, channels, history), dtypes.to_numpy(et)))
        x = _value(ctx, tg.ConcatOp, past, x, axis=int_attr(2))
    total = length + history
    lifted = ctx.reshape(x, [batch, channels, 1, total])
    w = ctx.reshape(ctx.input(1), [channels, 1, 1, kernel])
    operands = [lifted, w] + ([bias] if (bias := ctx.optional_input(2)) is not None else [])
    props: dict[str, Attribute] = {
        "strides": ints_attr([1, 1]),
        "pads": ints_attr([0, 0, 0, 0]),
        "dilations": ints_attr([1, 1]),
        "groups": int_attr(channels),
    }
    y = ctx.reshape(ctx.value(tg.Conv2dOp, operands, props), [batch, channels, length])
    if activation != "none":
        wide = _to_f32(ctx, y)
        silu = _value(ctx, tg.MulOp, wide, _value(ctx, tg.SigmoidOp, wide))
        y = silu if et == f32 else cast(ctx, silu, et)
    state_props: dict[str, Attribute] = {"starts": ints_attr([0, 0, total - history]), "steps": ints_attr([1, 1, 1])}
    state_type = TensorType(et, [batch, channels, history])
    state = x if history == total else ctx.value(tg.SliceOp, [x], state_props, result_types=[state_type])
    return [y, state]
