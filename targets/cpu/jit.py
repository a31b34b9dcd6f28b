"""LLVM IR text -> machine code for this CPU, with an on-disk object cache.

The target machine names the host CPU and its features explicitly (llvmlite's default is
a generic x86-64 without AVX-512), optimizes at O3 with the new pass manager, and JITs with
MCJIT. Compiled objects are cached by a hash of the IR and the target, so a model compiles
once per machine: a hit costs a parse and an object load (~4 ms) instead of O3 + codegen.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding as llvm

from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.cpu_target import CpuTarget

_LOCK = threading.Lock()


def cache_dir() -> Path:
    root = os.environ.get("TESSEL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tessel"
    )
    path = Path(root) / "objects"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _unlocked(name: str) -> Callable[..., Any]:
    """The C function behind an llvmlite call, without llvmlite's lock.

    llvmlite runs every call into LLVM under one process-wide lock, so threads compiling
    separate modules would take turns. The two long calls (O3 and machine-code generation)
    on a module parsed into its own LLVM context touch nothing another thread's module uses,
    and LLVM is thread-safe across contexts: those two go around the lock (llvmlite is pinned
    in pyproject.toml; its wrapper keeps the ctypes function as `_cfn`)."""
    return getattr(llvm.ffi.lib, name)._cfn


class CompiledModule:
    """A JIT-compiled LLVM module; keep it alive while its function pointers are used."""

    def __init__(self, ir: str, use_cache: bool = True, own_context: bool = False, target: CpuTarget | None = None):
        """`own_context`: parse into a fresh LLVM context instead of the global one, so that
        modules can be compiled in parallel threads (llvmlite's calls release the GIL, and
        LLVM is thread-safe across contexts); otherwise compiles hold one process-wide lock."""
        target = target or cpu_target.current()
        self.target = target
        self.key = hashlib.sha256(
            f"{llvmlite.__version__}|{target.triple}|{target.cpu}|{target.features}|{ir}".encode()
        ).hexdigest()
        self.cache_hit = False
        # where the time goes (`--time-passes`): parsing the text, O3, machine code
        self.seconds: dict[str, float] = {}
        self._context = llvm.create_context() if own_context else None
        with contextlib.nullcontext() if own_context else _LOCK:
            start = time.perf_counter()
            tm = target.target_machine()
            mod = llvm.parse_assembly(ir, context=self._context)
            mod.triple = tm.triple
            mod.data_layout = str(tm.target_data)
            mod.verify()
            self.cached = cache_dir() / f"{self.key}.o" if use_cache else None
            self.seconds["llvm-parse"] = time.perf_counter() - start
            if self.cached is None or not self.cached.exists():
                start = time.perf_counter()
                pto = llvm.create_pipeline_tuning_options(speed_level=3)
                pto.loop_vectorization = True
                pto.slp_vectorization = True
                pto.loop_unrolling = True
                pb = llvm.create_pass_builder(tm, pto)
                mpm = pb.getModulePassManager()
                if own_context:
                    _unlocked("LLVMPY_RunNewModulePassManager")(mpm, mod, pb)
                else:
                    mpm.run(mod, pb)
                self.seconds["llvm-O3"] = time.perf_counter() - start
            start = time.perf_counter()
            self._module = mod  # (the engine owns it from here; printed only when asked for)
            self.engine = llvm.create_mcjit_compiler(mod, tm)
            self.engine.set_object_cache(self._notify, self._lookup)
            if own_context:
                _unlocked("LLVMPY_FinalizeObject")(self.engine)
            else:
                self.engine.finalize_object()
            self.seconds["llvm-codegen" if not self.cache_hit else "llvm-load-cached-object"] = (
                time.perf_counter() - start
            )

    def __del__(self) -> None:
        # The engine owns the module, which lives in `_context`: the engine must go first
        # (an attribute dict is cleared in insertion order, which would free the context
        # first and leave the engine to delete a module from freed memory).
        engine = getattr(self, "engine", None)
        if engine is not None:
            engine.close()
        self._module = None
        self._context = None

    @property
    def optimized_ir(self) -> str:
        """The module after O3 (as `--opt form=opt-ll` shows it). Printed on demand: a large
        model's IR is megabytes of text that nothing else needs. After an object-cache hit
        O3 did not run, so this is the module as parsed."""
        return str(self._module)

    def _notify(self, module: llvm.ModuleRef, buffer: bytes) -> None:
        if self.cached is not None:
            tmp = self.cached.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(buffer)
            os.replace(tmp, self.cached)

    def _lookup(self, module: llvm.ModuleRef) -> bytes | None:
        if self.cached is not None and self.cached.exists():
            self.cache_hit = True
            return self.cached.read_bytes()
        return None

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise KeyError(f"no compiled function {name}")
        return addr

    def assembly(self) -> str:
        # a target machine of its own (the engine owns the one it was given)
        return self.target.target_machine().emit_assembly(llvm.parse_assembly(self.optimized_ir))


def compile_workers() -> int:
    """Threads for compiling modules: the CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class StageCompiler:
    """Stage modules compiled in worker threads as they are handed in (`add`), so that LLVM
    runs while the rest of the model is still being lowered: the CPU pipeline hands each
    stage over as kernel-to-loops makes it (targets/cpu/stage_stream.py). Identical texts
    compile once. `finish` adds the runtime's module, waits, and gives the ShardedModule."""

    def __init__(self) -> None:
        cpu_target.initialize()  # once, before the threads
        self._target = cpu_target.current()  # (a context variable: the threads do not inherit it)
        self.workers = compile_workers()
        self._pool = ThreadPoolExecutor(self.workers)
        self._jobs: dict[str, Future[CompiledModule]] = {}  # by IR text
        self._stages: dict[str, str] = {}  # stage name -> IR text

    def __contains__(self, name: str) -> bool:
        return name in self._stages

    def add(self, name: str, ir: str) -> None:
        """Start compiling stage `name` (unless a stage of the same text was)."""
        self._stages[name] = ir
        if ir not in self._jobs:
            self._jobs[ir] = self._pool.submit(CompiledModule, ir, True, True, self._target)

    def finish(self, runtime: str, symbol: str) -> ShardedModule:
        """The compiled stages and runtime; `seconds["llvm-jit"]` is the wait here, after
        whatever compiled while the stages were still being handed in."""
        start = time.perf_counter()
        early = sum(job.done() for job in self._jobs.values())
        try:
            runtime_job = self._pool.submit(CompiledModule, runtime, True, True, self._target)
            by_text = {ir: job.result() for ir, job in self._jobs.items()}
            compiled_runtime = runtime_job.result()
        finally:
            self.close()
        code = ShardedModule(compiled_runtime, {name: by_text[ir] for name, ir in self._stages.items()}, symbol)
        modules = [compiled_runtime, *by_text.values()]
        hits = sum(m.cache_hit for m in modules)
        code.cache_hit = hits == len(modules)
        code.seconds = {"llvm-jit": time.perf_counter() - start}
        code.note = (
            f"llvm-jit: {len(modules)} modules on {self.workers} threads ({len(self._stages) - len(by_text)} stages "
            f"identical to another, compiled once; {hits} modules from the object cache; {early} finished "
            "while the model was still being lowered)"
        )
        return code

    def close(self) -> None:
        """Stop: no module is started after this (a failed compile's cleanup)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class ShardedModule:
    """Stage functions compiled as separate LLVM modules, each cached by its own content
    (llvm_modules.emit_stage_modules), plus the runtime's module: made by StageCompiler.

    `address(name)` takes the symbols of the one-module form: `<stage>`, `<stage>.dispatch`
    and the runtime's own. `seconds` holds wall-clock times: the per-module parse, O3 and
    codegen run concurrently, so their sum would overstate the compile."""

    def __init__(self, runtime: CompiledModule, stages: Mapping[str, CompiledModule], symbol: str):
        self.runtime = runtime
        self.stages = dict(stages)
        self.symbol = symbol
        self.cache_hit = False
        self.seconds: dict[str, float] = {}
        self.note = ""

    def address(self, name: str) -> int:
        stage, dot, rest = name.partition(".dispatch")
        module = self.stages.get(stage) if not rest else None
        if module is None:
            return self.runtime.address(name)
        return module.address(self.symbol + dot)


class CachedObjects:
    """A ShardedModule rebuilt from the object cache alone, without the LLVM IR: each stage's
    object file (by the key its IR hashed to) loaded into an MCJIT engine of its own, as the
    JIT compiled it. The model cache (model_cache.py) uses it to skip the passes entirely.

    `address` takes the same names as ShardedModule's. Raises FileNotFoundError when an
    object is no longer in the cache (the caller compiles afresh)."""

    def __init__(self, stages: Mapping[str, str], runtime: str, symbol: str, target: CpuTarget | None = None):
        target = target or cpu_target.current()
        cpu_target.initialize()
        blobs = {key: (cache_dir() / f"{key}.o").read_bytes() for key in dict.fromkeys([runtime, *stages.values()])}
        # each engine in an LLVM context of its own, so that loading the objects (their
        # relocation, ~1 ms each: ResNet-18 has 65) runs in parallel threads as the JIT does
        self._contexts: list[llvm.ContextRef] = []

        def load(blob: bytes) -> llvm.ExecutionEngine:
            context = llvm.create_context()
            with _LOCK:
                tm = target.target_machine()
                empty = llvm.parse_assembly("", context=context)
                empty.triple = tm.triple
                empty.data_layout = str(tm.target_data)
                engine = llvm.create_mcjit_compiler(empty, tm)
                engine.add_object_file(llvm.ObjectFileRef.from_data(blob))
                self._contexts.append(context)
            _unlocked("LLVMPY_FinalizeObject")(engine)
            return engine

        with ThreadPoolExecutor(max(1, min(compile_workers(), len(blobs)))) as pool:
            engines = dict(zip(blobs, pool.map(load, blobs.values()), strict=True))
        self._engines = engines
        self.runtime = runtime
        self.stages = dict(stages)
        self.symbol = symbol

    def _address(self, key: str, name: str) -> int:
        addr = self._engines[key].get_function_address(name)
        if not addr:
            raise KeyError(f"no compiled function {name}")
        return addr

    def address(self, name: str) -> int:
        stage, dot, rest = name.partition(".dispatch")
        key = self.stages.get(stage) if not rest else None
        if key is None:
            return self._address(self.runtime, name)
        return self._address(key, self.symbol + dot)

    def close(self) -> None:
        for engine in self._engines.values():
            engine.close()  # (before their contexts: an engine owns its module)
        self._engines = {}
        self._contexts = []
