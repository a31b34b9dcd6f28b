"""tg-bf16-conv: blocked convolutions in bfloat16 (`--precision bf16`), summed in float32.

The convolutions of a CNN are its time (ResNet-50: 4.1 GFLOPs), at the FMA units' peak in
float32. With AVX512-BF16, vdpbf16ps does two multiply-adds per float32 lane and
instruction (kernel.bf16dot2): the input channels of a block taken in pairs, the
reduction over a 16-channel block is 8 steps instead of 16, each reading half the weight
bytes. The activations are rounded to bfloat16 as the convolution reads them (its `pairs`
stage packs two channels of a pixel into one word, with the zero padding); bias, sums and
every other op stay float32.

Each tg.conv2d_nchwc (groups = 1) whose weight is known after tg-fold-constants, float32,
with an even input block (16: not the stem's 3 image channels) becomes tg.conv2d_nchwc_bf16
over the weight re-packed as bfloat16 pairs of input channels, [MO, CO, kH, kW, cb/2, mb].
Depthwise and grouped convolutions stay float32.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, f32
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg
from tessel.dialects.tg.base import integer
from tessel.ir.weights import WeightsPass, WeightStore
from tessel.passes.tg._bf16_pairs import packed_weight


@dataclass
class ToBf16(RewritePattern):
    store: WeightStore | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dNchwcOp, rewriter: PatternRewriter, /) -> None:
        if "groups" in op.properties and integer(op.properties, "groups") != 1:
            return
        x, t = op.input.type, op.weight.type
        if not isinstance(t, TensorType) or t.element_type != f32 or not isinstance(x, TensorType):
            return
        if x.element_type != f32 or x.get_shape()[4] % 2:
            return  # (an odd input block: the stem's 3 image channels)
        packed = packed_weight(rewriter, self.store, op.weight, axis=4)
        if packed is None:
            return  # weights computed at run time stay float32
        props = {k: v for k, v in op.properties.items() if k != "groups"}
        operands = [op.input, packed, *([op.bias] if op.bias is not None else [])]
        new = tg.Conv2dNchwcBf16Op.make(operands, props)
        new.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, new)


@dataclass(frozen=True)
class TgBf16Conv(WeightsPass):
    name = "tg-bf16-conv"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ToBf16(self.store), apply_recursively=False).rewrite_module(op)
        for region in op.regions:
            region_dce(region)
