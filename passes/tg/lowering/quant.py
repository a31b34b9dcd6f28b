"""Kernels of the quantization ops (dialects/tg/quant.py).

`tg.quantize`, `tg.dequantize` and `tg.requantize` are element-wise rules: float division
or multiplication, round half to even (`math.roundeven`, one instruction on x86 and
NVPTX), saturation by min/max; they fuse into whatever kernel consumes or produces them.
`tg.matmul_integer` and `tg.conv2d_integer` are anchors whose reduction keeps the integer
structure: 8-bit loads widened to i32, the zero point subtracted (left out when it is a
known zero), an i32 multiply-add; the requantize epilogue goes in their `then` region. The
convolution reads a copy of its input padded with the input's zero point, so its hot loop
has no bounds checks and the padding contributes zero after centering.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, Float64Type, IntegerType, TensorType, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import kernel, tg
from tessel.dialects.tg.base import integer, ints
from tessel.dialects.tg.quant import DOT_BYTES, dequantize_precision, int_kind, quant_range
from tessel.passes.tg.lowering.index_maps import Index, broadcast_index, expr
from tessel.passes.tg.lowering.scalar import ElementBuilder, element_of, is_unsigned, rule, shape_of, storage_type
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, _axes, anchor

# --------------------------------------------------------------------------- helpers


def operand_at(b: ElementBuilder, v: SSAValue, idx: Index, shape: Sequence[int]) -> SSAValue:
    """Element of v (which broadcasts to `shape`) at the index `idx` into `shape`."""
    return b.value(v, broadcast_index(idx, shape_of(v), shape))


# The ops whose kernels depend on the values of inline-constant inputs (through
# known_value): groups holding one share a kernel only with equal such values.
READS_CONSTANT_INPUTS = (tg.MatmulIntegerOp, tg.Conv2dIntegerOp, tg.Conv2dIntegerPackedOp)


def known_value(v: SSAValue) -> np.ndarray | None:
    """The value of a tg.constant feeding `v` (directly, or through the fused group's
    block argument), else None."""
    owner = v.owner
    if isinstance(owner, Block) and isinstance(owner.parent_op(), tg.FusedOp):
        v = owner.parent_op().operands[v.index]  # type: ignore[union-attr, attr-defined]
        owner = v.owner
    if isinstance(owner, tg.ConstantOp):
        return tg.constant_value(owner)
    return None


def is_zero(v: SSAValue) -> bool:
    value = known_value(v)
    return value is not None and not np.any(value)


def to_float(b: ElementBuilder, x: SSAValue, element: Attribute, t: AnyFloat) -> SSAValue:
    """An integer of tg element type `element` (signless in the kernel) as float type t."""
    return b.emit(arith.UIToFPOp(x, t) if is_unsigned(element) else arith.SIToFPOp(x, t))


def widen_int(b: ElementBuilder, x: SSAValue, element: Attribute, t: IntegerType) -> SSAValue:
    """An integer of tg element type `element` sign- or zero-extended to integer type t."""
    if x.type == t:
        return x
    return b.emit(arith.ExtUIOp(x, t) if is_unsigned(element) else arith.ExtSIOp(x, t))


def round_to(b: ElementBuilder, x: SSAValue, element: Attribute) -> SSAValue:
    """x (compute type) rounded to the float type `element` when that is narrower (f16 and
    bf16 are carried as f32: the rounding ONNX's reference does at each step)."""
    if isinstance(element, Float16Type | BFloat16Type):
        return b.emit(arith.ExtFOp(b.emit(arith.TruncFOp(x, storage_type(element))), x.type))
    return x


def to_precision(b: ElementBuilder, x: SSAValue, t: AnyFloat) -> SSAValue:
    if x.type == t:
        return x
    if isinstance(t, Float64Type):
        return b.emit(arith.ExtFOp(x, t))
    return b.emit(arith.TruncFOp(x, t))


def saturate(b: ElementBuilder, rounded: SSAValue, zp: SSAValue, zp_element: Attribute, out: Attribute) -> SSAValue:
    """rounded + zp saturated to the quantized type `out` (NaN to its lowest value)."""
    t = rounded.type
    assert isinstance(t, AnyFloat)
    lo, hi = quant_range(out)
    value = b.emit(arith.AddfOp(rounded, to_float(b, zp, zp_element, t)))
    # maxnum/minnum return the other operand where one is NaN: NaN saturates to `lo`, with
    # no compare and select (which xDSL has only for scalars: one per vector lane)
    clamped = b.emit(arith.MinnumfOp(b.emit(arith.MaxnumfOp(value, b.const(lo, t))), b.const(hi, t)))
    st = storage_type(out)
    assert isinstance(st, IntegerType)
    return b.emit(arith.FPToUIOp(clamped, st) if is_unsigned(out) else arith.FPToSIOp(clamped, st))


# --------------------------------------------------------------------------- element-wise


@rule(tg.QuantizeOp)
def _quantize(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    shape = shape_of(op.results[0])
    x, scale, zp = (operand_at(b, v, idx, shape) for v in op.operands)
    quotient = round_to(b, b.emit(arith.DivfOp(x, scale)), element_of(op.operands[0]))
    rounded = b.emit(mathd.RoundEvenOp(quotient))
    return saturate(b, rounded, zp, element_of(op.operands[2]), element_of(op.results[0]))


@rule(tg.DequantizeOp)
def _dequantize(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    shape = shape_of(op.results[0])
    x, scale, zp = (operand_at(b, v, idx, shape) for v in op.operands)
    et = element_of(op.operands[0])
    precision = dequantize_precision(element_of(op.operands[1]))
    assert isinstance(precision, AnyFloat)
    wide = i64 if int_kind(et) == (32, True) else i32
    difference = b.emit(arith.SubiOp(widen_int(b, x, et, wide), widen_int(b, zp, et, wide)))
    as_float = b.emit(arith.SIToFPOp(difference, precision))
    return b.emit(arith.MulfOp(as_float, to_precision(b, scale, precision)))


@rule(tg.RequantizeOp)
def _requantize(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    shape = shape_of(op.results[0])
    acc, sa, sb, sy, zp = (operand_at(b, v, idx, shape) for v in op.operands)
    scales = element_of(op.operands[1])
    multiplier = round_to(b, b.emit(arith.MulfOp(sa, sb)), scales)
    multiplier = round_to(b, b.emit(arith.DivfOp(multiplier, sy)), scales)
    assert isinstance(op, tg.RequantizeOp)
    precision = op.precision
    assert isinstance(precision, AnyFloat)
    product = b.emit(arith.MulfOp(b.emit(arith.SIToFPOp(acc, precision)), to_precision(b, multiplier, precision)))
    rounded = b.emit(mathd.RoundEvenOp(product))
    return saturate(b, rounded, zp, element_of(op.operands[4]), element_of(op.results[0]))


# --------------------------------------------------------------------------- contractions


def centered(b: ElementBuilder, x: SSAValue, element: Attribute, zp: SSAValue | None) -> SSAValue:
    """x - zp as i32 (8-bit values widened); without a zero point, x widened."""
    wide = widen_int(b, x, element, i32)
    if zp is None:
        return wide
    return b.emit(arith.SubiOp(wide, widen_int(b, zp, element, i32)))


@anchor(tg.MatmulIntegerOp)
def _matmul_integer(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    a, bv, az, bz = op.operands
    sa, sb, sr = shape_of(a), shape_of(bv), shape_of(op.results[0])
    ea, eb = element_of(a), element_of(bv)
    a_zero, b_zero = is_zero(az), is_zero(bz)
    batch = len(sr) - (len(sa) > 1) - (len(sb) > 1)

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
        x = centered(b, b.value(a, a_idx), ea, None if a_zero else operand_at(b, az, a_idx, sa))
        y = centered(b, b.value(bv, b_idx), eb, None if b_zero else operand_at(b, bz, b_idx, sb))
        return b.emit(arith.MuliOp(x, y))

    kb.reduction("matmul_integer", dests[0], i32, _axes("o", sr), [("k", sa[-1])], "add", 0, i32, body, then)


def padded_with_zero_point(
    kb: KernelBuilder, x: SSAValue, pads: Sequence[int], zp: SSAValue, zero: bool
) -> tuple[SSAValue, list[int]]:
    """A temporary copy of NCHW x with borders holding the zero point (stage `pad`); x
    itself without padding. Returns the buffer and the pads left to apply (zero)."""
    if not any(pads):
        return x, list(pads)
    n, c, h, w = shape_of(x)
    t = TensorType(element_of(x), [n, c, h + pads[0] + pads[2], w + pads[1] + pads[3]])
    temp = kb.temp(t, "padded")
    source = kb.buffers[x]
    et = element_of(x)

    def copy(b: ElementBuilder, idx: Index) -> SSAValue:
        src: Index = [idx[0], idx[1], expr(idx[2]) - pads[0], expr(idx[3]) - pads[1]]
        inner = b.load(source, src, et, pad=0)
        if zero:
            return inner
        inside = b.in_bounds(src[2:], (h, w))
        assert inside is not None
        return b.emit(arith.SelectOp(inside, inner, b.value(zp, [])))

    kb.elementwise("pad", temp, et, copy)
    return kb.placeholder(t, temp), [0, 0, 0, 0]


@anchor(tg.Conv2dIntegerOp)
def _conv2d_integer(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x, w, xz, wz = op.operands
    p = op.properties
    strides, pads, dilations, groups = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), integer(p, "groups")
    n, m, oh, ow = shape_of(op.results[0])
    _, cg, kh, kw = shape_of(w)
    mg = m // groups
    ex, ew = element_of(x), element_of(w)
    x_zero, w_zero = is_zero(xz), is_zero(wz)
    x, _ = padded_with_zero_point(kb, x, pads, xz, x_zero)
    per_channel = len(shape_of(wz)) == 1

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        channel = r[0] if groups == 1 else (expr(s[1]) // mg) * cg + expr(r[0])
        h = expr(s[2]) * strides[0] + expr(r[1]) * dilations[0]
        wi = expr(s[3]) * strides[1] + expr(r[2]) * dilations[1]
        xv = centered(b, b.value(x, [s[0], channel, h, wi]), ex, None if x_zero else b.value(xz, []))
        wzv = None if w_zero else b.value(wz, [s[1]] if per_channel else [])
        wv = centered(b, b.value(w, [s[1], r[0], r[1], r[2]]), ew, wzv)
        return b.emit(arith.MuliOp(xv, wv))

    kb.reduction(
        "conv_integer",
        dests[0],
        i32,
        _axes("o", (n, m, oh, ow)),
        [("c", cg), ("kh", kh), ("kw", kw)],
        "add",
        0,
        i32,
        body,
        then,
    )


@anchor(tg.Conv2dIntegerPackedOp)
def _conv2d_integer_packed(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Two stages. `pack` writes the input as i32 words of four channels' unsigned bytes
    (int8 with its sign bit flipped: x + 128), padded with the zero point, [N, C/4, H', W'];
    `conv` accumulates kernel.dot4 of those words and the packed weights, vectorized along
    the output channels (`lanes`: 16 per block, contiguous in the packed weight) with rows
    of output pixels, each pixel's word broadcast: one vpdpbusd per four input channels,
    16 output channels and one pixel."""
    x, w, xz, offset = op.operands
    p = op.properties
    strides, pads, dilations = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations")
    n, m, oh, ow = shape_of(op.results[0])
    _, c4, kh, kw, block = shape_of(w)
    _, c, h, wd = shape_of(x)
    ex = element_of(x)
    t = TensorType(i32, [n, c4, h + pads[0] + pads[2], wd + pads[1] + pads[3]])
    words = kb.temp(t, "packed")
    source = kb.buffers[x]

    def unsigned_byte(b: ElementBuilder, v: SSAValue) -> SSAValue:
        if not is_unsigned(ex):
            v = b.emit(arith.XOrIOp(v, b.const(-128, v.type)))
        return b.emit(arith.ExtUIOp(v, i32))

    # the border reads the zero point: as the load's pad where it is a constant (a masked
    # vector load), else selected (per lane); channels past C read it too, or 0 (their
    # packed weights are 0: any value would do)
    zero = known_value(xz)
    pad = int(zero.reshape(()).view(np.int8)) if zero is not None else 0

    def pack(b: ElementBuilder, idx: Index) -> SSAValue:
        hw: Index = [expr(idx[2]) - pads[0], expr(idx[3]) - pads[1]]
        inside = b.in_bounds(hw, (h, wd)) if any(pads) and zero is None else None
        word = None
        for j in range(DOT_BYTES):
            byte = b.load(source, [idx[0], expr(idx[1]) * DOT_BYTES + j, *hw], ex, pad=pad)
            if inside is not None:
                byte = b.emit(arith.SelectOp(inside, byte, b.value(xz, [])))
            part = unsigned_byte(b, byte)
            if j:
                part = b.emit(arith.ShLIOp(part, b.const(8 * j, i32)))
            word = part if word is None else b.emit(arith.OrIOp(word, part))
        assert word is not None
        return word

    kb.elementwise("pack", words, i32, pack)
    packed = kb.placeholder(t, words)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        hi = expr(s[2]) * strides[0] + expr(r[1]) * dilations[0]
        wi = expr(s[3]) * strides[1] + expr(r[2]) * dilations[1]
        a = b.value(packed, [s[0], r[0], hi, wi])
        weights = b.value(w, [expr(s[1]) // block, r[0], r[1], r[2], expr(s[1]) % block])
        return b.emit(kernel.Dot4Op.create(operands=[b.const(0, i32), a, weights], result_types=[i32]))

    def with_offset(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, b.emit(arith.AddiOp(acc, b.value(offset, [s[1]]))))

    spatial = _axes("o", (n, m, oh, ow))
    kb.reduction(
        "conv_dot4",
        dests[0],
        i32,
        spatial,
        [("c4", c4), ("kh", kh), ("kw", kw)],
        "add",
        0,
        i32,
        body,
        with_offset,
        lanes=spatial[1][0],
    )
