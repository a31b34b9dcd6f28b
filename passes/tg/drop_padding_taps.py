"""tg-drop-padding-taps: kernel taps of a conv2d that read only padding are dropped.

Tap k of a spatial axis reads input position o*stride + k*dilation - pad_begin at output
position o. When that is outside [0, n) for every o, the tap multiplies zeros only, at
every output element: DeepLabV3's ASPP convolutions (3x3, dilation 24 and 36, padding the
same, on a 14x14 map) are 1x1 convolutions in all but name, and computed as 3x3 ones they
took nine times the work (two thirds of the model's time). The taps still read form a
range [a, b] per axis (dead taps between live ones stay); the conv becomes

    conv2d(x, w[:, :, ah:bh+1, aw:bw+1], b)  with pads  pad_begin - a*dilation,
                                                        pad_end - (K-1-b)*dilation

which has the same output size and the same sum at every output element, less the
multiplications by padding; where a new pad would be negative (the kept taps start inside
the input) the input is cropped by that much instead. The weight's slice is a compile-time
constant that tg-fold-constants folds.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import ints, ints_attr

from ._rewrite import Inserter, rewrite_once


def live_taps(n: int, kernel: int, stride: int, dilation: int, pad_begin: int, out: int) -> list[int]:
    """The taps of one axis that read some input position for some output position."""
    live = []
    for k in range(kernel):
        offset = k * dilation - pad_begin  # the position read at o = 0
        first = max(0, -(offset // stride))  # the first o whose position is >= 0: ceil(-offset / stride)
        if first < out and first * stride + offset < n:
            live.append(k)
    return live


class DropPaddingTaps(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        strides, dilations = ints(op.properties, "strides"), ints(op.properties, "dilations")
        pads = list(ints(op.properties, "pads"))  # top, left, bottom, right
        n, c, *sizes = tg.tensor_of(op.input).get_shape()
        m, cg, *kernel = tg.tensor_of(op.weight).get_shape()
        outs = op.result.type.get_shape()[2:]
        ranges = []
        for i in range(2):
            live = live_taps(sizes[i], kernel[i], strides[i], dilations[i], pads[i], outs[i])
            if not live:
                return  # every tap reads padding: the output is the bias alone; left as is
            ranges.append((live[0], live[-1]))
        if all(a == 0 and b == k - 1 for (a, b), k in zip(ranges, kernel, strict=True)):
            return
        b = Inserter(rewriter)
        new_pads, starts, shape = [0] * 4, [0, 0, 0, 0], [n, c, *sizes]
        for i, (a, last) in enumerate(ranges):
            begin = pads[i] - a * dilations[i]
            end = pads[i + 2] - (kernel[i] - 1 - last) * dilations[i]
            crop_begin, crop_end = max(0, -begin), max(0, -end)
            new_pads[i], new_pads[i + 2] = max(0, begin), max(0, end)
            starts[2 + i] = crop_begin
            shape[2 + i] = sizes[i] - crop_begin - crop_end
        x = op.input if shape[2:] == sizes else b.slice(op.input, starts, shape)
        (ah, bh), (aw, bw) = ranges
        w = b.slice(op.weight, [0, 0, ah, aw], [m, cg, bh - ah + 1, bw - aw + 1])
        w.name_hint = f"{op.weight.name_hint or 'weight'}_live_taps"
        props = {**op.properties, "pads": ints_attr(new_pads)}
        y = b.make(tg.Conv2dOp, [x, w] + ([op.bias] if op.bias is not None else []), props)
        assert y.type == op.result.type, "dropping taps keeps the output shape"
        y.name_hint = op.result.name_hint
        rewriter.replace(op, [], [y])


@dataclass(frozen=True)
class TgDropPaddingTaps(ModulePass):
    name = "tg-drop-padding-taps"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, DropPaddingTaps())
