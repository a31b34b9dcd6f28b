"""The kernel.compute stages of convolutions: direct N-D (any groups), blocked NCHW16c
(conv2d_nchwc, depthwise_conv2d_nchwc) and transposed ones that tg-conv-transpose-to-conv
did not rewrite. A convolution reads a pre-padded copy of its input (stage `pad`), so its
hot loop has no bounds checks; a depthwise one does where its window does COPY_TAPS or more
multiply-adds per input element, and reads its input through padded loads where it does
fewer (a 3x3 window at stride 2: 2.25 multiply-adds an input element do not pay for
copying it). The bias and the group's epilogue go in `then`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import integer, ints
from tessel.passes.tg.lowering.index_maps import expr
from tessel.passes.tg.lowering.scalar import ElementBuilder, Index, compute_type, element_of, shape_of
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, _axes, _window_index, add, anchor, mul, read

# A depthwise convolution reads a padded copy of its input where its window does at least
# this many multiply-adds per input element (taps / stride^2: 3x3 and 5x5 at stride 1), else
# padded loads. Each padded load is four compares and a masked load (vmaskmovps on AVX2);
# the copy reads and writes the input once. Measured on the Zen 3 (2 threads, one process
# alternating the two): the copy for these layers made MNASNet 1.14x, MobileNet-v3-large
# 1.07x, EfficientNet-B0 1.06x and MobileNet-v2 1.02x faster; for every depthwise layer
# (3x3 at stride 2 too), MobileNet-v2 0.98x: there the copy costs about what it saves.
COPY_TAPS = 9


def blocked_epilogue(
    then: Then, bias: SSAValue | None, block: int
) -> Callable[[ElementBuilder, Index, SSAValue], SSAValue]:
    """The epilogue of a blocked convolution's result [n, MO, h, w, block]: the bias of
    channel mo * block + mi added (if any), then the fused element-wise ops."""

    def epilogue(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if bias is not None:
            acc = add(b, acc, b.value(bias, [expr(s[1]) * block + expr(s[4])]))
        return then(b, s, acc)

    return epilogue


def padded_input(
    kb: KernelBuilder, x: SSAValue, pads: Sequence[int], spatial_dims: Sequence[int]
) -> tuple[SSAValue, tuple[int, ...]]:
    """A temporary copy of x with zero borders (stage `pad`), so that the convolution's
    hot loop reads without bounds checks; returns the buffer and the pads left to apply
    (all zero). Without padding, x itself."""
    if not any(pads):
        return x, tuple(pads)
    shape = list(shape_of(x))
    sp = len(spatial_dims)
    for i, d in enumerate(spatial_dims):
        shape[d] += pads[i] + pads[i + sp]
    t = TensorType(element_of(x), shape)
    temp = kb.temp(t, "padded")
    buffer = kb.buffers[x]

    def copy(b: ElementBuilder, idx: Index) -> SSAValue:
        src = list(idx)
        for i, d in enumerate(spatial_dims):
            src[d] = expr(idx[d]) - pads[i]
        return b.load(buffer, src, element_of(x), pad=0)

    kb.elementwise("pad", temp, element_of(x), copy)
    return kb.placeholder(t, temp), (0,) * len(pads)


def _kernel_axes(kernel: Sequence[int]) -> list[tuple[str, int]]:
    """Reduction axes over the taps: kh, kw in 2-D, kd, kh, kw in 3-D."""
    names = ["kd", "kh", "kw"][-len(kernel) :] if len(kernel) <= 3 else [f"k{d}" for d in range(len(kernel))]
    return list(zip(names, kernel))


@anchor(tg.Conv2dOp, tg.Conv3dOp)
def _conv(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Direct convolution of any spatial rank: each output reduces over the input channels
    of its group and the kernel taps."""
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    strides, pads, dilations, groups = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), integer(p, "groups")
    out = shape_of(op.results[0])
    m, sp = out[1], len(out) - 2
    _, cg, *kernel = shape_of(w)
    mg = m // groups
    acc_t = compute_type(element_of(op.results[0]))
    x, pads = padded_input(kb, x, pads, tuple(range(2, 2 + sp))) if x in kb.buffers else (x, pads)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        channel = r[0] if groups == 1 else (expr(s[1]) // mg) * cg + expr(r[0])
        position = [expr(s[2 + d]) * strides[d] - pads[d] + expr(r[1 + d]) * dilations[d] for d in range(sp)]
        xv = read(b, x, [s[0], channel, *position], pad=0 if any(pads) else None)
        return mul(b, xv, b.value(w, [s[1], *r]))

    def with_bias(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, add(b, acc, b.value(bias, [s[1]])) if bias is not None else acc)

    kb.reduction(
        "conv",
        dests[0],
        element_of(op.results[0]),
        _axes("o", out),
        [("c", cg), *_kernel_axes(kernel)],
        "add",
        0,
        acc_t,
        body,
        with_bias,
    )


@anchor(tg.Conv2dNchwcOp)
def _conv2d_nchwc(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Blocked convolution: the output channel block is the innermost (vector) axis, the
    input channel block the innermost reduction."""
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    strides, pads, dilations = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations")
    n, mo, oh, ow, mb = shape_of(op.results[0])
    _, co, kh, kw, cb, _ = shape_of(w)
    groups = integer(p, "groups") if "groups" in p else 1
    acc_t = compute_type(element_of(op.results[0]))
    x, pads = padded_input(kb, x, pads, (2, 3))

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        _, _, h, wi = _window_index(s, r[1:3], strides, pads, dilations)
        block = r[0] if groups == 1 else (expr(s[1]) // (mo // groups)) * co + expr(r[0])
        xv = b.value(x, [s[0], block, h, wi, r[3]])
        return mul(b, xv, b.value(w, [s[1], r[0], r[1], r[2], r[3], s[4]]))

    with_bias = blocked_epilogue(then, bias, mb)

    kb.reduction(
        "conv",
        dests[0],
        element_of(op.results[0]),
        [("n", n), ("mo", mo), ("oh", oh), ("ow", ow), ("mi", mb)],
        [("co", co), ("kh", kh), ("kw", kw), ("ci", cb)],
        "add",
        0,
        acc_t,
        body,
        with_bias,
    )


@anchor(tg.DepthwiseConv2dNchwcOp)
def _depthwise_conv2d_nchwc(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Blocked depthwise convolution: each lane of the channel block is its own channel,
    so the taps are the only reduction and input and weight loads are both vectors. The
    border is a padded copy (COPY_TAPS) or a padded load (the same bounds for the 16
    lanes)."""
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    strides, pads, dilations = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations")
    n, blocks, oh, ow, cb = shape_of(op.results[0])
    _, _, kh, kw, _, _ = shape_of(w)
    acc_t = compute_type(element_of(op.results[0]))
    if kh * kw >= COPY_TAPS * strides[0] * strides[1]:
        x, pads = padded_input(kb, x, pads, (2, 3))

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        _, _, h, wi = _window_index(s, r, strides, pads, dilations)
        zero = AffineExpr.constant(0)
        xv = read(b, x, [s[0], s[1], h, wi, s[4]], pad=0 if any(pads) else None)
        return mul(b, xv, b.value(w, [s[1], zero, r[0], r[1], zero, s[4]]))

    with_bias = blocked_epilogue(then, bias, cb)

    kb.reduction(
        "dwconv",
        dests[0],
        element_of(op.results[0]),
        [("n", n), ("b", blocks), ("oh", oh), ("ow", ow), ("i", cb)],
        [("kh", kh), ("kw", kw)],
        "add",
        0,
        acc_t,
        body,
        with_bias,
    )


@anchor(tg.ConvTranspose2dOp, tg.ConvTranspose3dOp)
def _conv_transpose(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """A convolution over the input dilated by the stride (zeros between its pixels) and
    padded by d*(k-1) - pad, with the kernel flipped and its channel dims swapped: a stage
    `dilate` builds that input, so the convolution stage reads without conditions (the
    scatter form would test a divisibility per tap). Any spatial rank."""
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) == 3 else None
    p = op.properties
    strides, pads, dilations, groups = ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), integer(p, "groups")
    out = shape_of(op.results[0])
    sp = len(out) - 2
    c, mg, *kernel = shape_of(w)
    n, _, *sizes = shape_of(x)
    cg = c // groups
    et = element_of(op.results[0])
    acc_t = compute_type(et)
    # padding of the dilated input: before = d*(k-1) - pad_begin, after adds output_padding
    before = [dilations[d] * (kernel[d] - 1) - pads[d] for d in range(sp)]
    size = [(sizes[d] - 1) * strides[d] + 1 for d in range(sp)]
    after = [out[2 + d] + dilations[d] * (kernel[d] - 1) - before[d] - size[d] for d in range(sp)]
    low = [min(b, 0) for b in before]  # negative padding crops: read from -b on
    shape = [n, c, *(size[d] + max(before[d], 0) + max(after[d], 0) for d in range(sp))]
    t = TensorType(element_of(x), shape)
    dilated = kb.temp(t, "dilated")
    source = kb.buffers[x]

    def spread(b: ElementBuilder, idx: Index) -> SSAValue:
        cond = None
        src = [idx[0], idx[1]]
        for d in range(sp):
            pos = expr(idx[2 + d]) - max(before[d], 0)
            if strides[d] > 1:
                rem = b.ssa(pos % strides[d])
                ok = b.emit(arith.CmpiOp(rem, b.const(0, IndexType()), "eq"))
                cond = ok if cond is None else b.emit(arith.AndIOp(cond, ok))
            src.append(pos // strides[d])
        return b.load(source, src, element_of(x), pad=0, when=cond)

    kb.elementwise("dilate", dilated, element_of(x), spread)
    xd = kb.placeholder(t, dilated)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        g = expr(s[1]) // mg if groups > 1 else None
        channel = g * cg + expr(r[0]) if g is not None else r[0]
        position = [expr(s[2 + d]) - low[d] + expr(r[1 + d]) * dilations[d] for d in range(sp)]
        xv = b.value(xd, [s[0], channel, *position])
        out_channel = expr(s[1]) - g * mg if g is not None else s[1]
        wv = b.value(w, [channel, out_channel, *((kernel[d] - 1) - expr(r[1 + d]) for d in range(sp))])
        return mul(b, xv, wv)

    def with_bias(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, add(b, acc, b.value(bias, [s[1]])) if bias is not None else acc)

    kb.reduction(
        "conv_transpose",
        dests[0],
        et,
        _axes("o", out),
        [("c", cg), *_kernel_axes(kernel)],
        "add",
        0,
        acc_t,
        body,
        with_bias,
    )
