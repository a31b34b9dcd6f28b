"""A compiled model as data: its memory plan and launches as a plain dictionary, its code as
a shared library. What `tessel.runtime` needs to run the model without the compiler.

`PlannedExecutable` is the CPU executable that also remembers where each buffer of its plan
came from (an allocation, a view into one, or a global's data), so the plan can be written
down (`plan_spec`) and rebuilt by the runtime in fresh memory, once per concurrent call.
`write_library` emits the same LLVM IR as position-independent object code for this CPU and
links it with the system's C compiler into the `.so` a saved model carries.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

import llvmlite
import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp

from tessel.ir.diagnostics import TesselError
from tessel.targets.cpu import cpu_target, native_plan
from tessel.targets.cpu.cpu_target import CpuTarget
from tessel.targets.cpu.jit import CachedObjects, CompiledModule, ShardedModule, cache_dir
from tessel.targets.cpu.runtime import CpuExecutable, Slot


class PlannedExecutable(CpuExecutable):
    """A CpuExecutable that records the origin of every buffer it plans."""

    def __init__(self, module: ModuleOp, weights: Mapping[str, np.ndarray], threads: int = 2, entry: str = "main"):
        self.allocated: set[int] = set()  # indices into `keep` made by _buffer
        self.global_names: dict[int, str] = {}  # id() of a global's array -> its name
        super().__init__(module, weights, threads=threads, entry=entry)

    def _buffer(self, t: MemRefType) -> int:
        index = super()._buffer(t)
        self.allocated.add(index)
        return index

    def _global(self, name: str, t: MemRefType) -> np.ndarray:
        array = super()._global(name, t)
        self.global_names[id(array)] = name
        return array


def plan_spec(exe: PlannedExecutable) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The plan as JSON-able data (buffers, launches, the weights' keys) and the weights."""
    buffers: list[dict[str, Any]] = []
    weights: dict[str, np.ndarray] = {}
    owners = sorted(exe.allocated)
    for i, array in enumerate(exe.keep):
        shape, dtype = list(array.shape), array.dtype.str
        if i in exe.allocated:
            buffers.append({"kind": "alloc", "shape": shape, "dtype": dtype})
        elif id(array) in exe.global_names:
            name = exe.global_names[id(array)]
            weights[name] = array
            buffers.append({"kind": "weight", "name": name})
        else:  # a memref.view: find the allocation it lies in
            start = array.ctypes.data
            for j in owners:
                owner = exe.keep[j]
                if owner.ctypes.data <= start and start + array.nbytes <= owner.ctypes.data + owner.nbytes:
                    buffers.append(
                        {"kind": "view", "of": j, "offset": start - owner.ctypes.data, "shape": shape, "dtype": dtype}
                    )
                    break
            else:
                raise TesselError(f"buffer #{i} of the plan is neither allocated, a view nor a global: cannot save it")

    def slot(s: Slot) -> dict[str, int]:
        if isinstance(s, tuple):
            return {s[0]: s[1]}
        return {"buffer": s}

    launches = []
    for launch in exe.launches:
        if launch.fn is None:  # memref.copy: the copy dispatcher over (src, dst, bytes)
            src, dst = launch.args
            size = exe.keep[dst].nbytes if not isinstance(dst, tuple) else exe._port_nbytes(dst)
            launches.append(
                {
                    "name": "copy",
                    "symbol": native_plan.COPY,
                    "args": [slot(src), slot(dst), {"const": size}],
                    "extent": 1,
                }
            )
        else:
            launches.append(
                {
                    "name": launch.name,
                    "symbol": f"{launch.name}.dispatch",
                    "args": [slot(s) for s in launch.args],
                    "extent": launch.extent,
                }
            )
    keys = {name: f"w{k}" for k, name in enumerate(sorted(weights))}
    return {"buffers": buffers, "launches": launches, "weights": keys}, weights


class JitCode:
    """The runtime's view of JIT-compiled code (tessel.runtime.library.NativeCode)."""

    def __init__(self, exe: CpuExecutable):
        self.exe = exe  # owns the MCJIT engine: alive as long as this is
        self.pool_lock = threading.Lock()

    def address(self, symbol: str) -> int:
        code = self.exe.compiled
        assert isinstance(code, CompiledModule | ShardedModule)
        return code.address(symbol)

    def stop_pool(self) -> None:
        with self.pool_lock:
            self.exe.close()


class CachedCode:
    """The runtime's view of code rebuilt from the object cache (model_cache.py's hits)."""

    def __init__(self, objects: CachedObjects):
        self.objects = objects  # owns the MCJIT engines: alive as long as this is
        self.pool_lock = threading.Lock()

    def address(self, symbol: str) -> int:
        return self.objects.address(symbol)

    def stop_pool(self) -> None:
        with self.pool_lock:
            ctypes.CFUNCTYPE(None)(self.objects.address(native_plan.POOL_STOP))()


def target_description(target: CpuTarget | None = None, bf16: bool = False) -> dict[str, Any]:
    """The machine the code is compiled for (default: the current target): LLVM triple, CPU
    name and enabled features, which a saved model's manifest records for `check_machine`;
    with `bf16` (a model compiled at precision bf16) AVX512-BF16 too where the target has it
    (its functions use vdpbf16ps)."""
    target = target or cpu_target.current()
    features = target.enabled | ({"avx512bf16"} if bf16 and target.bf16 else set())
    return {"triple": target.triple, "cpu": target.cpu, "features": sorted(features)}


def write_library(llvm_ir: str, path: str, target: CpuTarget | None = None) -> None:
    """Compile LLVM IR (O3, for `target`, by default the current one, position-independent)
    and link it into a shared library. The object code is cached by a hash of the IR and the
    target, as the JIT's is."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        raise TesselError(
            "saving a compiled model links a shared library with the system's C compiler, and there is none "
            "(no `cc` on PATH): install gcc or clang, or set CC"
        )
    target = target or cpu_target.current()
    key = hashlib.sha256(
        f"{llvmlite.__version__}|{target.triple}|{target.cpu}|{target.features}|pic|{llvm_ir}".encode()
    ).hexdigest()
    cached = cache_dir() / f"{key}.pic.o"
    if not cached.exists():
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(_object_code(llvm_ir, target))
        os.replace(tmp, cached)
    with tempfile.TemporaryDirectory() as tmp_dir:
        out = os.path.join(tmp_dir, "model.so")
        # -Bsymbolic: the library's own helpers (__truncsfbf2, ...) bind to its definitions
        result = subprocess.run(
            [cc, "-shared", "-Wl,-Bsymbolic", "-o", out, str(cached), "-lm", "-lpthread"],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            first = (result.stderr.strip().splitlines() or ["no message"])[0]
            raise TesselError(f"linking the model's shared library with {cc} failed: {first}")
        shutil.move(out, path)


def _object_code(llvm_ir: str, target: CpuTarget) -> bytes:
    """O3 for the target, as the JIT optimizes, then position-independent object code."""
    tm = target.target_machine(opt=3, jit=False, reloc="pic")
    mod = llvm.parse_assembly(llvm_ir)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return bytes(tm.emit_object(mod))
