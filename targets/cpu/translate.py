"""`tessel-translate FILE --target cpu`: the LLVM IR (or host assembly) of a module.

The input is a module at loop level (after `kernel-to-loops`); the tensor pipeline
(`pipelines/tensor.py`) compiles a tg module down to it first. Options:
  --opt form=ll        LLVM IR as the emitter writes it (default; what the JIT is given)
  --opt form=opt-ll    after LLVM's O3 for this host
  --opt form=asm       host assembly (check the vector width: zmm registers on AVX-512)
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ModuleOp

from tessel.ir.diagnostics import TesselError

FORMS = ("ll", "opt-ll", "asm")


VECTOR_BITS = ("128", "256", "512")


def check_options(options: Mapping[str, str]) -> str:
    """The form asked for; unknown options are one-line errors (before any compiling).
    `vector-bits` sets the default schedules' vector register (the host's when absent), so
    the code for an AVX-512 or an AVX2 machine can be looked at on either."""
    unknown = sorted(set(options) - {"form", "vector-bits"})
    if unknown:
        raise TesselError(
            f"cpu takes --opt form={'|'.join(FORMS)} and vector-bits={'|'.join(VECTOR_BITS)}, got '{unknown[0]}'"
        )
    form = options.get("form", "ll")
    if form not in FORMS:
        raise TesselError(f"cpu: unknown form '{form}' (choose {', '.join(FORMS)})")
    if options.get("vector-bits", "512") not in VECTOR_BITS:
        raise TesselError(f"cpu: vector-bits must be {', '.join(VECTOR_BITS)}, got '{options['vector-bits']}'")
    return form


def translate(module: ModuleOp, options: Mapping[str, str]) -> str:
    """The LLVM IR (or optimized IR, or assembly) of a loop-level module."""
    from tessel.targets.cpu.jit import CompiledModule, host_dot4_lanes
    from tessel.targets.cpu.llvm_emit import emit_module

    form = check_options(options)
    ir = emit_module(module, host_dot4_lanes())
    if form == "ll":
        return ir
    compiled = CompiledModule(ir, use_cache=False)
    return compiled.optimized_ir if form == "opt-ll" else compiled.assembly()
