"""Run a compiled layer on the simulated VTA: pack the operands into DRAM, execute the program
(the dialect's functional simulator, `dialects/vta/reference.py`), check the schedule for
hazards, time it with the cycle model, unpack the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import StringAttr

from tessel.dialects.vta import Conv2dOp, ProgramOp
from tessel.dialects.vta.cycles import CycleReport, estimate
from tessel.dialects.vta.hazards import Report, check
from tessel.dialects.vta.layer import Conv2dLayer, pack_bias, pack_input, pack_weight, unpack_output
from tessel.dialects.vta.program import Program
from tessel.dialects.vta.reference import run
from tessel.ir.diagnostics import TesselError, op_location


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


@dataclass
class LayerStats:
    """What one layer's run reports: its program, cycles, hazards and instruction count."""

    name: str
    notes: str
    cycles: CycleReport
    hazards: Report
    insns: int


def run_conv2d(
    op: Conv2dOp, programs: Mapping[str, ProgramOp], operands: Sequence[np.ndarray]
) -> tuple[np.ndarray, LayerStats]:
    """Run a `vta.conv2d` on the program it names: its int8 output and the layer's report."""
    if op.program is None:
        raise TesselError("vta.conv2d has no program: run vta-codegen first", op_location(op))
    name = op.program.root_reference.data
    if name not in programs:
        raise TesselError(f"vta.conv2d names @{name}, which is not a vta.program in the module", op_location(op))
    prog_op = programs[name]
    prog = prog_op.program()
    result = run_layer(op.layer(name), prog, operands[0], operands[1], operands[2] if len(operands) > 2 else None)
    notes = prog_op.attributes.get("notes")
    text = notes.data if isinstance(notes, StringAttr) else ""
    return result.output, LayerStats(name, text, result.cycles, result.hazards, len(prog.insns))
