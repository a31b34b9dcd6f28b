"""The VTA compiler: int8 layers of a tg module onto the accelerator, the rest onto the CPU.

    tg -> tg-to-vta (int8 chains become vta.conv2d) -> vta-codegen (each a vta.program and its
          sched.stage) -> the VTA target: the simulated accelerator runs the programs
          (targets/vta/runtime.py) or they are written out (targets/vta/translate.py)

`execute` runs a compiled module: the function is cut at its `vta.conv2d` ops. Each run of
other ops between two VTA layers becomes a function of its own (its inputs are the values it
uses from before, its results the values used after), compiled by the tensor pipeline for the
CPU like any tg module — which is where layers VTA cannot run (ResNet's C1 with 3 input
channels) and glue (transposes, residual adds) go, as on the PYNQ board where the ARM cores
run them. Constants a VTA layer reads are evaluated directly.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import PassPipeline

from tessel.dialects import tg, vta
from tessel.dialects.context import make_context
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.source import read_module
from tessel.ir.weights import WEIGHTS_ATTR
from tessel.passes.tg.to_vta import TgToVta
from tessel.passes.vta.codegen import VtaCodegen
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.vta import translate as artefacts
from tessel.targets.vta.runtime import LayerStats, run_conv2d

VTHREADS = ("1", "2", "4")


def compile_module(module: builtin.ModuleOp, vthreads: int = 2, config: str = "pynq") -> None:
    """tg-to-vta then vta-codegen, in place: every int8 layer VTA can run gets its program."""
    PassPipeline((TgToVta(), VtaCodegen(vthreads=vthreads, config=config))).apply(make_context(), module)


def translate(path: str, options: Mapping[str, str]) -> str | bytes:
    """`tessel-translate FILE --target vta`: the VTA artefact of a module.

    The input is a tg module with int8 layers (compiled here first) or a module already
    holding `vta.program`s. Options:
      --opt form=listing   a readable listing: one numbered instruction per line, the micro-op
                           table and the DRAM tensors (default)
      --opt form=bin       the 128-bit little-endian instruction words of one program, as the
                           hardware fetches them (pick it with program=NAME when there are several)
      --opt form=uops      the 32-bit micro-op words of one program
      --opt vthreads=N     virtual threads when compiling tg (1, 2 or 4; default 2)
      --opt config=NAME    the VTA preset (pynq, pynq200, ultra96; default pynq)
    """
    unknown = sorted(set(options) - {"form", "program", "vthreads", "config"})
    if unknown:
        raise TesselError(f"vta takes --opt form=, program=, vthreads=, config=; got '{unknown[0]}'")
    form = options.get("form", "listing")
    if form not in artefacts.FORMS:
        raise TesselError(f"vta: unknown form '{form}' (choose {', '.join(artefacts.FORMS)})")
    vthreads = options.get("vthreads", "2")
    if vthreads not in VTHREADS:
        raise TesselError(f"vta: vthreads must be 1, 2 or 4, got '{vthreads}'")
    module = read_module(make_context(), path)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        compile_module(module, int(vthreads), options.get("config", "pynq"))
    if not any(isinstance(o, vta.ProgramOp) for o in module.ops):
        raise TesselError(f"{path}: no vta.program and no int8 layer that tg-to-vta places on VTA")
    return artefacts.translate(module, form, options.get("program"), path)


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
    assert isinstance(op, tg.WeightOp)  # _is_constant
    return np.asarray(weights[op.weight_name])


def _outline(
    ops: list[Operation], env: Mapping[SSAValue, np.ndarray], later: set[SSAValue], module: builtin.ModuleOp
) -> tuple[builtin.ModuleOp, list[SSAValue], list[SSAValue]]:
    """A module whose @main runs `ops`: arguments = values from before, results = values used later."""
    inside = {r for o in ops for r in o.results}
    args = [v for o in ops for v in o.operands if v not in inside]
    args = list(dict.fromkeys(args))
    results: list[SSAValue] = [r for o in ops for r in o.results if r in later]
    block = Block(arg_types=[a.type for a in args])
    mapping: dict[SSAValue, SSAValue] = dict(zip(args, block.args))
    for o in ops:
        block.add_op(o.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp(*[mapping[r] for r in results]))
    fn = func.FuncOp(
        "main", builtin.FunctionType.from_lists([a.type for a in args], [r.type for r in results]), Region(block)
    )
    out = builtin.ModuleOp([fn])
    if WEIGHTS_ATTR in module.attributes:
        out.attributes[WEIGHTS_ATTR] = module.attributes[WEIGHTS_ATTR]
    return out, args, results


def execute(
    module: builtin.ModuleOp,
    fn: func.FuncOp,
    inputs: Sequence[np.ndarray],
    weights: Mapping[str, np.ndarray],
    threads: int = 2,
) -> VtaRun:
    """Run `fn` of a compiled module: its VTA layers on the simulator, the rest on the CPU."""
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
            consts = [
                o for o in segment if _is_constant(o) and any(u.operation in compute for r in o.results for u in r.uses)
            ]
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
            run.host_notes += [
                f"{o.name} at {op_location(o) or 'its op'}: {why.data} (runs on the CPU)"
                for o in compute
                if isinstance(why := o.attributes.get(vta.HOST_ATTR), StringAttr)
            ]
        segment = []

    for i, o in enumerate(ops):
        if isinstance(o, vta.Conv2dOp):
            flush(i)
            env[o.result], stats = run_conv2d(o, programs, [env[v] for v in o.operands])
            run.layers.append(stats)
        elif isinstance(o, func.ReturnOp):
            flush(i)
            run.outputs = [env[v] for v in o.operands]
        elif isinstance(o, IRDLOperation):
            segment.append(o)
    return run
