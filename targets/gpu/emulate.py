"""GPU stages run on this CPU: the emulator the GPU lowering is tested with everywhere.

The kernels are the GPU's (the same loop IR, the same bound indices, the same guards for
the threads past an axis's end), compiled for the host by targets/gpu/nvptx.py's host
flavour: a launch over the grid's blocks, split across the CPU's threads, each block's
threads run one after another. Exact for kernels without barriers, which is every kernel
the GPU schedules produce today; the launch plan, buffers and weights are the CPU
runtime's.
"""

from __future__ import annotations

from tessel.targets.cpu.runtime import CpuExecutable
from tessel.targets.gpu.nvptx import emit_host_module


class EmulatedGpuExecutable(CpuExecutable):
    emit = staticmethod(emit_host_module)
    load = CpuExecutable.emit_and_compile  # one host module (its launches are not stage shards)
