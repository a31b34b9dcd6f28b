"""arith.cmpi / arith.cmpf predicates by their integer value, as MLIR numbers them (and
LLVM's icmp / fcmp condition codes spell them): one table for every evaluator and emitter."""

from __future__ import annotations

CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF_PREDICATES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)  # fmt: skip
