"""Image pipelines for the CPU: img IR -> fused, line-buffered native code.

    img (map, stencil, downsample, crop, extract, merge)
      -> img-fuse          point-wise producers merged into consumers; every other
                           producer marked `img.compute = "inline" | "line_buffer"`
      -> img-line-buffers  ring rows per line-buffered producer (and the on-chip report)
      -> row plan          passes/img/rows.py: stages, footprints, ring sizes
      -> LLVM IR           targets/cpu/img_llvm.py: vectorized row loops, one entry
      -> native code       targets/cpu/img_exec.py: JIT + the tensor runtime's thread pool

Camera pipelines (streams from img.source, gates, whole-frame ops: reduce, scan, dense,
remap, upsample) run as a frame program (passes/img/frames.py): the row-streamed groups
between whole-frame ops each go down the path above, the whole-frame ops become native
kernels (targets/cpu/img_kernels.py), and all of them are launches of one module's thread
pool, with gates deciding per frame which run (targets/cpu/img_program.py).

The numpy reference (dialects/img/reference.py) is the oracle for every step.
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.img.types import StreamType, numpy_dtype
from tessel.passes.img.fuse import ImgFuse
from tessel.passes.img.line_buffers import ImgLineBuffers
from tessel.passes.img.frames import plan_program
from tessel.passes.img.rows import KINDS as ROW_KINDS, build_plan
from tessel.targets.cpu.img_exec import ImgExecutable
from tessel.targets.cpu.img_program import ProgramExecutable
from tessel.targets.cpu.img_llvm import ENTRY, emit_pipeline
from tessel.targets.reference.interpreter import entry_function


def random_inputs(fn: func.FuncOp, seed: int = 0) -> list[np.ndarray]:
    """Random frames for fn's arguments: integers over their whole range, f32 in [0, 1)."""
    rng = np.random.default_rng(seed)
    out = []
    for a in fn.body.block.args:
        dt = np.dtype(numpy_dtype(a.type.element))  # type: ignore[attr-defined]
        shape = a.type.shape  # type: ignore[attr-defined]
        if dt.kind == "f":
            out.append(rng.random(shape, dtype=np.float32))
        else:
            info = np.iinfo(dt)
            out.append(rng.integers(info.min, int(info.max) + 1, shape).astype(dt))
    return out


def optimize(ctx: Context, module: ModuleOp, fuse: bool = True) -> ModuleOp:
    """The fusion and line-buffer passes, in place."""
    if fuse:
        ImgFuse().apply(ctx, module)
    ImgLineBuffers().apply(ctx, module)
    return module


def llvm_ir(fn: func.FuncOp, lanes_factor: int = 2) -> str:
    return emit_pipeline(build_plan(fn), lanes_factor)


def needs_program(fn: func.FuncOp) -> bool:
    """Whether fn is more than one row pipeline over frames: streams, gates, whole-frame ops
    (then it runs as a frame program, passes/img/frames.py)."""
    if any(isinstance(a.type, StreamType) for a in fn.body.block.args):
        return True
    return any(not isinstance(op, (*ROW_KINDS, func.ReturnOp)) for op in fn.body.block.ops)


def compile_program(ctx: Context, module: ModuleOp, entry: str | None = None, threads: int = 2, fuse: bool = True,
                    lanes_factor: int = 2) -> ProgramExecutable:  # fmt: skip
    """Plan and compile a camera pipeline (sources, gates, whole-frame ops, sinks): each row
    pipeline in it optimized and compiled as by compile_pipeline, all in one native module."""
    fn = entry_function(module, entry)
    return ProgramExecutable(ctx, plan_program(fn), threads, fuse, lanes_factor)


def compile_pipeline(ctx: Context, module: ModuleOp, entry: str | None = None, threads: int = 2, fuse: bool = True,
                     lanes_factor: int = 2) -> ImgExecutable:  # fmt: skip
    """Optimize (in place) and compile one pipeline function for this CPU."""
    optimize(ctx, module, fuse)
    fn = entry_function(module, entry)
    plan = build_plan(fn)
    ir = emit_pipeline(plan, lanes_factor)
    ret = fn.body.block.last_op
    specs_in = [(a.type.shape, np.dtype(numpy_dtype(a.type.element))) for a in fn.body.block.args]  # type: ignore[attr-defined]
    specs_out = [(v.type.shape, np.dtype(numpy_dtype(v.type.element))) for v in ret.operands]  # type: ignore[union-attr, attr-defined]
    return ImgExecutable(ir, ENTRY, plan.height, specs_in, specs_out, threads)
