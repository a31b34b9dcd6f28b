"""Measuring GPU candidate schedules on the GPU, in this process.

Each candidate's stage is compiled alone (kernel-to-loops' stage function with the
candidate's GPU schedule, PTX through llvmlite) and loaded as its own CUDA module; its
buffers live on the device with the same seeded random contents the CPU tuner uses; the
output is checked against the stage under the CPU's default schedule (a candidate that
computes something else is a failed record, never a best), then the kernel is timed with
CUDA events (median of `repeats` samples, each a run of enough launches for ~2 ms). A
build error or a launch the driver refuses is that candidate's failure; the device is
shared, so candidates are measured one at a time (no worker processes: a GPU context per
process would cost more than the kernels).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tessel.passes.kernel.to_loops import stage_function
from tessel.tune import gpu_space
from tessel.tune.measure import Candidate, Result, _schedule_text, check_result
from tessel.tune.task import StageRunner


class GpuMeasurer:
    def __init__(self, repeats: int = 5, timeout: float = 60.0):
        from tessel.targets.gpu.runtime import open_device

        self.cu, self.ctx, self.arch = open_device()
        self.repeats = repeats
        self.timeout = timeout
        self.reference: dict[str, tuple[list[np.ndarray], int, np.ndarray]] = {}

    def _reference(self, candidate: Candidate) -> tuple[list[np.ndarray], int, np.ndarray]:
        """The stage's buffers (seeded) and its output under the CPU default schedule."""
        task = candidate.task
        if task.key not in self.reference:
            runner = StageRunner(task, None, threads=2)
            inputs = [np.array(b, copy=True) for b in runner.buffers]
            out = runner.run().copy()
            self.reference[task.key] = (inputs, runner.out_index, out)
        return self.reference[task.key]

    def measure(self, candidates: Sequence[Candidate]) -> list[Result]:
        results = []
        for c in candidates:
            r = Result(c.task.key, c.knobs, None)
            try:
                r.build_s, r.schedule, r.seconds, r.best = self._one(c)
            except Exception as err:  # noqa: BLE001 - the candidate's failure, recorded
                r.error = f"{type(err).__name__}: {err}"
            results.append(r)
        return results

    def _one(self, c: Candidate) -> tuple[float, str, float, float]:
        from tessel.targets.gpu.nvptx import compile_ptx, emit_ptx_module, gpu_dims
        from tessel.targets.gpu.runtime import check

        cu = self.cu
        start = time.perf_counter()
        op, visible = c.task.compute_op()
        fn, _ = stage_function("stage", op, visible, gpu_space.loops(op, c.knobs), target="gpu")
        ptx = compile_ptx(emit_ptx_module(ModuleOp([fn])), self.arch)
        module = check(cu, cu.cuModuleLoadData(ptx.encode() + b"\0"), "cuModuleLoadData")
        build_s = time.perf_counter() - start
        buffers: list[int] = []
        try:
            kernel = check(cu, cu.cuModuleGetFunction(module, b"stage"), "cuModuleGetFunction")
            inputs, out_index, want = self._reference(c)
            for a in inputs:
                ptr = int(check(cu, cu.cuMemAlloc(max(a.nbytes, 1)), "cuMemAlloc"))
                buffers.append(ptr)
                check(cu, cu.cuMemcpyHtoD(ptr, a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
            values = np.array([*buffers, 0, 0], dtype=np.uint64)
            params = np.array([values.ctypes.data + 8 * i for i in range(len(values))], dtype=np.uint64)
            grid, block = gpu_dims(fn)
            stream = check(cu, cu.cuStreamCreate(0), "cuStreamCreate")

            def launch(n: int = 1) -> None:
                for _ in range(n):
                    check(
                        cu, cu.cuLaunchKernel(kernel, *grid, *block, 0, stream, params.ctypes.data, 0), "cuLaunchKernel"
                    )

            launch()
            check(cu, cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
            got = np.empty_like(want)
            check(cu, cu.cuMemcpyDtoH(got.ctypes.data, buffers[out_index], got.nbytes), "cuMemcpyDtoH")
            check_result(got, want)
            ev0, ev1 = check(cu, cu.cuEventCreate(0), "cuEventCreate"), check(cu, cu.cuEventCreate(0), "cuEventCreate")

            def sample(n: int) -> float:
                check(cu, cu.cuEventRecord(ev0, stream), "cuEventRecord")
                launch(n)
                check(cu, cu.cuEventRecord(ev1, stream), "cuEventRecord")
                check(cu, cu.cuEventSynchronize(ev1), "cuEventSynchronize")
                return float(check(cu, cu.cuEventElapsedTime(ev0, ev1), "cuEventElapsedTime")) / 1e3 / n

            once = max(sample(1), 1e-7)
            inner = max(1, min(1000, int(2e-3 / once)))
            sample(inner)  # discarded: an idle GPU's clocks ramp up under the first launches
            samples = [sample(inner) for _ in range(self.repeats)]
            check(cu, cu.cuStreamDestroy(stream), "cuStreamDestroy")
            return build_s, _schedule_text_gpu(c), statistics.median(samples), min(samples)
        finally:
            for ptr in buffers:
                cu.cuMemFree(ptr)
            cu.cuModuleUnload(module)

    def close(self) -> None:
        pass


def _schedule_text_gpu(c: Candidate) -> str:
    return _schedule_text(c.task, c.knobs, gpu_space)
