"""The rate analysis of a camera pipeline (SDF-style): how often each value is produced.

A source produces `fps` frames per second per camera, `count` cameras at once; a gate passes
the share `pass_rate` of its input's frames; every other op produces one output frame per
input frame. Point-wise and multi-input ops need their inputs at one rate (the SDF
consistency check); a mismatch is an error naming the op and both rates. Values that come
from function arguments (single frames, weights) have no rate and combine with anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import SSAValue

from tessel.dialects import img
from tessel.dialects.img.types import ImageType
from tessel.ir.diagnostics import TesselError, op_location


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
    return t.bits if isinstance(t, ImageType) else 0


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
            raise TesselError(
                f"{op.name} combines values at different rates ({found}): gate or resample them alike", op_location(op)
            )
        for r in op.results:
            out[r] = timed[0] if timed else NO_RATE
    return out
