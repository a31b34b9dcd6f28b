"""tg-qdq-to-integer: the quantize-dequantize (QDQ) form of an int8 model as integer kernels.

onnxruntime's quantizer writes an int8 model as float operators between
DequantizeLinear and QuantizeLinear; run as written, every convolution is a float
convolution of dequantized values. This pass rewrites each such island into the integer
contraction it stands for, with the float work left in a requantize epilogue:

    quantize(conv2d(dequantize(xq, sx, zx), dequantize(wq, sw, zw), dequantize(bq, sx*sw, 0)), sy, zy)
      = requantize(conv2d_integer(xq, wq, zx, zw) + bq, sx, sw, sy, zy)

and the same for matmul and gemm (alpha = beta = 1, the weight transposed as the gemm
says). A relu between the contraction and the quantize becomes max(q, zy) (the quantized
zero), valid for a positive output scale. The requantize is computed as onnxruntime's
fused kernels compute it (the multiplier (sx * sw) / sy in f32, the accumulator times it
in f32, rounded half to even), so the rewritten model matches onnxruntime's optimized
QDQ execution rather than the float reading, which differs from it by rounding.

It applies when the input is quantized per tensor, the weight per tensor or per output
channel, the bias (if any) is int32 with the scale sx * sw (checked on its values; the
quantizer writes it so) and zero point 0, and the contraction's result has no other use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, f32, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, flag, floating, ints_attr
from tessel.dialects.tg.quant import EIGHT_BIT, int_kind
from tessel.ir.weights import WeightsPass
from tessel.passes.tg._rewrite import Values


def _single_use(v: SSAValue) -> bool:
    return v.has_one_use()


def _rank(v: SSAValue) -> int:
    assert isinstance(v.type, TensorType)
    return v.type.get_num_dims()


def _shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return v.type.get_shape()


def _dequantized(v: SSAValue, kinds: set[tuple[int, bool]]) -> tg.DequantizeOp | None:
    op = v.owner
    if isinstance(op, tg.DequantizeOp) and isinstance(op.input.type, TensorType):
        kind = int_kind(op.input.type.element_type)
        if kind is not None and kind in kinds:
            return op
    return None


@dataclass
class Rewriter:
    """Builds the integer form of one quantize op: new ops are made (and verified) aside
    and go into the IR together in `finish`, or are dropped when one of them is refused."""

    rewriter: PatternRewriter
    values: Values
    pending: list[Operation] = field(default_factory=list)

    def op(self, op_type: type[tg.TgOp], operands: Sequence[SSAValue], props=None, result_types=None) -> SSAValue:  # noqa: ANN001
        new = op_type.make(list(operands), props, result_types)
        self.pending.append(new)
        return new.results[0]

    def constant(self, array: np.ndarray) -> SSAValue:
        new = tg.constant_op(array)
        self.pending.append(new)
        return new.results[0]

    def drop(self) -> None:
        for op in reversed(self.pending):
            op.erase()
        self.pending.clear()

    def reshape(self, v: SSAValue, shape: Sequence[int]) -> SSAValue:
        if tuple(shape) == _shape(v):
            return v
        t = TensorType(tg.tensor_of(v).element_type, list(shape))
        return self.op(tg.ReshapeOp, [v], result_types=[t])

    def transpose(self, v: SSAValue) -> SSAValue:
        perm = list(range(_rank(v)))
        perm[-2:] = perm[-2:][::-1]
        return self.op(tg.TransposeOp, [v], {"perm": ints_attr(perm)})

    def bias_matches(self, bias: tg.DequantizeOp, sx: SSAValue, sw: SSAValue, channels: int) -> bool:
        """An int32 bias with zero point 0 and scale sx * sw (in f32), per output channel,
        or all zeros."""
        if int_kind(tg.tensor_of(bias.input).element_type) != (32, True) or _shape(bias.input) != (channels,):
            return False
        zp, bs, x, w = (self.values.of(v) for v in (bias.zero_point, bias.scale, sx, sw))
        if zp is None or np.any(zp):
            return False
        values = self.values.of(bias.input)
        if values is not None and not np.any(values):
            return True  # a zero bias adds nothing whatever its scale (exporters share one)
        if bs is None or x is None or w is None:
            return False
        expected = np.broadcast_to((x.astype(np.float32) * w.astype(np.float32)).reshape(-1), (channels,))
        return bool(np.array_equal(np.broadcast_to(bs.reshape(-1), (channels,)), expected))

    def positive(self, v: SSAValue) -> bool:
        value = self.values.of(v)
        return value is not None and bool(np.all(value > 0))


def _per_tensor(dq: tg.DequantizeOp) -> bool:
    return _rank(dq.scale) == 0 and _rank(dq.zero_point) == 0


def _epilogue(q: tg.QuantizeOp, r: Rewriter) -> tuple[Operation, bool] | None:
    """The contraction feeding `q` (through a relu, when the output scale is positive)."""
    producer = q.input.owner
    relu = False
    if isinstance(producer, tg.ReluOp) and _single_use(producer.results[0]) and r.positive(q.scale):
        producer, relu = producer.input.owner, True
    if not isinstance(producer, Operation) or not _single_use(producer.results[0]):
        return None
    return producer, relu


def _finish(
    q: tg.QuantizeOp, r: Rewriter, build: Callable[[], tuple[SSAValue, SSAValue, SSAValue]], relu: bool
) -> None:
    """Replace q by requantize(acc, sx, sw, sy, zy) of the contraction `build` makes."""
    try:
        acc, sx, sw = build()
        y = r.op(tg.RequantizeOp, [acc, sx, sw, q.scale, q.zero_point], {"precision": f32})
        if relu:  # quantize(relu(v)) = max(quantize(v), zy) when sy > 0
            y = r.op(tg.MaxOp, [y, q.zero_point])
    except VerifyException:
        r.drop()
        return
    y.name_hint = q.result.name_hint
    r.rewriter.replace(q, r.pending, [y])


@dataclass
class ConvPattern(RewritePattern):
    values: Values

    @op_type_rewrite_pattern
    def match_and_rewrite(self, q: tg.QuantizeOp, rewriter: PatternRewriter, /) -> None:
        r = Rewriter(rewriter, self.values)
        found = _epilogue(q, r)
        if found is None or not isinstance(found[0], tg.Conv2dOp):
            return
        conv, relu = found
        assert isinstance(conv, tg.Conv2dOp)
        x, w = _dequantized(conv.input, EIGHT_BIT), _dequantized(conv.weight, EIGHT_BIT)
        if x is None or w is None or not _per_tensor(x):
            return
        m = _shape(conv.weight)[0]
        if _shape(w.scale) not in ((), (m, 1, 1, 1)) or _shape(w.zero_point) not in ((), (m, 1, 1, 1)):
            return
        bias = _dequantized(conv.bias, {(32, True)}) if conv.bias is not None else None
        if conv.bias is not None and (bias is None or not r.bias_matches(bias, x.scale, w.scale, m)):
            return

        def build() -> tuple[SSAValue, SSAValue, SSAValue]:
            assert x is not None and w is not None
            wz = w.zero_point if _rank(w.zero_point) == 0 else r.reshape(w.zero_point, (m,))
            props = {k: conv.properties[k] for k in ("strides", "pads", "dilations", "groups")}
            acc = r.op(tg.Conv2dIntegerOp, [x.input, w.input, x.zero_point, wz], props)
            if bias is not None:
                acc = r.op(tg.AddOp, [acc, r.reshape(bias.input, (m, 1, 1))])
            sw = w.scale if _rank(w.scale) == 0 else r.reshape(w.scale, (m, 1, 1))
            return acc, x.scale, sw

        _finish(q, r, build, relu)


def _column_params_fit(dq: tg.DequantizeOp, transposed: bool, rank: int) -> bool:
    """Are a matmul weight's scale and zero point per tensor or per column (of the
    weight as the product reads it)?"""
    for v in (dq.scale, dq.zero_point):
        shape = _shape(v)
        if not shape:
            continue
        if rank != 2 or len(shape) != 2 or (shape[1] if transposed else shape[0]) != 1:
            return False
    return True


def _column(r: Rewriter, v: SSAValue, transposed: bool) -> SSAValue:
    """A per-column parameter as (N,), a per-tensor one as it is."""
    shape = _shape(v)
    return v if not shape else r.reshape(v, (shape[0] if transposed else shape[1],))


@dataclass
class MatmulPattern(RewritePattern):
    values: Values

    @op_type_rewrite_pattern
    def match_and_rewrite(self, q: tg.QuantizeOp, rewriter: PatternRewriter, /) -> None:
        r = Rewriter(rewriter, self.values)
        found = _epilogue(q, r)
        if found is None:
            return
        mm, relu = found
        if isinstance(mm, tg.MatmulOp):
            a_value, b_value, c_value, trans_b = mm.lhs, mm.rhs, None, False
        elif isinstance(mm, tg.GemmOp):
            p = mm.properties
            if flag(p, "trans_a") or floating(p, "alpha") != 1.0 or floating(p, "beta") != 1.0:
                return
            a_value, b_value, c_value, trans_b = mm.a, mm.b, mm.c, flag(p, "trans_b")
        else:
            return
        a, b = _dequantized(a_value, EIGHT_BIT), _dequantized(b_value, EIGHT_BIT)
        if a is None or b is None or not _per_tensor(a):
            return
        if not _column_params_fit(b, trans_b, _rank(b_value)):
            return
        n = _shape(q.result)[-1]
        bias = _dequantized(c_value, {(32, True)}) if c_value is not None else None
        if c_value is not None and (bias is None or not r.bias_matches(bias, a.scale, b.scale, n)):
            return

        def build() -> tuple[SSAValue, SSAValue, SSAValue]:
            assert a is not None and b is not None
            sb, zb = (_column(r, v, trans_b) for v in (b.scale, b.zero_point))
            bq = r.transpose(b.input) if trans_b else b.input
            acc = r.op(tg.MatmulIntegerOp, [a.input, bq, a.zero_point, zb])
            if bias is not None:
                acc = r.op(tg.AddOp, [acc, bias.input])
            return acc, a.scale, sb

        _finish(q, r, build, relu)


@dataclass
class GlobalAvgPoolPattern(RewritePattern):
    """quantize(global_avg_pool(dequantize(xq))) as onnxruntime's QLinearGlobalAveragePool:
    the exact integer sum of xq - zx over the image, requantized by sx / (sy * H * W)."""

    values: Values

    @op_type_rewrite_pattern
    def match_and_rewrite(self, q: tg.QuantizeOp, rewriter: PatternRewriter, /) -> None:
        pool = q.input.owner
        if not isinstance(pool, tg.GlobalAvgPool2dOp) or not pool.result.has_one_use():
            return
        x = _dequantized(pool.input, EIGHT_BIT)
        if x is None or not _per_tensor(x) or _rank(q.scale) != 0 or _rank(q.zero_point) != 0:
            return
        r = Rewriter(rewriter, self.values)
        n, c, h, w = _shape(pool.input)

        def build() -> tuple[SSAValue, SSAValue, SSAValue]:
            assert x is not None
            i32s = [TensorType(i32, _shape(v)) for v in (x.input, x.zero_point)]
            centered = r.op(
                tg.SubOp,
                [
                    r.op(tg.CastOp, [x.input], result_types=[i32s[0]]),
                    r.op(tg.CastOp, [x.zero_point], result_types=[i32s[1]]),
                ],
            )
            total = r.op(tg.ReduceSumOp, [centered], {"axes": ints_attr([2, 3]), "keepdims": bool_attr(True)})
            one = r.constant(np.ones((), np.float32))
            return total, x.scale, one

        count = r.constant(np.asarray(h * w, np.float32))
        scale_out = r.op(tg.MulOp, [q.scale, count])
        try:
            acc, sx, one = build()
            y = r.op(tg.RequantizeOp, [acc, sx, one, scale_out, q.zero_point], {"precision": f32})
        except VerifyException:
            r.drop()
            return
        y.name_hint = q.result.name_hint
        rewriter.replace(q, r.pending, [y])


@dataclass(frozen=True)
class TgQdqToInteger(WeightsPass):
    name = "tg-qdq-to-integer"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        values = Values(self.store)
        changed = [
            PatternRewriteWalker(pattern).rewrite_module(op)
            for pattern in (ConvPattern(values), MatmulPattern(values), GlobalAvgPoolPattern(values))
        ]
        if any(changed):
            for region in op.regions:
                region_dce(region)
