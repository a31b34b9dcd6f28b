"""vta-codegen: compile every `vta.conv2d` into a `vta.program` and name it on the op.

The layer is tiled to fit one virtual thread's share of the SRAMs, tensorized onto GEMM
micro-ops, given its ALU epilogue, and interleaved across `vthreads` virtual threads with
dependency tokens (passes/vta/codegen.py). Each program is checked by the hazard checker
before it is accepted: a program with an unordered cross-module access, a deadlock or a
leftover token is a compiler bug and fails the pass instead of reaching a user.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.passes import ModulePass

from tessel.dialects import vta
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.vta.config import ConfigError, preset
from tessel.targets.vta.hazards import check

from .codegen import CodegenError, compile_layer


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
        taken = {o.sym_name.data for o in op.ops if isinstance(o, vta.ProgramOp)}
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            for k, layer_op in enumerate(o for o in fn.walk() if isinstance(o, vta.Conv2dOp)):
                if layer_op.program is not None:
                    continue
                name = f"{fn.sym_name.data}_layer{k}"
                while name in taken:
                    name += "_"
                taken.add(name)
                try:
                    prog = compile_layer(layer_op.layer(name), cfg, self.vthreads)
                except CodegenError as e:
                    raise TesselError(f"vta-codegen: {e}", op_location(layer_op)) from None
                report = check(prog)
                if not report.ok:
                    raise TesselError(f"vta-codegen: {name}: " + "; ".join(report.lines(prog, 3)), op_location(layer_op))
                program = vta.program_op(name, prog)
                program.attributes["notes"] = StringAttr("; ".join(prog.notes))
                op.body.block.add_op(program)
                layer_op.properties["program"] = SymbolRefAttr(name)
