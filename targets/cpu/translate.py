"""`tessel-translate FILE --target cpu`: the LLVM IR (or host assembly) of a module.

The input is a tg module (compiled through the whole pipeline first) or a module already
at loop level (after `kernel-to-loops`). Options:
  --opt form=ll        LLVM IR as the emitter writes it (default; what the JIT is given)
  --opt form=opt-ll    after LLVM's O3 for this host
  --opt form=asm       host assembly (check the vector width: zmm registers on AVX-512)
"""

from __future__ import annotations

from collections.abc import Mapping

from tessel.ir.diagnostics import TesselError
from tessel.ir.source import make_context, read_module
from tessel.ir.weights import WeightStore

FORMS = ("ll", "opt-ll", "asm")


def translate(path: str, options: Mapping[str, str]) -> str:
    from tessel.pipelines.tensor import lower
    from tessel.targets.cpu.jit import CompiledModule
    from tessel.targets.cpu.llvm_emit import emit_module

    unknown = sorted(set(options) - {"form"})
    if unknown:
        raise TesselError(f"cpu takes --opt form={'|'.join(FORMS)} only, got '{unknown[0]}'")
    form = options.get("form", "ll")
    if form not in FORMS:
        raise TesselError(f"cpu: unknown form '{form}' (choose {', '.join(FORMS)})")
    module = read_module(make_context(), path)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        lower(module, WeightStore.for_module(module, path))
    ir = emit_module(module)
    if form == "ll":
        return ir
    compiled = CompiledModule(ir, use_cache=False)
    return compiled.optimized_ir if form == "opt-ll" else compiled.assembly()
