"""A VTA layer's schedule as `sched` IR, both ways.

The loop nest of an int8 layer on VTA is fixed by the hardware except for four knobs, which
are exactly what a `sched.stage` for the layer's program says:

    sched.stage "main_layer0" {
      %oc, %oh, %ow, %ic, %kh, %kw = sched.axes ["oc", "oh", "ow", "ic", "kh", "kw"]
      %oc.o, %oc.i = sched.split %oc by 2        // output-channel blocks (of 16) per tile
      %oh.o, %oh.i = sched.split %oh by 14       // output rows per tile
      %ic.o, %ic.i = sched.split %ic by 1        // input-channel blocks per reduction step
      %oh.t, %oh.v = sched.split %oh.o by 2      // tiles dealt round-robin to 2 virtual threads
      sched.virtual_thread %oh.v
      sched.tensorize %ic.i                       // (1x16).(16x16)^T GEMM micro-ops
    }

`oc` and `ic` count blocks of 16 channels (the packed layout); `ow` is never split (a tile
spans whole rows: the GEMM's inner affine loop). `vta-codegen` writes the schedule it chose
in this form and, when the module already holds a `sched.stage` named like the program, uses
that one instead, with one-line errors naming the primitive it cannot apply.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from tessel.dialects import sched
from tessel.ir.diagnostics import TesselError, op_location

from .search import Tiling

AXES = ("oc", "oh", "ow", "ic", "kh", "kw")


def schedule_op(name: str, t: Tiling) -> sched.StageOp:
    axes = sched.AxesOp.make(AXES)
    handles = dict(zip(AXES, axes.results))
    for axis, h in handles.items():
        h.name_hint = axis
    ops: list = [axes]
    outer: dict[str, SSAValue] = {}
    inner: dict[str, SSAValue] = {}
    for axis, factor in (("oc", t.toc), ("oh", t.th), ("ic", t.tic)):
        split = sched.SplitOp.make([handles[axis]], [factor])
        ops.append(split)
        outer[axis], inner[axis] = split.results
        for r, suffix in zip(split.results, ("o", "i")):
            r.name_hint = f"{axis}.{suffix}"
    if t.vt > 1:
        split = sched.SplitOp.make([outer["oh"]], [t.vt])
        split.results[0].name_hint, split.results[1].name_hint = "oh.t", "oh.v"
        ops += [split, sched.VirtualThreadOp.make([split.results[1]])]
    ops.append(sched.TensorizeOp.make([inner["ic"]]))
    return sched.StageOp.make(name, ops)


def tiling_from(stage: sched.StageOp) -> Tiling:
    """The tiling a user's schedule asks for; TesselError naming the primitive otherwise."""
    name = stage.stage.data

    def fail(op, message: str) -> TesselError:  # noqa: ANN001
        return TesselError(f'{op.name} in sched.stage "{name}": {message}', op_location(op))

    ops = list(stage.body.block.ops)
    axes = ops[0]
    assert isinstance(axes, sched.AxesOp)  # the stage verifier guarantees it
    if tuple(axes.axis_names) != AXES:
        raise fail(axes, f"a VTA layer's axes are {list(AXES)}, got {axes.axis_names}")
    role: dict[SSAValue, tuple[str, str]] = {h: (a, "axis") for a, h in zip(AXES, axes.results)}
    factors = {"oc": 1, "oh": 1, "ic": 1}
    split_of: dict[SSAValue, int] = {}
    vt = 1
    for op in ops[1:]:
        if isinstance(op, sched.SplitOp):
            axis, kind = role[op.operands[0]]
            (factor,) = op.knobs
            if kind == "axis" and axis in factors:
                factors[axis] = factor
                role[op.results[0]], role[op.results[1]] = (axis, "outer"), (axis, "inner")
            elif kind == "outer" and axis in ("oc", "oh"):
                role[op.results[0]], role[op.results[1]] = (axis, "tiles"), (axis, "vthread")
                split_of[op.results[1]] = factor
            else:
                raise fail(
                    op,
                    f"VTA splits oc, oh and ic once each (and a tile loop by the virtual threads), not {axis} ({kind})",
                )
        elif isinstance(op, sched.VirtualThreadOp):
            if op.operands[0] not in split_of:
                raise fail(op, "takes the inner loop of a split of the tile loop (%oh.o or %oc.o) by the thread count")
            vt = split_of[op.operands[0]]
        elif isinstance(op, sched.TensorizeOp):
            if role[op.operands[0]] not in (("ic", "inner"), ("ic", "axis")):
                raise fail(op, "the GEMM intrinsic covers the input-channel blocks of a step: tensorize %ic.i")
        else:
            raise fail(op, "is not a VTA schedule primitive (VTA takes split, virtual_thread and tensorize)")
    if vt not in (1, 2, 4):
        raise TesselError(f'sched.stage "{name}": virtual threads must be 1, 2 or 4, got {vt}', op_location(stage))
    return Tiling(factors["oh"], factors["oc"], factors["ic"], vt)
