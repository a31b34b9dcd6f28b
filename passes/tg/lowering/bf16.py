"""The kernel.compute stages of tg.dense_packed_bf16 and tg.conv2d_nchwc_bf16
(passes/tg/bf16_dense.py, bf16_conv.py).

Two stages. `pairs` rounds the activations to bfloat16 (to nearest even, in integer
arithmetic on the float's bits: a float32 -> bfloat16 fptrunc would be vcvtneps2bf16 on a
CPU with AVX512-BF16, which flushes subnormals) and packs each two neighbours along K into
an i32 word, [..., M, K/2]. `dense_bf16` accumulates kernel.bf16dot2 of a word (broadcast
over the lanes) and the weight's words of 16 columns: vectorized along the columns as
dense_packed is, one vdpbf16ps per two steps of K where the CPU has it. The convolution
is the same: its `pairs` stage packs two input channels of a pixel, with the zero padding
(the copy conv2d_nchwc's `pad` stage makes anyway), and the reduction runs over the pairs.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, f32, i32
from xdsl.ir import Operation, SSAValue

from tessel.dialects import kernel, tg
from tessel.dialects.tg.base import ints
from tessel.passes.tg.lowering.conv_stages import blocked_epilogue
from tessel.passes.tg.lowering.index_maps import expr
from tessel.passes.tg.lowering.scalar import ElementBuilder, Index, shape_of
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, _axes, _window_index, anchor


def bf16_bits(b: ElementBuilder, x: SSAValue) -> SSAValue:
    """The bfloat16 nearest to float32 x (ties to even) as the low 16 bits of an i32; a NaN
    stays a (quiet) NaN."""
    u = b.emit(arith.BitcastOp(x, i32))
    sixteen = b.const(16, i32)
    lsb = b.emit(arith.AndIOp(b.emit(arith.ShRUIOp(u, sixteen)), b.const(1, i32)))
    biased = b.emit(arith.AddiOp(b.emit(arith.AddiOp(u, b.const(0x7FFF, i32))), lsb))
    rounded = b.emit(arith.ShRUIOp(biased, sixteen))
    quiet = b.emit(arith.OrIOp(b.emit(arith.ShRUIOp(u, sixteen)), b.const(0x40, i32)))
    nan = b.emit(arith.CmpfOp(x, x, "uno"))
    return b.emit(arith.SelectOp(nan, quiet, rounded))


@anchor(tg.DensePackedBf16Op)
def _dense_packed_bf16(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    a, w = op.operands
    sr = shape_of(op.results[0])
    _, pairs, nb = shape_of(w)
    lead = list(shape_of(a)[:-1])
    k = shape_of(a)[-1]
    t = TensorType(i32, [*lead, pairs])
    words = kb.temp(t, "pairs")
    source = kb.buffers[a]

    def pack(b: ElementBuilder, idx: Index) -> SSAValue:
        row = list(idx[:-1])
        low = b.load(source, [*row, expr(idx[-1]) * 2], f32)
        # an odd K's last pair reads one past the row: its high half is 0
        high = b.load(source, [*row, expr(idx[-1]) * 2 + 1], f32, pad=0.0 if k % 2 else None)
        return _pack(b, low, high)

    kb.elementwise("pairs", words, i32, pack)
    packed = kb.placeholder(t, words)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        n = expr(s[-1])
        word = b.value(packed, [*s[:-1], r[0]])
        weights = b.value(w, [n // nb, r[0], n % nb])
        return b.emit(kernel.Bf16Dot2Op.create(operands=[b.const(0.0, f32), word, weights], result_types=[f32]))

    kb.reduction("dense_bf16", dests[0], f32, _axes("o", sr), [("k2", pairs)], "add", 0, f32, body, then)


def _pack(b: ElementBuilder, low: SSAValue, high: SSAValue) -> SSAValue:
    hi = b.emit(arith.ShLIOp(bf16_bits(b, high), b.const(16, i32)))
    return b.emit(arith.OrIOp(hi, bf16_bits(b, low)))


@anchor(tg.Conv2dNchwcBf16Op)
def _conv2d_nchwc_bf16(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    strides, pads, dilations = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations")
    n, mo, oh, ow, mb = shape_of(op.results[0])
    _, co, kh, kw, pairs, _ = shape_of(w)
    _, _, h, wd, _ = shape_of(x)
    t = TensorType(i32, [n, co, h + pads[0] + pads[2], wd + pads[1] + pads[3], pairs])
    words = kb.temp(t, "pairs")
    source = kb.buffers[x]
    padded = any(pads)

    def pack(b: ElementBuilder, idx: Index) -> SSAValue:
        at = [idx[0], idx[1], expr(idx[2]) - pads[0], expr(idx[3]) - pads[1]]
        pad = 0.0 if padded else None
        low = b.load(source, [*at, expr(idx[4]) * 2], f32, pad=pad)
        high = b.load(source, [*at, expr(idx[4]) * 2 + 1], f32, pad=pad)
        return _pack(b, low, high)

    kb.elementwise("pairs", words, i32, pack)
    packed = kb.placeholder(t, words)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        _, _, hi, wi = _window_index(s, r[1:3], strides, (0, 0), dilations)
        word = b.value(packed, [s[0], r[0], hi, wi, r[3]])
        weights = b.value(w, [s[1], r[0], r[1], r[2], r[3], s[4]])
        return b.emit(kernel.Bf16Dot2Op.create(operands=[b.const(0.0, f32), word, weights], result_types=[f32]))

    with_bias = blocked_epilogue(then, bias, mb)

    kb.reduction(
        "conv_bf16",
        dests[0],
        f32,
        [("n", n), ("mo", mo), ("oh", oh), ("ow", ow), ("mi", mb)],
        [("co", co), ("kh", kh), ("kw", kw), ("cp", pairs)],
        "add",
        0,
        f32,
        body,
        with_bias,
    )
