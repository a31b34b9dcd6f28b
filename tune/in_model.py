"""Timing a candidate schedule inside its model: the stage swapped into the compiled model,
every sample a whole run of the model with that one launch timed.

Timed alone, a stage does not run as it runs in its model, whatever its caches are made to
hold. On ResNet-18 (Zen 4, 2 threads), the deepest Winograd product under its default
schedule took 0.63 ms in the model and 0.88 ms alone with its buffers flushed; a tuned
tile that read 0.87-0.93 ms alone took 0.98 ms in the model, so the tuner kept a schedule
that made the model slower. The model keeps part of its weights in the last-level cache
between runs and hands each stage activations its producer has just written; flushing
everything, or nothing, or the weights only, each got a different set of stages wrong
(README, "Tuning timed inside the model"). Here nothing is modelled: each sample is one
whole run of the model in which the native plan times the candidate's launch (the
descriptor's clock, runtime/native.py), so the caches, the pool's threads and the memory
traffic around it are the model's own.

A `ModelBench` is built once per process from a `ModelSource` (the ONNX file and how it
was imported) and serves every task of that model: the default-schedule model is compiled
once, and a candidate costs its stage's build plus `repeats` model runs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tessel.dialects import sched
from tessel.pipelines.tensor import compile_for_cpu
from tessel.runtime.native import NativePlan
from tessel.targets.cpu.llvm_modules import STAGE_SYMBOL
from tessel.targets.cpu.runtime import CpuExecutable
from tessel.tune.task import StageRunner, Task


@dataclass(frozen=True)
class ModelSource:
    """What a measuring process needs to compile the model the tasks came from: a path
    (not the model's bytes: those would travel with every candidate) and the import's
    settings, as tessel.api.tuning.kernel_module was given them."""

    path: str
    input_shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    bind: tuple[tuple[str, np.ndarray], ...] = field(default=(), compare=False)

    @staticmethod
    def of(
        path: str, input_shapes: Mapping[str, Sequence[int]] | None, bind: Mapping[str, np.ndarray] | None
    ) -> ModelSource:
        shapes = tuple((k, tuple(int(d) for d in v)) for k, v in (input_shapes or {}).items())
        return ModelSource(path, shapes, tuple((bind or {}).items()))

    def compile(self, threads: int, records: str | None = None) -> CpuExecutable:
        """The model compiled for this CPU, under default schedules or the best of `records`."""
        import onnx

        from tessel.frontends.onnx import import_model

        shapes = {k: list(v) for k, v in self.input_shapes}
        imported = import_model(onnx.load(self.path), source=self.path, bind=dict(self.bind), input_shapes=shapes)
        executable, _ = compile_for_cpu(imported.module, imported.weights, threads=threads, records=records)
        return executable


class ModelBench:
    """The model compiled under its default schedules, with inputs of its own, ready to
    have one launch replaced by a candidate and timed."""

    def __init__(self, source: ModelSource, threads: int):
        self.threads = threads
        self.executable = source.compile(threads)
        plan = self.executable.native
        assert plan is not None, "the CPU executable runs a native plan"
        self.plan: NativePlan = plan
        ins = model_inputs(self.executable)
        self._ports = (ins, self.executable.run(ins))  # the plan points into them (one run)
        self.launch: dict[str, int] = {}  # a stage's first launch
        for i, launch in enumerate(self.executable.launches):
            self.launch.setdefault(launch.name, i)

    @property
    def inputs(self) -> list[np.ndarray]:
        """The model inputs the plan reads."""
        return self._ports[0]

    def close(self) -> None:
        self.executable.close()

    def timings(
        self, task: Task, schedule: sched.StageOp | None, repeats: int, built: StageRunner | None = None
    ) -> tuple[float, float] | None:
        """(median, fastest) seconds of the task's launch over `repeats` runs of the model
        with the candidate in its place; None when the model has no launch of that stage
        alone (the default lowering fused its rows with its neighbours'). `built`: the
        candidate's StageRunner, whose stage function is the one the model's launch takes
        (its code is used as it is; without it the stage is built again)."""
        index = self.launch.get(task.stage)
        if index is None:
            return None
        if built is None:
            built = StageRunner(task, schedule, threads=self.threads, cache=True)
            built.plan.stop()  # (its pool: the model's runs use the model's)
        if built.arity != len(self.executable.launches[index].args):
            return None
        code, extent = built.compiled, built.extent
        row = self.plan.table[index]
        saved = row[[0, 2, 3]].copy()
        extent = max(extent, 1)
        row[0] = code.address(f"{STAGE_SYMBOL}.dispatch")
        row[2] = extent
        row[3] = max(1, -(-extent // (self.threads * 4)))  # NativePlan's chunk
        self.plan.time_launches([index])
        try:
            samples = []  # (the candidate's code has run in its check: no warm-up run)
            for _ in range(max(1, repeats)):
                self.plan.run()
                samples.append(float(self.plan.elapsed()[index]))
        finally:
            self.plan.time_launches([index], on=False)
            row[[0, 2, 3]] = saved
        return float(np.median(samples)), float(min(samples))


def model_inputs(executable: CpuExecutable) -> list[np.ndarray]:
    """Inputs for timing a compiled model: normal floats, and 1s for integers and booleans
    (token ids and attention masks, for which 1 is valid)."""
    rng = np.random.default_rng(0)
    inputs = []
    for i, dt in enumerate(executable.port_dtypes()[0]):
        shape = executable._port_type(("in", i)).get_shape()
        inputs.append(rng.standard_normal(shape).astype(dt) if dt.kind == "f" else np.ones(shape, dt))
    return inputs


@functools.lru_cache(maxsize=1)
def bench_for(source: ModelSource, threads: int) -> ModelBench:
    """One process's bench for the model it is measuring (the last one asked for)."""
    return ModelBench(source, threads)
