"""Image pipelines for the CPU: img IR -> hoisted, fused, line-buffered native code.

    img IR (map, stencil, lut, downsample, crop, extract, merge; streams, gates, whole-frame ops)
      -> img-hoist-reductions  data reduction first: crops, nearest downsamples and gates move
                               above the work they make unnecessary (on by default; hoist=False)
      -> frame program         passes/img/plan/frames.py: row-stage groups between whole-frame
                               ops and gates (only for camera pipelines: needs_program)
      -> img-fuse              point-wise producers merged into consumers; every other producer
                               scheduled #img<compute inline | line_buffer>
      -> img-line-buffers      ring rows per line-buffered producer (and the on-chip report)
      -> row plan              passes/img/plan/rows.py -> dialects/img/plan.py (plain data)
      -> LLVM IR               targets/cpu/img_llvm.py (row pipelines), img_kernels.py (kernels)
      -> native code           targets/cpu/img_exec.py, img_program.py: JIT + one thread pool

The numpy reference (dialects/img/reference.py) is the oracle for every step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects import img
from tessel.dialects.img.program import StepKind
from tessel.dialects.img.types import ImageType, StreamType, numpy_dtype
from tessel.ir.diagnostics import TesselError
from tessel.passes.img.analysis.costs import DEFAULT_PLATFORMS, load_model
from tessel.passes.img.fuse import ImgFuse
from tessel.passes.img.hoist_reductions import hoist as hoist_reductions
from tessel.passes.img.line_buffers import ImgLineBuffers, report
from tessel.passes.img.partition import apply_cut, choose, options
from tessel.passes.img.partition import report as partition_report
from tessel.passes.img.plan.frames import plan_program
from tessel.passes.img.plan.rows import build_plan
from tessel.targets.cpu.img_exec import ImgExecutable
from tessel.targets.cpu.img_llvm import ENTRY, emit_pipeline
from tessel.targets.cpu.img_program import ProgramExecutable
from tessel.targets.reference.interpreter import entry_function

PLATFORMS = DEFAULT_PLATFORMS  # package data: works from an installed wheel

__all__ = [
    "compile_pipeline", "compile_program", "entry_function", "line_buffer_report", "llvm_ir",
    "needs_program", "optimize", "partition", "random_inputs",
]  # fmt: skip


def _image(t: object) -> ImageType:
    if not isinstance(t, ImageType):
        raise TesselError(f"the CPU image target takes and returns !img.frame values, got {t}")
    return t


def random_inputs(fn: func.FuncOp, seed: int = 0) -> list[np.ndarray]:
    """Random frames for fn's arguments: integers over their whole range, f32 in [0, 1)."""
    rng = np.random.default_rng(seed)
    out = []
    for a in fn.body.block.args:
        t = _image(a.type)
        dt = np.dtype(numpy_dtype(t.element))
        if dt.kind == "f":
            out.append(rng.random(t.shape, dtype=np.float32))
        else:
            info = np.iinfo(dt)
            out.append(rng.integers(info.min, int(info.max) + 1, t.shape).astype(dt))
    return out


def optimize(ctx: Context, module: ModuleOp, fuse: bool = True) -> ModuleOp:
    """The fusion and line-buffer passes, in place."""
    if fuse:
        ImgFuse().apply(ctx, module)
    ImgLineBuffers().apply(ctx, module)
    return module


def llvm_ir(fn: func.FuncOp, lanes_factor: int = 2) -> str:
    return emit_pipeline(build_plan(fn), lanes_factor)


def line_buffer_report(fn: func.FuncOp) -> str:
    return report(build_plan(fn)).format()


def needs_program(fn: func.FuncOp) -> bool:
    """Whether fn is more than one row pipeline over frames: streams, gates, whole-frame ops
    (then it runs as a frame program, dialects/img/program.py)."""
    if any(isinstance(a.type, StreamType) for a in fn.body.block.args):
        return True
    return any(not (op.has_trait(img.RowStage) or isinstance(op, func.ReturnOp)) for op in fn.body.block.ops)


def compile_program(ctx: Context, module: ModuleOp, entry: str | None = None, threads: int = 2, fuse: bool = True,
                    hoist: bool = True, lanes_factor: int = 2, hoisted: list[str] | None = None) -> ProgramExecutable:  # fmt: skip
    """Hoist, plan and compile a camera pipeline (sources, gates, whole-frame ops, sinks):
    each row pipeline in it optimized and planned as by compile_pipeline, all in one native
    module. What hoisting moved is appended to `hoisted`, one line per move."""
    if hoist:
        moves = hoist_reductions(module)
        if hoisted is not None:
            hoisted += moves
    program = plan_program(entry_function(module, entry))
    for step in program.steps:
        if step.kind == StepKind.PIPELINE:
            assert step.module is not None
            optimize(ctx, step.module, fuse)
            step.plan = build_plan(next(f for f in step.module.ops if isinstance(f, func.FuncOp)))
    return ProgramExecutable(program, threads, lanes_factor)


def compile_pipeline(ctx: Context, module: ModuleOp, entry: str | None = None, threads: int = 2, fuse: bool = True,
                     hoist: bool = True, lanes_factor: int = 2, hoisted: list[str] | None = None) -> ImgExecutable:  # fmt: skip
    """Hoist, optimize (in place) and compile one pipeline function for this CPU."""
    if hoist:
        moves = hoist_reductions(module)
        if hoisted is not None:
            hoisted += moves
    optimize(ctx, module, fuse)
    fn = entry_function(module, entry)
    plan = build_plan(fn)
    ir = emit_pipeline(plan, lanes_factor)
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    specs_in = [(_image(a.type).shape, np.dtype(numpy_dtype(_image(a.type).element))) for a in fn.body.block.args]
    specs_out = [(_image(v.type).shape, np.dtype(numpy_dtype(_image(v.type).element))) for v in ret.operands]
    return ImgExecutable(ir, ENTRY, plan.height, specs_in, specs_out, threads)


def partition(
    module: ModuleOp, model: str | Path | None = None, platform: str = "accel", link: str = "backscatter"
) -> list[str]:
    """Cut every camera pipeline of the module between node and cloud (img-partition's
    choice, in place); the report of every cut, one block per pipeline."""
    m = load_model(model or PLATFORMS)
    node, wire = m.platform(platform), m.link(link)
    cameras = [
        f
        for f in module.ops
        if isinstance(f, func.FuncOp) and any(isinstance(o, img.SourceOp) for o in f.body.block.ops)
    ]
    if not cameras:
        raise TesselError("--partition needs a camera pipeline (a function with an img.source)")
    reports = []
    for fn in cameras:
        opts = options(fn, node, wire)
        chosen = choose(opts, node, wire)
        reports.append(f"@{fn.sym_name.data}: " + partition_report(opts, chosen, node, wire))
        apply_cut(fn, chosen, wire)
    return reports
