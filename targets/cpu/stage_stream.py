"""Stage functions emitted and compiled while the model is still being lowered.

kernel-to-loops is Python and holds one core; LLVM's O3 and code generation of the stages
it has already made can run beside it on the others (llvmlite's calls release the GIL; each
module compiles in an LLVM context of its own). The pipeline hands a StageStream to
kernel-to-loops, which calls it with each stage function as soon as it is lowered; the
stream emits the stage's LLVM module (llvm_modules.emit_stage, whose text depends on that
function alone) and starts compiling it. The executable then `finish`es the stream: any
stage not streamed is emitted there, and the wait for the rest is the JIT's time.

While the stream is open (`with StageStream() as stream:` around the lowering) the
interpreter's thread switch interval is a tenth of its default: a compiling thread needs
the GIL between its LLVM calls (a dozen per module), and at the default 5 ms it waited
behind the lowering thread so long that 5 of ResNet-18's 41 modules finished during the
lowering; at 0.5 ms 14-24 do.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.jit import ShardedModule, StageCompiler
from tessel.targets.cpu.llvm_modules import STAGE_SYMBOL, emit_runtime, emit_stage, stage_functions

SWITCH_INTERVAL = 0.0005  # seconds (sys.setswitchinterval) while the stream is open


class StageStream:
    """Each stage function handed in (`__call__`) as an LLVM module compiling in the
    background; `emit_seconds` is the time spent emitting LLVM IR so far."""

    def __init__(self) -> None:
        target = cpu_target.current()
        self._dot4_lanes, self._bf16_features = target.dot4_lanes, target.bf16_features
        self.compiler = StageCompiler()
        self.emit_seconds = 0.0
        self._interval: float | None = None

    def __enter__(self) -> StageStream:
        self._interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._interval, SWITCH_INTERVAL))
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._interval is not None:
            sys.setswitchinterval(self._interval)
        if kind is not None:
            self.close()

    def __call__(self, stage: func.FuncOp) -> None:
        start = time.perf_counter()
        ir = emit_stage(stage, self._dot4_lanes, self._bf16_features)
        self.emit_seconds += time.perf_counter() - start
        self.compiler.add(stage.sym_name.data, ir)

    def finish(self, module: ModuleOp) -> ShardedModule:
        """The module's stages compiled: those not handed in before are emitted now."""
        for stage in stage_functions(module):
            if stage.sym_name.data not in self.compiler:
                self(stage)
        return self.compiler.finish(emit_runtime(), STAGE_SYMBOL)

    def close(self) -> None:
        """Abandon the stream (the lowering failed): no further module is compiled."""
        self.compiler.close()
