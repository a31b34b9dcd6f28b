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
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, MemRefType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import kernel, tg
from tessel.dialects.tg.base import flag, floating, integer
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import expr
from tessel.passes.tg.lowering.rfactor import reads_row, rfactor_width
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    Index,
    compute_type,
    element_of,
    is_unsigned,
    shape_of,
    storage_type,
    typed_attr,
)

# A `then` function: given the builder of the then region, the spatial index and the
# reduced value (compute type), return the value to store (compute type).
Then = Callable[[ElementBuilder, Index, SSAValue], SSAValue]


def _buffer_type(v: SSAValue) -> MemRefType:
    """The type of a kernel buffer: a memref, by construction."""
    assert isinstance(v.type, MemRefType), v.type
    return v.type


def _copy_of(v: SSAValue) -> Callable[[ElementBuilder, Index], SSAValue]:
    """The element function of a stage that copies the tg value v."""
    return lambda b, idx: b.value(v, idx)


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
        shape = _buffer_type(dest).get_shape()
        axes = [(f"i{d}", n) for d, n in enumerate(shape)]
        op = kernel.ComputeOp.build(self._name(stage), dest, axes)
        b = ElementBuilder(op.body.block, len(axes), self.buffers)
        idx: Index = [AffineExpr.dimension(d) for d in range(len(axes))]
        value = b.narrow(fn(b, idx), _buffer_type(dest).get_element_type())
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
        lanes: str | None = None,
    ) -> None:
        """dest[s] = then(s, combine over r of body(s, r)), with acc_type accumulation;
        `lanes` names the spatial axis to vectorize when not the innermost (kernel.compute).

        A float reduction whose output rows have no vector axis (the innermost spatial extent
        under 4: softmax's and layer norm's sums, a reduction to a scalar) but whose innermost
        reduction axis reads contiguous elements is split as TVM's rfactor does: a stage of
        `width` interleaved partial results per row (spatial axes + `rf`, vectorized along
        `rf` by the default schedule) and a stage combining them. Without it the sum is one
        scalar loop with a serial dependence (whisper's softmax: 2.8 ns an element)."""
        name = self._name(stage)
        op = self._reduction_op(name, dest, spatial, reduce, combine, init, acc_type, body, then, lanes)
        width = rfactor_width(op, spatial, reduce, combine, acc_type) if lanes is None else 0
        if not width:
            self.block.add_op(op)
            return
        k, (axis, extent) = len(spatial), reduce[-1]
        t = TensorType(acc_type, [*(n for _, n in spatial), width])
        part = self.placeholder(t, self.temp(t, f"{name}_rf"))

        def partial(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            at = expr(r[-1]) * width + expr(s[k])
            if extent % width == 0:
                return body(b, s[:k], [*r[:-1], at])
            # the last step's lanes past the row's end (ViT's 197 tokens in 13 x 16): read
            # guarded (padded, never faulting) and replaced by the combine's identity
            b.guarded += 1
            b.guard_pad = init  # (past the row's end a read gives the combine's identity)
            try:
                term = body(b, s[:k], [*r[:-1], at])
            finally:
                b.guarded -= 1
                b.guard_pad = 0
            if reads_row(term, at, extent):
                return term  # the load itself reads the identity past the row's end
            inside = b.in_bounds([at], [extent])
            assert inside is not None
            return b.emit(arith.SelectOp(inside, term, b.const(init, term.type)))

        steps = -(-extent // width)
        spatial_rf, reduce_rf = [*spatial, ("rf", width)], [*reduce[:-1], (axis, steps)]
        self.block.add_op(
            self._reduction_op(
                f"{name}_rf", self.buffers[part], spatial_rf, reduce_rf, combine, init, acc_type, partial
            )
        )
        final = self._reduction_op(
            name,
            dest,
            spatial,
            [("rf", width)],
            combine,
            init,
            acc_type,
            lambda b, s, r: b.value(part, [*s, r[0]]),
            then,
        )
        self.block.add_op(final)

    def _reduction_op(
        self,
        name: str,
        dest: SSAValue,
        spatial: Sequence[tuple[str, int]],
        reduce: Sequence[tuple[str, int]],
        combine: str,
        init: float | int,
        acc_type: Attribute,
        body: Callable[[ElementBuilder, Index, Index], SSAValue],
        then: Then = identity_then,
        lanes: str | None = None,
    ) -> kernel.ComputeOp:
        op = kernel.ComputeOp.build(
            name, dest, spatial, reduce, combine, typed_attr(init, acc_type), with_then=True, lanes=lanes
        )
        k = len(spatial)
        b = ElementBuilder(op.body.block, k + len(reduce), self.buffers)
        s_idx: Index = [AffineExpr.dimension(d) for d in range(k)]
        r_idx: Index = [AffineExpr.dimension(k + d) for d in range(len(reduce))]
        term = body(b, s_idx, r_idx)
        op.body.block.add_op(kernel.YieldOp.create(operands=[term]))
        tb = ElementBuilder(op.then.block, k, self.buffers)
        value = tb.narrow(then(tb, s_idx, op.then.block.args[-1]), _buffer_type(dest).get_element_type())
        op.then.block.add_op(kernel.YieldOp.create(operands=[value]))
        return op


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
        n = expr(s[-1])
        return mul(b, b.value(a, [*s[:-1], r[0]]), b.value(w, [n // nb, r[0], n % nb]))

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


def _window_index(s: Index, r: Index, strides: Sequence[int], pads: Sequence[int], dilations: Sequence[int]) -> Index:
    sp = len(strides)
    return [s[0], s[1]] + [expr(s[2 + d]) * strides[d] - pads[d] + expr(r[d]) * dilations[d] for d in range(sp)]


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


def _along_axis(
    kb: KernelBuilder,
    x: SSAValue,
    axes: Sequence[int],
    name: str,
    combine: str,
    init: float,
    term: Callable[[ElementBuilder, Index], SSAValue],
    scale: float | None = None,
    acc_type: Attribute | None = None,
) -> SSAValue:
    """A temporary holding combine over `axes` of term(x index), reduced dims kept as 1,
    accumulated in `acc_type` (default: the compute type of x's elements)."""
    shape = shape_of(x)
    et = element_of(x)
    acc_t = acc_type or compute_type(et)
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
    element = _buffer_type(temp).get_element_type()
    return b.load(temp, [AffineExpr.constant(0) if d in axes else e for d, e in enumerate(idx)], element)


def round_to(b: ElementBuilder, x: SSAValue, element: Attribute) -> SSAValue:
    """x (a compute-type value) rounded to a 16-bit float `element`, still in the compute
    type; other element types are left alone."""
    if not isinstance(element, Float16Type | BFloat16Type):
        return x
    return b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(x, element)), compute_type(element)))


@anchor(tg.SoftmaxOp, tg.LogSoftmaxOp)
def _softmax(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """max, then the sum of exp(x - max), then the quotient (x - max - log(sum) for
    log_softmax); an f32 softmax writes exp(x - max) to its output, sums that and scales it
    in place. A 16-bit softmax rounds every step to its type as ONNX's reference does
    (dialects/tg/reference.py softmax): a bf16 sum accumulates in bf16."""
    x = op.operands[0]
    axis = [integer(op.properties, "axis")]
    et = element_of(x)
    log = isinstance(op, tg.LogSoftmaxOp)
    steps = et if not log else None  # the type every step of a softmax rounds to
    peak = _along_axis(kb, x, axis, "max", "max", -math.inf, lambda b, i: b.value(x, i))

    def shifted(b: ElementBuilder, i: Index) -> SSAValue:
        z = b.emit(arith.SubfOp(b.value(x, i), _stat(b, peak, i, axis)))
        return round_to(b, z, steps) if steps else z

    def exp(b: ElementBuilder, i: Index) -> SSAValue:
        e = b.emit(mathd.ExpOp(shifted(b, i)))
        return round_to(b, e, steps) if steps else e

    if not log and isinstance(et, Float32Type) and _buffer_type(dests[0]).get_element_type() == et:
        # exp(x - max) once, into the output; its sum; the output scaled by 1 / sum in
        # place (onnxruntime's MLAS likewise): one exponential per element, not two, and a
        # multiplication for the division
        kb.elementwise("exp", dests[0], et, exp)
        total = _along_axis(kb, x, axis, "sum", "add", 0.0, lambda b, i: b.load(dests[0], i, et))

        def scaled(b: ElementBuilder, i: Index) -> SSAValue:
            inverse = b.emit(arith.DivfOp(b.const(1.0, et), _stat(b, total, i, axis)))
            return then(b, i, b.emit(arith.MulfOp(b.load(dests[0], i, et), inverse)))

        kb.elementwise("softmax", dests[0], et, scaled)
        return

    if isinstance(steps, BFloat16Type):  # each partial sum rounds: accumulate in bf16

        def in_bf16(b: ElementBuilder, i: Index) -> SSAValue:
            return b.emit(arith.TruncFOp(b.emit(mathd.ExpOp(shifted(b, i))), steps))

        total = _along_axis(kb, x, axis, "sum", "add", 0.0, in_bf16, acc_type=steps)
    else:
        total = _along_axis(kb, x, axis, "sum", "add", 0.0, exp)

    def out(b: ElementBuilder, i: Index) -> SSAValue:
        s = _stat(b, total, i, axis)
        if log:
            y = b.emit(arith.SubfOp(shifted(b, i), b.emit(mathd.LogOp(s))))
        else:
            s = round_to(b, s, steps) if steps and not isinstance(steps, BFloat16Type) else s
            y = b.emit(arith.DivfOp(exp(b, i), s))
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
    assert block.last_op is not None  # the group ends in tg.yield
    yielded = list(block.last_op.operands)
    anchors = [op for op in block.ops if type(op) in ANCHORS]
    if not anchors:
        for value, dest in zip(yielded, dests):
            kb.elementwise(fused.kind.data, dest, element_of(value), _copy_of(value))
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
            b.bind(result, idx, b.rounded(acc, element_of(result)))
            return b.value(sink, idx)

        rule(kb, anchor_op, dests, epilogue)
        return
    temp = kb.temp(result.type, "anchor")
    rule(kb, anchor_op, [temp], identity_then)
    kb.buffers[result] = temp
    kb.elementwise(fused.kind.data, dests[0], element_of(sink), lambda b, i: b.value(sink, i))
