"""`tessel-translate FILE --target cpu`: the LLVM IR (or host assembly) of a module.

The input is a module at loop level (after `kernel-to-loops`); the tensor pipeline
(`pipelines/tensor.py`) compiles a tg module down to it first. Options:
  --opt form=ll        LLVM IR as the emitter writes it (default; what the JIT is given)
  --opt form=opt-ll    after LLVM's O3 for this host
  --opt form=asm       host assembly (check the vector width: zmm registers on AVX-512)
  --opt mcpu=NAME      for the CPU NAME instead of this one (cpu_target.KNOWN: x86-64-v3,
                       sapphirerapids, znver4, ...): its vector width, instructions, tuning
  --opt vector-bits=N  the default schedules' vector register (default: the CPU's)
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ModuleOp

from tessel.ir.diagnostics import TesselError

FORMS = ("ll", "opt-ll", "asm")


VECTOR_BITS = ("128", "256", "512")


def check_options(options: Mapping[str, str]) -> str:
    """The form asked for; unknown options are one-line errors (before any compiling).
    `mcpu` names the CPU to compile for (cpu_target.named), so the code for an AVX-512 or an
    AVX2 machine, an Intel or an AMD one, can be looked at on any; `vector-bits` overrides
    the default schedules' vector register (the CPU's when absent)."""
    unknown = sorted(set(options) - {"form", "vector-bits", "mcpu"})
    if unknown:
        raise TesselError(
            f"cpu takes --opt form={'|'.join(FORMS)}, mcpu=NAME and vector-bits={'|'.join(VECTOR_BITS)}, "
            f"got '{unknown[0]}'"
        )
    if "mcpu" in options:
        from tessel.targets.cpu.cpu_target import named

        named(options["mcpu"])  # an unknown name is an error here
    form = options.get("form", "ll")
    if form not in FORMS:
        raise TesselError(f"cpu: unknown form '{form}' (choose {', '.join(FORMS)})")
    if options.get("vector-bits", "512") not in VECTOR_BITS:
        raise TesselError(f"cpu: vector-bits must be {', '.join(VECTOR_BITS)}, got '{options['vector-bits']}'")
    return form


def translate(module: ModuleOp, options: Mapping[str, str]) -> str:
    """The LLVM IR (or optimized IR, or assembly) of a loop-level module, for the current
    CPU target (pipelines.tensor.translate_for_cpu sets it from `mcpu`)."""
    from tessel.targets.cpu import cpu_target
    from tessel.targets.cpu.jit import CompiledModule
    from tessel.targets.cpu.llvm_modules import emit_module

    form = check_options(options)
    ir = emit_module(module, cpu_target.current().dot4_lanes, cpu_target.current().bf16_features)
    if form == "ll":
        return ir
    compiled = CompiledModule(ir, use_cache=False)
    return compiled.optimized_ir if form == "opt-ll" else compiled.assembly()
