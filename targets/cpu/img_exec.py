"""Run a compiled image pipeline: one native call per frame on the module's own threads.

The pipeline's entry `@pipeline(ptr args, i64 a, i64 b)` has the dispatcher signature of
the tensor runtime's native launch plan (targets/cpu/native_plan.py), so the same
`@tessel.run_plan` pool splits the driver rows into chunks (four per thread, taken from an
atomic counter, so a descheduled thread costs only its chunk) with no Python in between.
Each chunk is a strip: it warms its line buffers with the few rows above it, then streams.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from tessel.ir.diagnostics import TesselError
from tessel.targets.cpu import native_plan
from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.cpu.native_plan import NativePlan
from tessel.targets.cpu.runtime import aligned_empty


def checked_image(a: np.ndarray, shape: Sequence[int], dt: np.dtype, what: str) -> np.ndarray:
    """`a` as the (H, W, C) contiguous array a pipeline takes (HxW gets C = 1), or one
    error line naming `what` and the mismatch."""
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[:, :, None]
    if a.shape != tuple(shape):
        raise TesselError(f"{what} is {'x'.join(map(str, a.shape))}, the pipeline takes {'x'.join(map(str, shape))}")
    if a.dtype != dt:
        raise TesselError(f"{what} holds {a.dtype}, the pipeline takes {np.dtype(dt)}")
    return np.ascontiguousarray(a)


class PlanOwner:
    """Owns a NativePlan whose workers run the owner's compiled code: join them on close
    (and at garbage collection), before that code is freed."""

    plan: NativePlan | None

    def native(self) -> NativePlan:
        """The plan, while the executable is open."""
        if self.plan is None:
            raise TesselError("the image executable was closed")
        return self.plan

    def close(self) -> None:
        plan = getattr(self, "plan", None)
        if plan is not None:
            plan.stop()
            self.plan = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


class ImgExecutable(PlanOwner):
    """A JIT-compiled pipeline: `run(inputs) -> outputs`, numpy (H, W, C) arrays."""

    def __init__(self, llvm_ir: str, entry: str, height: int, inputs: Sequence[tuple[tuple[int, int, int], np.dtype]],
                 outputs: Sequence[tuple[tuple[int, int, int], np.dtype]], threads: int = 2):  # fmt: skip
        self.llvm_ir = llvm_ir + "\n" + native_plan.RUNTIME
        self.compiled = CompiledModule(self.llvm_ir)
        self.in_specs = list(inputs)
        self.out_specs = list(outputs)
        self.threads = max(1, threads)
        slots = [("in", i) for i in range(len(inputs))] + [("out", i) for i in range(len(outputs))]
        self.plan = NativePlan(self.compiled.address("tessel.run_plan"), self.compiled.address("tessel.pool_stop"),
                               [(self.compiled.address(entry), slots, height)], self.threads)  # fmt: skip
        self._outs = [aligned_empty(shape, dt) for shape, dt in self.out_specs]

    def _inputs(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        if len(arrays) != len(self.in_specs):
            raise TesselError(f"the pipeline takes {len(self.in_specs)} images, got {len(arrays)}")
        return [
            checked_image(a, shape, dt, f"image #{i}") for i, (a, (shape, dt)) in enumerate(zip(arrays, self.in_specs))
        ]

    def run(self, arrays: Sequence[np.ndarray], fresh: bool = True) -> list[np.ndarray]:
        """The outputs for these inputs (fresh arrays unless `fresh` is False, then the
        executable's own buffers, overwritten by the next run)."""
        ins = self._inputs(arrays)
        self.native().patch(ins, self._outs)
        self.native().run()
        return [o.copy() for o in self._outs] if fresh else list(self._outs)

    def time(self, arrays: Sequence[np.ndarray], runs: int, warmup: int = 2) -> list[float]:
        """Seconds per run, for `runs` runs after `warmup`."""
        ins = self._inputs(arrays)
        self.native().patch(ins, self._outs)
        for _ in range(warmup):
            self.native().run()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            self.native().run()
            times.append(time.perf_counter() - t0)
        return times
