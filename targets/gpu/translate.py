"""`tessel-translate FILE --target gpu`: the PTX (or NVPTX LLVM IR) of a module.

The input is a tg module (compiled through the whole pipeline with GPU schedules first) or
a module already at loop level with GPU stages (`kernel-to-loops{target=gpu}`). No GPU is
needed: the PTX comes from LLVM's NVPTX backend in llvmlite. Options:
  --opt form=ptx       PTX assembly (default; what the CUDA driver loads)
  --opt form=ll        LLVM IR as the emitter writes it
  --opt form=opt-ll    after LLVM's O3 for the NVPTX target
  --opt form=resources each kernel's registers, spills, stack and shared memory, from
                       NVIDIA's ptxas (which must be installed: targets/gpu/ptxas.py)
  --opt arch=sm_90     the GPU architecture (default sm_90, the H100/H200)
  --opt ptx=ptx80      the PTX ISA version
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tessel.ir.diagnostics import TesselError
from tessel.ir.source import make_context, read_module
from tessel.ir.weights import WeightStore

FORMS = ("ptx", "ll", "opt-ll", "resources")
ARCH = re.compile(r"^sm_\d{2,3}a?$")
PTX = re.compile(r"^ptx\d{2,3}$")


def translate(path: str, options: Mapping[str, str]) -> str:
    from tessel.pipelines.tensor import lower
    from tessel.targets.gpu.nvptx import DEFAULT_ARCH, DEFAULT_PTX, compile_ptx, emit_ptx_module

    unknown = sorted(set(options) - {"form", "arch", "ptx"})
    if unknown:
        raise TesselError(f"gpu takes --opt form={'|'.join(FORMS)}, arch=sm_XX, ptx=ptxNN; got '{unknown[0]}'")
    form = options.get("form", "ptx")
    if form not in FORMS:
        raise TesselError(f"gpu: unknown form '{form}' (choose {', '.join(FORMS)})")
    arch = options.get("arch", DEFAULT_ARCH)
    if not ARCH.match(arch):
        raise TesselError(f"gpu: arch must look like sm_90, got '{arch}'")
    ptx = options.get("ptx", DEFAULT_PTX)
    if not PTX.match(ptx):
        raise TesselError(f"gpu: ptx must look like ptx80, got '{ptx}'")
    module = read_module(make_context(), path)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        lower(module, WeightStore.for_module(module, path), target="gpu")
    ir = emit_ptx_module(module)
    if form == "ll":
        return ir
    optimized: list[str] = []
    text = compile_ptx(ir, arch, ptx, optimized)
    if form == "resources":
        from tessel.targets.gpu.ptxas import assemble

        rows = [f"{'kernel':<48} {'registers':>9} {'spill st':>8} {'spill ld':>8} {'stack':>6} {'smem':>6}"]
        for name, r in assemble(text, arch).items():
            rows.append(f"{name:<48} {r.registers:>9} {r.spill_stores:>8} {r.spill_loads:>8} {r.stack:>6} {r.shared:>6}")
        return "\n".join(rows) + "\n"
    return optimized[0] if form == "opt-ll" else text
