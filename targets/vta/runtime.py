"""Run a compiled layer on the simulated VTA: pack the operands into DRAM, execute, check the
schedule for hazards, time it with the cycle model, unpack the result."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layer import Conv2dLayer, pack_bias, pack_input, pack_weight, unpack_output

from .cycles import CycleReport, estimate
from .hazards import Report, check
from .program import Program
from .simulator import run


class VtaRunError(RuntimeError):
    pass


@dataclass
class LayerRun:
    output: np.ndarray  # (1, OC, OH, OW) int8
    cycles: CycleReport
    hazards: Report
    program: Program


def run_layer(layer: Conv2dLayer, prog: Program, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> LayerRun:
    blk = prog.cfg.block
    dram = prog.dram()
    prog.write(dram, "input", pack_input(x.astype(np.int8), blk))
    prog.write(dram, "weight", pack_weight(w.astype(np.int8), blk))
    if layer.bias:
        if b is None:
            raise VtaRunError(f"layer {layer.name} was compiled with a bias but none was given")
        prog.write(dram, "bias", pack_bias(b.astype(np.int32), blk))
    trace = run(prog, dram)
    report = check(prog, trace)
    if trace.deadlock:
        raise VtaRunError(f"layer {layer.name}: {trace.deadlock}")
    cycles, _ = estimate(prog, trace)
    return LayerRun(unpack_output(prog.read(dram, "output")), cycles, report, prog)
