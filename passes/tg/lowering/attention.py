"""The kernel of tg.attention: its stages, one after the other in one kernel function.

    scores  s[b,h,i,j]  reduction over the head size d of (q * f) * (k * f), then softcap
    guard   g[b,h,i]    max over j of the bias (-inf: the row attends nothing), when masked
    peak    m[b,h,i]    max over j of x = s + bias, in the softmax type (-inf reads as 0)
    exp     e[b,h,i,j]  exp(x - m)
    total   z[b,h,i]    sum over j of e (0 reads as 1)
    y       y[b,h,i,c]  reduction over j of p * v[b, h / group, j, c], p = e / z (0 where g
                        is -inf), and the exposed scores (a stage of their own) when wanted

The bias is recomputed where it is read: a mask load (padded past the mask's end), index
comparisons for the causal frontier and the windows, and a load of the row's key count.
With 16-bit floats, each value is rounded to its type where the op's definition rounds
(dialects/tg/attention.py); a bfloat16 softmax sums in bfloat16, one rounding per term, as
its reference does. float32 without softcap takes a faster form of the same stages
(AttentionLowering.build_fast: keys transposed once, scale and division after the sums).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IndexType, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.attention import softmax_element
from tessel.dialects.tg.base import flag, floating, integer
from tessel.ir import dtypes
from tessel.passes.tg.lowering.casts import convert
from tessel.passes.tg.lowering.index_maps import affine_op
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    Index,
    compute_type,
    element_of,
    shape_of,
    storage_type,
)
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, _axes, anchor

NEG_INF = -math.inf
ZERO = AffineExpr.constant(0)


def one_where_zero(b: ElementBuilder, x: SSAValue, t: Attribute) -> SSAValue:
    """x, or 1 where it is 0 (a row's total that nothing attends: its terms stay 0)."""
    zero = b.emit(arith.CmpfOp(x, b.const(0.0, t), "oeq"))
    return b.emit(arith.SelectOp(zero, b.const(1.0, t), x))


def is_half(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type)


def rounded(b: ElementBuilder, x: SSAValue, element: Attribute) -> SSAValue:
    """x (a compute-type value) rounded to `element`, still in the compute type."""
    if not is_half(element):
        return x
    return b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(x, element)), compute_type(element)))


class AttentionLowering:
    """The stages of one tg.attention; see the module docstring."""

    def __init__(self, kb: KernelBuilder, op: tg.AttentionOp, dests: list[SSAValue]):
        self.kb = kb
        self.op = op
        self.dests = dests
        p = op.properties
        self.q, self.k, self.v = op.q, op.k, op.v
        self.mask, self.lengths = op.mask, op.lengths
        self.et = element_of(op.results[0])
        self.ct = compute_type(self.et)
        self.pt = softmax_element(p, self.et)
        self.pct = compute_type(self.pt)
        self.batch, self.heads, self.queries, self.head_size = shape_of(self.q)
        self.keys = shape_of(self.k)[2]
        self.group = self.heads // shape_of(self.k)[1]
        self.value_size = shape_of(self.v)[3]
        self.factor = float(np.asarray(np.sqrt(floating(p, "scale"))).astype(dtypes.to_numpy(self.et)))
        self.causal = flag(p, "causal")
        self.softcap = floating(p, "softcap", 0.0)
        self.mode = integer(p, "scores_mode", 0)
        self.offset = integer(p, "offset", 0)
        self.left, self.right = integer(p, "left_window", -1), integer(p, "right_window", -1)
        self.masked = self.mask is not None or self.lengths is not None or self.causal
        self.masked = self.masked or self.left >= 0 or self.right >= 0

    # ------------------------------------------------------------------ helpers

    def temp(self, shape: tuple[int, ...], element: Attribute, name: str) -> SSAValue:
        return self.kb.temp(TensorType(element, list(shape)), name)

    def kv_head(self, h: AffineExpr) -> AffineExpr:
        return h // self.group if self.group > 1 else h

    def allowed(self, b: ElementBuilder, idx: Index) -> SSAValue | None:
        """An i1: may query idx[2] attend key idx[3] (None: always)? Structural masks and
        a boolean mask."""
        bi, _, i, j = idx
        conds: list[SSAValue] = []
        index = IndexType()

        def at_least(x: SSAValue, bound: int) -> SSAValue:
            return b.emit(arith.CmpiOp(x, b.const(bound, index), "sge"))

        # (the query's position only where read: an unused index value keeps a stage from
        # splitting its reduction into vector partials, stages.py)
        if self.lengths is not None or self.causal or self.left >= 0 or self.right >= 0:
            query = affine_op(b, i, lambda e: e + (-self.queries if self.lengths is not None else self.offset))
            if self.lengths is not None:
                raw = b.load(b.buffers[self.lengths], [bi], i64)
                count = b.emit(arith.IndexCastOp(raw, index))
                conds.append(b.emit(arith.CmpiOp(b.ssa(j), count, "slt")))
                position = b.emit(arith.AddiOp(b.ssa(query), count))
            else:
                position = b.ssa(query)
            ahead = b.emit(arith.SubiOp(position, b.ssa(j)))  # query position - key
            if self.causal:
                conds.append(at_least(ahead, 0))
            if self.left >= 0:
                conds.append(b.emit(arith.CmpiOp(ahead, b.const(self.left, index), "sle")))
            if self.right >= 0:
                conds.append(at_least(ahead, -self.right))
        if self.mask is not None and dtypes.is_bool(element_of(self.mask)):
            conds.append(self.mask_value(b, idx, 0))
        result = None
        for c in conds:
            result = c if result is None else b.emit(arith.AndIOp(result, c))
        return result

    def mask_value(self, b: ElementBuilder, idx: Index, pad: float | int) -> SSAValue:
        """The mask at (b, h, i, j), broadcast; `pad` past its end."""
        assert self.mask is not None
        shape = shape_of(self.mask)
        full = (self.batch, self.heads, self.queries, self.keys)
        lead = len(full) - len(shape)
        m_idx: Index = [
            AffineExpr.constant(0) if n == 1 and full[lead + d] != 1 else idx[lead + d] for d, n in enumerate(shape)
        ]
        padded = shape[-1] < self.keys
        return b.load(b.buffers[self.mask], m_idx, element_of(self.mask), pad=pad if padded else None)

    def bias(self, b: ElementBuilder, idx: Index) -> SSAValue | None:
        """-inf where excluded, the float mask's value (or 0) elsewhere; None when 0."""
        value = None
        if self.mask is not None and not dtypes.is_bool(element_of(self.mask)):
            value = convert(b, self.mask_value(b, idx, NEG_INF), element_of(self.mask), self.et)
        allowed = self.allowed(b, idx)
        if allowed is None:
            return value
        excluded = b.emit(arith.SelectOp(allowed, b.const(0.0, self.ct), b.const(NEG_INF, self.ct)))
        return excluded if value is None else b.emit(arith.AddfOp(value, excluded))

    def logits(self, b: ElementBuilder, scores: SSAValue, idx: Index) -> SSAValue:
        """x = s + bias, rounded to the element type (compute type of the element type)."""
        s = b.load(scores, idx, self.ct)
        bias = self.bias(b, idx)
        return s if bias is None else rounded(b, b.emit(arith.AddfOp(s, bias)), self.et)

    def to_softmax(self, b: ElementBuilder, x: SSAValue) -> SSAValue:
        return convert(b, x, self.et, self.pt)

    def no_peak_is_zero(self, b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        """The row's peak, 0 where it is -inf (the row attends nothing: x - peak stays -inf)."""
        none = b.emit(arith.CmpfOp(acc, b.const(NEG_INF, self.pct), "oeq"))
        return b.emit(arith.SelectOp(none, b.const(0.0, self.pct), acc))

    # ------------------------------------------------------------------ stages

    def fast(self) -> bool:
        """float32 throughout, no softcap, no exposed scores: the fused form (build_fast)."""
        return (
            isinstance(self.et, Float32Type)
            and isinstance(self.pt, Float32Type)
            and self.softcap == 0
            and len(self.dests) == 1
        )

    def build_fast(self) -> None:
        """The float32 stages: the keys transposed once (each step of the scores then loads a
        vector of keys, not a gather at a stride of the head size), scores as a matrix
        product scaled after the sum, the row statistics with a unit last axis (split into
        vector partials, kb.reduction), and the output divided by the row's total after its
        sum (one division a row, not one a term). A row that attends nothing has
        exponentials 0 (x = -inf), total 1 and output 0, as the op defines: no guard stage. Rounding differs from the op's definition by a few float32 ulps (the
        scale applied once to q.k instead of sqrt(scale) to each; p v summed before the
        division)."""
        kb, et = self.kb, self.et
        rows = (self.batch, self.heads, self.queries)
        full = (*rows, self.keys)
        kv_heads = self.heads // self.group
        keys = self.temp((self.batch, kv_heads, self.head_size, self.keys), et, "keys")
        kb.elementwise("keys", keys, et, lambda b, i: b.value(self.k, [i[0], i[1], i[3], i[2]]))
        scale = floating(self.op.properties, "scale")
        scores = self.temp(full, et, "scores")

        def product(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            bi, h, i, j = s
            qv = b.value(self.q, [bi, h, i, r[0]])
            return b.emit(arith.MulfOp(qv, b.load(keys, [bi, self.kv_head(h), r[0], j], et)))  # type: ignore[arg-type]

        def scaled(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            return b.emit(arith.MulfOp(acc, b.const(scale, et)))

        axes = _axes("o", full)
        kb.reduction("scores", scores, et, axes, [("d", self.head_size)], "add", 0, et, product, scaled)
        unit = _axes("o", (*rows, 1))
        peak = self.temp((*rows, 1), et, "peak")

        def logit(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            return self.logits(b, scores, [*s[:3], r[0]])

        kb.reduction("peak", peak, et, unit, [("j", self.keys)], "max", NEG_INF, et, logit, self.no_peak_is_zero)
        exps = self.temp(full, et, "exp")

        def exp(b: ElementBuilder, idx: Index) -> SSAValue:
            shifted = b.emit(arith.SubfOp(self.logits(b, scores, idx), b.load(peak, [*idx[:3], ZERO], et)))
            return b.emit(mathd.ExpOp(shifted))

        kb.elementwise("exp", exps, et, exp)
        total = self.temp((*rows, 1), et, "total")

        def e(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            return b.load(exps, [*s[:3], r[0]], et)

        def zero_is_one(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            return one_where_zero(b, acc, et)

        kb.reduction("total", total, et, unit, [("j", self.keys)], "add", 0, et, e, zero_is_one)

        def term(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            bi, h, i, c = s
            v = b.value(self.v, [bi, self.kv_head(h), r[0], c])  # type: ignore[arg-type]
            return b.emit(arith.MulfOp(b.load(exps, [bi, h, i, r[0]], et), v))

        def divided(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            return b.emit(arith.DivfOp(acc, b.load(total, [*s[:3], ZERO], et)))

        out = _axes("o", (*rows, self.value_size))
        kb.reduction("attend", self.dests[0], et, out, [("j", self.keys)], "add", 0, et, term, divided)

    def build(self) -> None:
        if self.fast():
            self.build_fast()
            return
        kb = self.kb
        rows = (self.batch, self.heads, self.queries)
        full = (*rows, self.keys)
        scores = self.temp(full, self.ct, "scores")
        self.scores_stage(scores)
        guard = None
        if self.masked:
            guard = self.temp(rows, self.ct, "guard")
            kb.reduction(
                "guard",
                guard,
                self.ct,
                _axes("o", rows),
                [("j", self.keys)],
                "max",
                NEG_INF,
                self.ct,
                lambda b, s, r: self.bias(b, [*s, r[0]]) or b.const(0.0, self.ct),
            )
        peak = self.temp(rows, self.pct, "peak")

        kb.reduction(
            "peak",
            peak,
            self.pct,
            _axes("o", rows),
            [("j", self.keys)],
            "max",
            NEG_INF,
            self.pct,
            lambda b, s, r: self.to_softmax(b, self.logits(b, scores, [*s, r[0]])),
            self.no_peak_is_zero,
        )
        exps = self.temp(full, self.pct, "exp")

        def exp(b: ElementBuilder, idx: Index) -> SSAValue:
            x = self.to_softmax(b, self.logits(b, scores, idx))
            m = b.load(peak, idx[:3], self.pct)
            shifted = rounded(b, b.emit(arith.SubfOp(x, m)), self.pt)
            return rounded(b, b.emit(mathd.ExpOp(shifted)), self.pt)

        kb.elementwise("exp", exps, self.pct, exp)
        total, total_type = self.total_stage(exps, rows)

        def probability(b: ElementBuilder, idx: Index) -> SSAValue:
            """p at (b, h, i, j) in the element type's compute type."""
            p = b.emit(arith.DivfOp(b.load(exps, idx, self.pct), b.load(total, idx[:3], total_type)))
            p = rounded(b, p, self.pt)
            if guard is not None:
                none = b.emit(arith.CmpfOp(b.load(guard, idx[:3], self.ct), b.const(NEG_INF, self.ct), "oeq"))
                p = b.emit(arith.SelectOp(none, b.const(0.0, self.pct), p))
            return convert(b, p, self.pt, self.et)

        def term(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            bi, h, i, c = s
            p = probability(b, [bi, h, i, r[0]])
            return b.emit(arith.MulfOp(p, b.value(self.v, [bi, self.kv_head(h), r[0], c])))  # type: ignore[arg-type]

        out = (*rows, self.value_size)
        kb.reduction("attend", self.dests[0], self.et, _axes("o", out), [("j", self.keys)], "add", 0, self.ct, term)
        if len(self.dests) == 2:
            exposed: dict[int, Callable[[ElementBuilder, Index], SSAValue]] = {
                0: lambda b, idx: b.load(scores, idx, self.ct),
                1: lambda b, idx: b.load(scores, idx, self.ct),
                2: lambda b, idx: self.logits(b, scores, idx),
                3: probability,
            }
            kb.elementwise("qk", self.dests[1], self.et, exposed[self.mode])

    def scores_stage(self, scores: SSAValue) -> None:
        f = self.factor

        def term(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            bi, h, i, j = s
            qv = rounded(b, b.emit(arith.MulfOp(b.value(self.q, [bi, h, i, r[0]]), b.const(f, self.ct))), self.et)
            kv = b.value(self.k, [bi, self.kv_head(h), j, r[0]])  # type: ignore[arg-type]
            kv = rounded(b, b.emit(arith.MulfOp(kv, b.const(f, self.ct))), self.et)
            return b.emit(arith.MulfOp(qv, kv))

        def softcap(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            x = rounded(b, acc, self.et)
            if self.softcap > 0:
                cap = b.const(float(np.asarray(self.softcap).astype(dtypes.to_numpy(self.et))), self.ct)
                x = rounded(b, b.emit(arith.DivfOp(x, cap)), self.et)
                x = rounded(b, b.emit(mathd.TanhOp(x)), self.et)
                x = rounded(b, b.emit(arith.MulfOp(x, cap)), self.et)
            return x

        full = _axes("o", (self.batch, self.heads, self.queries, self.keys))
        self.kb.reduction("scores", scores, self.ct, full, [("d", self.head_size)], "add", 0, self.ct, term, softcap)

    def total_stage(self, exps: SSAValue, rows: tuple[int, int, int]) -> tuple[SSAValue, Attribute]:
        """z = sum over j of e, 0 read as 1, and its element type. A bfloat16 softmax
        accumulates in bfloat16 (its reference rounds every partial sum); others in their
        compute type, rounded once."""
        acc_t = storage_type(self.pt) if isinstance(self.pt, BFloat16Type) else self.pct
        total = self.temp(rows, acc_t, "total")

        def term(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            e = b.load(exps, [*s, r[0]], self.pct)
            return b.emit(arith.TruncFOp(e, acc_t)) if acc_t != self.pct else e

        def zero_is_one(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            return one_where_zero(b, rounded(b, acc, self.pt) if acc_t == self.pct else acc, acc_t)

        self.kb.reduction(
            "total", total, acc_t, _axes("o", rows), [("j", self.keys)], "add", 0, acc_t, term, zero_is_one
        )
        return total, acc_t


@anchor(tg.AttentionOp)
def _attention(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    assert isinstance(op, tg.AttentionOp)
    AttentionLowering(kb, op, dests).build()
