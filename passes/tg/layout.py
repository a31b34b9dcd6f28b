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
constant, which tg-fold-constants evaluates. A matrix computed at run time is packed the
same way, by a kernel, when enough rows of A reuse it. Other gemms by a constant b^T get b
transposed once (trans_b = false) so the output columns are contiguous.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import StringAttr, TensorType
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
from tessel.dialects.tg.blocked import blocked_shape
from tessel.ir import dtypes

BLOCK = 16
MIN_PADDED_OUTPUTS = 4  # fewer output channels stay in NCHW rather than pad a block


def _transform(rewriter: PatternRewriter, v: SSAValue, src: str, dst: str) -> SSAValue:
    op = tg.LayoutTransformOp.make([v], {"src": StringAttr(src), "dst": StringAttr(dst)})
    rewriter.insert(op)
    return op.results[0]


def _reshape(rewriter: PatternRewriter, v: SSAValue, shape: list[int]) -> SSAValue:
    t = v.type
    assert isinstance(t, TensorType)
    if list(t.get_shape()) == shape:
        return v
    op = tg.ReshapeOp.make([v], result_types=[TensorType(t.element_type, shape)])
    rewriter.insert(op)
    return op.results[0]


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


def _merged_groups(rewriter: PatternRewriter, w: SSAValue, groups: int, r: int) -> SSAValue:
    """w [M, C/g, kh, kw] as the weight of g/r groups of r: [M, r*C/g, kh, kw] with output
    channel o of sub-group j reading only its own C/g inputs (an identity mask, folded)."""
    m, cg, kh, kw = tg.tensor_of(w).get_shape()
    element = tg.tensor_of(w).element_type
    w7 = _reshape(rewriter, w, [groups // r, r, m // groups, 1, cg, kh, kw])
    eye = tg.constant_op(np.eye(r, dtype=dtypes.to_numpy(element)).reshape(1, r, 1, r, 1, 1, 1))
    rewriter.insert(eye)
    masked = tg.MulOp.make([w7, eye.results[0]])
    rewriter.insert(masked)
    return _reshape(rewriter, masked.results[0], [m, r * cg, kh, kw])


class BlockConv(RewritePattern):
    """conv2d into conv2d_nchwc. Grouped ones too where merging at most MAX_GROUP_MERGE
    neighbouring groups gives whole blocks (ResNeXt's 32 groups of 4 to 32 channels, RegNet's
    of 8 and more): their NCHW kernel is the generic loop nest, several times slower than the
    blocked micro-kernel even at 4x the multiplications."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        m, cg = tg.tensor_of(op.weight).get_shape()[:2]
        c = tg.tensor_of(op.input).get_shape()[1]
        groups = integer(op.properties, "groups")
        if m < MIN_PADDED_OUTPUTS or (groups > 1 and cg == 1 and m == c):
            return  # too few outputs for a block; depthwise: BlockDepthwise
        weight, bias = op.weight, op.bias
        if groups > 1:
            r = group_merge(groups, cg, m // groups)
            if r is None or (r > 1 and not tg.is_compile_time(weight)):
                return  # (the merged weight is built from the weight: foldable only if constant)
            if r > 1:
                weight = _merged_groups(rewriter, weight, groups, r)
            groups //= r
        # output channels that do not fill whole blocks get zero filters (12 -> 16): a
        # blocked conv with a quarter of its lanes idle still beats the NCHW one
        extra = -m % BLOCK
        if extra:
            weight = _pad(rewriter, weight, [0, 0, 0, 0, extra, 0, 0, 0])
            bias = _pad(rewriter, bias, [0, extra]) if bias is not None else None
        cb = input_block(c)
        x = _transform(rewriter, op.input, "NCHW", f"NCHW{cb}c")
        w = _transform(rewriter, weight, "OIHW", f"OIHW{cb}i{BLOCK}o")
        operands = [x, w] + ([bias] if bias is not None else [])
        props = {k: v for k, v in op.properties.items() if k != "groups"}
        if groups > 1:
            props["groups"] = int_attr(groups)
        conv = tg.Conv2dNchwcOp.make(operands, props)
        rewriter.insert(conv)
        back: Operation = tg.LayoutTransformOp.make(
            [conv.results[0]], {"src": StringAttr(f"NCHW{BLOCK}c"), "dst": StringAttr("NCHW")}
        )
        if extra:
            rewriter.insert(back)
            n, _, h, w_ = tg.tensor_of(back.results[0]).get_shape()
            back = tg.SliceOp.make(
                [back.results[0]],
                {"starts": ints_attr([0, 0, 0, 0]), "steps": ints_attr([1, 1, 1, 1])},
                [TensorType(op.result.type.element_type, [n, m, h, w_])],
            )
        back.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, back)


class BlockDepthwise(RewritePattern):
    """A depthwise conv2d (groups = input channels = output channels, a multiple of the
    block) runs on NCHW16c with its filters as OIHW1i16o: the network stays blocked."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        m, per_group = tg.tensor_of(op.weight).get_shape()[:2]
        c = tg.tensor_of(op.input).get_shape()[1]
        if integer(op.properties, "groups") != c or m != c or per_group != 1 or c % BLOCK:
            return
        x = _transform(rewriter, op.input, "NCHW", f"NCHW{BLOCK}c")
        w = _transform(rewriter, op.weight, "OIHW", f"OIHW1i{BLOCK}o")
        operands = [x, w] + ([op.bias] if op.bias is not None else [])
        props = {k: v for k, v in op.properties.items() if k != "groups"}
        conv = tg.DepthwiseConv2dNchwcOp.make(operands, props)
        rewriter.insert(conv)
        back = tg.LayoutTransformOp.make(
            [conv.results[0]], {"src": StringAttr(f"NCHW{BLOCK}c"), "dst": StringAttr("NCHW")}
        )
        back.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, back)


def _pad(rewriter: PatternRewriter, v: SSAValue, pads: list[int]) -> SSAValue:
    op = tg.PadOp.make([v], {"pads": ints_attr(pads), "mode": StringAttr("constant")})
    rewriter.insert(op)
    return op.results[0]


def _from_blocked(v: SSAValue) -> tuple[SSAValue, int] | None:
    """(the blocked value, block) when v is an NCHW view of an NCHW[c]c tensor."""
    op = v.owner
    if isinstance(op, tg.LayoutTransformOp) and op.dst.data == "NCHW" and op.src.data.startswith("NCHW"):
        return op.input, tg.tensor_of(op.input).get_shape()[4]
    return None


class PushThroughElementwise(RewritePattern):
    """E(from_blocked(x), y) -> from_blocked(E(x, blocked(y)))."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.TgOp) or not op.has_trait(Elementwise) or isinstance(op, tg.BatchNormOp):
            return
        result = op.results[0].type
        if not isinstance(result, TensorType) or result.get_num_dims() != 4:
            return
        blocked = [_from_blocked(v) for v in op.operands]
        blocks = {b for _, b in filter(None, blocked)}
        if len(blocks) != 1:
            return
        (block,) = blocks
        n, c, h, w = result.get_shape()
        operands = []
        for v, found in zip(op.operands, blocked):
            if found is not None:
                operands.append(found[0])
                continue
            shape = list(tg.tensor_of(v).get_shape())
            s = [1] * (4 - len(shape)) + shape
            if s[1] == c:
                operands.append(_transform(rewriter, _reshape(rewriter, v, s), "NCHW", f"NCHW{block}c"))
            elif s[1] == 1:
                operands.append(_reshape(rewriter, v, [s[0], 1, s[2], s[3], 1]))
            else:
                return
        # the result's own type, blocked (what make would infer, and what it cannot for tg.cast)
        types = [TensorType(result.element_type, blocked_shape(result.get_shape(), "NCHW", f"NCHW{block}c"))]
        new = op.__class__.make(operands, dict(op.properties), types)
        rewriter.insert(new)
        back = tg.LayoutTransformOp.make(
            [new.results[0]], {"src": StringAttr(f"NCHW{block}c"), "dst": StringAttr("NCHW")}
        )
        back.results[0].name_hint = op.results[0].name_hint
        rewriter.replace(op, back)


class PushThroughSpatial(RewritePattern):
    """depth_to_space and spatial pads (crops) of an NCHW view of blocked data run on the
    blocked data: both are layout-agnostic on NCHW[k]c (depth_to_space when the output
    channels fill whole blocks), so a transposed convolution's phase shuffle and crop stay
    blocked between two convolutions."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.DepthToSpaceOp | tg.PadOp):
            return
        found = _from_blocked(op.operands[0])
        if found is None:
            return
        x, block = found
        props = dict(op.properties)
        if isinstance(op, tg.PadOp):
            pads = list(ints(op.properties, "pads"))
            if any(pads[d] or pads[d + 4] for d in (0, 1)) or (op.mode.data != "constant" and any(pads)):
                return
            props["pads"] = ints_attr([*pads[:4], 0, *pads[4:], 0])
        elif op.result.type.get_shape()[1] % block:
            return
        new = op.__class__.make([x], props)
        rewriter.insert(new)
        back = tg.LayoutTransformOp.make(
            [new.results[0]], {"src": StringAttr(f"NCHW{block}c"), "dst": StringAttr("NCHW")}
        )
        back.results[0].name_hint = op.results[0].name_hint
        rewriter.replace(op, back)


def _back_to_nchw(rewriter: PatternRewriter, op: Operation, new: Operation, block: int) -> None:
    """Replace op by NCHW(new's blocked result)."""
    rewriter.insert(new)
    back = tg.LayoutTransformOp.make([new.results[0]], {"src": StringAttr(f"NCHW{block}c"), "dst": StringAttr("NCHW")})
    back.results[0].name_hint = op.results[0].name_hint
    rewriter.replace(op, back)


class PushThroughPool(RewritePattern):
    """2-D max (without Indices), average and global average pooling of an NCHW view of
    blocked data pool the blocked data (`layout = "NCHW16c"`): a ResNet's stem max pool, a
    SqueezeNet's or an Inception's pools and an EfficientNet's squeeze-and-excite means run
    between two convolutions without converting to NCHW and back."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.MaxPool2dOp | tg.AvgPool2dOp | tg.GlobalAvgPool2dOp) or "layout" in op.properties:
            return
        if len(op.results) != 1:
            return  # (max pool's Indices are flat NCHW positions)
        found = _from_blocked(op.operands[0])
        if found is None:
            return
        x, block = found
        props = dict(op.properties) | {"layout": StringAttr(f"NCHW{block}c")}
        _back_to_nchw(rewriter, op, op.__class__.make([x], props), block)


class PushThroughConcat(RewritePattern):
    """A channel concat of NCHW views of blocked data, every piece whole blocks, is a concat
    of the blocked data along the block axis (pieces not yet blocked are converted): a
    DenseNet's growing feature maps, an Inception's or a SqueezeNet's branches stay blocked."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ConcatOp, rewriter: PatternRewriter, /) -> None:
        result = op.result.type
        if not isinstance(result, TensorType) or result.get_num_dims() != 4 or integer(op.properties, "axis") != 1:
            return
        found = [_from_blocked(v) for v in op.inputs]
        blocks = {b for _, b in filter(None, found)}
        if len(blocks) != 1:
            return
        (block,) = blocks
        if any(tg.tensor_of(v).get_shape()[1] % block for v in op.inputs):
            return
        pieces = [
            f[0] if f is not None else _transform(rewriter, v, "NCHW", f"NCHW{block}c")
            for v, f in zip(op.inputs, found)
        ]
        _back_to_nchw(rewriter, op, tg.ConcatOp.make(pieces, dict(op.properties)), block)


class CancelTransforms(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.LayoutTransformOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if isinstance(inner, tg.LayoutTransformOp) and inner.src.data == op.dst.data and inner.dst.data == op.src.data:
            rewriter.replace(op, [], [inner.input])


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
        b = _pad(rewriter, b, pads)
    blocks = (n + extra) // nb
    if transposed:
        grouped = _reshape(rewriter, b, [blocks, nb, k])
        perm = [0, 2, 1]
    else:
        grouped = _reshape(rewriter, b, [k, blocks, nb])
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
        columns = tg.tensor_of(result).get_shape()[-1]
        dense = tg.DensePackedOp.make([a, _pack(rewriter, b, transposed)], {"columns": int_attr(columns)})
        if bias is None:
            dense.results[0].name_hint = result.name_hint
            rewriter.replace(op, dense)
            return
        rewriter.insert(dense)
        add = tg.AddOp.make([dense.results[0], bias])
        add.results[0].name_hint = result.name_hint
        rewriter.replace(op, add)


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
            BlockDepthwise(),
            *([PackDenseWeights()] if self.pack_dense else []),
            TransposeGemmWeights(),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    PushThroughElementwise(),
                    PushThroughSpatial(),
                    PushThroughPool(),
                    PushThroughConcat(),
                    CancelTransforms(),
                ]
            )
        ).rewrite_module(op)
        for region in op.regions:
            region_dce(region)
