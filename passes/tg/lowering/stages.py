"""The kernel.compute stages of one fused group.

A group without an anchor is one element-wise stage. A group with an anchor (conv,
matmul, pool, reduction, or an opaque op such as softmax) lowers the anchor with the
rules below; the group's element-wise consumers become the `then` region of the anchor's
last stage when they keep its shape, and a stage of their own reading the anchor's result
from a temporary buffer otherwise (a reduction followed by a broadcasting op).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType, f64, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import kernel, tg
from tessel.dialects.tg.base import flag, floating, integer, ints
from tessel.ir import dtypes
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    Index,
    compute_type,
    element_of,
    is_unsigned,
    lowest,
    shape_of,
    storage_type,
    typed_attr,
)

# A `then` function: given the builder of the then region, the spatial index and the
# reduced value (compute type), return the value to store (compute type).
Then = Callable[[ElementBuilder, Index, SSAValue], SSAValue]


def identity_then(b: ElementBuilder, idx: Index, acc: SSAValue) -> SSAValue:
    return acc


class KernelBuilder:
    """Appends stages (and temporaries) to a kernel function body."""

    def __init__(self, block: Block, buffers: dict[SSAValue, SSAValue]):
        self.block = block
        self.buffers = buffers
        self.temps: list[SSAValue] = []
        self.count = 0

    def memref_type(self, t: TensorType) -> MemRefType:
        return MemRefType(storage_type(t.element_type), t.get_shape())

    def temp(self, t: TensorType, name: str) -> SSAValue:
        alloc = memref.AllocOp.get(storage_type(t.element_type), shape=t.get_shape())
        alloc.results[0].name_hint = name
        self.block.add_op(alloc)
        self.temps.append(alloc.results[0])
        return alloc.results[0]

    def placeholder(self, t: TensorType, memref_value: SSAValue) -> SSAValue:
        """A stand-in tg value of type `t` whose elements live in `memref_value` (a
        temporary the lowering made), so stages read it like any group input."""
        value = Block(arg_types=[t]).args[0]
        self.buffers[value] = memref_value
        return value

    def finish(self) -> None:
        for t in self.temps:
            self.block.add_op(memref.DeallocOp.get(t))

    def _name(self, stage: str) -> str:
        self.count += 1
        return stage if self.count == 1 else f"{stage}{self.count}"

    # ------------------------------------------------------------------ stage kinds

    def elementwise(
        self, stage: str, dest: SSAValue, element: Attribute, fn: Callable[[ElementBuilder, Index], SSAValue]
    ) -> None:
        shape = dest.type.get_shape()  # type: ignore[attr-defined]
        axes = [(f"i{d}", n) for d, n in enumerate(shape)]
        op = kernel.ComputeOp.build(self._name(stage), dest, axes)
        b = ElementBuilder(op.body.block, len(axes), self.buffers)
        idx: Index = [AffineExpr.dimension(d) for d in range(len(axes))]
        value = b.narrow(fn(b, idx), dest.type.get_element_type())  # type: ignore[attr-defined]
        op.body.block.add_op(kernel.YieldOp.create(operands=[value]))
        self.block.add_op(op)

    def reduction(
        self,
        stage: str,
        dest: SSAValue,
        element: Attribute,
        spatial: Sequence[tuple[str, int]],
        reduce: Sequence[tuple[str, int]],
        combine: str,
        init: float | int,
        acc_type: Attribute,
        body: Callable[[ElementBuilder, Index, Index], SSAValue],
        then: Then = identity_then,
    ) -> None:
        """dest[s] = then(s, combine over r of body(s, r)), with acc_type accumulation."""
        op = kernel.ComputeOp.build(
            self._name(stage), dest, spatial, reduce, combine, typed_attr(init, acc_type), with_then=True
        )
        k = len(spatial)
        b = ElementBuilder(op.body.block, k + len(reduce), self.buffers)
        s_idx: Index = [AffineExpr.dimension(d) for d in range(k)]
        r_idx: Index = [AffineExpr.dimension(k + d) for d in range(len(reduce))]
        term = body(b, s_idx, r_idx)
        op.body.block.add_op(kernel.YieldOp.create(operands=[term]))
        tb = ElementBuilder(op.then.block, k, self.buffers)
        value = tb.narrow(then(tb, s_idx, op.then.block.args[-1]), dest.type.get_element_type())  # type: ignore[attr-defined]
        op.then.block.add_op(kernel.YieldOp.create(operands=[value]))
        self.block.add_op(op)


# --------------------------------------------------------------------------- helpers


def _axes(prefix: str, shape: Sequence[int]) -> list[tuple[str, int]]:
    return [(f"{prefix}{d}", n) for d, n in enumerate(shape)]


def mul(b: ElementBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.MulfOp(x, y) if dtypes.is_float(x.type) else arith.MuliOp(x, y))


def add(b: ElementBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.emit(arith.AddfOp(x, y) if dtypes.is_float(x.type) else arith.AddiOp(x, y))


def read(b: ElementBuilder, v: SSAValue, idx: Index, pad: float | int | None = None) -> SSAValue:
    """Element of v, from its buffer with padding if given (v must then be a group input)."""
    if pad is None:
        return b.value(v, idx)
    return b.load(b.buffers[v], idx, element_of(v), pad=pad)


# --------------------------------------------------------------------------- anchors

Anchor = Callable[[KernelBuilder, Operation, list[SSAValue], Then], None]
ANCHORS: dict[type[Operation], Anchor] = {}


def anchor(*op_types: type[Operation]) -> Callable[[Anchor], Anchor]:
    def register(fn: Anchor) -> Anchor:
        for t in op_types:
            ANCHORS[t] = fn
        return fn

    return register


@anchor(tg.MatmulOp)
def _matmul(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    a, bv = op.operands
    sa, sb, sr = shape_of(a), shape_of(bv), shape_of(op.results[0])
    k = sa[-1]
    batch = len(sr) - (len(sa) > 1) - (len(sb) > 1)
    acc_t = compute_type(element_of(op.results[0]))

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        bidx = s[:batch]
        i = s[batch] if len(sa) > 1 else None
        j = s[batch + (len(sa) > 1)] if len(sb) > 1 else None

        def batched(shape: Sequence[int], tail: Index) -> Index:
            nb = len(shape) - len(tail)
            lead = bidx[len(bidx) - nb :] if nb else []
            return [AffineExpr.constant(0) if shape[d] == 1 else lead[d] for d in range(nb)] + tail

        a_idx = batched(sa, [i, r[0]] if i is not None else [r[0]])
        b_idx = batched(sb, [r[0], j] if j is not None else [r[0]])
        return mul(b, b.value(a, a_idx), b.value(bv, b_idx))

    kb.reduction("matmul", dests[0], element_of(op.results[0]), _axes("o", sr), [("k", k)], "add", 0, acc_t, body, then)


@anchor(tg.DensePackedOp)
def _dense_packed(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    a, w = op.operands
    sr = shape_of(op.results[0])
    blocks, k, nb = shape_of(w)
    acc_t = compute_type(element_of(op.results[0]))

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        n = s[-1]
        return mul(b, b.value(a, [*s[:-1], r[0]]), b.value(w, [n // nb, r[0], n % nb]))  # type: ignore[operator]

    kb.reduction("dense", dests[0], element_of(op.results[0]), _axes("o", sr), [("k", k)], "add", 0, acc_t, body, then)


@anchor(tg.GemmOp)
def _gemm(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    a, bv = op.operands[0], op.operands[1]
    c = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    trans_a, trans_b = flag(p, "trans_a"), flag(p, "trans_b")
    alpha, beta = floating(p, "alpha"), floating(p, "beta")
    mm, nn = shape_of(op.results[0])
    k = shape_of(a)[0] if trans_a else shape_of(a)[1]
    et = element_of(op.results[0])
    acc_t = compute_type(et)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        av = b.value(a, [r[0], s[0]] if trans_a else [s[0], r[0]])
        bw = b.value(bv, [s[1], r[0]] if trans_b else [r[0], s[1]])
        return mul(b, av, bw)

    def epilogue(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if dtypes.is_float(et):
            y = acc if alpha == 1.0 else b.emit(arith.MulfOp(acc, b.const(alpha, acc_t)))
            if c is not None and beta != 0.0:
                cv = b.value(c, _bcast(s, shape_of(c), (mm, nn)))
                y = b.emit(arith.AddfOp(y, cv if beta == 1.0 else b.emit(arith.MulfOp(cv, b.const(beta, acc_t)))))
        else:
            y = acc if alpha == 1.0 else b.emit(arith.MuliOp(acc, b.const(int(alpha), acc_t)))
            if c is not None and beta != 0.0:
                cv = b.value(c, _bcast(s, shape_of(c), (mm, nn)))
                y = b.emit(arith.AddiOp(y, cv if beta == 1.0 else b.emit(arith.MuliOp(cv, b.const(int(beta), acc_t)))))
        return then(b, s, y)

    kb.reduction("gemm", dests[0], et, _axes("o", (mm, nn)), [("k", k)], "add", 0, acc_t, body, epilogue)


def max_combiner(et: Attribute) -> str:
    """max of signed integers and floats; umax where the bits are read unsigned (or bool)."""
    return "umax" if is_unsigned(et) or dtypes.is_bool(et) else "max"


def _bcast(idx: Index, shape: Sequence[int], result: Sequence[int]) -> Index:
    offset = len(result) - len(shape)
    return [
        AffineExpr.constant(0) if n == 1 and result[offset + i] != 1 else idx[offset + i] for i, n in enumerate(shape)
    ]


def _windows(op: Operation) -> tuple[list[int], list[int], list[int], list[int]]:
    p = op.properties
    return list(ints(p, "kernel")), list(ints(p, "strides")), list(ints(p, "pads")), list(ints(p, "dilations"))


def _window_index(s: Index, r: Index, strides, pads, dilations) -> Index:
    sp = len(strides)
    return [s[0], s[1]] + [s[2 + d] * strides[d] - pads[d] + r[d] * dilations[d] for d in range(sp)]


@anchor(tg.MaxPool2dOp, tg.MaxPool3dOp)
def _max_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    kernel_, strides, pads, dilations = _windows(op)
    et = element_of(x)
    out_shape = shape_of(op.results[0])
    fill = lowest(et)
    spatial = _axes("o", out_shape)
    taps = [(f"t{d}", k) for d, k in enumerate(kernel_)]

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return read(b, x, _window_index(s, r, strides, pads, dilations), pad=fill)

    kb.reduction("max_pool", dests[0], et, spatial, taps, max_combiner(et), fill, compute_type(et), body, then)
    if len(dests) == 1:
        return
    # Indices: the smallest flat input index among in-bounds taps equal to the max (the
    # first in row-major window order, as ONNX), -1 when the window holds no input.
    in_shape = shape_of(x)
    order = integer(op.properties, "storage_order", default=0)
    big = (1 << 63) - 1
    values = dests[0]

    def index_body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        idx = _window_index(s, r, strides, pads, dilations)
        tap = read(b, x, idx, pad=fill)
        best = b.load(values, s, et)
        inside = b.in_bounds(idx[2:], in_shape[2:])
        hit = b.emit(arith.CmpfOp(tap, best, "oeq") if dtypes.is_float(et) else arith.CmpiOp(tap, best, "eq"))
        cond = hit if inside is None else b.emit(arith.AndIOp(inside, hit))
        h, w = (idx[2], idx[3]) if len(idx) == 4 else (None, None)
        if order == 1 and h is not None:
            inner = h + w * in_shape[2]  # type: ignore[operator]
        else:
            inner = AffineExpr.constant(0)
            for d, e in enumerate(idx[2:]):
                inner = inner * in_shape[2 + d] + e  # type: ignore[operator]
        flat = (s[0] * in_shape[1] + s[1]) * math.prod(in_shape[2:]) + inner  # type: ignore[operator]
        flat_i64 = b.emit(arith.IndexCastOp(b.ssa(flat), i64))
        return b.emit(arith.SelectOp(cond, flat_i64, b.const(big, i64)))

    def none_is_minus_one(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        empty = b.emit(arith.CmpiOp(acc, b.const(big, i64), "eq"))
        return b.emit(arith.SelectOp(empty, b.const(-1, i64), acc))

    kb.reduction("max_pool_indices", dests[1], i64, spatial, taps, "min", big, i64, index_body, none_is_minus_one)


@anchor(tg.AvgPool2dOp, tg.AvgPool3dOp)
def _avg_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    kernel_, strides, pads, dilations = _windows(op)
    include_pad = flag(op.properties, "count_include_pad")
    et = element_of(x)
    acc_t = compute_type(et)
    in_shape = shape_of(x)
    sp = len(kernel_)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return read(b, x, _window_index(s, r, strides, pads, dilations), pad=0)

    def divide(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        count: SSAValue | None = None
        for d in range(sp):
            lo, hi = (-pads[d], in_shape[2 + d] + pads[sp + d]) if include_pad else (0, in_shape[2 + d])
            c = _tap_count(b, s[2 + d] * strides[d] - pads[d], kernel_[d], dilations[d], lo, hi)
            count = c if count is None else b.emit(arith.MuliOp(count, c))
        assert count is not None
        as_float = b.emit(arith.SIToFPOp(b.emit(arith.IndexCastOp(count, i64)), acc_t))
        return then(b, s, b.emit(arith.DivfOp(acc, as_float)))

    kb.reduction(
        "avg_pool",
        dests[0],
        et,
        _axes("o", shape_of(op.results[0])),
        [(f"t{d}", k) for d, k in enumerate(kernel_)],
        "add",
        0,
        acc_t,
        body,
        divide,
    )


def _tap_count(b: ElementBuilder, start: AffineExpr, k: int, dilation: int, lo: int, hi: int) -> SSAValue:
    """How many taps start + t*dilation (t < k) fall in [lo, hi): index arithmetic."""
    zero, km1 = b.const(0, IndexType()), b.const(k - 1, IndexType())
    st = b.ssa(start)
    d = b.const(dilation, IndexType())
    first = b.emit(arith.CeilDivSIOp(b.emit(arith.SubiOp(b.const(lo, IndexType()), st)), d))
    first = b.emit(arith.MaxSIOp(first, zero))
    last = b.emit(arith.FloorDivSIOp(b.emit(arith.SubiOp(b.const(hi - 1, IndexType()), st)), d))
    last = b.emit(arith.MinSIOp(last, km1))
    count = b.emit(arith.AddiOp(b.emit(arith.SubiOp(last, first)), b.const(1, IndexType())))
    return b.emit(arith.MaxSIOp(count, zero))


@anchor(tg.GlobalAvgPool2dOp)
def _global_avg_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    n, c, h, w = shape_of(x)
    et = element_of(x)
    acc_t = compute_type(et)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return b.value(x, [s[0], s[1], r[0], r[1]])

    def scale(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, b.emit(arith.MulfOp(acc, b.const(1.0 / (h * w), acc_t))))

    kb.reduction(
        "global_avg_pool", dests[0], et, _axes("o", (n, c, 1, 1)), [("h", h), ("w", w)], "add", 0, acc_t, body, scale
    )


def reduce_index(s: Index, r: Index, axes: Sequence[int], rank: int, keepdims: bool) -> Index:
    """The input index of a reduction: reduced dims from r, the others from s."""
    out: Index = []
    si = ri = 0
    for d in range(rank):
        if d in axes:
            out.append(r[ri])
            ri += 1
            if keepdims:
                si += 1
        else:
            out.append(s[si])
            si += 1
    return out


@anchor(tg.ReduceSumOp, tg.ReduceMeanOp, tg.ReduceMaxOp)
def _reduce(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    axes = list(ints(op.properties, "axes"))
    keepdims = flag(op.properties, "keepdims")
    in_shape = shape_of(x)
    et = element_of(x)
    kind = op.name.removeprefix("tg.reduce_")
    acc_t = compute_type(et)
    count = math.prod(in_shape[a] for a in axes)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return b.value(x, reduce_index(s, r, axes, len(in_shape), keepdims))

    def finish(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if kind != "mean":
            return then(b, s, acc)
        if dtypes.is_float(et):
            return then(b, s, b.emit(arith.DivfOp(acc, b.const(float(count), acc_t))))
        wide = b.emit(arith.UIToFPOp(acc, f64) if is_unsigned(et) else arith.SIToFPOp(acc, f64))
        mean = b.emit(arith.DivfOp(wide, b.const(float(count), f64)))
        return then(b, s, b.emit(arith.FPToUIOp(mean, acc_t) if is_unsigned(et) else arith.FPToSIOp(mean, acc_t)))

    combine = max_combiner(et) if kind == "max" else "add"
    init = lowest(et) if kind == "max" else 0
    kb.reduction(
        f"reduce_{kind}",
        dests[0],
        et,
        _axes("o", shape_of(op.results[0])),
        [(f"r{d}", in_shape[a]) for d, a in enumerate(axes)],
        combine,
        init,
        acc_t,
        body,
        finish,
    )


def _along_axis(
    kb: KernelBuilder,
    x: SSAValue,
    axes: Sequence[int],
    name: str,
    combine: str,
    init: float,
    term: Callable[[ElementBuilder, Index], SSAValue],
    scale: float | None = None,
) -> SSAValue:
    """A temporary holding combine over `axes` of term(x index), reduced dims kept as 1."""
    shape = shape_of(x)
    et = element_of(x)
    acc_t = compute_type(et)
    kept = tuple(1 if d in axes else n for d, n in enumerate(shape))
    temp = kb.temp(TensorType(acc_t, kept), name)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return term(b, reduce_index(s, r, axes, len(shape), True))

    def finish(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return acc if scale is None else b.emit(arith.MulfOp(acc, b.const(scale, acc_t)))

    kb.reduction(
        name,
        temp,
        acc_t,
        _axes("o", kept),
        [(f"r{d}", shape[a]) for d, a in enumerate(axes)],
        combine,
        init,
        acc_t,
        body,
        finish,
    )
    return temp


def _stat(b: ElementBuilder, temp: SSAValue, idx: Index, axes: Sequence[int]) -> SSAValue:
    return b.load(
        temp, [AffineExpr.constant(0) if d in axes else e for d, e in enumerate(idx)], temp.type.get_element_type()
    )  # type: ignore[attr-defined]


@anchor(tg.SoftmaxOp, tg.LogSoftmaxOp)
def _softmax(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    axis = [integer(op.properties, "axis")]
    et = element_of(x)
    peak = _along_axis(kb, x, axis, "max", "max", -math.inf, lambda b, i: b.value(x, i))

    def shifted(b: ElementBuilder, i: Index) -> SSAValue:
        return b.emit(arith.SubfOp(b.value(x, i), _stat(b, peak, i, axis)))

    total = _along_axis(kb, x, axis, "sum", "add", 0.0, lambda b, i: b.emit(mathd.ExpOp(shifted(b, i))))
    log = isinstance(op, tg.LogSoftmaxOp)

    def out(b: ElementBuilder, i: Index) -> SSAValue:
        z = shifted(b, i)
        s = _stat(b, total, i, axis)
        if log:
            y = b.emit(arith.SubfOp(z, b.emit(mathd.LogOp(s))))
        else:
            y = b.emit(arith.DivfOp(b.emit(mathd.ExpOp(z)), s))
        return then(b, i, y)

    kb.elementwise("log_softmax" if log else "softmax", dests[0], et, out)


@anchor(tg.LayerNormOp)
def _layer_norm(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x, scale = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    axis = integer(op.properties, "axis")
    eps = floating(op.properties, "epsilon")
    shape = shape_of(x)
    axes = list(range(axis, len(shape)))
    et = element_of(x)
    n = math.prod(shape[axis:])
    inv_n = 1.0 / n if n else math.nan
    mean = _along_axis(kb, x, axes, "mean", "add", 0.0, lambda b, i: b.value(x, i), inv_n)

    def centered(b: ElementBuilder, i: Index) -> SSAValue:
        return b.emit(arith.SubfOp(b.value(x, i), _stat(b, mean, i, axes)))

    var = _along_axis(
        kb, x, axes, "var", "add", 0.0, lambda b, i: (lambda c: b.emit(arith.MulfOp(c, c)))(centered(b, i)), inv_n
    )
    normalized = shape[axis:]

    def out(b: ElementBuilder, i: Index) -> SSAValue:
        v = _stat(b, var, i, axes)
        inv = b.emit(mathd.SqrtOp(b.emit(arith.AddfOp(v, b.const(eps, v.type)))))
        y = b.emit(arith.DivfOp(centered(b, i), inv))
        y = b.emit(arith.MulfOp(y, b.value(scale, _bcast(i[axis:], shape_of(scale), normalized))))
        if bias is not None:
            y = b.emit(arith.AddfOp(y, b.value(bias, _bcast(i[axis:], shape_of(bias), normalized))))
        return then(b, i, y)

    kb.elementwise("layer_norm", dests[0], et, out)


# --------------------------------------------------------------------------- groups


def lower_group(kb: KernelBuilder, fused: tg.FusedOp, dests: list[SSAValue]) -> None:
    """All stages of one tg.fused, writing its results into `dests`."""
    block = fused.body.block
    for arg, memref_value in zip(block.args, kb.block.args):
        kb.buffers[arg] = memref_value
    yielded = list(block.last_op.operands)  # type: ignore[union-attr]
    anchors = [op for op in block.ops if type(op) in ANCHORS]
    if not anchors:
        for value, dest in zip(yielded, dests):
            kb.elementwise(fused.kind.data, dest, element_of(value), lambda b, i, v=value: b.value(v, i))
        return
    if len(anchors) > 1:
        raise NotImplementedError(
            f"it holds {len(anchors)} anchor ops ({', '.join(op.name for op in anchors)}); a kernel has one"
        )
    (anchor_op,) = anchors
    if len(yielded) > 1 and yielded != list(anchor_op.results):
        raise NotImplementedError(
            f"it yields {len(yielded)} values; a group around {anchor_op.name} yields only that op's results"
        )
    sink = yielded[0]
    rule = ANCHORS[type(anchor_op)]
    if len(yielded) > 1 or sink is anchor_op.results[0]:
        rule(kb, anchor_op, dests, identity_then)
        return
    result = anchor_op.results[0]
    if shape_of(sink) == shape_of(result):

        def epilogue(b: ElementBuilder, idx: Index, acc: SSAValue) -> SSAValue:
            b.bind(result, idx, acc)
            return b.value(sink, idx)

        rule(kb, anchor_op, dests, epilogue)
        return
    temp = kb.temp(result.type, "anchor")  # type: ignore[arg-type]
    rule(kb, anchor_op, [temp], identity_then)
    kb.buffers[result] = temp
    kb.elementwise(fused.kind.data, dests[0], element_of(sink), lambda b, i: b.value(sink, i))
