"""tg-layout: convolutions in the blocked NCHW[16]c layout, conversions pushed and cancelled.

A conv2d (groups = 1, at least 4 output channels, padded with zero filters to a multiple
of the block) becomes conv2d_nchwc between layout transforms: the input to NCHW[cb]c, the weights to OIHW[cb]i[16]o (a
transform of a constant, which tg-fold-constants evaluates), the result back to NCHW.
Element-wise ops whose operands come out of such transforms then run in the blocked
layout too (their other operands are blocked or broadcast to match), so the conversion
moves past them, as it does past 2-D pooling (the pools' blocked `layout`) and channel
concats of whole blocks; where a conversion meets its inverse, both vanish. A ResNet, a
DenseNet or an Inception then stays in NCHW16c from one convolution to the next, with
conversions only around the ops that need NCHW (flatten, reshapes).

A matmul or gemm by a constant matrix becomes dense_packed with the matrix packed as
[N/16, K, 16] (padded with zero columns to a whole block): reshape, transpose and pad of a
constant, which tg-fold-constants evaluates. Where no vector of 8 or more divides N, the
product computes the padded block too and a slice cuts the result to N. A matrix computed
at run time is packed the same way, by a kernel, when enough rows of A reuse it. Other gemms by a constant b^T get b
transposed once (trans_b = false) so the output columns are contiguous.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg
from tessel.dialects.tg.base import Elementwise, bool_attr, flag, floating, int_attr, integer, ints, ints_attr
from tessel.ir import dtypes
from tessel.passes.tg._layout_moves import MOVES, convert, pad, reshape, to_nchw, zero_weighted_channels
from tessel.passes.tg._rewrite import Inserter

BLOCK = 16
MIN_PADDED_OUTPUTS = 4  # fewer output channels stay in NCHW rather than pad a block


def input_block(channels: int) -> int:
    """The input channel block: a full vector's worth when it divides, else all of them
    (the 3 channels of an image), else the largest divisor that fits a vector."""
    if channels % BLOCK == 0:
        return BLOCK
    if channels <= BLOCK:
        return channels
    return max(d for d in range(1, BLOCK + 1) if channels % d == 0)


MAX_GROUP_MERGE = 4  # a grouped conv may do up to this many times its multiplications blocked


def group_merge(groups: int, in_per_group: int, out_per_group: int) -> int | None:
    """How many neighbouring groups to merge so that a merged group has whole blocks of input
    and output channels (its weight block-diagonal, zeros between the groups), or None where
    that takes more than MAX_GROUP_MERGE (depthwise convolutions have their own op)."""
    for r in range(1, MAX_GROUP_MERGE + 1):
        if groups % r == 0 and (r * in_per_group) % BLOCK == 0 and (r * out_per_group) % BLOCK == 0:
            return r
    return None


def padded_group_merge(groups: int, in_per_group: int, out_per_group: int) -> tuple[int, int] | None:
    """(extra groups, groups merged): zero groups appended so that merging gives whole blocks
    (RegNet-Y-400MF's 13 and 55 groups of 8 take one more each: 14 and 56 merge in pairs),
    the cheapest where the multiplications done stay within MAX_GROUP_MERGE times the
    convolution's own; None where no such padding exists."""
    best: tuple[int, int] | None = None
    for extra in range(MAX_GROUP_MERGE):
        r = group_merge(groups + extra, in_per_group, out_per_group)
        if r is not None and r * (groups + extra) <= MAX_GROUP_MERGE * groups:
            if best is None or r * (groups + extra) < best[1] * (groups + best[0]):
                best = (extra, r)
    return best


def _merged_groups(rewriter: PatternRewriter, w: SSAValue, groups: int, r: int) -> SSAValue:
    """w [M, C/g, kh, kw] as the weight of g/r groups of r: [M, r*C/g, kh, kw] with output
    channel o of sub-group j reading only its own C/g inputs (an identity mask, folded)."""
    m, cg, kh, kw = tg.tensor_of(w).get_shape()
    element = tg.tensor_of(w).element_type
    w7 = reshape(rewriter, w, [groups // r, r, m // groups, 1, cg, kh, kw])
    eye = tg.constant_op(np.eye(r, dtype=dtypes.to_numpy(element)).reshape(1, r, 1, r, 1, 1, 1))
    rewriter.insert(eye)
    masked = tg.MulOp.make([w7, eye.results[0]])
    rewriter.insert(masked)
    return reshape(rewriter, masked.results[0], [m, r * cg, kh, kw])


class BlockConv(RewritePattern):
    """conv2d into conv2d_nchwc. Grouped ones too where merging at most MAX_GROUP_MERGE
    neighbouring groups gives whole blocks (ResNeXt's 32 groups of 4 to 32 channels, RegNet's
    of 8 and more), after appending zero groups where the count does not divide (RegNet's 13
    and 55 groups of 8): their NCHW kernel is the generic loop nest, several times slower than
    the blocked micro-kernel even at 4x the multiplications."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        m, cg = tg.tensor_of(op.weight).get_shape()[:2]
        c = tg.tensor_of(op.input).get_shape()[1]
        groups = integer(op.properties, "groups")
        if m < MIN_PADDED_OUTPUTS or (groups > 1 and cg == 1 and m == c):
            return  # too few outputs for a block; depthwise: BlockDepthwise
        weight, bias, outputs, inputs = op.weight, op.bias, m, c
        if groups > 1:
            padding = padded_group_merge(groups, cg, m // groups)
            if padding is None or (padding[1] > 1 and not tg.is_compile_time(weight)):
                return  # (the merged weight is built from the weight: foldable only if constant)
            extra_groups, r = padding
            if extra_groups:  # zero groups reading zero (or padding) channels
                outputs += extra_groups * (m // groups)
                inputs += extra_groups * cg
                weight = pad(rewriter, weight, [0, 0, 0, 0, outputs - m, 0, 0, 0])
                bias = pad(rewriter, bias, [0, outputs - m]) if bias is not None else None
                groups += extra_groups
            if r > 1:
                weight = _merged_groups(rewriter, weight, groups, r)
            groups //= r
        # output channels that do not fill whole blocks get zero filters (12 -> 16): a
        # blocked conv with a quarter of its lanes idle still beats the NCHW one
        extra = -outputs % BLOCK
        if extra:
            weight = pad(rewriter, weight, [0, 0, 0, 0, extra, 0, 0, 0])
            bias = pad(rewriter, bias, [0, extra]) if bias is not None else None
        cb = input_block(inputs)
        x = convert(rewriter, zero_weighted_channels(rewriter, op.input, inputs - c), "NCHW", f"NCHW{cb}c")
        w = convert(rewriter, weight, "OIHW", f"OIHW{cb}i{BLOCK}o")
        operands = [x, w] + ([bias] if bias is not None else [])
        props = {k: v for k, v in op.properties.items() if k != "groups"}
        if groups > 1:
            props["groups"] = int_attr(groups)
        to_nchw(rewriter, op, tg.Conv2dNchwcOp.make(operands, props), BLOCK, m)


def _depthwise(op: tg.Conv2dOp) -> bool:
    """groups = input channels = output channels."""
    m, per_group = tg.tensor_of(op.weight).get_shape()[:2]
    return integer(op.properties, "groups") == tg.tensor_of(op.input).get_shape()[1] == m and per_group == 1


def _passes_layout(op: Operation) -> bool:
    """Ops a layout conversion moves through (element-wise, padding)."""
    return isinstance(op, tg.PadOp) or (isinstance(op, tg.TgOp) and op.has_trait(Elementwise))


def _reaches_conv(op: Operation) -> bool:
    """Is a conv2d (blocked by this pass, or an operand of one) among the ops connected to
    `op` through element-wise ops and pads, producers and users alike?"""
    seen: set[int] = set()
    stack = [op]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        around = [v.owner for v in o.operands if isinstance(v.owner, Operation) and not tg.is_constant_like(v)]
        around += [use.operation for r in o.results for use in r.uses]
        for n in around:
            if isinstance(n, tg.Conv2dOp) and n is not op:
                return True
            if _passes_layout(n):
                stack.append(n)
    return False


def unblocked_depthwise(module: builtin.ModuleOp) -> set[int]:
    """The depthwise convolutions (by id) better left in NCHW: 3x3 or smaller, unit stride
    along the rows, and no other convolution connected to them through element-wise ops. In
    NCHW such a layer vectorizes along its rows with plain loads and needs no conversions;
    blocked, it would pay one into NCHW16c and one out, which only neighbouring blocked
    layers amortize. Measured alone on a Zen 4: MobileNet's stride-1 layers D1 0.087 ms in
    NCHW vs 0.108 blocked, D5 0.058 vs 0.091, D7 0.026 vs 0.037; a stride-2 layer reads
    every other element of a row and is faster blocked (D2 0.127 vs 0.098), and so is
    ConvNeXt's 7x7 on 96 x 56 x 56 (0.31 vs 0.19 ms: the blocked register tile reuses
    each of its 49 weight vectors over several outputs)."""
    keep = set()
    for op in module.walk():
        if not isinstance(op, tg.Conv2dOp) or not _depthwise(op):
            continue
        kh, kw = tg.tensor_of(op.weight).get_shape()[2:]
        if kh * kw <= 9 and ints(op.properties, "strides", (1, 1))[1] == 1 and not _reaches_conv(op):
            keep.add(id(op))
    return keep


@dataclass
class BlockDepthwise(RewritePattern):
    """A depthwise conv2d (groups = input channels = output channels) runs on NCHW16c with
    its filters as OIHW1i16o: the network stays blocked. Channels that do not fill the last
    block are padded (zero input channels, zero filters and bias), the result's padding cut
    off by a slice; where the input is itself a padded view, ReadPaddedInput lets the
    convolution read the padded data directly. Except the layers in `keep`
    (unblocked_depthwise)."""

    keep: set[int] = field(default_factory=set)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        if not _depthwise(op) or id(op) in self.keep:
            return
        c = tg.tensor_of(op.input).get_shape()[1]
        extra = -c % BLOCK
        x = convert(rewriter, zero_weighted_channels(rewriter, op.input, extra), "NCHW", f"NCHW{BLOCK}c")
        w = convert(
            rewriter,
            pad(rewriter, op.weight, [0, 0, 0, 0, extra, 0, 0, 0]) if extra else op.weight,
            "OIHW",
            f"OIHW1i{BLOCK}o",
        )
        bias = [pad(rewriter, op.bias, [0, extra]) if extra else op.bias] if op.bias is not None else []
        props = {k: v for k, v in op.properties.items() if k != "groups"}
        to_nchw(rewriter, op, tg.DepthwiseConv2dNchwcOp.make([x, w, *bias], props), BLOCK, c)


class TransposeGemmWeights(RewritePattern):
    """gemm(a, b^T) with a constant b: transpose b once, so columns are contiguous."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.GemmOp, rewriter: PatternRewriter, /) -> None:
        if not flag(op.properties, "trans_b") or not tg.is_constant_like(op.b):
            return
        t = tg.TransposeOp.make([op.b], {"perm": ints_attr([1, 0])})
        rewriter.insert(t)
        props = dict(op.properties) | {"trans_b": bool_attr(False)}
        new = tg.GemmOp.make([op.a, t.results[0], *op.operands[2:]], props)
        new.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, new)


def _pack(rewriter: PatternRewriter, b: SSAValue, transposed: bool) -> SSAValue:
    """B [K, N] (or B^T [N, K]) -> [ceil(N/nb), K, nb], zero columns past N."""
    t = b.type
    assert isinstance(t, TensorType)
    nb = 64 // dtypes.to_numpy(t.element_type).itemsize
    n_dim = 0 if transposed else 1
    n, k = t.get_shape()[n_dim], t.get_shape()[1 - n_dim]
    extra = -n % nb
    if extra:
        pads = [0, 0, 0, 0]
        pads[2 + n_dim] = extra
        b = pad(rewriter, b, pads)
    blocks = (n + extra) // nb
    if transposed:
        grouped = reshape(rewriter, b, [blocks, nb, k])
        perm = [0, 2, 1]
    else:
        grouped = reshape(rewriter, b, [k, blocks, nb])
        perm = [1, 0, 2]
    op = tg.TransposeOp.make([grouped], {"perm": ints_attr(perm)})
    rewriter.insert(op)
    return op.results[0]


PACK_AT_RUN_TIME_ROWS = 32  # a matrix computed at run time is packed when this many rows reuse it


def _packable(a: SSAValue, b: SSAValue) -> bool:
    """A 2-D float B that is known at compile time (packed once, for free), or used by
    enough rows of A that packing it on every run (one pass over B) costs little next
    to the product (one pass over B per row block)."""
    ta, tb = a.type, b.type
    if not (isinstance(ta, TensorType) and isinstance(tb, TensorType) and ta.get_num_dims() >= 2):
        return False
    if tb.get_num_dims() != 2 or not dtypes.is_float(tb.element_type):
        return False
    rows = math.prod(ta.get_shape()[:-1])
    return tg.is_compile_time(b) or rows >= PACK_AT_RUN_TIME_ROWS


class PackDenseWeights(RewritePattern):
    """matmul(a, B) and gemm(a, B) + C with a constant B: dense_packed on packed B."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.MatmulOp | tg.GemmOp, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, tg.MatmulOp):
            a, b, transposed, bias = op.lhs, op.rhs, False, None
        elif isinstance(op, tg.GemmOp):
            p = op.properties
            if flag(p, "trans_a") or floating(p, "alpha") != 1.0:
                return
            a, b, transposed = op.a, op.b, flag(p, "trans_b")
            bias = op.operands[2] if len(op.operands) == 3 else None
            if bias is not None and floating(p, "beta") != 1.0:
                return
        else:
            return
        if not _packable(a, b):
            return
        result = op.results[0]
        shape = tg.tensor_of(result).get_shape()
        columns = shape[-1]
        # Columns that no vector of 8 or more divides (a tagger's 17 classes, a vocabulary
        # of 50257) would leave the product scalar: compute the packed matrix's whole last
        # block (its columns are zero) and slice the columns off. (Fewer than a block: the
        # product is tiny, and the slice would be one more launch.)
        computed = columns + (-columns % BLOCK if columns % 8 and columns > BLOCK else 0)
        insert = Inserter(rewriter)
        value = insert.make(tg.DensePackedOp, [a, _pack(rewriter, b, transposed)], {"columns": int_attr(computed)})
        if computed != columns:
            value = insert.slice(value, [0] * len(shape), list(shape))
        if bias is not None:
            value = insert.make(tg.AddOp, [value, bias])
        value.name_hint = result.name_hint
        rewriter.replace(op, [], [value])


@dataclass(frozen=True)
class TgLayout(ModulePass):
    name = "tg-layout"

    # dense_packed's [N/16, K, 16] layout feeds 16-lane CPU vectors; on the GPU its
    # floordiv/mod indexing would keep the matrix out of shared-memory tiles (they need
    # indices linear in the axes), so the gpu target leaves matmuls as they are
    pack_dense: bool = True

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        patterns = [
            BlockConv(),
            BlockDepthwise(unblocked_depthwise(op)),
            *([PackDenseWeights()] if self.pack_dense else []),
            TransposeGemmWeights(),
        ]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False)
        blocked = walker.rewrite_module(op)
        moved = PatternRewriteWalker(GreedyRewritePatternApplier([move() for move in MOVES])).rewrite_module(op)
        if blocked or moved:  # (a sweep over an RNN's 11k ops costs a quarter second)
            for region in op.regions:
                region_dce(region)
