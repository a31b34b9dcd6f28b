"""The fastest recorded schedule of every stage a tuning log knows, as sched IR."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from tessel.dialects import sched
from tessel.dialects.context import make_context
from tessel.dialects.kernel import STAGE_ATTR
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module
from tessel.passes.sched.tuning.keys import stage_keys
from tessel.passes.sched.tuning.records import Records


def recorded_schedules(module: ModuleOp, records: Records, host: str) -> tuple[dict[str, sched.StageOp], list[str]]:
    """Stage function name -> the fastest schedule `records` measured for its task on
    `host` (renamed to the stage: a record made for an identical stage elsewhere applies),
    for every stage of `module` (after tg-to-kernel) the records know; and the names of
    the stages they do not know, which keep their default schedules."""
    if not records.entries:
        raise TesselError(f"{records.path}: no tuning records (run tessel-tune first)")
    schedules: dict[str, sched.StageOp] = {}
    untuned: list[str] = []
    for name, key in stage_keys(module, host).items():
        best = records.best(key)
        if best is None or not best.get("schedule"):
            untuned.append(name)
            continue
        (stage,) = sched.stages(parse_module(make_context(), best["schedule"], f"{records.path}").ops).values()
        stage.detach()
        stage.properties["stage"] = StringAttr(name)
        schedules[name] = stage
    return schedules, untuned


def insert_schedules(module: ModuleOp, schedules: dict[str, sched.StageOp]) -> None:
    """Put `schedules` into `module` (before its first function) for kernel-to-loops,
    unless the module already schedules that stage itself."""
    written = sched.stages(list(module.ops))
    first = next((op for op in module.ops if isinstance(op, func.FuncOp) and STAGE_ATTR not in op.attributes), None)
    for name, stage in schedules.items():
        if name in written:
            continue
        if first is None:
            module.body.block.add_op(stage)
        else:
            module.body.block.insert_op_before(stage, first)
