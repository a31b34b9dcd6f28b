"""Run a frame program (dialects/img/program.py) as native code: one module, one thread pool.

The program comes planned (pipelines/img.py): every pipeline step carries its row plan, so
this module only emits the code of each step and runs the steps.

Every pipeline and kernel step is a launch of the module's own pool (the launch plan of
targets/cpu/native_plan.py); the steps between two gates run as one native call, and Python
only looks at a gate's one-byte predicate to decide whether the steps it guards run for this
frame. Every stored value has one buffer, allocated once; function arguments and the current
frame of each source are patched in per frame.

The interface is the reference's (dialects/img/reference.py `run`): inputs for the function's
arguments, frames per source name, and what reaches each sink (a list of frames per sink for
streams), so the two are compared value for value.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import SSAValue

from tessel.dialects.img.program import FrameProgram, Step, StepKind
from tessel.dialects.img.types import ImageType, StreamType, numpy_dtype
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu import native_plan
from tessel.targets.cpu.img_exec import PlanOwner, checked_image
from tessel.targets.cpu.img_kernels import emit_kernel
from tessel.targets.cpu.img_llvm import emit_pipeline_functions
from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.cpu.llvm_emit import ATTRIBUTES
from tessel.targets.cpu.native_plan import NativePlan
from tessel.targets.cpu.runtime import aligned_empty


def _spec(v: SSAValue) -> tuple[tuple[int, int, int], np.dtype]:
    t = v.type
    assert isinstance(t, ImageType)
    return t.shape, np.dtype(numpy_dtype(t.element))


@dataclass
class Run:
    """What one run produced: the function's results and each sink's frames, as the
    reference gives them, and how many frames each gate let through."""

    results: list
    sinks: list
    gates: dict[str, tuple[int, int]] = field(default_factory=dict)  # gate name -> (passed, seen)
    seconds_per_frame: list[float] = field(default_factory=list)


class ProgramExecutable(PlanOwner):
    def __init__(self, program: FrameProgram, threads: int = 2, lanes_factor: int = 2):
        self.program = program
        self.threads = max(1, threads)
        decls: set[str] = set()
        functions: list[str] = []
        self.entries: list[tuple[Step, str, int, list[SSAValue]]] = []  # step, entry, extent, buffer slots
        for step in program.steps:
            if step.kind == StepKind.PIPELINE:
                if step.plan is None:
                    raise TesselError(
                        f"pipeline step {step.name} has no row plan (plan the program first: pipelines/img.py)"
                    )
                functions += emit_pipeline_functions(step.plan, lanes_factor, step.name, decls)
                self.entries.append((step, step.name, step.plan.height, step.inputs + step.outputs))
            elif step.kind == StepKind.KERNEL:
                assert step.op is not None
                k = emit_kernel(step.op, step.name, decls)
                functions.append(k.text)
                self.entries.append((step, step.name, k.extent, list(step.op.operands) + step.outputs))
        self.llvm_ir = ("\n".join(sorted(decls)) + "\n\n" + "\n\n".join(functions)
                        + f"\n\nattributes #0 = {{ {ATTRIBUTES} }}\n" + native_plan.RUNTIME)  # fmt: skip
        self.compiled = CompiledModule(self.llvm_ir)
        fn = program.fn
        self.args = list(fn.body.block.args)
        self.source_values = [s.result for s in program.sources]
        self.patched: list[SSAValue] = [*self.args, *self.source_values]  # ("in", i) slots, in this order
        self.slot_of: dict[SSAValue, int] = {v: i for i, v in enumerate(self.patched)}
        self.buffers: dict[SSAValue, np.ndarray] = {}
        for v in program.stored:
            if v not in self.slot_of:
                shape, dt = _spec(v)
                self.buffers[v] = aligned_empty(shape, dt)
        launches = []
        self.launch_of: dict[int, int] = {}
        for i, (step, entry, extent, values) in enumerate(self.entries):
            slots = []
            for v in values:
                r = program.root[v]
                slots.append(("in", self.slot_of[r]) if r in self.slot_of else int(self.buffers[r].ctypes.data))
            launches.append((self.compiled.address(entry), slots, extent))
            self.launch_of[id(step)] = i
        self.plan = NativePlan(
            self.compiled.address("tessel.run_plan"), self.compiled.address("tessel.pool_stop"), launches, self.threads
        )

    # ------------------------------------------------------------------ inputs

    def arg_shape(self, v: SSAValue) -> tuple[int, int, int]:
        return _spec(v)[0]

    def arg_dtype(self, v: SSAValue) -> np.dtype:
        return _spec(v)[1]

    def _checked(self, a: np.ndarray, v: SSAValue, what: str) -> np.ndarray:
        return checked_image(a, *_spec(v), what)

    def frames_of(self, sources: Mapping[str, Sequence[np.ndarray]] | None) -> list[list[np.ndarray]]:
        sources = dict(sources or {})
        out = []
        for op in self.program.sources:
            name = op.source_name
            if name not in sources:
                raise TesselError(f"img.source '{name}' has no frames (give them by camera name)", op_location(op))
            out.append(
                [self._checked(f, op.result, f"frame #{i} of source '{name}'") for i, f in enumerate(sources[name])]
            )
        return out

    # ------------------------------------------------------------------ running

    def run(self, inputs: Sequence[np.ndarray], sources: Mapping[str, Sequence[np.ndarray]] | None = None) -> Run:
        if len(inputs) != len(self.args):
            raise TesselError(f"the pipeline takes {len(self.args)} images, got {len(inputs)}")
        args = [self._checked(a, v, f"image #{i}") for i, (a, v) in enumerate(zip(inputs, self.args))]
        frames = self.frames_of(sources)
        n = min((len(f) for f in frames), default=0)
        program = self.program
        out = Run([[] if isinstance(v.type, StreamType) else None for v in program.results],
                  [[] if isinstance(v.type, StreamType) else None for v in program.sinks],
                  {s.name: (0, 0) for s in program.steps if s.kind == StepKind.GATE})  # fmt: skip
        once = [s for s in program.steps if not s.per_frame]
        each = [s for s in program.steps if s.per_frame]
        ins = args + [f[0] if f else np.zeros(_spec(v)[0], _spec(v)[1]) for f, v in zip(frames, self.source_values)]
        self.native().patch(ins, [])
        self._steps(once, set())
        self._collect(out, set(), per_frame=False, ins=ins)
        for i in range(n):
            ins = args + [f[i] for f in frames]
            self.native().patch(ins, [])
            t0 = time.perf_counter()
            failed: set = set()
            self._steps(each, failed, out.gates)
            out.seconds_per_frame.append(time.perf_counter() - t0)
            self._collect(out, failed, per_frame=True, ins=ins)
        return out

    def _steps(self, steps: list[Step], failed: set, gates: dict | None = None) -> None:
        """Run steps in order: consecutive runnable launches as one native call; a gate
        flushes them, reads its predicate, and fails the steps it guards."""
        first, count = -1, 0

        def flush() -> None:
            nonlocal first, count
            if count:
                self.native().run(first, count)
            first, count = -1, 0

        for s in steps:
            if s.guard & failed:
                if s.kind == StepKind.GATE:
                    failed.add(s.op)  # never seen this frame: its stream was dropped upstream
                continue
            if s.kind == StepKind.GATE:
                flush()
                assert s.op is not None
                pred = self._value(self.program.root[s.op.operands[1]], None)
                passed = bool(pred.reshape(-1)[0] != 0)
                if not passed:
                    failed.add(s.op)
                if gates is not None:
                    p, seen = gates[s.name]
                    gates[s.name] = (p + passed, seen + 1)
                continue
            i = self.launch_of[id(s)]
            if count and first + count == i:
                count += 1
            else:
                flush()
                first, count = i, 1
        flush()

    def _value(self, r: SSAValue, ins: list[np.ndarray] | None) -> np.ndarray:
        if r in self.buffers:
            return self.buffers[r]
        assert ins is not None
        return ins[self.slot_of[r]]

    def _collect(self, out: Run, failed: set, per_frame: bool, ins: list[np.ndarray]) -> None:
        for where, values in ((out.results, self.program.results), (out.sinks, self.program.sinks)):
            for j, v in enumerate(values):
                r = self.program.root[v]
                is_stream = isinstance(v.type, StreamType)
                if is_stream != per_frame or (self.program.guard[v] & failed):
                    continue
                a = self._value(r, ins).copy()
                if is_stream:
                    where[j].append(a)
                else:
                    where[j] = a
