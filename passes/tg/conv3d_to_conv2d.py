"""tg-conv3d-to-conv2d: a 3-D convolution as a sum of 2-D convolutions, one per depth tap.

Output depth plane `o` of a 3-D convolution reads input planes o*sd + t*dd - pad_front for
the kd depth taps t. For one tap t, all Do output planes together are one 2-D convolution
over a batch of N*Do planes (the depth slice t*dd, t*dd + sd, ... of the depth-padded input,
with the depth moved next to the batch), with the tap's (M, C/g, kh, kw) weight; the 3-D
convolution is the sum over the taps:

    conv3d(x [N, C, D, H, W], w [M, C/g, kd, kh, kw], b)
      = unfold(sum_t conv2d(fold(slice_t(pad_d(x))), w[:, :, t]) + b)
    fold(s)[n*Do + o, c] = s[n, c, o],  unfold: (N*Do, M, Ho, Wo) -> (N, M, Do, Ho, Wo)

Groups carry over (a tap's weight is w's own), the bias goes into the last tap's conv2d, and
each add of the running sum fuses into the next conv2d's epilogue (tg-fuse). The conv2ds take
the blocked NCHW16c micro-kernel path of tg-layout, which tg.conv3d never had: its kernel was
the generic loop nest (r3d_18 ran at 0.10x onnxruntime, 13.6 s).

Why one conv2d per tap and not one over the kd slices stacked along the channels (kd times
the reduction, a single kernel): the stacking is a concat, which a fused injective kernel
evaluates as a select over its pieces at every element, behind the slice, transposes and
layout conversions feeding it. On r3d_18 those copy kernels took 1.4 of 2.6 s; per tap,
the slices are plain copies and the whole model runs in 0.78 s.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import integer, ints, ints_attr

from ._rewrite import Inserter, rewrite_once


class Conv3dAsConv2d(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv3dOp, rewriter: PatternRewriter, /) -> None:
        p = op.properties
        sd, sh, sw = ints(p, "strides")
        pf, pt, pl, pk, pb, pr = ints(p, "pads")  # front, top, left, back, bottom, right
        dd, dh, dw = ints(p, "dilations")
        x, w = op.input, op.weight
        n, c, d, h, wd = tg.tensor_of(x).get_shape()
        m, cg, kd, kh, kw = tg.tensor_of(w).get_shape()
        _, _, do, _, _ = op.result.type.get_shape()

        b = Inserter(rewriter)
        x = b.pad(x, [0, 0, pf, 0, 0, 0, 0, pk, 0, 0])
        d += pf + pk
        conv_props = {
            "strides": ints_attr([sh, sw]),
            "pads": ints_attr([pt, pl, pb, pr]),
            "dilations": ints_attr([dh, dw]),
            "groups": IntegerAttr(integer(p, "groups"), i64),
        }
        y: SSAValue | None = None
        for t in range(kd):
            s = x
            if (t * dd, sd, do) != (0, 1, d):  # not the whole depth
                s = b.slice(x, [0, 0, t * dd, 0, 0], [n, c, do, h, wd], steps=[1, 1, sd, 1, 1])
            moved = b.make(tg.TransposeOp, [s], {"perm": ints_attr([0, 2, 1, 3, 4])})
            folded = b.reshape(moved, [n * do, c, h, wd])
            tap = w
            if kd > 1:
                tap = b.slice(w, [0, 0, t, 0, 0], [m, cg, 1, kh, kw])
            weight = b.reshape(tap, [m, cg, kh, kw])
            weight.name_hint = f"{w.name_hint or 'weight'}_tap{t}"
            last = t == kd - 1
            operands = [folded, weight] + ([op.bias] if op.bias is not None and last else [])
            part = b.make(tg.Conv2dOp, operands, conv_props)
            y = part if y is None else b.make(tg.AddOp, [part, y])
        assert y is not None
        _, _, ho, wo = tg.tensor_of(y).get_shape()
        y = b.reshape(y, [n, do, m, ho, wo])
        y = b.make(tg.TransposeOp, [y], {"perm": ints_attr([0, 2, 1, 3, 4])})
        y.name_hint = op.result.name_hint
        rewriter.replace(op, [], [y])


@dataclass(frozen=True)
class TgConv3dToConv2d(ModulePass):
    name = "tg-conv3d-to-conv2d"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, Conv3dAsConv2d())
