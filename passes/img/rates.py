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
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import img
from tessel.dialects.img.types import _ImageType
from tessel.ir.diagnostics import TesselError, op_location

FPS_ATTR = "img.fps"
MBPS_ATTR = "img.mbps"


@dataclass(frozen=True)
class Rate:
    fps: float  # frames per second (all cameras); 0 for values without a rate
    source_fps: float  # the captured frame rate it derives from (all cameras)

    @property
    def reach(self) -> float:
        """The share of captured frames that get this far."""
        return self.fps / self.source_fps if self.source_fps else 1.0


NO_RATE = Rate(0.0, 0.0)


def bits(v: SSAValue) -> int:
    t = v.type
    return t.bits if isinstance(t, _ImageType) else 0


def rates(fn: func.FuncOp) -> dict[SSAValue, Rate]:
    out: dict[SSAValue, Rate] = {a: NO_RATE for a in fn.body.block.args}
    for op in fn.body.block.ops:
        if not op.results:
            continue
        if isinstance(op, img.SourceOp):
            total = op.fps.value.data * op.cameras
            out[op.results[0]] = Rate(total, total)
            continue
        inputs = [out.get(v, NO_RATE) for v in op.operands]
        timed = [r for r in inputs if r.fps]
        if isinstance(op, img.GateOp):
            base = out.get(op.input, NO_RATE)
            out[op.results[0]] = Rate(base.fps * op.pass_rate.value.data, base.source_fps)
            continue
        if len({round(r.fps, 9) for r in timed}) > 1:
            found = " and ".join(sorted({f"{r.fps:g} fps" for r in timed}))
            raise TesselError(f"{op.name} combines values at different rates ({found}): gate or resample them alike", op_location(op))
        for r in op.results:
            out[r] = timed[0] if timed else NO_RATE
    return out


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
                    if o.results and isinstance(o.results[0].type, _ImageType) and found[o.results[0]].fps:
                        annotate(o, found[o.results[0]])
