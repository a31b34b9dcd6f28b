"""vta-codegen: compile every `vta.conv2d` into a `vta.program` and name it on the op.

The layer is tiled to fit one virtual thread's share of the SRAMs, tensorized onto GEMM
micro-ops, given its ALU epilogue, and interleaved across `vthreads` virtual threads with
dependency tokens (passes/vta/emit/). Each program is checked by the hazard checker
before it is accepted: a program with an unordered cross-module access, a deadlock or a
leftover token is a compiler bug and fails the pass instead of reaching a user.

The schedule each layer got is written beside its program as a `sched.stage` of the same
name (passes/vta/tiling/sched_ir.py); a `sched.stage` already in the module under that name is
applied instead of the search (its virtual-thread count overrides the `vthreads` option).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import sched, vta
from tessel.dialects.vta.config import ConfigError, VtaConfig, preset
from tessel.dialects.vta.hazards import check
from tessel.ir.diagnostics import TesselError, op_location
from tessel.passes.vta.emit.emitter import CodegenError, compile_layer_with_tiling
from tessel.passes.vta.tiling.sched_ir import schedule_op, tiling_from


def program_names(module: builtin.ModuleOp) -> dict[vta.Conv2dOp, str]:
    """`<function>_layer<k>` for the k-th layer of each function that has no program yet,
    made unique against the programs the module already holds."""
    taken = {o.sym_name.data for o in module.ops if isinstance(o, vta.ProgramOp)}
    names: dict[vta.Conv2dOp, str] = {}
    for fn in [o for o in module.ops if isinstance(o, func.FuncOp)]:
        for k, layer_op in enumerate(o for o in fn.walk() if isinstance(o, vta.Conv2dOp)):
            if layer_op.program is not None:
                continue
            name = f"{fn.sym_name.data}_layer{k}"
            while name in taken:
                name += "_"
            taken.add(name)
            names[layer_op] = name
    return names


@dataclass
class CompileLayer(RewritePattern):
    """One `vta.conv2d` -> a hazard-checked `vta.program` (and its `sched.stage`) at the end of
    the module, named in the op's `program`."""

    module: builtin.ModuleOp
    cfg: VtaConfig
    vthreads: int
    names: dict[vta.Conv2dOp, str]
    given: dict[str, sched.StageOp]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, layer_op: vta.Conv2dOp, rewriter: PatternRewriter, /) -> None:
        name = self.names.get(layer_op)
        if name is None or layer_op.program is not None:
            return
        tiling = tiling_from(self.given[name]) if name in self.given else None
        try:
            prog, chosen = compile_layer_with_tiling(
                layer_op.layer(name), self.cfg, tiling.vt if tiling else self.vthreads, tiling
            )
        except CodegenError as e:
            raise TesselError(f"vta-codegen: {e}", op_location(layer_op)) from None
        report = check(prog)
        if not report.ok:
            raise TesselError(f"vta-codegen: {name}: " + "; ".join(report.lines(prog, 3)), op_location(layer_op))
        program = vta.ProgramOp.make(name, prog)
        program.attributes["notes"] = StringAttr("; ".join(prog.notes))
        end = InsertPoint.at_end(self.module.body.block)
        rewriter.insert(program, end)
        if name not in self.given:
            rewriter.insert(schedule_op(name, chosen), end)
        layer_op.properties["program"] = SymbolRefAttr(name)
        rewriter.notify_op_modified(layer_op)


@dataclass(frozen=True)
class VtaCodegen(ModulePass):
    name = "vta-codegen"

    vthreads: int = 2
    config: str = "pynq"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        try:
            cfg = preset(self.config)
        except ConfigError as e:
            raise TesselError(f"vta-codegen: {e}") from None
        given = sched.stages(list(op.ops))
        pattern = CompileLayer(op, cfg, self.vthreads, program_names(op), given)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
