"""kernel-to-loops with a sink: each stage function handed on as soon as it is lowered.

The CPU pipeline (tensor.compile_for_cpu) starts LLVM on a stage while the rest of the
model lowers (targets/cpu/stage_stream.py). The sink is not a pass option: a callable has
no spelling in pipeline text, and `tessel-opt -p kernel-to-loops` is the plain pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from xdsl.dialects import func

from tessel.passes.kernel.to_loops import KernelToLoops


class StreamingKernelToLoops(KernelToLoops):
    """KernelToLoops calling `sink` with every stage function it completes."""

    _sink: Callable[[func.FuncOp], None]

    def __init__(self, sink: Callable[[func.FuncOp], None], options: KernelToLoops):
        super().__init__(**{f.name: getattr(options, f.name) for f in fields(KernelToLoops)})
        object.__setattr__(self, "_sink", sink)  # (a frozen dataclass, as every pass)

    def stage_lowered(self, stage: func.FuncOp) -> None:
        self._sink(stage)
