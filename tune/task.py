"""Tuning tasks: the stages of a model's kernels, each keyed by what it computes.

A task is one kernel.compute stage with the buffers it reads and writes. Its key hashes
the kernel function's text with value names stripped, the stage's position and the host
(schedules are per machine), so two identical convolutions in a model, or in two models,
are one task, and a record made for one applies to the other. `StageRunner` compiles one
stage under a schedule and runs it on real buffers: the unit both measurement and
correctness checks work on.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue

from tessel.dialects import kernel, sched
from tessel.dialects.context import make_context
from tessel.dialects.kernel import KERNEL_ATTR
from tessel.dialects.kernel.reference import np_type
from tessel.ir.source import parse_module
from tessel.passes.kernel.loops.apply_sched import schedule_from_stage
from tessel.passes.kernel.to_loops import stage_function, used_buffers
from tessel.passes.sched.tuning.keys import anonymous_text, task_key
from tessel.pipelines.tensor import cpu_default_schedule
from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.cache_flush import flush_function
from tessel.targets.cpu.cpu_target import CpuTarget
from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.cpu.llvm_modules import STAGE_SYMBOL, emit_runtime, emit_stage
from tessel.targets.cpu.native_plan import NativePlan


@dataclass
class Task:
    key: str  # workload + host
    stage: str  # the stage function name in the module it came from
    kernel_text: str  # the kernel function alone, names stripped: what a worker rebuilds it from
    index: int  # which kernel.compute of the kernel function
    flops: int  # multiply-adds count twice; a rough size for GFLOP/s and for the scheduler
    weight: int = 1  # how many launches of it the model makes

    def compute_op(self) -> tuple[kernel.ComputeOp, list[SSAValue]]:
        """The stage's op (in a fresh copy of its kernel) and the buffers it sees."""
        module = _parsed(self.kernel_text).clone()
        fn = next(o for o in module.ops if isinstance(o, func.FuncOp))
        return _stage(fn, self.index)

    def describe(self) -> str:
        op, _ = self.compute_op()
        dims = ", ".join(f"{n}={e}" for n, e in zip(op.axis_names, op.domain))
        return f"{self.stage} [{op.stage.data}: {dims}]"


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> ModuleOp:
    """A kernel's text parsed once per process (callers take clones): a worker builds or
    times a batch of candidates of one task, and each needed the kernel twice (its schedule,
    its stage function); parsing a ResNet-18 convolution takes 50-70 ms, cloning it 3 ms."""
    return parse_module(make_context(), text)


def _stage(fn: func.FuncOp, index: int) -> tuple[kernel.ComputeOp, list[SSAValue]]:
    visible: list[SSAValue] = list(fn.body.block.args)
    count = 0
    for o in fn.body.block.ops:
        if isinstance(o, memref.AllocOp):
            visible.append(o.memref)
        if isinstance(o, kernel.ComputeOp):
            if count == index:
                return o, visible
            count += 1
    raise IndexError(f"{fn.sym_name.data} has no stage {index}")


def _flops(op: kernel.ComputeOp) -> int:
    points = math.prod(op.domain)
    return 2 * points if op.reduce_count else points


def extract_tasks(module: ModuleOp, host: str | None = None) -> list[Task]:
    """The tasks of a module after tg-to-kernel, in launch order, identical ones merged
    (their weight counts the launches); keyed for this CPU, or for `host` (a GPU's
    description: tessel.targets.gpu.runtime.device_description)."""
    host = host or cpu_target.current().description
    calls: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            calls[name] = calls.get(name, 0) + 1
    tasks: dict[str, Task] = {}
    for fn in module.ops:
        if not isinstance(fn, func.FuncOp) or KERNEL_ATTR not in fn.attributes:
            continue
        text = anonymous_text(fn)
        stages = [o for o in fn.body.block.ops if isinstance(o, kernel.ComputeOp)]
        for i, op in enumerate(stages):
            key = task_key(host, i, text)
            launches = max(1, calls.get(fn.sym_name.data, 1))
            if key in tasks:
                tasks[key].weight += launches
                continue
            tasks[key] = Task(key, f"{fn.sym_name.data}__s{i}", text, i, _flops(op), launches)
    return list(tasks.values())


@functools.cache
def _runtime(target: CpuTarget) -> CompiledModule:
    """The native plan's executor for `target`, shared by this process's StageRunners: they
    run one at a time, and each stops its thread pool when it goes (the next run starts it)."""
    return CompiledModule(emit_runtime(), target=target)


class StageRunner:
    """One stage compiled under one schedule (sched IR; None: the default schedule), with
    buffers of its own (inputs random, fixed by `seed`), runnable and timeable."""

    def __init__(
        self,
        task: Task,
        schedule: sched.StageOp | None = None,
        threads: int = 2,
        seed: int = 0,
        buffers: Sequence[np.ndarray] | None = None,
        cache: bool = False,
    ):
        op, visible = task.compute_op()
        view = schedule_from_stage(op, schedule) if schedule is not None else cpu_default_schedule(op)
        # the buffers the stage reads or writes, as the model's stage function takes them:
        # the same function, so in_model.py can put this code in the model's launch
        used = used_buffers([op], visible)
        fn, extent = stage_function("stage", op, used, view)
        target = cpu_target.current()
        # the stage alone (as the model's JIT compiles it); the runtime's module is the same
        # for every candidate, compiled once per process (_runtime): in each candidate's
        # module it was ~40 ms of O3 and code generation, a third of a build
        self.compiled = CompiledModule(emit_stage(fn, target.dot4_lanes, target.bf16_features), use_cache=cache)
        self.runtime = _runtime(target)
        rng = np.random.default_rng(seed)
        if buffers is None:
            buffers = []
            for v in visible:
                t = v.type
                assert isinstance(t, MemRefType)
                dt = np_type(t.element_type)
                shape = t.get_shape()
                if dt.kind == "f":
                    buffers.append(rng.standard_normal(shape).astype(dt))
                elif dt.kind == "b":
                    buffers.append(rng.integers(0, 2, shape).astype(dt))
                else:
                    buffers.append(rng.integers(-8, 8, shape).astype(dt))
        self.buffers = [np.array(b, copy=True) for b in buffers]
        self.out_index = visible.index(op.out)
        self.extent, self.arity = extent, len(used)
        args = [self.buffers[visible.index(v)].ctypes.data for v in used]
        launch = (self.compiled.address(f"{STAGE_SYMBOL}.dispatch"), args, extent)
        self.plan = NativePlan(
            self.runtime.address("tessel.run_plan"), self.runtime.address("tessel.pool_stop"), [launch], threads
        )

    def __del__(self) -> None:
        plan = getattr(self, "plan", None)
        if plan is not None:
            plan.stop()  # join the workers before the module's code goes

    def run(self) -> np.ndarray:
        self.plan.run()
        return self.buffers[self.out_index]

    def timings(self, repeats: int = 5, min_seconds: float = 0.02, cold: bool = True) -> tuple[float, float]:
        """(median, fastest) seconds per run over `repeats` samples of about `min_seconds`.
        `cold`: the stage's buffers are flushed from the caches before every run (and that
        time left out), as a stage inside a model finds them (targets/cpu/cache_flush.py)."""
        flush = flush_function() if cold else None
        self.plan.run()
        samples = []
        for _ in range(repeats):
            runs, total = 0, 0.0
            begin = time.perf_counter()
            while runs < 3 or time.perf_counter() - begin < min_seconds:
                if flush is not None:
                    for b in self.buffers:
                        flush(b.ctypes.data, b.nbytes)
                start = time.perf_counter()
                self.plan.run()
                total += time.perf_counter() - start
                runs += 1
            samples.append(total / runs)
        return float(np.median(samples)), float(min(samples))
