"""Run a compiled model on an NVIDIA GPU through the CUDA driver API (cuda-python).

The launch plan is the CPU runtime's (targets/cpu/runtime.py: @main interpreted once into
buffers and launches); here every buffer lives on the device and every launch is a
`cuLaunchKernel` of the stage's PTX kernel over its grid (`kernel.gpu_dims`). At load
time the PTX of all stages is compiled for the device's architecture and loaded as one
module, every host buffer the plan holds (weights, the arena, temporaries) gets a device
allocation with its contents, and each launch's parameter block is packed once. A run
copies the inputs in, launches everything on one stream, and copies the outputs out;
`device_times` measures runs with CUDA events.

cuda-python is imported only here, when the gpu target is used: a machine without it, or
without a driver or a device, gets one line saying which.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.ir.diagnostics import TesselError
from tessel.targets.cpu.runtime import CpuExecutable, Slot, aligned_empty
from tessel.targets.gpu.nvptx import DEFAULT_PTX, compile_ptx, emit_ptx_module, gpu_dims

NO_GPU_HINT = "--emulate runs the GPU kernels on this CPU"


def driver(hint: str = NO_GPU_HINT) -> ModuleType:
    """cuda.bindings.driver, or one clear error."""
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        try:
            from cuda import cuda as cu  # cuda-python < 12.6
        except ImportError:
            raise TesselError(
                f"the gpu target needs cuda-python (pip install cuda-python) and an NVIDIA driver; {hint}"
            ) from None
    return cu


def check(cu: ModuleType, result: Any, what: str) -> Any:
    """cuda-python returns (error, values...): the values, or a TesselError naming the call.
    (Any: cuda-python has no type information here, its handles and values are opaque.)"""
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        name = cu.cuGetErrorName(err)
        label = name[1].decode() if isinstance(name, tuple) and int(name[0]) == 0 else str(err)
        raise TesselError(f"CUDA {what}: {label}")
    if not isinstance(result, tuple):
        return None
    rest = result[1:]
    return rest[0] if len(rest) == 1 else rest


def open_device(ordinal: int = 0, hint: str = NO_GPU_HINT) -> tuple[ModuleType, object, str]:
    """(driver, context, sm_XX) for device `ordinal`, its primary context current; `hint`
    ends the error line where there is none."""
    cu = driver(hint)
    try:
        err = cu.cuInit(0)
    except RuntimeError as e:  # no libcuda.so
        raise TesselError(f"no NVIDIA driver on this machine ({e}); {hint}") from None
    if int(err[0] if isinstance(err, tuple) else err) != 0:
        raise TesselError(f"no usable CUDA GPU (cuInit: {err}); {hint}")
    count = check(cu, cu.cuDeviceGetCount(), "cuDeviceGetCount")
    if count <= ordinal:
        raise TesselError(f"no CUDA GPU #{ordinal} (the driver sees {count}); {hint}")
    dev = check(cu, cu.cuDeviceGet(ordinal), "cuDeviceGet")
    attr = cu.CUdevice_attribute
    major = check(
        cu, cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute"
    )
    minor = check(
        cu, cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute"
    )
    ctx = check(cu, cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    check(cu, cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return cu, ctx, f"sm_{major}{minor}"


def device_description(ordinal: int = 0, hint: str = NO_GPU_HINT) -> str:
    """What tuning records call this GPU: its name and architecture (schedules are per device)."""
    cu, _, arch = open_device(ordinal, hint)
    dev = check(cu, cu.cuDeviceGet(ordinal), "cuDeviceGet")
    name = check(cu, cu.cuDeviceGetName(128, dev), "cuDeviceGetName")
    text = name.split(b"\0")[0].decode(errors="replace") if isinstance(name, bytes | bytearray) else str(name)
    return f"{text} {arch}"


def _root(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The array owning a's memory and a's byte offset in it."""
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    return base, a.ctypes.data - base.ctypes.data


class GpuExecutable(CpuExecutable):
    """CpuExecutable's plan, run on the device."""

    emit = staticmethod(emit_ptx_module)
    load = CpuExecutable.emit_and_compile  # one PTX module, loaded by compile_ir

    def __init__(
        self,
        module: ModuleOp,
        weights: Mapping[str, np.ndarray],
        threads: int = 1,
        entry: str = "main",
        arch: str | None = None,
        ptx: str = DEFAULT_PTX,
    ):
        self.cu: ModuleType | None
        self.cu, self.ctx, device_arch = open_device()
        self.arch = arch or device_arch
        self.ptx_version = ptx
        self.stage_fns = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        super().__init__(module, weights, threads=1, entry=entry)

    # ------------------------------------------------------------------ loading

    def _driver(self) -> ModuleType:
        assert self.cu is not None, "the executable is closed"
        return self.cu

    def compile_ir(self, ir: str) -> object:
        """The loaded CUmodule."""
        cu = self._driver()
        self.ptx = compile_ptx(ir, self.arch, self.ptx_version)
        return check(cu, cu.cuModuleLoadData(self.ptx.encode() + b"\0"), f"cuModuleLoadData ({self.arch})")

    def _function(self, name: str, n: int) -> object:
        if name not in self._ctypes:
            cu = self._driver()
            self._ctypes[name] = check(
                cu, cu.cuModuleGetFunction(self.compiled, name.encode()), f"cuModuleGetFunction {name}"
            )
        return self._ctypes[name]

    def _native_plan(self) -> None:
        """Device buffers for everything the plan holds, and packed launch parameters."""
        cu = self._driver()
        self.device: dict[int, int] = {}  # id(root array) -> device pointer
        self.allocations: list[int] = []
        for a in self.keep:
            root, _ = _root(a)
            if id(root) not in self.device:
                ptr = int(check(cu, cu.cuMemAlloc(max(root.nbytes, 1)), "cuMemAlloc"))
                if root.nbytes:
                    check(cu, cu.cuMemcpyHtoD(ptr, root.ctypes.data, root.nbytes), "cuMemcpyHtoD")
                self.device[id(root)] = ptr
                self.allocations.append(ptr)
        self.ports: dict[tuple[str, int], int] = {}
        for kind, ports in (("in", self.inputs), ("out", self.outputs)):
            for i in range(len(ports)):
                ptr = int(check(cu, cu.cuMemAlloc(max(self._port_nbytes((kind, i)), 1)), "cuMemAlloc"))
                self.ports[(kind, i)] = ptr
                self.allocations.append(ptr)
        self.stream = check(cu, cu.cuStreamCreate(0), "cuStreamCreate")
        self.graph: object | None = None  # the plan captured as a CUDA graph (on first run)
        self.use_graph = True
        self.graph_error = ""
        self.packed: list[tuple] = []
        for launch in self.launches:
            ptrs = [self._device_ptr(s) for s in launch.args]
            if launch.fn is None:  # memref.copy
                size = (
                    self._port_nbytes(launch.args[1])
                    if isinstance(launch.args[1], tuple)
                    else self.keep[launch.args[1]].nbytes
                )
                self.packed.append(("copy", ptrs[0], ptrs[1], size))
                continue
            grid, block = gpu_dims(self.stage_fns[launch.name])
            values = np.array([*ptrs, 0, 0], dtype=np.uint64)  # buffers, then the unused lo, hi
            params = np.array([values.ctypes.data + 8 * i for i in range(len(values))], dtype=np.uint64)
            self.packed.append(("kernel", launch.fn, grid, block, values, params))
        return None

    def _device_ptr(self, slot: Slot) -> int:
        if isinstance(slot, tuple):
            return self.ports[slot]
        root, offset = _root(self.keep[slot])
        return self.device[id(root)] + offset

    # ------------------------------------------------------------------ running

    def _launch_all(self) -> None:
        """Every launch of the plan on the stream: as one CUDA graph (captured on first use;
        the buffers never move, so it stays valid), which costs one host call instead of one
        per kernel; directly if the driver cannot capture it."""
        cu = self._driver()
        if self.graph is None and self.use_graph:
            try:
                mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
                check(cu, cu.cuStreamBeginCapture(self.stream, mode), "cuStreamBeginCapture")
                try:
                    self._launch_each()
                finally:
                    graph = check(cu, cu.cuStreamEndCapture(self.stream), "cuStreamEndCapture")
                self.graph = check(cu, cu.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
            except (TesselError, AttributeError, TypeError) as err:
                self.use_graph = False
                self.graph_error = str(err)
        if self.graph is not None:
            check(cu, cu.cuGraphLaunch(self.graph, self.stream), "cuGraphLaunch")
            return
        self._launch_each()

    def _launch_each(self) -> None:
        cu = self._driver()
        for p in self.packed:
            if p[0] == "copy":
                check(cu, cu.cuMemcpyDtoDAsync(p[2], p[1], p[3], self.stream), "cuMemcpyDtoDAsync")
                continue
            _, fn, grid, block, _, params = p
            check(cu, cu.cuLaunchKernel(fn, *grid, *block, 0, self.stream, params.ctypes.data, 0), "cuLaunchKernel")

    def run_into(self, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], clock: list[float] | None = None) -> None:
        cu = self._driver()
        for i, a in enumerate(ins):
            a = np.ascontiguousarray(a)
            check(
                cu,
                cu.cuMemcpyHtoDAsync(self.ports[("in", i)], a.ctypes.data, a.nbytes, self.stream),
                "cuMemcpyHtoDAsync",
            )
        self._launch_all()
        for i, o in enumerate(outs):
            check(
                cu,
                cu.cuMemcpyDtoHAsync(o.ctypes.data, self.ports[("out", i)], o.nbytes, self.stream),
                "cuMemcpyDtoHAsync",
            )
        check(cu, cu.cuStreamSynchronize(self.stream), "cuStreamSynchronize")

    def device_times(self, inputs: Sequence[np.ndarray], runs: int, warmup: int = 3) -> list[float]:
        """Milliseconds per run of the launches alone (inputs already on the device), by CUDA events."""
        cu = self._driver()
        in_dtypes, out_dtypes = self.port_dtypes()
        outs = [aligned_empty(self._port_type(("out", i)).get_shape(), d) for i, d in enumerate(out_dtypes)]
        self.run_into([np.asarray(x, dtype=d) for x, d in zip(inputs, in_dtypes)], outs)
        start = check(cu, cu.cuEventCreate(0), "cuEventCreate")
        end = check(cu, cu.cuEventCreate(0), "cuEventCreate")
        for _ in range(warmup):
            self._launch_all()
        times = []
        for _ in range(runs):
            check(cu, cu.cuEventRecord(start, self.stream), "cuEventRecord")
            self._launch_all()
            check(cu, cu.cuEventRecord(end, self.stream), "cuEventRecord")
            check(cu, cu.cuEventSynchronize(end), "cuEventSynchronize")
            times.append(float(check(cu, cu.cuEventElapsedTime(start, end), "cuEventElapsedTime")))
        return times

    def profile(self, inputs: Sequence[np.ndarray], runs: int = 10) -> list[tuple[str, int, float]]:
        """(kernel, blocks, median ms) per launch, by CUDA events around each launch."""
        cu = self._driver()
        self.device_times(inputs, 1, warmup=1)
        start = check(cu, cu.cuEventCreate(0), "cuEventCreate")
        end = check(cu, cu.cuEventCreate(0), "cuEventCreate")
        rows = []
        for launch, p in zip(self.launches, self.packed):
            samples = []
            for _ in range(max(1, runs)):
                check(cu, cu.cuEventRecord(start, self.stream), "cuEventRecord")
                if p[0] == "copy":
                    check(cu, cu.cuMemcpyDtoDAsync(p[2], p[1], p[3], self.stream), "cuMemcpyDtoDAsync")
                else:
                    check(
                        cu, cu.cuLaunchKernel(p[1], *p[2], *p[3], 0, self.stream, p[5].ctypes.data, 0), "cuLaunchKernel"
                    )
                check(cu, cu.cuEventRecord(end, self.stream), "cuEventRecord")
                check(cu, cu.cuEventSynchronize(end), "cuEventSynchronize")
                samples.append(float(check(cu, cu.cuEventElapsedTime(start, end), "cuEventElapsedTime")))
            rows.append((launch.name, math.prod(p[2]) if p[0] == "kernel" else 0, float(np.median(samples))))
        return rows

    def close(self) -> None:
        cu = getattr(self, "cu", None)
        if cu is None:
            return
        for ptr in getattr(self, "allocations", []):
            cu.cuMemFree(ptr)
        self.allocations = []
        if getattr(self, "compiled", None) is not None:
            cu.cuModuleUnload(self.compiled)
            self.compiled = None
        self.cu = None
