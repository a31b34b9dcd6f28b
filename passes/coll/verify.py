"""coll-verify: prove that each `coll.algorithm` implements its collective.

Symbolic chunk propagation and the race check of dialects/coll/verify.py, on every
algorithm in the module; a failure is one error line at the algorithm.

    tessel-opt algo.mlir -p coll-verify       # the module unchanged, or one error line
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tessel.dialects.coll import AlgorithmOp
from tessel.dialects.coll.verify import AlgorithmError, check_algorithm
from tessel.ir.diagnostics import TesselError, op_location


@dataclass(frozen=True)
class CollVerify(ModulePass):
    """Check every coll.algorithm in the module (see the module docstring)."""

    name = "coll-verify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for alg_op in op.walk():
            if isinstance(alg_op, AlgorithmOp):
                try:
                    check_algorithm(alg_op.algorithm())
                except AlgorithmError as err:
                    raise TesselError(
                        f"'coll.algorithm' op @{alg_op.sym_name.data} does not implement its {alg_op.kind.data}: {err}",
                        op_location(alg_op),
                    ) from None
