"""LLVM modules from a module's stage functions: one for the whole program (exported
libraries, `tessel-translate`), or one per stage plus the runtime's, as the JIT compiles
them (jit.StageCompiler, stage_stream.py). Each function's body is llvm_emit.py's.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.kernel import STAGE_ATTR
from tessel.targets.cpu import native_plan
from tessel.targets.cpu.llvm_emit import ATTRIBUTES, FunctionEmitter

# Conversions to bfloat that LLVM lowers to library calls libgcc does not have: defined
# here (round to nearest even, NaN kept quiet) so MCJIT never resolves them to nothing.
SUPPORT = """
define bfloat @__truncsfbf2(float %x) {
  %b = bitcast float %x to i32
  %isnan = fcmp uno float %x, 0.0
  %hi = lshr i32 %b, 16
  %lsb = and i32 %hi, 1
  %bias = add i32 %lsb, 32767
  %r = add i32 %b, %bias
  %rounded = lshr i32 %r, 16
  %quiet = or i32 %hi, 64
  %sel = select i1 %isnan, i32 %quiet, i32 %rounded
  %t = trunc i32 %sel to i16
  %y = bitcast i16 %t to bfloat
  ret bfloat %y
}

define bfloat @__truncdfbf2(double %x) {
  %f = fptrunc double %x to float
  %y = call bfloat @__truncsfbf2(float %f)
  ret bfloat %y
}
"""


def stage_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The module's stage functions (kernel-to-loops' output), in order."""
    return [op for op in module.ops if isinstance(op, func.FuncOp) and STAGE_ATTR in op.attributes]


def _join(parts: list[str]) -> str:
    return "\n\n".join([*parts, f"attributes #0 = {{ {ATTRIBUTES} }}"]) + "\n"


def emit_module(module: ModuleOp, dot4_lanes: frozenset[int] = frozenset(), bf16_features: str | None = None) -> str:
    """The LLVM IR of every stage function in the module, as one module (exported libraries,
    `tessel-translate`; the JIT compiles `emit_stage_modules`' pieces). `dot4_lanes`: see
    FunctionEmitter (the default, none, is code for any x86-64)."""
    declares: set[str] = set()
    functions, dispatchers = [], []
    for op in stage_functions(module):
        functions.append(FunctionEmitter(op, declares, dot4_lanes=dot4_lanes, bf16_features=bf16_features).emit())
        dispatchers.append(native_plan.dispatcher(op.sym_name.data, len(op.body.block.args) - 2))
    return _join([*sorted(declares), *functions, *dispatchers, native_plan.RUNTIME, SUPPORT])


# The name a stage function and its dispatcher have in their own module.
STAGE_SYMBOL = "tessel.stage"


def emit_stage_modules(
    module: ModuleOp, dot4_lanes: frozenset[int] = frozenset(), bf16_features: str | None = None
) -> tuple[dict[str, str], str]:
    """One LLVM module per stage function, plus the runtime's (the native plan's executor).

    Each stage is defined as `@tessel.stage` (and `@tessel.stage.dispatch`) with the helpers
    it uses, so its text depends only on what it computes: stages of different kernels whose
    code is the same (three in ResNet-18; same-shape groups already share one kernel function)
    are compiled once, the object cache is keyed per stage (a second model, or a recompile
    after one kernel changed, reuses the rest), and the modules are compiled in parallel
    threads (targets/cpu/jit.ShardedModule)."""
    stages = {op.sym_name.data: emit_stage(op, dot4_lanes, bf16_features) for op in stage_functions(module)}
    return stages, emit_runtime()


def emit_stage(op: func.FuncOp, dot4_lanes: frozenset[int] = frozenset(), bf16_features: str | None = None) -> str:
    """One stage function as a module of its own (see emit_stage_modules); its text depends
    only on the function's body, so a stage can be emitted as soon as it is lowered."""
    declares: set[str] = set()
    body = FunctionEmitter(op, declares, STAGE_SYMBOL, dot4_lanes, bf16_features).emit()
    dispatch = native_plan.dispatcher(STAGE_SYMBOL, len(op.body.block.args) - 2)
    return _join([*sorted(declares), body, dispatch, SUPPORT])


def emit_runtime() -> str:
    """The runtime's module (the native plan's executor), beside the stage modules."""
    return _join([native_plan.RUNTIME])
