"""sched-default: write every stage's default schedule into the module as a sched.stage.

The schedule kernel-to-loops would pick, as editable text: run this on kernel IR, change
the primitives, and kernel-to-loops builds the loops the edited schedule asks for. Stages
that already have a sched.stage keep theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from tessel.dialects import kernel, sched
from tessel.dialects.kernel import KERNEL_ATTR
from tessel.passes.kernel.loops.apply_sched import stage_from_schedule
from tessel.passes.kernel.loops.cache_tiles import L1_BYTES, L2_BYTES, Caches
from tessel.passes.kernel.loops.schedule import VECTOR_BITS, default_schedule


def stage_names(fn: func.FuncOp) -> list[tuple[str, kernel.ComputeOp]]:
    """(stage function name, compute op) for each stage of a kernel function, as
    kernel-to-loops names them."""
    ops = [o for o in fn.body.block.ops if isinstance(o, kernel.ComputeOp)]
    return [(f"{fn.sym_name.data}__s{i}", o) for i, o in enumerate(ops)]


@dataclass(frozen=True)
class SchedDefault(ModulePass):
    name = "sched-default"

    vector_bits: int = VECTOR_BITS  # the CPU's vector register (kernel-to-loops' option)
    l1_bytes: int = L1_BYTES  # the core's caches (kernel-to-loops' options)
    l2_bytes: int = L2_BYTES

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        written = sched.stages(list(op.ops))
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp) or KERNEL_ATTR not in fn.attributes:
                continue
            for name, compute in stage_names(fn):
                if name not in written:
                    op.body.block.add_op(
                        stage_from_schedule(
                            compute,
                            name,
                            default_schedule(compute, self.vector_bits, Caches(self.l1_bytes, self.l2_bytes)),
                        )
                    )
