"""tg-conv-transpose-to-conv: a strided transposed convolution as one convolution and a
pixel shuffle (the sub-pixel convolution identity).

A transposed convolution with stride s writes input pixel i to outputs i*s + k. Grouped by
output phase r = (i*s + k) mod s, each phase is an ordinary stride-1 convolution of the
input with the taps k = r, r + s, r + 2s... (flipped), so all s*s phases together are one
conv2d with s*s times the output channels, followed by interleaving the phases into the
spatial dims (tg.depth_to_space, DCR; a reshape-transpose-reshape when the strides differ)
and cropping the padding:

    conv_transpose2d(x, w [C, M, K, K], stride s, pads p)
      = crop_p(depth_to_space_s(conv2d(x, W, pads J-1))),   J = ceil(K / s),
        W[(rh*s + rw)*M + m, c, jh, jw] = w[c, m, rh + s*(J-1-jh), rw + s*(J-1-jw)]  (0 past K)

Unlike the dilated-input form (a convolution over an input with s-1 zeros between pixels)
it does no multiplications by inserted zeros (s*s times fewer for a 2-D stride s), and the
convolution takes the blocked NCHW16c path of tg-layout. W is built with pad, reshape,
slice (step -1) and transpose of the constant weights, which tg-fold-constants evaluates.
Applies to groups = 1, dilation 1 and constant weights; the bias goes into the
convolution unless output_padding reaches past the computed phases (then it is added
after the crop, so the padded border gets it too).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import integer, ints, ints_attr

from ._rewrite import Inserter, rewrite_once


class ConvTransposeAsConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ConvTranspose2dOp, rewriter: PatternRewriter, /) -> None:
        p = op.properties
        if integer(p, "groups") != 1 or any(d != 1 for d in ints(p, "dilations")):
            return
        if not tg.is_compile_time(op.weight) or (op.bias is not None and not tg.is_compile_time(op.bias)):
            return
        sh, sw = ints(p, "strides")
        pt, pl, pb, pr = ints(p, "pads")
        x, w = op.input, op.weight
        n, c, ih, iw = tg.tensor_of(x).get_shape()
        _, m, kh, kw = tg.tensor_of(w).get_shape()
        _, _, oh, ow = op.result.type.get_shape()
        jh, jw = -(-kh // sh), -(-kw // sw)
        qh, qw = ih + jh - 1, iw + jw - 1  # phase outputs per dim
        b = Inserter(rewriter)

        # W[(rh, rw, m), c, jh, jw] from w[c, m, kh, kw]: taps k = j*s + r, j reversed
        wp = b.pad(w, [0, 0, 0, 0, 0, 0, jh * sh - kh, jw * sw - kw])
        w6 = b.reshape(wp, [c, m, jh, sh, jw, sw])
        flipped = b.slice(w6, [0, 0, jh - 1, 0, jw - 1, 0], [c, m, jh, sh, jw, sw], steps=[1, 1, -1, 1, -1, 1])
        phases = b.make(tg.TransposeOp, [flipped], {"perm": ints_attr([3, 5, 1, 0, 2, 4])})
        weight = b.reshape(phases, [sh * sw * m, c, jh, jw])
        weight.name_hint = f"{w.name_hint or 'weight'}_phases"

        # the phases cover rows [0, qh*sh); output_padding may ask for zeros past them
        covered = pt + oh <= qh * sh and pl + ow <= qw * sw
        operands = [x, weight]
        if op.bias is not None and covered:
            operands.append(b.make(tg.ConcatOp, [op.bias] * (sh * sw), {"axis": builtin.IntegerAttr(0, builtin.i64)}))
        conv_props = {
            "strides": ints_attr([1, 1]),
            "pads": ints_attr([jh - 1, jw - 1, jh - 1, jw - 1]),
            "dilations": ints_attr([1, 1]),
            "groups": builtin.IntegerAttr(1, builtin.i64),
        }
        y = b.make(tg.Conv2dOp, operands, conv_props)
        if sh == sw:
            y = b.make(
                tg.DepthToSpaceOp,
                [y],
                {"blocksize": builtin.IntegerAttr(sh, builtin.i64), "mode": builtin.StringAttr("DCR")},
            )
        else:  # depth-to-space with a block per dim
            y = b.reshape(y, [n, sh, sw, m, qh, qw])
            y = b.make(tg.TransposeOp, [y], {"perm": ints_attr([0, 3, 4, 1, 5, 2])})
            y = b.reshape(y, [n, m, qh * sh, qw * sw])
        y = b.pad(y, [0, 0, -pt, -pl, 0, 0, oh + pt - qh * sh, ow + pl - qw * sw])
        if op.bias is not None and not covered:
            y = b.make(tg.AddOp, [y, b.reshape(op.bias, [m, 1, 1])])
        y.name_hint = op.result.name_hint
        rewriter.replace(op, [], [y])


@dataclass(frozen=True)
class TgConvTransposeToConv(ModulePass):
    name = "tg-conv-transpose-to-conv"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, ConvTransposeAsConv())
