"""The reference target: `tg` modules run op by op on numpy through xDSL's interpreter.

The meaning of each op lives with its dialect (`dialects/tg/interpret.py` over the numpy
kernels of `dialects/tg/reference.py`); this target only finds the entry function and runs
it, so every compiled target is judged against the dialect's own semantics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.func import FuncFunctions

from tessel.dialects.tg.interpret import TgFunctions
from tessel.ir.diagnostics import TesselError


def entry_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to run: `name`, or `main`, or the only function in the module."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is not None or len(funcs) != 1:
        wanted = name or "main"
        for f in funcs:
            if f.sym_name.data == wanted:
                return f
        have = ", ".join("@" + f.sym_name.data for f in funcs) or "none"
        raise TesselError(f"no function @{wanted} in the module (functions: {have})")
    return funcs[0]


def run(
    module: ModuleOp, inputs: Sequence[np.ndarray], weights: Mapping[str, np.ndarray], entry: str | None = None
) -> list[np.ndarray]:
    """Run the entry function on numpy inputs (in argument order) and return its results,
    by the semantics of the level the module is at: tg (fused or not) through the tg
    interpreter, kernel IR (after tg-to-kernel) through the kernel evaluator."""
    from tessel.dialects import kernel

    fn = entry_function(module, entry)
    if any(isinstance(op, kernel.ComputeOp) for op in module.walk()):
        from tessel.dialects.kernel.reference import run_kernel_module

        return run_kernel_module(module, inputs, weights)
    if any(isinstance(op, kernel.LaunchOp) for op in module.walk()):
        raise TesselError(
            "the module is at loop level (after kernel-to-loops): the reference semantics need tg or kernel IR"
        )
    interp = Interpreter(module)
    interp.register_implementations(FuncFunctions())
    interp.register_implementations(TgFunctions(weights))
    return list(interp.call_op(fn, tuple(inputs)))
