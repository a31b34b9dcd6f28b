"""sched-apply-records: the fastest schedule of every stage from a tuning log, as sched IR.

After tg-to-kernel, each stage (kernel.compute) of the module has a task key: what it
computes and on which machine (`tuning/keys.py`). For every stage whose key the log
(`records=FILE`, written by tessel-tune) has measured, this pass writes the fastest
measured schedule into the module as a `sched.stage` named after the stage, which
kernel-to-loops then applies; stages the log does not know keep their default schedules.
`host` names the machine the records must have been made on (the pipelines give the CPU's
own description, or the GPU's); a sched.stage already in the module wins over a record.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from tessel.ir.diagnostics import TesselError
from tessel.passes.sched.tuning.apply import insert_schedules, recorded_schedules
from tessel.passes.sched.tuning.records import Records


@dataclass(frozen=True)
class SchedApplyRecords(ModulePass):
    name = "sched-apply-records"

    records: str = ""
    host: str = ""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if not self.records or not self.host:
            raise TesselError("sched-apply-records needs records=FILE and host=MACHINE (the pipelines give both)")
        schedules, _ = recorded_schedules(op, Records(self.records), self.host)
        insert_schedules(op, schedules)
