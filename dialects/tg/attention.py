"""Scaled dot-product attention (ONNX Attention, opsets 23-25) as one op.

    %y, %p = tg.attention %q, %k, %v mask %m lengths %n {scale = 0.125 : f64, causal = true}
           : (tensor<2x8x4x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<4x6xi1>, tensor<2xi64>)
           -> (tensor<2x8x4x16xf32>, tensor<2x8x4x6xf32>)

Operands are 4-D, (batch, heads, sequence, head size): q (B, Hq, S, D), k (B, Hk, L, D),
v (B, Hk, L, Dv); Hq is a multiple of Hk and query head h reads key/value head
h // (Hq / Hk) (grouped-query attention; the importer has already split 3-D inputs into
heads and appended the past keys and values). For each query i and key j:

    s[i, j]  = (q[i] * sqrt(scale)) . (k[j] * sqrt(scale))
               then softcap * tanh(s / softcap) when softcap > 0
    x[i, j]  = s[i, j] + bias[i, j]
    p[i, :]  = softmax(x[i, :]) in `softmax_type` (default: the element type); a row whose
               bias is -inf everywhere (no key may be attended) is all zero
    y[i]     = sum over j of p[i, j] * v[j]

bias[i, j] is -inf where a key is excluded and else the mask's value (0 for a boolean
mask, whose false excludes). A key is excluded when the mask says so (a mask shorter than
L excludes the keys past its end), when `causal` and j > i + offset, when a window is set
and j is outside [i + offset - left_window, i + offset + right_window] (-1: unbounded), or
when j >= lengths[b] (the valid keys of each batch row; `offset` is then
lengths[b] - S). The mask broadcasts (numpy rules) to (B, Hq, S, its length).

The optional second result is ONNX's qk_matmul_output: s (scores_mode 0 and 1), x (2) or
p (3).

Rounding is ONNX's: the reference computes in the element type, so with 16-bit floats
every step above rounds to that type (q * sqrt(scale), k * sqrt(scale), s, each softcap
step, x, x - max, exp, the running sum of a bfloat16 softmax, p, y); its matmuls
accumulate in float32.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    TensorType,
    TypeAttribute,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import (
    OPAQUE,
    Props,
    TgOp,
    broadcasts_to,
    flag,
    floating,
    integer,
    require,
    require_float,
    require_rank,
    tensor_of,
)

SCORES_MODES = (0, 1, 2, 3)


def segments(has_mask: bool, has_lengths: bool) -> DenseArrayBase:
    """The operandSegmentSizes property of a tg.attention with these optional operands."""
    return DenseArrayBase.from_list(i32, [1, 1, 1, int(has_mask), int(has_lengths)])


def _present(props: Props) -> tuple[bool, bool]:
    attr = props.get("operandSegmentSizes")
    sizes = [int(v) for v in attr.get_values()] if isinstance(attr, DenseArrayBase) else [1, 1, 1, 0, 0]
    return bool(sizes[3]), bool(sizes[4])


def softmax_element(props: Props, element: Attribute) -> Attribute:
    """The element type the softmax computes in."""
    attr = props.get("softmax_type")
    return attr if attr is not None else element


def exact_in(narrow: Attribute, wide: Attribute) -> bool:
    """Every value of float type `narrow` is a value of float type `wide`."""
    if narrow == wide:
        return True
    width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
    return width[str(narrow)] < width[str(wide)] and str(wide) != "f16" and str(wide) != "bf16"


@irdl_op_definition
class AttentionOp(TgOp):
    """See the module docstring."""

    name = "tg.attention"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    lengths = opt_operand_def(TensorType)
    y = result_def(TensorType)
    scores = opt_result_def(TensorType)
    scale = prop_def(FloatAttr)
    causal = opt_prop_def(IntegerAttr)
    softcap = opt_prop_def(FloatAttr)
    scores_mode = opt_prop_def(IntegerAttr)
    offset = opt_prop_def(IntegerAttr)
    left_window = opt_prop_def(IntegerAttr)
    right_window = opt_prop_def(IntegerAttr)
    softmax_type = opt_prop_def(TypeAttribute)
    # two optional operands need their segment sizes (a property, printed by the format)
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))  # type: ignore[assignment]
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = (
        "$q `,` $k `,` $v (`mask` $mask^ `:` type($mask))? (`lengths` $lengths^ `:` type($lengths))? attr-dict"
        " `:` type($q) `,` type($k) `,` type($v) `->` type($y) (`,` type($scores)^)?"
    )

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        has_mask, has_lengths = _present(props)
        q, k, v = operand_types[:3]
        for t, what in ((q, "q"), (k, "k"), (v, "v")):
            require_rank(t, 4, what)
            require_float(t, what)
        et = q.element_type
        require(k.element_type == et and v.element_type == et, "q, k and v must have the same element type")
        b, hq, s, d = q.get_shape()
        bk, hk, length, dk = k.get_shape()
        bv, hv, lv, dv = v.get_shape()
        require(bk == b and bv == b, lambda: f"batch sizes differ: q {b}, k {bk}, v {bv}")
        require(dk == d, lambda: f"q and k head sizes differ: {d} and {dk}")
        require(hv == hk and lv == length, lambda: f"k {k.get_shape()} and v {v.get_shape()} differ in heads or length")
        require(hk >= 1 and hq % hk == 0, lambda: f"{hq} query heads are not a multiple of {hk} key/value heads")
        if has_mask:
            m = operand_types[3]
            shape = m.get_shape()
            require(1 <= len(shape) <= 4, lambda: f"mask must have rank 1 to 4, got {m}")
            require(shape[-1] <= length, lambda: f"mask covers {shape[-1]} keys, more than the {length} there are")
            require(
                broadcasts_to((*shape[:-1], length), (b, hq, s, length)),
                lambda: f"mask {m} does not broadcast to ({b}, {hq}, {s}, {length})",
            )
            me = m.element_type
            require(
                dtypes.is_bool(me) or (dtypes.is_float(me) and exact_in(me, et)),
                lambda: f"mask must be boolean or a float type that {et} holds exactly, got {me}",
            )
        if has_lengths:
            n = operand_types[3 + has_mask]
            require(
                n.get_shape() == (b,) and n.element_type == i64, lambda: f"lengths must be tensor<{b}xi64>, got {n}"
            )
        scale = floating(props, "scale")
        require(math.isfinite(scale) and scale > 0, lambda: f"scale must be positive, got {scale}")
        flag(props, "causal")
        require(floating(props, "softcap", 0.0) >= 0, "softcap must be non-negative")
        mode = integer(props, "scores_mode", 0)
        require(mode in SCORES_MODES, lambda: f"scores_mode must be 0, 1, 2 or 3, got {mode}")
        offset = integer(props, "offset", 0)
        require(offset >= 0, lambda: f"offset must be non-negative, got {offset}")
        require(not (has_lengths and offset), "offset and lengths exclude each other (lengths give each row its own)")
        for key in ("left_window", "right_window"):
            require(integer(props, key, -1) >= -1, lambda: f"{key} must be -1 (unbounded) or non-negative")
        require(dtypes.is_float(softmax_element(props, et)), "softmax_type must be a float type")
        return [TensorType(et, [b, hq, s, dv])]

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (y,) = cls.infer_result_types(operand_types, props)
        b, hq, s, _ = y.get_shape()
        length = operand_types[1].get_shape()[2]
        expected = [y, TensorType(y.element_type, [b, hq, s, length])]
        for i, (want, got) in enumerate(zip(expected, result_types)):
            require(want == got, lambda: f"result #{i} type should be {want}, got {got}")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        p = self.properties
        has_mask, has_lengths = _present(p)
        q, k, v = args[:3]
        mask = args[3] if has_mask else None
        lengths = args[3 + has_mask] if has_lengths else None
        precision = softmax_element(p, tensor_of(self.q).element_type)
        y, scores = attention(
            q,
            k,
            v,
            mask,
            lengths,
            scale=floating(p, "scale"),
            causal=flag(p, "causal"),
            softcap=floating(p, "softcap", 0.0),
            scores_mode=integer(p, "scores_mode", 0),
            offset=integer(p, "offset", 0),
            window=(integer(p, "left_window", -1), integer(p, "right_window", -1)),
            precision=dtypes.to_numpy(precision),
        )
        return [y, scores][: len(self.results)]


def scale_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f64)


# --------------------------------------------------------------------------- meaning


def _work(dtype: np.dtype) -> np.dtype:
    """Where a step computes: 16-bit floats in themselves (each step rounds, as ONNX's
    reference does), wider ones in float64."""
    return dtype if dtype.itemsize == 2 else np.dtype(np.float64)


def allowed_keys(
    shape: tuple[int, int, int, int],
    causal: bool,
    offset: int,
    window: tuple[int, int],
    lengths: np.ndarray | None,
) -> np.ndarray:
    """(B or 1, 1, S, L): the keys the structural masks (causal, window, lengths) allow."""
    b, _, s, length = shape
    i = np.arange(s).reshape(1, 1, s, 1)
    j = np.arange(length).reshape(1, 1, 1, length)
    start = offset if lengths is None else lengths.astype(np.int64).reshape(b, 1, 1, 1) - s
    position = i + start  # each query's absolute position among the keys
    allowed = np.ones(np.broadcast_shapes(position.shape, j.shape), bool)
    if causal:
        allowed &= j <= position
    left, right = window
    if left >= 0:
        allowed &= position - j <= left
    if right >= 0:
        allowed &= j - position <= right
    if lengths is not None:
        allowed &= j < lengths.astype(np.int64).reshape(b, 1, 1, 1)
    return allowed


def attention_bias(mask: np.ndarray | None, allowed: np.ndarray, length: int, dtype: np.dtype) -> np.ndarray:
    """-inf where a key is excluded, the mask's value elsewhere (0 for boolean masks)."""
    value = np.zeros((), dtype)
    if mask is not None:
        pad = [(0, 0)] * (mask.ndim - 1) + [(0, length - mask.shape[-1])]
        if mask.dtype == np.bool_:
            allowed = allowed & np.pad(mask, pad, constant_values=False)
        else:
            value = np.pad(mask.astype(dtype), pad, constant_values=-np.inf)
    return value + np.where(allowed, dtype.type(0), dtype.type(-np.inf))


def attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None,
    lengths: np.ndarray | None,
    *,
    scale: float,
    causal: bool,
    softcap: float,
    scores_mode: int,
    offset: int,
    window: tuple[int, int],
    precision: np.dtype,
) -> tuple[np.ndarray, np.ndarray]:
    """(y, qk_matmul_output) of 4-D q, k, v, computed as ONNX's reference does."""
    t = q.dtype
    w = _work(t)
    wp = _work(np.dtype(precision))

    def rnd(x: np.ndarray) -> np.ndarray:
        """One step's result, rounded to the element type as the reference's is."""
        return np.asarray(x).astype(t).astype(w)

    factor = np.asarray(np.sqrt(scale)).astype(t).astype(w)
    repeat = q.shape[1] // k.shape[1]
    qs = rnd(q.astype(w) * factor)
    ks = rnd(np.repeat(k, repeat, axis=1).astype(w) * factor)
    vs = np.repeat(v, repeat, axis=1).astype(w)
    s = rnd(np.matmul(qs, np.swapaxes(ks, -1, -2)))
    if softcap > 0:
        cap = np.asarray(softcap).astype(t).astype(w)
        s = rnd(rnd(np.tanh(rnd(s / cap))) * cap)
    b, hq, sq, _ = q.shape
    length = k.shape[2]
    allowed = allowed_keys((b, hq, sq, length), causal, offset, window, lengths)
    bias = attention_bias(mask, allowed, length, np.dtype(w))
    x = rnd(s + bias)
    scores = x if scores_mode == 2 else s
    xp = x.astype(wp)
    peak = xp.max(axis=-1, keepdims=True)  # a row of -inf has no peak: shift by 0
    peak = np.where(np.isneginf(peak), wp.type(0), peak)
    e = np.exp(xp - peak).astype(wp)
    total = np.sum(e, axis=-1, keepdims=True).astype(wp)
    total = np.where(total == 0, wp.type(1), total)
    p = (e / total).astype(wp)
    p = np.where(np.isneginf(np.broadcast_to(bias, x.shape).max(axis=-1, keepdims=True)), wp.type(0), p)
    if scores_mode == 3:
        scores = p
    y = np.matmul(rnd(p.astype(precision)), vs)
    return y, scores


OPS: list[type[TgOp]] = [AttentionOp]
