"""img-rates: how often each value is produced, and how much of it (SDF-style rate analysis).

A source produces `fps` frames per second per camera, `count` cameras at once; a gate passes
the share `pass_rate` of its input's frames; every other op produces one output frame per
input frame. Point-wise and multi-input ops need their inputs at one rate — a frame cannot be
combined with a gated version of itself frame by frame — which is the SDF consistency check;
a mismatch is an error naming the op and both rates. Values that come from function
arguments (single frames, weights) have no rate and combine with anything.

The pass writes `img.fps` (frames per second, all cameras together) and `img.mbps` (the
value's data rate) on every op with a result, for reports and the partitioner.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import FloatAttr, f64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tessel.dialects.img.types import ImageType
from tessel.passes.img.analysis.rates import Rate, bits, rates

FPS_ATTR = "img.fps"
MBPS_ATTR = "img.mbps"


def annotate(op: Operation, rate: Rate) -> None:
    op.attributes[FPS_ATTR] = FloatAttr(round(rate.fps, 6), f64)
    op.attributes[MBPS_ATTR] = FloatAttr(round(rate.fps * bits(op.results[0]) / 1e6, 6), f64)


@dataclass(frozen=True)
class ImgRates(ModulePass):
    name = "img-rates"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp):
                found = rates(fn)
                for o in fn.body.block.ops:
                    if o.results and isinstance(o.results[0].type, ImageType) and found[o.results[0]].fps:
                        annotate(o, found[o.results[0]])
