"""tg-split-border-taps: a conv2d whose taps mostly read padding is computed as the sum of
smaller convolutions, each over the output region where its taps read the input.

Tap k of a spatial axis reads input position o*stride + k*dilation - pad_begin at output
position o, which lies in the input for one interval of o. DeepLabV3's ASPP branch with
dilation 12 on a 14x14 map (padding 12) reads the input with its centre tap everywhere, but
with its outer taps only at the two rows or columns nearest an edge: computed as a 3x3 conv
it multiplies zeros in 82% of its work (tg-drop-padding-taps drops only taps dead at every
output). onnxruntime's NCHWc convolution skips the padding per output row, and took a
quarter of our time for that layer.

Per axis, consecutive taps live on the same interval of outputs form a group; each pair of
groups (rows x columns) is a convolution with those taps over the input slice they read,
without padding, producing the block of output rows and columns where they are live, which
a pad puts in place:

    y = pad(conv(x[rows0, cols0], w[:, :, taps_h0, taps_w0], b)) + pad(conv(...)) + ...

The sum has the same terms as the original at every output element (in another order).
Applied where the live work is at most half the full work, the conv is big enough for the
saving to outweigh the extra launches, and there are at most 3 groups per axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, integer, ints, ints_attr
from tessel.ir import dtypes

from ._rewrite import Inserter, rewrite_once

MAX_LIVE_SHARE = 0.5  # of the full work, to split
MAX_GROUPS = 3  # per axis: 9 convolutions at most
MIN_MACS = 1 << 22  # below this, the extra launches cost more than the padding


@dataclass(frozen=True)
class TapGroup:
    """Taps first..last of one axis, live (reading the input) at outputs [lo, hi)."""

    first: int
    last: int
    lo: int
    hi: int


def live_outputs(n: int, k: int, stride: int, dilation: int, pad_begin: int, out: int) -> tuple[int, int]:
    """The outputs [lo, hi) at which tap k of an axis reads inside [0, n) (lo >= hi: none)."""
    offset = k * dilation - pad_begin
    lo = max(0, -(offset // stride))  # ceil(-offset / stride)
    hi = min(out, (n - 1 - offset) // stride + 1) if n - 1 - offset >= 0 else 0
    return lo, max(lo, hi)


def tap_groups(n: int, kernel: int, stride: int, dilation: int, pad_begin: int, out: int) -> list[TapGroup]:
    """The live taps of one axis, consecutive taps with the same live outputs grouped."""
    groups: list[TapGroup] = []
    for k in range(kernel):
        lo, hi = live_outputs(n, k, stride, dilation, pad_begin, out)
        if lo >= hi:
            continue
        last = groups[-1] if groups else None
        if last is not None and last.last == k - 1 and (last.lo, last.hi) == (lo, hi):
            groups[-1] = TapGroup(last.first, k, lo, hi)
        else:
            groups.append(TapGroup(k, k, lo, hi))
    return groups


def _worth_splitting(groups: list[list[TapGroup]], kernel: list[int], outs: list[int], macs_per_tap: int) -> bool:
    full = math.prod(kernel) * math.prod(outs)
    live = math.prod(sum((g.last - g.first + 1) * (g.hi - g.lo) for g in axis) for axis in groups)
    return (
        all(0 < len(axis) <= MAX_GROUPS for axis in groups)
        and live <= MAX_LIVE_SHARE * full
        and full * macs_per_tap >= MIN_MACS
    )


class SplitBorderTaps(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        if not dtypes.is_float(tg.tensor_of(op.input).element_type):
            return
        strides, dilations = ints(op.properties, "strides"), ints(op.properties, "dilations")
        pads = list(ints(op.properties, "pads"))  # top, left, bottom, right
        n, c, *sizes = tg.tensor_of(op.input).get_shape()
        m, cg, *kernel = tg.tensor_of(op.weight).get_shape()
        outs = list(op.result.type.get_shape()[2:])
        groups = [tap_groups(sizes[i], kernel[i], strides[i], dilations[i], pads[i], outs[i]) for i in range(2)]
        if not _worth_splitting(groups, kernel, outs, n * m * cg):
            return
        b = Inserter(rewriter)
        pieces = sorted(
            ((gh, gw) for gh in groups[0] for gw in groups[1]), key=lambda p: -(p[0].hi - p[0].lo) * (p[1].hi - p[1].lo)
        )
        total: SSAValue | None = None
        bias_added = False
        for gh, gw in pieces:
            starts, shape = [0, 0, 0, 0], [n, c, 0, 0]
            for i, g in enumerate((gh, gw)):
                starts[2 + i] = g.lo * strides[i] + g.first * dilations[i] - pads[i]
                shape[2 + i] = (g.hi - 1 - g.lo) * strides[i] + (g.last - g.first) * dilations[i] + 1
            x = op.input if shape[2:] == sizes else b.slice(op.input, starts, shape)
            w = b.slice(op.weight, [0, 0, gh.first, gw.first], [m, cg, gh.last - gh.first + 1, gw.last - gw.first + 1])
            w.name_hint = f"{op.weight.name_hint or 'weight'}_tap{gh.first}x{gw.first}"
            whole = (gh.lo, gh.hi, gw.lo, gw.hi) == (0, outs[0], 0, outs[1])
            bias = [op.bias] if op.bias is not None and whole and not bias_added else []
            bias_added = bias_added or bool(bias)
            props = {
                "strides": ints_attr(strides),
                "dilations": ints_attr([d if g.last > g.first else 1 for d, g in zip(dilations, (gh, gw))]),
                "pads": ints_attr([0, 0, 0, 0]),
                "groups": int_attr(integer(op.properties, "groups")),
            }
            part = b.make(tg.Conv2dOp, [x, w, *bias], props)
            part = b.pad(part, [0, 0, gh.lo, gw.lo, 0, 0, outs[0] - gh.hi, outs[1] - gw.hi])
            total = part if total is None else b.make(tg.AddOp, [total, part])
        assert total is not None
        if op.bias is not None and not bias_added:  # no piece covers the whole output
            total = b.make(tg.AddOp, [total, b.reshape(op.bias, [m, 1, 1])])
        assert total.type == op.result.type, "the pieces sum to the output's shape"
        total.name_hint = op.result.name_hint
        rewriter.replace(op, [], [total])


@dataclass(frozen=True)
class TgSplitBorderTaps(ModulePass):
    name = "tg-split-border-taps"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        rewrite_once(op, SplitBorderTaps())
