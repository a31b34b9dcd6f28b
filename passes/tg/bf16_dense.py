"""tg-bf16-dense: dense layers in bfloat16 (`--precision bf16`), accumulated in float32.

A transformer's matrix products at batch 1 stream their weights (BERT-base: 85 M floats,
340 MB in float32) for few rows of activations each. Held as bfloat16 the weights are half
the bytes, and a CPU with AVX512-BF16 (Cooper Lake, Sapphire Rapids, Zen 4 and 5) does two
multiply-adds per lane in one vdpbf16ps, still accumulating in float32 (kernel.bf16dot2).
The activations are rounded to bfloat16 as the product reads them; the sums, the biases
and every other op stay float32.

Each tg.dense_packed whose packed weight is known (a tg.weight or tg.constant after
tg-fold-constants) and float32, with at least MIN_MACS multiply-adds, becomes tg.dense_packed_bf16 over a new weight: the
columns' blocks of 16 re-packed as pairs of rows, [N/16, K/2, 16] words of two bfloat16
(rounded to nearest even; a zero row pads an odd K). Opt-in: it changes results (a
bfloat16 has 8 significant bits; `python -m tessel.bench.cpu_bf16` reports the
error against float32), and convolutions are not converted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, f32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, integer
from tessel.ir.weights import WeightsPass, WeightStore
from tessel.passes.tg._bf16_pairs import packed_weight
from tessel.passes.tg._rewrite import rewrite_once

# A product smaller than this (multiply-adds) stays float32: the activations' pairs stage is
# one more kernel launch, which costs more than the product saves at a recurrent cell's
# per-step matrix-vector size (a GRU's [1, 128] x [128, 256], 400 of them: 0.66 -> 1.09 ms
# when converted; an LSTM's [1, 256] x [256, 1024]: 0.94 -> 1.85 ms).
MIN_MACS = 1 << 20


@dataclass
class ToBf16(RewritePattern):
    store: WeightStore | None
    min_macs: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.DensePackedOp, rewriter: PatternRewriter, /) -> None:
        t = op.weight.type
        if not isinstance(t, TensorType) or t.element_type != f32 or t.get_shape()[2] != 16:
            return
        rows = math.prod(tg.tensor_of(op.input).get_shape()[:-1])
        blocks, k, nb = t.get_shape()
        if rows * k * blocks * nb < self.min_macs:
            return
        packed = packed_weight(rewriter, self.store, op.weight, axis=1)
        if packed is None:
            return  # a matrix computed at run time stays float32
        columns = int_attr(integer(op.properties, "columns"))
        new = tg.DensePackedBf16Op.make([op.input, packed], {"columns": columns})
        new.results[0].name_hint = op.result.name_hint
        rewriter.replace(op, new)


@dataclass(frozen=True)
class TgBf16Dense(WeightsPass):
    name = "tg-bf16-dense"

    min_macs: int = MIN_MACS  # products with fewer multiply-adds stay float32

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, ToBf16(self.store, self.min_macs))
