"""`tessel-translate FILE --target gpu`: the PTX (or NVPTX LLVM IR) of a module.

The input is a module at loop level with GPU stages (`kernel-to-loops{target=gpu}`); the
tensor pipeline (`pipelines/tensor.py`) compiles a tg module down to it first. No GPU is
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

from xdsl.dialects.builtin import ModuleOp

from tessel.ir.diagnostics import TesselError

FORMS = ("ptx", "ll", "opt-ll", "resources")
ARCH = re.compile(r"^sm_\d{2,3}a?$")
PTX = re.compile(r"^ptx\d{2,3}$")


def check_options(options: Mapping[str, str]) -> tuple[str, str, str]:
    """(form, arch, ptx) asked for; bad options are one-line errors (before any compiling)."""
    from tessel.targets.gpu.nvptx import DEFAULT_ARCH, DEFAULT_PTX

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
    return form, arch, ptx


def translate(module: ModuleOp, options: Mapping[str, str]) -> str:
    """The PTX (or NVPTX LLVM IR, or ptxas's resource table) of a loop-level module."""
    from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module

    form, arch, ptx = check_options(options)
    ir = emit_ptx_module(module)
    if form == "ll":
        return ir
    optimized: list[str] = []
    text = compile_ptx(ir, arch, ptx, optimized)
    if form == "resources":
        from tessel.targets.gpu.ptxas import assemble

        rows = [f"{'kernel':<48} {'registers':>9} {'spill st':>8} {'spill ld':>8} {'stack':>6} {'smem':>6}"]
        for name, r in assemble(text, arch).items():
            rows.append(
                f"{name:<48} {r.registers:>9} {r.spill_stores:>8} {r.spill_loads:>8} {r.stack:>6} {r.shared:>6}"
            )
        return "\n".join(rows) + "\n"
    return optimized[0] if form == "opt-ll" else text
