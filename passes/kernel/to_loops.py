"""kernel-to-loops: every kernel.compute becomes a stage function of loops, launched by
its kernel.

    kernel.compute "conv" %out(...) ...   ==>   kernel.launch @k0_conv__s0(%x, %w, %out) over 64 : i64 : memref<...>, ...

The stage function `@k0_conv__s0(%x, %w, %out, %lo: index, %hi: index)` holds the loop
nest the stage's schedule asks for (see `loop_builder`); [lo, hi) is the part of its
parallel loop to run, so the runtime can hand ranges to threads. A stage's schedule is
sched IR: a `sched.stage` op in the module that names the stage (written by hand, by
sched-default, or from tuning records by sched-apply-records) has its primitives replayed
to build the loop nest (`loops/apply_sched.py`) and is consumed; a stage no sched.stage
names gets the default schedule of its target.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, StringAttr, SymbolRefAttr, UnitAttr, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import kernel, sched
from tessel.dialects.kernel import GPU_DIMS_ATTR, KERNEL_ATTR, SCHEDULE_ATTR, STAGE_ATTR
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.keys import ops_key
from tessel.passes.kernel.loops.apply_sched import schedule_from_stage
from tessel.passes.kernel.loops.cache_tiles import L1_BYTES, L2_BYTES, Caches
from tessel.passes.kernel.loops.emitter import Index
from tessel.passes.kernel.loops.gpu_schedule import default_gpu_schedule
from tessel.passes.kernel.loops.loop_builder import StageLowering
from tessel.passes.kernel.loops.row_fusion import fusable_rows, row_schedule
from tessel.passes.kernel.loops.schedule import VECTOR_BITS, StageSchedule, default_schedule


def used_buffers(ops: list[kernel.ComputeOp], visible: list[SSAValue]) -> list[SSAValue]:
    """The buffers of `visible` that `ops` read or write, in the order of `visible`.

    A stage function takes only these: the stages of two kernels that compute the same
    thing over the same buffers then lower to the same code whatever else the kernels take
    (a residual input, a bias), and the LLVM emitter compiles that code once."""
    used = {v for op in ops for inner in op.walk() for v in inner.operands}
    return [v for v in visible if v in used]


def stage_key(op: kernel.ComputeOp, buffers: list[SSAValue]) -> tuple:
    """The compute's structure over its buffers numbered by position: two stages with the
    same key under the same default schedule lower to the same function, so the second is
    a copy of the first (kernel-to-loops' time is mostly that lowering). ir/keys.py's
    ops_key, a buffer known by its position and type (xDSL's floats compare by their bits,
    so 0.0 and -0.0 differ). Printing the whole stage instead took an eighth of
    DenseNet-121's kernel-to-loops."""
    return ops_key([op], {b: ("b", i, b.type) for i, b in enumerate(buffers)})


def stage_function(
    name: str, op: kernel.ComputeOp, visible: list[SSAValue], schedule: StageSchedule, target: str = "cpu"
) -> tuple[func.FuncOp, int]:
    """The stage's loops as a function of (buffers..., lo, hi); and its launch extent (on the
    gpu target: its number of blocks, the grid and block shape in `kernel.gpu_dims`)."""
    block, lo, hi = _stage_block(visible)
    StageLowering(op, schedule, dict(zip(visible, block.args)), lo, hi).build(block)
    fn = _stage_func(name, block, describe(op, schedule))
    if target == "gpu":
        grid, threads = schedule.gpu_dims()
        fn.attributes[GPU_DIMS_ATTR] = DenseArrayBase.from_list(i64, [*grid, *threads])
        return fn, grid[0] * grid[1] * grid[2]  # the launch's extent: its blocks
    first = schedule.loops[0] if schedule.loops else None
    extent = first.extent if first is not None and first.kind == "parallel" else 1
    return fn, extent


def fused_stage_function(
    name: str, ops: list[kernel.ComputeOp], r: int, visible: list[SSAValue], schedules: list[StageSchedule]
) -> tuple[func.FuncOp, int]:
    """One stage function running `ops` row by row (loops/row_fusion.py): loops over the
    first r axes (the first with more than one point parallel), and inside, each stage's
    one-row loops in order. Returns it and its launch extent."""
    block, lo, hi = _stage_block(visible)
    extents = ops[0].domain[:r]
    parallel = next(d for d, n in enumerate(extents) if n > 1)
    names = ops[-1].axis_names
    rows: list[Index] = [0] * r
    inner = block
    for d in range(parallel, r):
        if extents[d] == 1:
            continue
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = names[d]
        rows[d] = body.args[0]
        start, stop = (lo, hi) if d == parallel else (_constant(inner, 0), _constant(inner, extents[d]))
        inner.add_op(scf.ForOp(start, stop, _constant(inner, 1), [], Region(body)))
        inner = body
    buffers: dict[SSAValue, SSAValue] = dict(zip(visible, block.args))
    for op, schedule in zip(ops, schedules, strict=True):
        StageLowering(op, schedule, buffers, lo, hi, rows).build(inner)
    while inner is not block:
        inner.add_op(scf.YieldOp())
        parent = inner.parent_op()
        assert parent is not None and parent.parent_block() is not None
        inner = parent.parent_block()  # type: ignore[assignment]
    row_axes = " ".join(f"{names[d]}/1x{extents[d]}" + (":parallel" if d == parallel else "") for d in range(r))
    stages = " ; ".join(describe(op, s) for op, s in zip(ops, schedules))
    return _stage_func(name, block, f"rows {row_axes} {{ {stages} }}"), extents[parallel]


def _stage_block(visible: list[SSAValue]) -> tuple[Block, SSAValue, SSAValue]:
    """The body block of a stage function over the buffers `visible` and a launch range
    [lo, hi), with its lo and hi arguments."""
    block = Block(arg_types=[*(v.type for v in visible), IndexType(), IndexType()])
    for arg, v in zip(block.args, visible):
        arg.name_hint = v.name_hint
    lo, hi = block.args[-2], block.args[-1]
    lo.name_hint, hi.name_hint = "lo", "hi"
    return block, lo, hi


def _stage_func(name: str, block: Block, schedule: str) -> func.FuncOp:
    """The stage function `name` of a filled body block, marked as a stage with its schedule."""
    block.add_op(func.ReturnOp())
    fn = func.FuncOp(name, (list(block.arg_types), []), Region(block))
    fn.attributes[STAGE_ATTR] = UnitAttr()
    fn.attributes[SCHEDULE_ATTR] = StringAttr(schedule)
    return fn


def _launch(name: str, visible: list[SSAValue], extent: int) -> kernel.LaunchOp:
    return kernel.LaunchOp.create(
        operands=list(visible), properties={"callee": SymbolRefAttr(name), "extent": IntegerAttr(extent, i64)}
    )


def _constant(block: Block, value: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, IndexType()))
    block.add_op(op)
    return op.result


def describe(op: kernel.ComputeOp, s: StageSchedule) -> str:
    names = op.axis_names
    parts = []
    for i, loop in enumerate(s.loops):
        if s.acc_at is not None and i == s.acc_at:
            parts.append("|acc|")
        if s.shared_at is not None and i == s.shared_at:
            parts.append("|shared|")
        kind = loop.kind + "xyz"[loop.dim] if loop.kind in ("block", "thread") else loop.kind
        tag = ("" if kind == "serial" else f":{kind}") + (":clamp" if loop.clamp else "")
        parts.append(f"{names[loop.axis]}/{loop.stride}x{loop.extent}{tag}")
    return " ".join(parts)


def _stage_names(module: builtin.ModuleOp) -> list[str]:
    names = []
    for fn in module.ops:
        if isinstance(fn, func.FuncOp) and STAGE_ATTR in fn.attributes:
            names.append(fn.sym_name.data)
    return names


@dataclass(frozen=True)
class KernelToLoops(ModulePass):
    name = "kernel-to-loops"

    target: str = "cpu"  # "gpu": default GPU schedules, sched.bind allowed, grid dims on each stage
    # the CPU's vector register for the default schedules: 512 (AVX-512), 256 (AVX2), 128
    vector_bits: int = VECTOR_BITS
    # the core's private data caches, which order the cache tiles (loops/cache_tiles.py)
    l1_bytes: int = L1_BYTES
    l2_bytes: int = L2_BYTES

    @property
    def caches(self) -> Caches:
        return Caches(self.l1_bytes, self.l2_bytes)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.target not in ("cpu", "gpu"):
            raise TesselError(f"kernel-to-loops{{target={self.target}}}: the target must be cpu or gpu")
        if self.vector_bits not in (128, 256, 512):
            raise TesselError(
                f"kernel-to-loops{{vector_bits={self.vector_bits}}}: the vector bits must be 128, 256 or 512"
            )
        Caches(self.l1_bytes, self.l2_bytes)  # (refuses impossible sizes before any work)
        written = sched.stages(list(op.ops))
        used: set[str] = set()
        lowered: dict[tuple, tuple[func.FuncOp, int]] = {}  # stage_key -> (stage function, extent)
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp) or KERNEL_ATTR not in fn.attributes:
                continue
            block = fn.body.block
            if self.target == "cpu" and self._fuse_rows(op, fn, written):
                continue
            visible: list[SSAValue] = list(block.args)
            count = 0
            for o in list(block.ops):
                if isinstance(o, memref.AllocOp):
                    visible.append(o.memref)
                if not isinstance(o, kernel.ComputeOp):
                    continue
                name = f"{fn.sym_name.data}__s{count}"
                count += 1
                buffers = used_buffers([o], visible)
                if name in written:
                    used.add(name)
                    schedule = schedule_from_stage(o, written[name], self.target)
                    stage_fn, extent = stage_function(name, o, buffers, schedule, self.target)
                else:
                    stage_fn, extent = self._default_stage(name, o, buffers, lowered)
                op.body.block.insert_op_before(stage_fn, fn)
                self.stage_lowered(stage_fn)
                block.insert_op_before(_launch(name, buffers, extent), o)
                o.detach()
                o.erase()
        for name, stage in written.items():
            if name not in used:
                known = ", ".join(sorted(_stage_names(op))) or "none"
                raise TesselError(
                    f'sched.stage "{name}" names no stage of this module (stages: {known})', op_location(stage)
                )
            stage.detach()
            stage.erase()

    def stage_lowered(self, stage: func.FuncOp) -> None:
        """Called with each stage function once it is complete in the module (nothing after
        changes it). Nothing here; the CPU pipeline hands the stage on to be compiled while
        the rest lower (pipelines/streaming.py, targets/cpu/stage_stream.py)."""

    def _default_stage(
        self, name: str, o: kernel.ComputeOp, buffers: list[SSAValue], lowered: dict[tuple, tuple[func.FuncOp, int]]
    ) -> tuple[func.FuncOp, int]:
        """The stage function of `o` under its target's default schedule; a copy, renamed,
        when an identical stage was lowered before (`lowered`, by stage_key)."""
        key = stage_key(o, buffers)
        if key in lowered:
            first, extent = lowered[key]
            copy = first.clone()
            copy.sym_name = StringAttr(name)
            return copy, extent
        schedule = (
            default_gpu_schedule(o) if self.target == "gpu" else default_schedule(o, self.vector_bits, self.caches)
        )
        lowered[key] = stage_function(name, o, buffers, schedule, self.target)
        return lowered[key]

    def _fuse_rows(self, module: builtin.ModuleOp, fn: func.FuncOp, written: dict[str, sched.StageOp]) -> bool:
        """Lower the kernel's stages as one row-fused stage `<kernel>__s0` when they fuse
        (loops/row_fusion.py) and no sched.stage schedules one of them; else False."""
        block = fn.body.block
        computes = [o for o in block.ops if isinstance(o, kernel.ComputeOp)]
        if any(f"{fn.sym_name.data}__s{i}" in written for i in range(len(computes))):
            return False
        r = fusable_rows(computes)
        if r is None:
            return False
        schedules = [row_schedule(c, r, self.vector_bits, self.caches) for c in computes]
        if any(s is None for s in schedules):
            return False
        visible: list[SSAValue] = list(block.args)
        for o in block.ops:
            if isinstance(o, memref.AllocOp):
                visible.append(o.memref)
            if o is computes[-1]:
                break
        name = f"{fn.sym_name.data}__s0"
        buffers = used_buffers(computes, visible)
        stage_fn, extent = fused_stage_function(name, computes, r, buffers, [s for s in schedules if s is not None])
        module.body.block.insert_op_before(stage_fn, fn)
        self.stage_lowered(stage_fn)
        block.insert_op_before(_launch(name, buffers, extent), computes[-1])
        for c in computes:
            c.detach()
            c.erase()
        return True
