"""A stand-in for cuda.bindings.driver on a machine without a GPU, for testing the GPU
runtime's own logic (device buffers for views into the arena, packed kernel parameters,
copies, grids) on every machine.

"Device" memory is host memory; a kernel launch reads its packed parameter block the way
the driver does (an array of pointers to the argument values), checks the grid and block
against the stage's `kernel.gpu_dims`, and runs the stage's host-compiled kernel
(targets/gpu/nvptx.py, host flavour) over the grid. Calls return (CUresult, values...)
tuples like cuda-python's. What it cannot check is PTX: test/gpu does, on a GPU.
"""

from __future__ import annotations

import ctypes
import enum

import numpy as np

from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.gpu.nvptx import emit_host_module, gpu_dims, stages

OK = 0
INVALID_VALUE = 1


class CUdevice_attribute(enum.IntEnum):  # noqa: N801 - cuda-python's name
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


class FakeDriver:
    CUdevice_attribute = CUdevice_attribute

    def __init__(self) -> None:
        self.module = None  # the lowered module whose kernels the "device" runs
        self.memory: dict[int, np.ndarray] = {}
        self.launches: list[tuple[str, tuple, tuple]] = []
        self.host: CompiledModule | None = None
        self.arity: dict[str, int] = {}
        self.dims: dict[str, tuple] = {}

    def expect(self, module) -> None:  # noqa: ANN001
        """The module the next cuModuleLoadData stands for."""
        self.module = module

    # ------------------------------------------------------------------ setup
    def cuInit(self, flags: int):  # noqa: N802, ANN201
        return (OK,)

    def cuGetErrorName(self, err):  # noqa: N802, ANN001, ANN201
        return (OK, b"CUDA_ERROR_INVALID_VALUE" if int(err) == INVALID_VALUE else b"CUDA_ERROR_UNKNOWN")

    def cuDeviceGetCount(self):  # noqa: N802, ANN201
        return (OK, 1)

    def cuDeviceGet(self, ordinal: int):  # noqa: N802, ANN201
        return (OK, ordinal)

    def cuDeviceGetName(self, length: int, dev):  # noqa: N802, ANN001, ANN201
        return (OK, b"Fake GPU\0".ljust(length, b"\0"))

    def cuDeviceGetAttribute(self, attr, dev):  # noqa: N802, ANN001, ANN201
        return (OK, 9 if attr == CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR else 0)

    def cuDevicePrimaryCtxRetain(self, dev):  # noqa: N802, ANN001, ANN201
        return (OK, "ctx")

    def cuCtxSetCurrent(self, ctx):  # noqa: N802, ANN001, ANN201
        return (OK,)

    def cuModuleLoadData(self, image: bytes):  # noqa: N802, ANN201
        assert image.endswith(b"\0") and b".visible .entry" in image or not stages(self.module)
        self.host = CompiledModule(emit_host_module(self.module))
        for fn in stages(self.module):
            self.arity[fn.sym_name.data] = len(fn.body.block.args)
            self.dims[fn.sym_name.data] = gpu_dims(fn)
        return (OK, "module")

    def cuModuleGetFunction(self, module, name: bytes):  # noqa: N802, ANN001, ANN201
        return (OK, name.decode()) if name.decode() in self.arity else (INVALID_VALUE, None)

    def cuModuleUnload(self, module):  # noqa: N802, ANN001, ANN201
        return (OK,)

    # ------------------------------------------------------------------ memory
    def cuMemAlloc(self, size: int):  # noqa: N802, ANN201
        buf = np.zeros(size + 256, np.uint8)
        ptr = buf.ctypes.data + (-buf.ctypes.data) % 256  # the driver aligns to 256 bytes
        self.memory[ptr] = buf
        return (OK, ptr)

    def cuMemFree(self, ptr):  # noqa: N802, ANN001, ANN201
        return (OK,) if self.memory.pop(int(ptr), None) is not None else (INVALID_VALUE,)

    def _copy(self, dst, src, size):  # noqa: ANN001, ANN202
        ctypes.memmove(int(dst), int(src), int(size))
        return (OK,)

    def cuMemcpyHtoD(self, dst, src, size):  # noqa: N802, ANN001, ANN201
        return self._copy(dst, src, size)

    def cuMemcpyHtoDAsync(self, dst, src, size, stream):  # noqa: N802, ANN001, ANN201
        return self._copy(dst, src, size)

    def cuMemcpyDtoHAsync(self, dst, src, size, stream):  # noqa: N802, ANN001, ANN201
        return self._copy(dst, src, size)

    def cuMemcpyDtoDAsync(self, dst, src, size, stream):  # noqa: N802, ANN001, ANN201
        return self._captured(self._copy, dst, src, size)

    # ------------------------------------------------------------------ running
    def cuStreamCreate(self, flags: int):  # noqa: N802, ANN201
        return (OK, "stream")

    def cuStreamDestroy(self, stream):  # noqa: N802, ANN001, ANN201
        return (OK,)

    def cuMemcpyDtoH(self, dst, src, size):  # noqa: N802, ANN001, ANN201
        return self._copy(dst, src, size)

    def cuStreamSynchronize(self, stream):  # noqa: N802, ANN001, ANN201
        return (OK,)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):  # noqa: N802, ANN001, ANN201
        if ((gx, gy, gz), (bx, by, bz)) != self.dims[f]:  # checked when called, captured or not
            return (INVALID_VALUE,)
        return self._captured(self._launch, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)

    def _launch(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):  # noqa: ANN001, ANN202
        n = self.arity[f]
        pointers = (ctypes.c_uint64 * n).from_address(int(params))
        values = [ctypes.c_uint64.from_address(p).value for p in pointers]
        args = np.array(values[: n - 2], dtype=np.uint64)  # buffers; then lo, hi
        dispatch = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
            self.host.address(f"{f}.dispatch")
        )
        dispatch(args.ctypes.data, 0, gx * gy * gz)
        self.launches.append((f, (gx, gy, gz), (bx, by, bz)))
        return (OK,)

    # stream capture: launches are recorded, a graph replays them
    class CUstreamCaptureMode(enum.IntEnum):  # noqa: N801
        CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1

    def cuStreamBeginCapture(self, stream, mode):  # noqa: N802, ANN001, ANN201
        self.capturing: list | None = []
        return (OK,)

    def cuStreamEndCapture(self, stream):  # noqa: N802, ANN001, ANN201
        graph, self.capturing = self.capturing, None
        return (OK, graph)

    def cuGraphInstantiate(self, graph, flags):  # noqa: N802, ANN001, ANN201
        return (OK, list(graph))

    def cuGraphLaunch(self, graph, stream):  # noqa: N802, ANN001, ANN201
        self.graph_launches = getattr(self, "graph_launches", 0) + 1
        for call, args in graph:
            err = call(*args)
            if err[0] != OK:
                return err
        return (OK,)

    def _captured(self, call, *args):  # noqa: ANN001, ANN002, ANN202
        if getattr(self, "capturing", None) is not None:
            self.capturing.append((call, args))
            return (OK,)
        return call(*args)

    def cuEventCreate(self, flags: int):  # noqa: N802, ANN201
        return (OK, "event")

    def cuEventRecord(self, event, stream):  # noqa: N802, ANN001, ANN201
        return (OK,)

    def cuEventSynchronize(self, event):  # noqa: N802, ANN001, ANN201
        return (OK,)

    def cuEventElapsedTime(self, start, end):  # noqa: N802, ANN001, ANN201
        return (OK, 0.25)
