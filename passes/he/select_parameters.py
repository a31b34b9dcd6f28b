"""`he-select-parameters`: choose BFV parameters for every `hev` program from the measured
cost table, and record the rotation keys it needs.

    tessel-opt k.mlir -p he-synthesize,he-select-parameters

sets, on each function with `hev.implements`,
    hev.params = "n8192-q60x2"                 the parameter set (tessel-run --target seal uses it)
    hev.rotation_keys = array<i64: -64, -1>    the only Galois keys to generate
    hev.noise_estimate = 12 : i64              estimated noise budget left (bits)
The choice: the cheapest set by measured latency whose estimated budget keeps `margin` bits
(see `tessel.passes.he.model.choice`). The pass reads the measured cost table; it never runs
SEAL (the table is measured by `python -m tessel.targets.seal.profile`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass

from tessel.dialects.hev import costs as cost_table
from tessel.dialects.hev import kernel
from tessel.dialects.hev.metrics import rotation_steps
from tessel.ir.diagnostics import TesselError
from tessel.passes.he.model.choice import DEFAULT_MARGIN, select

PARAMS = "hev.params"
ROTATION_KEYS = "hev.rotation_keys"
NOISE_ESTIMATE = "hev.noise_estimate"


@dataclass(frozen=True)
class HeSelectParameters(ModulePass):
    name = "he-select-parameters"

    margin: float | int = DEFAULT_MARGIN
    costs: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.margin < 0:
            raise TesselError("he-select-parameters: margin must be >= 0 bits")
        table = cost_table.load(self.costs) if self.costs else cost_table.load()
        for fn in kernel.programs(op):
            choice = select(fn, table, self.margin)
            n = kernel.interface(fn).slots
            steps = rotation_steps(fn, n)
            fn.attributes[PARAMS] = StringAttr(choice.params.name)
            fn.attributes[ROTATION_KEYS] = DenseArrayBase.from_list(i64, steps)
            fn.attributes[NOISE_ESTIMATE] = IntegerAttr(int(choice.estimated_budget), 64)
