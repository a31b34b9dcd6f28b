"""Between `sched.stage` IR and the StageSchedule the loop builder takes.

`schedule_from_stage` replays a stage's primitives on loop handles: `sched.axes` gives one
loop per axis of the kernel.compute (checked by name), `split`/`tile` make an outer loop
stepping by the factor and an inner one of that many iterations (a factor that does not
divide leaves a tail, which the loop builder guards or masks), `reorder` permutes the
listed loops among the positions they hold, annotations set a loop's kind, `cache_write`
places the accumulator tile. An illegal schedule is a TesselError naming the primitive.
`stage_from_schedule` is the inverse: any StageSchedule (the default one, a tuner's
candidate) written as primitives, which is how schedules are printed and recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from tessel.dialects import kernel, sched
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.kernel.loops.loop import Kind, Loop
from tessel.passes.kernel.loops.schedule import StageSchedule

UNSUPPORTED: dict[type[Operation], str] = {
    sched.FuseOp: "the cpu loop builder gives each loop one axis; fuse is not supported yet",
    sched.ComputeAtOp: "stages are separate loop nests on the cpu target; compute_at is not supported yet",
    sched.ComputeInlineOp: "element-wise consumers are always inlined into their producer's epilogue; nothing to inline",
    sched.CacheReadOp: "cache_read stages tiles in GPU shared memory (the gpu target); the cpu reads inputs in place",
    sched.BindOp: "bind maps loops to GPU indices and needs the gpu target",
    sched.TensorizeOp: "no tensor intrinsic is registered for the cpu target",
    sched.VirtualThreadOp: "virtual threads are for the vta target",
}


@dataclass
class _Handle:
    loop: Loop


def _fail(op: Operation, stage: str, message: str) -> TesselError:
    return TesselError(f'{op.name} in sched.stage "{stage}": {message}', op_location(op))


GPU_UNSUPPORTED: dict[type[Operation], str] = {
    sched.ParallelOp: "a GPU stage's parallelism is its grid: bind loops with sched.bind instead",
}
GPU_SUPPORTED = (sched.BindOp, sched.CacheReadOp)  # cache_read: shared-memory tiles


def schedule_from_stage(compute: kernel.ComputeOp, stage: sched.StageOp, target: str = "cpu") -> StageSchedule:
    """The StageSchedule `stage` describes for `target` ("cpu" or "gpu")."""
    name = stage.stage.data
    unsupported = dict(UNSUPPORTED)
    if target == "gpu":
        for supported in GPU_SUPPORTED:
            del unsupported[supported]
        unsupported.update(GPU_UNSUPPORTED)
    order: list[_Handle] = []
    handles: dict[SSAValue, _Handle] = {}
    acc_after: _Handle | None = None
    shared: _Handle | None = None
    extents = compute.domain
    has_axes = False
    for op in stage.body.block.ops:
        if type(op) in unsupported:
            raise _fail(op, name, unsupported[type(op)])
        if isinstance(op, sched.AxesOp):
            if op.axis_names != compute.axis_names:
                raise _fail(op, name, f"names axes {op.axis_names}, the stage's are {compute.axis_names}")
            has_axes = True
            for i, (v, n) in enumerate(zip(op.handles, extents)):
                handles[v] = _Handle(Loop(i, n, 1))
                order.append(handles[v])
            continue
        loops = [handles[v] for v in op.operands]
        if isinstance(op, sched.SplitOp | sched.SplitClampOp | sched.TileOp):
            new: list[_Handle] = []
            inner_new: list[_Handle] = []
            for h, factor in zip(loops, op.knobs):
                outer, inner = _split(op, name, h.loop, factor, clamp=isinstance(op, sched.SplitClampOp))
                at = order.index(h)
                order[at : at + 1] = [outer, inner]
                new.append(outer)
                inner_new.append(inner)
            if isinstance(op, sched.TileOp):  # outers before inners, in the listed order
                slots = sorted(order.index(h) for h in new + inner_new)
                for slot, h in zip(slots, new + inner_new):
                    order[slot] = h
            for r, h in zip(op.results, new + inner_new):  # split: outer, inner; tile: outers, inners
                handles[r] = h
        elif isinstance(op, sched.ReorderOp):
            slots = sorted(order.index(h) for h in loops)
            for slot, h in zip(slots, loops):
                order[slot] = h
        elif isinstance(op, sched.CacheWriteOp):
            acc_after = loops[0]
        elif isinstance(op, sched.CacheReadOp):
            shared = loops[0]
        elif isinstance(op, sched.BindOp):
            if loops[0].loop.kind != "serial":
                raise _fail(op, name, f"the loop is already {loops[0].loop.kind}")
            i = sched.BindOp.INDICES.index(op.index)
            loops[0].loop = loops[0].loop.but(kind="block" if i < 3 else "thread", dim=i % 3)
        else:
            kinds: dict[type[Operation], Kind] = {
                sched.VectorizeOp: "vector",
                sched.ParallelOp: "parallel",
                sched.UnrollOp: "unroll",
            }
            kind = kinds[type(op)]
            if loops[0].loop.kind != "serial":
                raise _fail(op, name, f"the loop is already {loops[0].loop.kind}")
            loops[0].loop = loops[0].loop.but(kind=kind)
    if not has_axes:  # (a 0-d stage, a scalar, has an empty sched.axes [] and no loops)
        raise TesselError(f'sched.stage "{name}" has no sched.axes', op_location(stage))
    acc_at = None
    if acc_after is not None:
        acc_at = order.index(acc_after) + 1
    elif compute.reduce_count:
        acc_at = None  # scalar accumulation, one output element at a time
    schedule = StageSchedule(
        [h.loop for h in order], acc_at, [f"sched.stage {name}"], order.index(shared) if shared is not None else None
    )
    try:
        schedule.validate(compute)
    except ValueError as err:
        culprit = _culprit(stage, str(err))
        raise _fail(culprit, name, str(err)) from None
    return schedule


def _split(op: Operation, stage: str, loop: Loop, factor: int, clamp: bool) -> tuple[_Handle, _Handle]:
    if loop.kind != "serial":
        raise _fail(op, stage, f"cannot split a loop that is already {loop.kind}")
    if clamp and loop.stride != 1:
        raise _fail(op, stage, "split_clamp applies to a whole axis (a loop of step 1)")
    if clamp and factor > loop.extent:
        raise _fail(op, stage, f"split_clamp factor {factor} exceeds the loop's {loop.extent} iterations")
    outer = Loop(loop.axis, -(-loop.extent // factor), loop.stride * factor, clamp=clamp)
    inner = Loop(loop.axis, factor, loop.stride)
    return _Handle(outer), _Handle(inner)


def _culprit(stage: sched.StageOp, message: str) -> Operation:
    """The primitive a validation message is about (the last one of its kind), for the error location."""
    kinds = {
        "parallel": sched.ParallelOp,
        "vectorized": sched.VectorizeOp,
        "accumulator": sched.CacheWriteOp,
        "reduction loops": sched.CacheWriteOp,
        "clamped": sched.SplitClampOp,
        "GPU": sched.BindOp,
        "threads": sched.BindOp,
        "blocks": sched.BindOp,
        "bound": sched.BindOp,
        "shared": sched.CacheReadOp,
    }
    ops = list(stage.body.block.ops)
    for word, kind in kinds.items():
        if word in message:
            found = [o for o in ops if isinstance(o, kind)]
            if found:
                return found[-1]
    return ops[-1] if ops else stage


def stage_from_schedule(compute: kernel.ComputeOp, name: str, schedule: StageSchedule) -> sched.StageOp:
    """The primitives that rebuild `schedule` from the stage's axes."""
    axes = sched.AxesOp.make(compute.axis_names)
    ops: list[Operation] = [axes]
    handle_of: dict[int, SSAValue] = {}
    for axis, v in enumerate(axes.handles):
        v.name_hint = compute.axis_names[axis]
        loops = sorted((l for l in schedule.loops if l.axis == axis), key=lambda l: -l.stride)
        current: SSAValue = v
        label = compute.axis_names[axis]
        for outer in loops[:-1]:
            factor = outer.stride  # the handle being split always steps by 1
            split = (sched.SplitClampOp if outer.clamp else sched.SplitOp).make([current], [factor])
            ops.append(split)
            o, i = split.results
            o.name_hint, i.name_hint = f"{label}.o", f"{label}.i"
            handle_of[id(outer)] = o
            current, label = i, f"{label}.i"
        handle_of[id(loops[-1])] = current
    natural = [
        l
        for axis in range(len(compute.axis_names))
        for l in sorted((l for l in schedule.loops if l.axis == axis), key=lambda l: -l.stride)
    ]
    ordered = [handle_of[id(l)] for l in schedule.loops]
    if [id(l) for l in natural] != [id(l) for l in schedule.loops]:
        ops.append(sched.ReorderOp.make(ordered))
    kinds = {"parallel": sched.ParallelOp, "vector": sched.VectorizeOp, "unroll": sched.UnrollOp}
    for loop, h in zip(schedule.loops, ordered):
        if loop.kind in kinds:
            ops.append(kinds[loop.kind].make([h]))
        elif loop.kind in ("block", "thread"):
            ops.append(
                sched.BindOp.make_bind(h, f"{'blockIdx' if loop.kind == 'block' else 'threadIdx'}.{'xyz'[loop.dim]}")
            )
    if schedule.acc_at is not None and schedule.acc_at > 0:
        ops.append(sched.CacheWriteOp.make([ordered[schedule.acc_at - 1]]))
    if schedule.shared_at is not None:
        ops.append(sched.CacheReadOp.make([ordered[schedule.shared_at]]))
    return sched.StageOp.make(name, ops)
