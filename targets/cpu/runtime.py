"""Run a compiled model: the graph is walked once into a flat launch plan, then each run
is a loop of ctypes calls into the stage functions.

`@main` and the kernel functions (after kernel-to-loops) only allocate buffers, bind
weights, and launch stages, so the executor interprets them once at load time: the arena
and every temporary are allocated up front, weights are bound by name, and each
`kernel.launch` becomes (function pointer, argument addresses, extent). A run patches in
the input and output addresses and makes the calls. A launch's parallel range is split
across threads; ctypes releases the GIL during a call, so the chunks run concurrently.
"""

from __future__ import annotations

import ctypes
import math
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp, TypeAttribute
from xdsl.ir import Attribute, Block, BlockArgument, SSAValue

from tessel.dialects import kernel
from tessel.dialects.kernel import ELEMENT_ATTR, OUTPUT_ATTR
from tessel.dialects.kernel.reference import global_array, np_type
from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError
from tessel.runtime.buffers import OutputPool, aligned
from tessel.runtime.buffers import aligned_empty as aligned_empty  # (shared with the deployable runtime)
from tessel.targets.cpu import cpu_target, native_plan
from tessel.targets.cpu.jit import CompiledModule, ShardedModule
from tessel.targets.cpu.llvm_modules import emit_module
from tessel.targets.cpu.native_plan import NativePlan
from tessel.targets.cpu.stage_stream import StageStream

Port = tuple[str, int]  # ("in", i) / ("out", i): an input or output buffer, patched per run
Slot = int | Port  # a buffer the plan holds (its index in `keep`), or a port
Value = int | float | Port  # what a graph-level SSA value is at plan time: a slot or a constant


def _slot(value: Value) -> Slot:
    """A planned value used as a buffer."""
    assert not isinstance(value, float), "a constant used as a buffer"
    return value


@dataclass
class Launch:
    name: str
    fn: object  # the stage's code: a ctypes function (cpu), a CUfunction (gpu); None for memref.copy
    args: list[Slot]  # buffers, the ports among them patched per run
    extent: int


def emit_for_target(module: ModuleOp) -> str:
    """The module's stage functions as one LLVM module with dispatchers, for this CPU."""
    return emit_module(module, cpu_target.current().dot4_lanes, cpu_target.current().bf16_features)


class CpuExecutable:
    emit = staticmethod(emit_for_target)  # the module's stage functions -> LLVM IR with dispatchers

    def __init__(
        self,
        module: ModuleOp,
        weights: Mapping[str, np.ndarray],
        threads: int = 2,
        entry: str = "main",
        stream: StageStream | None = None,
    ):
        """`stream`: the stages already handed to a StageStream as kernel-to-loops made
        them (the pipeline's compile_for_cpu), finished here; else all are emitted now."""
        self.module = module
        self._llvm_ir: str | None = None
        self.seconds: dict[str, float] = {}
        self._stream = stream
        self.compiled = self.load(module)
        self.seconds.update(getattr(self.compiled, "seconds", {}))
        self.threads = max(1, threads)
        self.pool = ThreadPoolExecutor(max_workers=self.threads - 1) if self.threads > 1 else None
        self.weights = weights
        self.funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        self.globals = {op.sym_name.data: op for op in module.ops if isinstance(op, memref.GlobalOp)}
        self.keep: list[np.ndarray] = []  # every buffer the plan points into
        self._globals: dict[str, np.ndarray] = {}  # by name (_global)
        self._scratch: dict[tuple[tuple[int, ...], str], list[int]] = {}  # kernels' temporaries (_temporary)
        self.launches: list[Launch] = []
        self._outs: OutputPool | None = None  # run()'s output arrays
        self._ctypes: dict[str, object] = {}
        self._dtypes: tuple[list[np.dtype], list[np.dtype]] | None = None
        main = self.funcs[entry]
        args = list(main.body.block.args)
        attrs: list[Mapping[str, Attribute]] = (
            [a.data for a in main.arg_attrs.data] if main.arg_attrs else [{} for _ in args]
        )
        self.inputs: list[tuple[BlockArgument, Mapping[str, Attribute]]] = [
            (a, at) for a, at in zip(args, attrs) if OUTPUT_ATTR not in at
        ]
        self.outputs: list[tuple[BlockArgument, Mapping[str, Attribute]]] = [
            (a, at) for a, at in zip(args, attrs) if OUTPUT_ATTR in at
        ]
        env: dict[SSAValue, Value] = {}
        for i, (a, _) in enumerate(self.inputs):
            env[a] = ("in", i)
        for i, (a, _) in enumerate(self.outputs):
            env[a] = ("out", i)
        self._plan(main.body.block, env)
        self.native: NativePlan | None = self._native_plan()
        self._plan_for_stop = self.native

    def load(self, module: ModuleOp) -> object:
        """The loaded code: on the CPU each stage its own LLVM module, compiled in parallel and
        cached per kernel (the GPU executables emit one module and load it with `compile_ir`)."""
        stream = self._stream or StageStream()
        code = stream.finish(module)
        self.seconds["llvm-emit"] = stream.emit_seconds
        return code

    def emit_and_compile(self, module: ModuleOp) -> object:
        """One module for the whole program, emitted by `emit` and loaded by `compile_ir`."""
        start = time.perf_counter()
        self._llvm_ir = self.emit(module)
        self.seconds["llvm-emit"] = time.perf_counter() - start
        return self.compile_ir(self._llvm_ir)

    def compile_ir(self, ir: str) -> object:
        """One module's LLVM IR as loaded code (the GPU executable loads PTX instead)."""
        return CompiledModule(ir)

    @property
    def llvm_ir(self) -> str:
        """The program as one LLVM module (dumps, exported libraries); emitted on first use."""
        if self._llvm_ir is None:
            self._llvm_ir = self.emit(self.module)
        return self._llvm_ir

    # ------------------------------------------------------------------ planning

    def _plan(self, block: Block, env: dict[SSAValue, Value], taken: dict | None = None) -> None:
        """Walk `block` into launches; `taken` is given for a kernel function's body (the
        temporaries this call has taken from the shared ones, _temporary)."""
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                return
            if isinstance(op, arith.ConstantOp):
                if not isinstance(op.value, IntegerAttr | FloatAttr):
                    raise TesselError(f"the CPU runtime cannot execute a {op.value.name} constant at graph level")
                env[op.result] = op.value.value.data
            elif isinstance(op, memref.AllocOp):
                t = op.memref.type
                env[op.memref] = self._buffer(t) if taken is None else self._temporary(t, taken)
            elif isinstance(op, memref.DeallocOp):
                pass
            elif isinstance(op, memref.ViewOp):
                source = env[op.source]
                assert isinstance(source, int), "a view of a port"
                arena = self.keep[source]
                t = op.result.type
                shift = env[op.byte_shift]
                assert not isinstance(shift, tuple), "a buffer used as a byte shift"
                start = int(shift)
                dt = np_type(t.element_type)
                size = math.prod(t.get_shape()) * dt.itemsize
                view = arena[start : start + size].view(dt).reshape(t.get_shape())
                env[op.result] = self._hold(view)
            elif isinstance(op, memref.GetGlobalOp):
                env[op.memref] = self._hold(self._global(op.name_.root_reference.data, op.memref.type))
            elif isinstance(op, func.CallOp):
                callee = self.funcs[op.callee.root_reference.data]
                args: dict[SSAValue, Value] = dict(zip(callee.body.block.args, (env[v] for v in op.operands)))
                self._plan(callee.body.block, args, {})
            elif isinstance(op, kernel.LaunchOp):
                name = op.callee.root_reference.data
                self.launches.append(
                    Launch(
                        name,
                        self._function(name, len(op.args)),
                        [_slot(env[v]) for v in op.args],
                        op.extent.value.data,
                    )
                )
            elif isinstance(op, memref.CopyOp):
                self.launches.append(Launch("copy", None, [_slot(env[op.source]), _slot(env[op.destination])], 0))
            else:
                raise TesselError(f"the CPU runtime cannot execute {op.name} at graph level")

    def _hold(self, array: np.ndarray) -> int:
        self.keep.append(array)
        return len(self.keep) - 1

    def _temporary(self, t: MemRefType, taken: dict[tuple[tuple[int, ...], str], int]) -> int:
        """A kernel's temporary (a padded input, the Winograd transforms). Launches run one
        after another and a kernel's temporaries are dead when it returns, so the calls
        share them: one buffer per shape for all calls, as many as one call takes at once.
        (One per call site was 8 MB for each of ResNet-18's 56x56 Winograd layers, and
        kept no temporary warm in the cache for the next layer.)"""
        key = (tuple(t.get_shape()), str(t.element_type))
        n = taken.get(key, 0)
        taken[key] = n + 1
        shared = self._scratch.setdefault(key, [])
        if n == len(shared):
            shared.append(self._buffer(t))
        return shared[n]

    def _buffer(self, t: MemRefType) -> int:
        return self._hold(aligned_empty(t.get_shape(), np_type(t.element_type)))

    def _global(self, name: str, t: MemRefType) -> np.ndarray:
        """The global's array, once per name (a weight read by many launches is one array),
        on a 64-byte boundary."""
        array = self._globals.get(name)
        if array is None:
            array = aligned(global_array(name, self.globals[name], self.weights, t))
            self._globals[name] = array
        return array

    def _code(self) -> CompiledModule | ShardedModule:
        """The loaded code as the CPU executable loads it (`load` is overridden by the GPU's)."""
        assert isinstance(self.compiled, CompiledModule | ShardedModule)
        return self.compiled

    def _function(self, name: str, n: int) -> object:
        if name not in self._ctypes:
            proto = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n), ctypes.c_int64, ctypes.c_int64)
            self._ctypes[name] = proto(self._code().address(name))
        return self._ctypes[name]

    def _native_plan(self) -> NativePlan | None:
        """The plan as descriptors for @tessel.run_plan (None: runs go through `run_into`'s own path)."""

        def slot(s: Slot) -> int | Port:
            return s if isinstance(s, tuple) else self.keep[s].ctypes.data

        code = self._code()
        launches: list[tuple[int, list[int | Port], int]] = []
        for launch in self.launches:
            if launch.fn is None:
                src, dst = launch.args
                size = self.keep[dst].nbytes if not isinstance(dst, tuple) else self._port_nbytes(dst)
                launches.append((code.address(native_plan.COPY), [slot(src), slot(dst), size], 1))
            else:
                launches.append(
                    (code.address(f"{launch.name}.dispatch"), [slot(s) for s in launch.args], launch.extent)
                )
        return NativePlan(code.address("tessel.run_plan"), code.address("tessel.pool_stop"), launches, self.threads)

    def _port_type(self, slot: Port) -> MemRefType:
        kind, i = slot
        arg, _ = (self.inputs if kind == "in" else self.outputs)[i]
        t = arg.type
        assert isinstance(t, MemRefType), "the entry function's arguments are memrefs"
        return t

    def _port_nbytes(self, slot: Port) -> int:
        t = self._port_type(slot)
        return math.prod(t.get_shape()) * np_type(t.element_type).itemsize

    # ------------------------------------------------------------------ running

    def port_dtypes(self) -> tuple[list[np.dtype], list[np.dtype]]:
        if self._dtypes is None:  # (once: run() asks on every call)

            def dt(at: Mapping[str, Attribute]) -> np.dtype:
                et = at.get(ELEMENT_ATTR)
                return dtypes.to_numpy(et) if isinstance(et, TypeAttribute) else np.dtype(np.float32)

            self._dtypes = ([dt(at) for _, at in self.inputs], [dt(at) for _, at in self.outputs])
        return self._dtypes

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs, in arrays the caller owns (reused from an earlier run only once
        nothing refers to them: runtime/buffers.py's OutputPool)."""
        in_dtypes, out_dtypes = self.port_dtypes()
        ins = [np.asarray(x, dtype=d, order="C") for x, d in zip(inputs, in_dtypes)]
        if self._outs is None:
            self._outs = OutputPool([(self._port_type(("out", i)).get_shape(), d) for i, d in enumerate(out_dtypes)])
        outs = self._outs.take()
        self.run_into(ins, outs)
        return outs

    def run_into(self, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], clock: list[float] | None = None) -> None:
        """Run the plan; with `clock`, append each launch's wall time in seconds to it (the
        native plan's own clock, inside one whole run: runtime/native.py)."""
        if self.native is not None:
            self.native.patch(ins, outs)
            if clock is None:
                self.native.run()
                return
            self.native.time_launches(slice(None))
            try:
                self.native.run()
                clock.extend(float(t) for t in self.native.elapsed())
            finally:
                self.native.time_launches(slice(None), on=False)
            return

        def address(slot: Slot) -> int:
            if isinstance(slot, tuple):
                kind, i = slot
                return (ins if kind == "in" else outs)[i].ctypes.data
            return self.keep[slot].ctypes.data

        def array(slot: Slot) -> np.ndarray:
            if isinstance(slot, tuple):
                kind, i = slot
                return (ins if kind == "in" else outs)[i]
            return self.keep[slot]

        for launch in self.launches:
            start = time.perf_counter() if clock is not None else 0.0
            if launch.fn is None:
                np.copyto(array(launch.args[1]), array(launch.args[0]).view(array(launch.args[1]).dtype))
            else:
                self._launch(launch, [address(s) for s in launch.args])
            if clock is not None:
                clock.append(time.perf_counter() - start)

    def profile(self, inputs: Sequence[np.ndarray], runs: int = 10) -> list[tuple[str, int, float]]:
        """(kernel, parallel extent, median ms) per launch, in launch order, over `runs` runs."""
        outs = self.run(inputs)
        in_dtypes, _ = self.port_dtypes()
        ins = [np.asarray(x, dtype=d, order="C") for x, d in zip(inputs, in_dtypes)]
        samples: list[list[float]] = [[] for _ in self.launches]
        for _ in range(max(1, runs)):
            clock: list[float] = []
            self.run_into(ins, outs, clock)
            for i, t in enumerate(clock):
                samples[i].append(t)
        return [(l.name, l.extent, float(np.median(s)) * 1e3) for l, s in zip(self.launches, samples)]

    def _launch(self, launch: Launch, args: list[int]) -> None:
        extent = launch.extent
        fn = launch.fn
        assert callable(fn), "a stage launch holds its ctypes function"
        if self.pool is None or extent < 2:
            fn(*args, 0, max(extent, 1))
            return
        parts = min(self.threads, extent)
        bounds = [extent * i // parts for i in range(parts + 1)]
        futures = [self.pool.submit(fn, *args, bounds[i], bounds[i + 1]) for i in range(1, parts)]
        fn(*args, bounds[0], bounds[1])
        for f in futures:
            f.result()

    def close(self) -> None:
        """Stop the worker threads (native and Python); the executable cannot run after."""
        plan = getattr(self, "_plan_for_stop", None)
        if plan is not None:
            plan.stop()
            self._plan_for_stop = None
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def __del__(self) -> None:
        # the native workers run this module's code: join them before it is freed
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass
