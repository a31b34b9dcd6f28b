"""vta-codegen: compile every `vta.conv2d` into a `vta.program` and name it on the op.

The layer is tiled to fit one virtual thread's share of the SRAMs, tensorized onto GEMM
micro-ops, given its ALU epilogue, and interleaved across `vthreads` virtual threads with
dependency tokens (passes/vta/codegen.py). Each program is checked by the hazard checker
before it is accepted: a program with an unordered cross-module access, a deadlock or a
leftover token is a compiler bug and fails the pass instead of reaching a user.

The schedule each layer got is written beside its program as a `sched.stage` of the same
name (passes/vta/schedule.py); a `sched.stage` already in the module under that name is
applied instead of the search (its virtual-thread count overrides the `vthreads` option).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.passes import ModulePass

from tessel.dialects import sched, vta
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.vta.config import ConfigError, preset
from tessel.targets.vta.hazards import check

from .codegen import CodegenError, compile_layer
from .schedule import schedule_op, tiling_from


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
        given = sched.stages(list(op.ops))
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            for k, layer_op in enumerate(o for o in fn.walk() if isinstance(o, vta.Conv2dOp)):
                if layer_op.program is not None:
                    continue
                name = f"{fn.sym_name.data}_layer{k}"
                while name in taken:
                    name += "_"
                taken.add(name)
                tiling = tiling_from(given[name]) if name in given else None
                try:
                    prog = compile_layer(layer_op.layer(name), cfg, tiling.vt if tiling else self.vthreads, tiling)
                except CodegenError as e:
                    raise TesselError(f"vta-codegen: {e}", op_location(layer_op)) from None
                report = check(prog)
                if not report.ok:
                    raise TesselError(f"vta-codegen: {name}: " + "; ".join(report.lines(prog, 3)), op_location(layer_op))
                program = vta.program_op(name, prog)
                program.attributes["notes"] = StringAttr("; ".join(prog.notes))
                op.body.block.add_op(program)
                if name not in given:
                    op.body.block.add_op(schedule_op(name, prog.tiling))
                layer_op.properties["program"] = SymbolRefAttr(name)
