"""The key of a tuning task: what a stage computes, on which machine.

It hashes the kernel function's text with value names stripped, the stage's position and
the host (schedules are per machine), so two identical convolutions in a model, or in two
models, are one task, and a record made for one applies to the other.
"""

from __future__ import annotations

import hashlib

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from tessel.dialects import kernel
from tessel.dialects.kernel import KERNEL_ATTR
from tessel.ir.source import print_module


def anonymous_text(fn: func.FuncOp) -> str:
    """The function's text with every value name and its own name dropped."""
    clone = fn.clone()
    for op in clone.walk():
        for r in op.results:
            r.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.name_hint = None
    clone.properties["sym_name"] = StringAttr("kernel")
    return print_module(ModuleOp([clone]))


def stage_keys(module: ModuleOp, host: str) -> dict[str, str]:
    """Every stage function name of a module after tg-to-kernel -> its task key on `host`
    (the CPU's description, or a GPU's)."""
    keys = {}
    for fn in module.ops:
        if isinstance(fn, func.FuncOp) and KERNEL_ATTR in fn.attributes:
            text = anonymous_text(fn)
            stages = [o for o in fn.body.block.ops if isinstance(o, kernel.ComputeOp)]
            for i in range(len(stages)):
                keys[f"{fn.sym_name.data}__s{i}"] = task_key(host, i, text)
    return keys


def task_key(host: str, index: int, text: str) -> str:
    """The key of stage `index` of the kernel whose anonymous text is `text`, on `host`."""
    return hashlib.sha256(f"{host}|s{index}|{text}".encode()).hexdigest()[:20]
