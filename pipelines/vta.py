"""Run a module after `tg-to-vta` and `vta-codegen`: VTA layers on the simulated accelerator,
everything else compiled for the host CPU.

The function is cut at its `vta.conv2d` ops. Each run of other ops between two VTA layers
becomes a function of its own (its inputs are the values it uses from before, its results
the values used after), compiled with the CPU target like any tg module — which is where
layers VTA cannot run (ResNet's C1 with 3 input channels) and glue (transposes, residual
adds) go, as on the PYNQ board where the ARM cores run them. Constants a VTA layer reads are
evaluated directly.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation

from tessel.dialects import tg, vta
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.weights import WEIGHTS_ATTR

from .cycles import CycleReport
from .hazards import Report
from .runtime import run_layer


@dataclass
class LayerStats:
    name: str
    notes: str
    cycles: CycleReport
    hazards: Report
    insns: int


@dataclass
class VtaRun:
    outputs: list[np.ndarray]
    layers: list[LayerStats] = field(default_factory=list)
    host_segments: int = 0
    host_ms: float = 0.0  # the CPU segments' run time on this machine (second of two runs)
    host_notes: list[str] = field(default_factory=list)


def _is_constant(op: Operation) -> bool:
    return isinstance(op, tg.ConstantOp | tg.WeightOp)


def _constant(op: Operation, weights: Mapping[str, np.ndarray]) -> np.ndarray:
    if isinstance(op, tg.ConstantOp):
        return tg.constant_value(op)
    return np.asarray(weights[op.weight_name])  # type: ignore[attr-defined]


def _outline(ops: list[Operation], env: Mapping[SSAValue, np.ndarray], later: set[SSAValue], module: builtin.ModuleOp) -> tuple[builtin.ModuleOp, list[SSAValue], list[SSAValue]]:
    """A module whose @main runs `ops`: arguments = values from before, results = values used later."""
    inside = {r for o in ops for r in o.results}
    args = [v for o in ops for v in o.operands if v not in inside]
    args = list(dict.fromkeys(args))
    results = [r for o in ops for r in o.results if r in later]
    block = Block(arg_types=[a.type for a in args])
    mapping: dict[SSAValue, SSAValue] = dict(zip(args, block.args))
    for o in ops:
        block.add_op(o.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp(*[mapping[r] for r in results]))
    fn = func.FuncOp("main", builtin.FunctionType.from_lists([a.type for a in args], [r.type for r in results]), Region(block))
    out = builtin.ModuleOp([fn])
    if WEIGHTS_ATTR in module.attributes:
        out.attributes[WEIGHTS_ATTR] = module.attributes[WEIGHTS_ATTR]
    return out, args, results


def execute(module: builtin.ModuleOp, fn: func.FuncOp, inputs: Sequence[np.ndarray], weights: Mapping[str, np.ndarray], threads: int = 2) -> VtaRun:
    from tessel.pipelines.tensor import compile_for_cpu

    programs = {o.sym_name.data: o for o in module.ops if isinstance(o, vta.ProgramOp)}
    env: dict[SSAValue, np.ndarray] = dict(zip(fn.body.block.args, inputs))
    ops = list(fn.body.block.ops)
    run = VtaRun([])
    used_after: list[set[SSAValue]] = []
    seen: set[SSAValue] = set()
    for o in reversed(ops):
        used_after.append(set(seen))
        seen.update(o.operands)
    used_after.reverse()
    segment: list[Operation] = []

    def flush(at: int) -> None:
        nonlocal segment
        compute = [o for o in segment if not _is_constant(o)]
        for o in segment:
            if _is_constant(o):
                env[o.results[0]] = _constant(o, weights)
        if compute:
            later = used_after[at - 1] if at > 0 else set()
            # constants the segment reads are cloned into it so the CPU pipeline sees them as weights
            consts = [o for o in segment if _is_constant(o) and any(u.operation in compute for r in o.results for u in r.uses)]
            sub, args, results = _outline(consts + compute, env, later, module)
            executable, _ = compile_for_cpu(sub, weights, threads=threads)
            try:
                feed = [env[a] for a in args]
                executable.run(feed)  # warm-up: first-touch of buffers, thread start
                start = time.perf_counter()
                outs = executable.run(feed)
                run.host_ms += (time.perf_counter() - start) * 1e3
            finally:
                executable.close()
            env.update(zip(results, outs))
            run.host_segments += 1
            run.host_notes += [f"{o.name} at {op_location(o) or 'its op'}: {o.attributes[vta.HOST_ATTR].data} (runs on the CPU)"  # type: ignore[attr-defined]
                               for o in compute if vta.HOST_ATTR in o.attributes]  # fmt: skip
        segment = []

    for i, o in enumerate(ops):
        if isinstance(o, vta.Conv2dOp):
            flush(i)
            run.layers.append(_run_layer(o, programs, env))
        elif isinstance(o, func.ReturnOp):
            flush(i)
            run.outputs = [env[v] for v in o.operands]
        elif isinstance(o, IRDLOperation):
            segment.append(o)
    return run


def _run_layer(op: vta.Conv2dOp, programs: Mapping[str, vta.ProgramOp], env: dict[SSAValue, np.ndarray]) -> LayerStats:
    if op.program is None:
        raise TesselError("vta.conv2d has no program: run vta-codegen first", op_location(op))
    name = op.program.root_reference.data
    if name not in programs:
        raise TesselError(f"vta.conv2d names @{name}, which is not a vta.program in the module", op_location(op))
    prog_op = programs[name]
    prog = prog_op.program()
    layer = op.layer(name)
    operands = [env[v] for v in op.operands]
    result = run_layer(layer, prog, operands[0], operands[1], operands[2] if len(operands) > 2 else None)
    env[op.result] = result.output
    notes = prog_op.attributes.get("notes")
    return LayerStats(name, notes.data if notes is not None else "", result.cycles, result.hazards, len(prog.insns))  # type: ignore[attr-defined]
