"""`tessel.img`: compile an image pipeline to a callable on numpy frames.

    import numpy as np
    import tessel
    text = tessel.img.example("unsharp", "f32", height=270, width=480)   # img IR, built in Python
    unsharp = tessel.img.compile(text)           # hoisted, fused, line-buffered native code
    frame = np.random.default_rng(0).random((270, 480, 1), dtype=np.float32)
    sharp = unsharp(frame)                       # (H, W, C) in, (H, W, C) out
    assert np.abs(sharp - unsharp.reference(frame)).max() <= 1e-4

A pipeline is `img` IR (text, a .mlir path or a parsed module) whose function takes and
returns `!img.frame<HxWxCxT>` values, or a `Pipeline` built in Python (stencils by their
weights, maps as Python expressions: api/img_builder.py); `example` builds the shipped ones (box3x3, gauss_sep,
sobel, unsharp, isp_lite, gamma_down, lut_blur; u8 or f32) at any size. Frames are numpy
arrays of shape (H, W, C) and the frame's element type. Camera pipelines (sources, gates,
streams, sinks) compile to a `CameraProgram` run over frames by camera name. `tessel-run
M.mlir --target cpu` is the command-line layer over the same pipeline (pipelines/img.py).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tessel.api.img_builder import Pipeline, Scalar
from tessel.runtime.errors import TesselError

if TYPE_CHECKING:  # xDSL and llvmlite load on first use (import tessel stays cheap)
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from tessel.targets.cpu.img_exec import ImgExecutable
    from tessel.targets.cpu.img_program import ProgramExecutable, Run

__all__ = ["CameraProgram", "Frame", "ImagePipeline", "Pipeline", "Scalar", "compile", "example", "examples"]


@dataclass(frozen=True)
class Frame:
    """One input or output of a pipeline: (height, width, channels) and element type."""

    shape: tuple[int, int, int]
    dtype: np.dtype


def examples() -> list[str]:
    """The names of the example pipelines `example` builds."""
    from tessel.frontends.img_examples import NAMES

    return list(NAMES)


def example(name: str, dtype: str = "u8", height: int = 1080, width: int = 1920) -> str:
    """The img IR of a shipped example pipeline (`examples()`), for `height` x `width` frames
    of `dtype` (`"u8"`: camera integer arithmetic; `"f32"`: values in [0, 1]).

    >>> "img.stencil" in example("box3x3", "u8", 64, 64)
    True
    """
    from tessel.frontends.img_examples import pipeline_text

    if height < 1 or width < 1:
        raise TesselError(f"frames must be at least 1x1, got {height}x{width}")
    try:
        return pipeline_text(name, dtype, height, width)
    except ValueError as err:
        raise TesselError(str(err)) from None


def _module(source: str | os.PathLike[str] | ModuleOp | Pipeline) -> ModuleOp:
    from xdsl.dialects.builtin import ModuleOp

    from tessel.dialects.context import make_context
    from tessel.ir.source import parse_module, read_module, verify

    if isinstance(source, Pipeline):
        module = parse_module(make_context(), source.ir(), f"<pipeline {source.name}>")
    elif isinstance(source, ModuleOp):
        module = source.clone()
    else:
        text = os.fspath(source)
        if "func.func" in text:
            module = parse_module(make_context(), text, "<pipeline>")
        elif os.path.exists(text):
            module = read_module(make_context(), text)
        else:
            raise TesselError(f"{text}: no such file (give a path to a .mlir module or the img IR text)")
    verify(module)
    return module


class ImagePipeline:
    """A compiled row pipeline: call it on frames (by position, one per function argument);
    it returns the one output frame, or a tuple of them when the function returns several."""

    def __init__(self, exe: ImgExecutable, reference_fn: func.FuncOp, optimized: ModuleOp, hoisted: list[str]):
        self._exe = exe
        self._reference_fn = reference_fn
        self.module = optimized
        self.hoisted = hoisted  # what img-hoist-reductions moved, one line per move

    @property
    def inputs(self) -> list[Frame]:
        return [Frame(tuple(s), np.dtype(d)) for s, d in self._exe.in_specs]  # type: ignore[arg-type]

    @property
    def outputs(self) -> list[Frame]:
        return [Frame(tuple(s), np.dtype(d)) for s, d in self._exe.out_specs]  # type: ignore[arg-type]

    def __call__(self, *frames: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        """Run on `frames` (numpy (H, W, C) arrays of the declared type); fresh output arrays."""
        outs = self._exe.run(list(frames))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def reference(self, *frames: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        """The numpy reference semantics of the pipeline as written (before any pass)."""
        from tessel.dialects.img.reference import run

        outs = [
            np.asarray(r).reshape(f.shape).astype(f.dtype, copy=False)
            for r, f in zip(run(self._reference_fn, list(frames)), self.outputs)
        ]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def benchmark(self, n: int = 20, frames: Sequence[np.ndarray] | None = None) -> float:
        """The median milliseconds per run over `n` runs (random frames unless given)."""
        if n < 1:
            raise TesselError(f"benchmark needs at least 1 run, got {n}")
        feed = list(frames) if frames is not None else self.random_frames()
        return statistics.median(self._exe.time(feed, n)) * 1e3

    def random_frames(self, seed: int = 0) -> list[np.ndarray]:
        """Frames of the right shapes: integers over the type's range, f32 in [0, 1)."""
        rng = np.random.default_rng(seed)
        out = []
        for f in self.inputs:
            if f.dtype.kind == "f":
                out.append(rng.random(f.shape, dtype=np.float32).astype(f.dtype))
            else:
                info = np.iinfo(f.dtype)
                out.append(rng.integers(info.min, int(info.max) + 1, f.shape).astype(f.dtype))
        return out

    def ir(self) -> str:
        """The optimized img IR (after hoisting, fusion and line buffering)."""
        from tessel.ir.source import print_module

        return print_module(self.module)

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR of the native code."""
        return str(self._exe.llvm_ir)

    def line_buffer_report(self) -> str:
        """On-chip bytes of every line buffer against the analytic minimum."""
        from tessel.pipelines.img import entry_function, line_buffer_report

        return str(line_buffer_report(entry_function(self.module, self._reference_fn.sym_name.data)))

    def close(self) -> None:
        """Stop the native worker threads; later calls are errors."""
        self._exe.close()

    def __repr__(self) -> str:
        sig = ", ".join(f"{f.dtype}{list(f.shape)}" for f in self.inputs)
        out = ", ".join(f"{f.dtype}{list(f.shape)}" for f in self.outputs)
        return f"<ImagePipeline @{self._reference_fn.sym_name.data}({sig}) -> ({out})>"


class CameraProgram:
    """A compiled camera pipeline (sources, gates, whole-frame ops, sinks): `run` takes the
    function's image arguments and each camera's frames by its `img.source` name."""

    def __init__(self, exe: ProgramExecutable, reference_fn: func.FuncOp, hoisted: list[str]):
        self._exe = exe
        self._reference_fn = reference_fn
        self.hoisted = hoisted

    @property
    def sources(self) -> dict[str, Frame]:
        """Each camera (img.source name) and the frames it delivers."""
        out = {}
        for op in self._exe.program.sources:
            out[op.source_name] = Frame(self._exe.arg_shape(op.result), self._exe.arg_dtype(op.result))
        return out

    @property
    def inputs(self) -> list[Frame]:
        """The function's image arguments (given to `run` by position)."""
        return [Frame(self._exe.arg_shape(a), self._exe.arg_dtype(a)) for a in self._exe.args]

    def random_images(self, seed: int = 0) -> list[np.ndarray]:
        """Random frames for the function's image arguments."""
        from tessel.pipelines.img import random_inputs

        return random_inputs(self._reference_fn, seed)

    def run(self, *images: np.ndarray, sources: Mapping[str, Sequence[np.ndarray]] | None = None) -> Run:
        """Run over the frames (as many as the shortest source gives); the function's results
        and each sink's frames, how many frames every gate passed, the seconds per frame."""
        return self._exe.run(list(images), sources)

    def close(self) -> None:
        self._exe.close()


def compile(
    source: str | os.PathLike[str] | ModuleOp | Pipeline,
    entry: str | None = None,
    *,
    threads: int = 2,
    fuse: bool = True,
    hoist: bool = True,
) -> Any:
    """Compile the pipeline function `entry` (default: the only one, or `main`) of `source`
    (IR text, a .mlir path, a module, or a `Pipeline` built in Python) for this CPU: data reductions hoisted first
    (`hoist`), point-wise producers fused into consumers (`fuse`), every other producer
    line-buffered, one native thread pool of `threads`. Returns an `ImagePipeline`, or a
    `CameraProgram` for a pipeline with sources, gates or streams.

    >>> blur = compile(example("box3x3", "u8", 64, 64))  # doctest: +SKIP
    >>> blur(np.zeros((64, 64, 1), np.uint8)).shape  # doctest: +SKIP
    (64, 64, 1)
    """
    from tessel.dialects.context import make_context
    from tessel.pipelines.img import compile_pipeline, compile_program, entry_function, needs_program

    if threads < 1:
        raise TesselError(f"threads must be at least 1, got {threads}")
    module = _module(source)
    fn = entry_function(module, entry)
    reference_fn = fn.clone()  # before any pass: the reference runs the program as written
    hoisted: list[str] = []
    ctx = make_context()
    if needs_program(fn):
        program = compile_program(ctx, module, entry, threads=threads, fuse=fuse, hoist=hoist, hoisted=hoisted)
        return CameraProgram(program, reference_fn, hoisted)
    exe = compile_pipeline(ctx, module, entry, threads=threads, fuse=fuse, hoist=hoist, hoisted=hoisted)
    return ImagePipeline(exe, reference_fn, module, hoisted)
