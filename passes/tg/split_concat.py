"""tg-split-concat: a concat of more than 8 pieces (CONCAT_FAN_IN) becomes a tree of
concats of at most 8 pieces each.

A concat lowers to a select over its pieces, evaluated at every output element (the
kernel cannot know which piece an element comes from without comparing), so one of n
pieces does n guarded loads per element, n * n in all, and its code grows with n. An RNN
unrolled over 200 time steps concatenates 200 step outputs per direction: one 400-way
select per element, a 7.8 MB LLVM function and a compile of over 20 minutes. As a tree
of fan-in 8 each element is copied log8(n) times with 8 loads at each level, and tg-fuse
keeps the levels in separate kernels (a kernel holds at most CONCAT_FAN_IN pieces).
The pieces are grouped in order and as evenly as possible; the result is the same tensor.
A concat whose pieces are contiguous slabs of its result (tg.copied_in_slabs: DenseNet's
channel concats at batch 1, an RNN's step outputs on the sequence axis) is left whole:
tg-to-kernel copies each piece into place, once.
"""

from __future__ import annotations

import math

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import CONCAT_FAN_IN


class SplitWideConcat(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ConcatOp, rewriter: PatternRewriter, /) -> None:
        pieces = list(op.inputs)
        if len(pieces) <= CONCAT_FAN_IN or tg.copied_in_slabs(op):
            return  # (slabs are copied into place by tg-to-kernel, in one pass whatever n)
        groups = math.ceil(len(pieces) / CONCAT_FAN_IN)
        size = math.ceil(len(pieces) / groups)
        parts: list[SSAValue] = []
        for start in range(0, len(pieces), size):
            chunk = pieces[start : start + size]
            if len(chunk) == 1:
                parts.append(chunk[0])
                continue
            inner = tg.ConcatOp.make(chunk, {"axis": op.axis})
            inner.location = op.location
            rewriter.insert(inner)
            parts.append(inner.result)
        outer = tg.ConcatOp.make(parts, {"axis": op.axis}, [op.result.type])
        outer.location = op.location
        rewriter.replace(op, outer)  # (the walker splits it again while it is too wide)


class TgSplitConcat(ModulePass):
    name = "tg-split-concat"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(SplitWideConcat(), apply_recursively=True).rewrite_module(op)
