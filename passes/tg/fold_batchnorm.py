"""tg-fold-batchnorm: fold an inference batch_norm into the conv2d, conv_transpose2d or
gemm that feeds it.

    batch_norm(conv2d(x, w, b), scale, bias, mean, var, eps)
      = conv2d(x, w * s[:, None, None, None], (b - mean) * s + bias),  s = scale / sqrt(var + eps)

The new weight and bias are written as tg ops on the old constants, so this pass stays a
pure IR rewrite; `tg-fold-constants` then evaluates them at compile time. It applies when
the producer has no other use and every parameter is a compile-time constant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import region_dce

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, floating, integer
from tessel.ir import dtypes


class _Builder:
    """Appends tg ops before an anchor op, inferring every result type."""

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter

    def op(
        self, op_type: type[tg.TgOp], operands: list[SSAValue], props: dict | None = None, result_types=None
    ) -> SSAValue:
        new = op_type.make(operands, props, result_types)
        self.rewriter.insert(new)
        return new.results[0]

    def scalar(self, value: float, like: SSAValue) -> SSAValue:
        dt = dtypes.to_numpy(tg.tensor_of(like).element_type)
        new = tg.constant_op(np.asarray(value, dtype=dt))
        self.rewriter.insert(new)
        return new.results[0]

    def reshape(self, value: SSAValue, shape: list[int]) -> SSAValue:
        t = builtin.TensorType(tg.tensor_of(value).element_type, shape)
        return self.op(tg.ReshapeOp, [value], result_types=[t])


def _scale_and_shift(b: _Builder, bn: tg.BatchNormOp) -> tuple[SSAValue, SSAValue]:
    """s = scale / sqrt(var + eps) and shift = bias - mean * s, both of shape (C,)."""
    eps = b.scalar(floating(bn.properties, "epsilon"), bn.var)
    s = b.op(tg.DivOp, [bn.scale, b.op(tg.SqrtOp, [b.op(tg.AddOp, [bn.var, eps])])])
    shift = b.op(tg.SubOp, [bn.bias, b.op(tg.MulOp, [bn.mean, s])])
    return s, shift


def _constant_params(bn: tg.BatchNormOp) -> bool:
    return all(tg.is_constant_like(v) for v in (bn.scale, bn.bias, bn.mean, bn.var))


class FoldIntoConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: tg.BatchNormOp, rewriter: PatternRewriter, /) -> None:
        conv = bn.input.owner
        if not isinstance(conv, tg.Conv2dOp) or not conv.result.has_one_use() or not _constant_params(bn):
            return
        if not all(tg.is_constant_like(v) for v in conv.operands[1:]):
            return
        b = _Builder(rewriter)
        s, shift = _scale_and_shift(b, bn)
        m = tg.tensor_of(conv.weight).get_shape()[0]
        weight = b.op(tg.MulOp, [conv.weight, b.reshape(s, [m, 1, 1, 1])])
        bias = shift if conv.bias is None else b.op(tg.AddOp, [b.op(tg.MulOp, [conv.bias, s]), shift])
        weight.name_hint = f"{conv.weight.name_hint or 'weight'}_bn"
        bias.name_hint = f"{bn.bias.name_hint or 'bias'}_folded"
        new = tg.Conv2dOp.make([conv.input, weight, bias], dict(conv.properties))
        new.results[0].name_hint = bn.result.name_hint
        rewriter.replace(bn, new)
        rewriter.erase(conv)


class FoldIntoConvTranspose(RewritePattern):
    """The same for conv_transpose2d, whose weights are (C, M/groups, kH, kW): output
    channel g*M/groups + j scales w[g*C/groups + i, j] for every i of group g."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: tg.BatchNormOp, rewriter: PatternRewriter, /) -> None:
        conv = bn.input.owner
        if not isinstance(conv, tg.ConvTranspose2dOp) or not conv.result.has_one_use() or not _constant_params(bn):
            return
        if not all(tg.is_constant_like(v) for v in conv.operands[1:]):
            return
        b = _Builder(rewriter)
        s, shift = _scale_and_shift(b, bn)
        c, mg, kh, kw = tg.tensor_of(conv.weight).get_shape()
        groups = integer(conv.properties, "groups")
        # per group g: w[g*C/G:(g+1)*C/G] scales by s[g*mg:(g+1)*mg] along dim 1
        per_group = b.reshape(s, [groups, 1, mg, 1, 1])
        grouped = b.reshape(conv.weight, [groups, c // groups, mg, kh, kw])
        weight = b.reshape(b.op(tg.MulOp, [grouped, per_group]), [c, mg, kh, kw])
        bias = shift if conv.bias is None else b.op(tg.AddOp, [b.op(tg.MulOp, [conv.bias, s]), shift])
        weight.name_hint = f"{conv.weight.name_hint or 'weight'}_bn"
        bias.name_hint = f"{bn.bias.name_hint or 'bias'}_folded"
        new = tg.ConvTranspose2dOp.make([conv.input, weight, bias], dict(conv.properties))
        new.results[0].name_hint = bn.result.name_hint
        rewriter.replace(bn, new)
        rewriter.erase(conv)


class FoldIntoGemm(RewritePattern):
    """batch_norm over the columns of a 2-D gemm result: scale B's output columns and C."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: tg.BatchNormOp, rewriter: PatternRewriter, /) -> None:
        gemm = bn.input.owner
        if not isinstance(gemm, tg.GemmOp) or not gemm.result.has_one_use() or not _constant_params(bn):
            return
        if not all(tg.is_constant_like(v) for v in gemm.operands[1:]):
            return
        b = _Builder(rewriter)
        s, shift = _scale_and_shift(b, bn)
        n = gemm.result.type.get_shape()[1]
        trans_b = flag(gemm.properties, "trans_b")
        weight = b.op(tg.MulOp, [gemm.b, b.reshape(s, [n, 1] if trans_b else [1, n])])
        # y = alpha*A@B' + beta*C*s + shift, so the new C is C*s + shift/beta (beta folded in)
        beta = floating(gemm.properties, "beta")
        props = dict(gemm.properties)
        if gemm.c is None or beta == 0.0:
            c = shift
            props["beta"] = tg.base.float_attr(1.0)
        else:
            c = b.op(tg.AddOp, [b.op(tg.MulOp, [gemm.c, s]), b.op(tg.DivOp, [shift, b.scalar(beta, shift)])])
        weight.name_hint = f"{gemm.b.name_hint or 'weight'}_bn"
        c.name_hint = f"{bn.bias.name_hint or 'bias'}_folded"
        new = tg.GemmOp.make([gemm.a, weight, c], props)
        new.results[0].name_hint = bn.result.name_hint
        rewriter.replace(bn, new)
        rewriter.erase(gemm)


@dataclass(frozen=True)
class TgFoldBatchnorm(ModulePass):
    name = "tg-fold-batchnorm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(FoldIntoConv()).rewrite_module(op)
        PatternRewriteWalker(FoldIntoConvTranspose()).rewrite_module(op)
        PatternRewriteWalker(FoldIntoGemm()).rewrite_module(op)
        for region in op.regions:
            region_dce(region)
