"""The tensor compiler's pipeline, from a tg module to an executable for a target.

    ONNX -> tg -> tg-qdq-to-integer, tg-pack-integer-conv (cpu), tg-fold-batchnorm, tg-conv-transpose-to-conv, tg-conv3d-to-conv2d,
               tg-drop-padding-taps, tg-split-border-taps, tg-layout, tg-fold-constants, tg-split-concat, tg-fuse, tg-plan-memory
               -> tg-to-kernel (kernel.compute stages) -> kernel-simplify-indices
               -> kernel-to-loops (scf/vector) -> LLVM IR, a module per stage -> machine code

Every stage is IR: `dump_dir` writes the module after each pass (`NN-<pass>.mlir`), and the
LLVM IR as `NN-llvm.ll`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from tessel.dialects.context import make_context
from tessel.ir.collector import without_cycle_collection
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import print_module, verify
from tessel.ir.weights import WeightStore, with_weights

if TYPE_CHECKING:
    from tessel.dialects import kernel
    from tessel.passes.kernel.loops.schedule import StageSchedule
    from tessel.passes.kernel.to_loops import KernelToLoops
    from tessel.targets.cpu.runtime import CpuExecutable


PRECISIONS = ("fp32", "bf16")
# The module as tuning sees it: `lower` applies records right after this pass (before
# kernel-to-loops), and the tuner takes its tasks from the module lowered this far
# (api/tuning.kernel_module): a record applies only where the stage's text is the same.
TASK_FORM = "kernel-simplify-indices"


def graph_passes(target: str = "cpu", precision: str = "fp32") -> list[ModulePass]:
    """The tg-level passes; with precision "bf16" (CPU only) the dense layers' and blocked
    convolutions' weights become bfloat16 pairs after tg-fold-constants has made them
    literal (tg-bf16-dense, tg-bf16-conv)."""
    from tessel.passes.tg.bf16_conv import TgBf16Conv
    from tessel.passes.tg.bf16_dense import TgBf16Dense
    from tessel.passes.tg.conv3d_to_conv2d import TgConv3dToConv2d
    from tessel.passes.tg.conv_transpose_to_conv import TgConvTransposeToConv
    from tessel.passes.tg.drop_padding_taps import TgDropPaddingTaps
    from tessel.passes.tg.fold_batchnorm import TgFoldBatchnorm
    from tessel.passes.tg.fold_constants import TgFoldConstants
    from tessel.passes.tg.fuse import TgFuse
    from tessel.passes.tg.layout import TgLayout
    from tessel.passes.tg.pack_integer_conv import TgPackIntegerConv
    from tessel.passes.tg.plan_memory import TgPlanMemory
    from tessel.passes.tg.qdq_to_integer import TgQdqToInteger
    from tessel.passes.tg.split_border_taps import TgSplitBorderTaps
    from tessel.passes.tg.split_concat import TgSplitConcat
    from tessel.passes.tg.winograd import TgWinograd

    return [
        TgQdqToInteger(),
        # packed int8 weights feed the CPU's byte dot products (kernel.dot4); the GPU keeps
        # the plain integer convolution, whose loads its shared-memory tiles can stage
        *([TgPackIntegerConv()] if target == "cpu" else []),
        TgFoldBatchnorm(),
        TgConvTransposeToConv(),
        TgConv3dToConv2d(),
        TgDropPaddingTaps(),
        TgSplitBorderTaps(),
        TgLayout(pack_dense=target != "gpu"),
        TgFoldConstants(),
        *([TgBf16Dense(), TgBf16Conv()] if precision == "bf16" else []),
        # (after bf16: a bfloat16 convolution is not transformed; on the GPU the direct
        # kernels keep their shared-memory tiles)
        *([TgWinograd()] if target == "cpu" else []),
        TgSplitConcat(),
        TgFuse(),
        TgPlanMemory(),
    ]


def kernel_passes(target: str = "cpu", vector_bits: int | None = None) -> list[ModulePass]:
    """tg-to-kernel and kernel-to-loops; on the CPU the default schedules take `vector_bits`
    (default: the current CPU target's vector register, AVX-512 or AVX2: the machine the
    code runs on) and that target's L1 and L2 sizes."""
    from tessel.passes.kernel.simplify_indices import KernelSimplifyIndices
    from tessel.passes.kernel.to_loops import KernelToLoops
    from tessel.passes.tg.to_kernel import TgToKernel

    to_loops = _cpu_to_loops(vector_bits) if target == "cpu" else KernelToLoops(target=target)
    return [TgToKernel(), KernelSimplifyIndices(), to_loops]


def _cpu_to_loops(vector_bits: int | None = None) -> KernelToLoops:
    """kernel-to-loops for the current CPU target: its vector register (unless
    `vector_bits` is given) and its L1 and L2 sizes."""
    from tessel.passes.kernel.to_loops import KernelToLoops
    from tessel.targets.cpu import cpu_target

    cpu = cpu_target.current()
    vector_bits = cpu.vector_bits if vector_bits is None else vector_bits
    return KernelToLoops(target="cpu", vector_bits=vector_bits, l1_bytes=cpu.l1d_bytes, l2_bytes=cpu.l2_bytes)


def cpu_default_schedule(op: kernel.ComputeOp) -> StageSchedule:
    """The schedule kernel-to-loops gives `op` by default on the current CPU target, as
    kernel_passes configures it (the tuner's baseline and its `default` point)."""
    from tessel.passes.kernel.loops.schedule import default_schedule

    to_loops = _cpu_to_loops()
    return default_schedule(op, to_loops.vector_bits, to_loops.caches)


@dataclass
class CompileReport:
    seconds: dict[str, float] = field(default_factory=dict)
    kernels: int = 0
    stages: int = 0
    arena_bytes: int = 0
    unplanned_bytes: int = 0
    tuned: int | None = None  # with records: stages given a tuned schedule
    untuned: list[str] = field(default_factory=list)  # ... and those left to the default
    code: str = ""  # how the machine code was made (modules, threads, object-cache hits)

    def summary(self) -> str:
        total = sum(self.seconds.values())
        saved = (
            f", arena {self.arena_bytes / 2**20:.2f} MiB of {self.unplanned_bytes / 2**20:.2f} MiB unplanned"
            if self.unplanned_bytes
            else ""
        )
        tuned = ""
        if self.tuned is not None:
            tuned = f"; {self.tuned} stages tuned from records, {len(self.untuned)} on default schedules"
            if self.untuned:
                tuned += " (" + ", ".join(self.untuned[:6]) + (", ..." if len(self.untuned) > 6 else "") + ")"
        return f"compiled {self.kernels} kernels ({self.stages} stages) in {total:.2f} s{saved}{tuned}"

    def time_passes(self) -> str:
        """Where the compile time went, stage by stage in pipeline order (`--time-passes`,
        as LLVM's and MLIR's): each pass, the IR verification after them (with verify_each),
        LLVM IR emission, parsing, O3 and machine code (or the object cache's load)."""
        total = sum(self.seconds.values())
        rows = [f"{'stage':32} {'seconds':>9} {'share':>7}"]
        for name, seconds in self.seconds.items():
            rows.append(f"{name:32} {seconds:9.3f} {100 * seconds / total if total else 0:6.1f}%")
        rows.append(f"{'total':32} {total:9.3f} {100.0 if total else 0:6.1f}%")
        if self.code:
            rows.append(self.code)
        return "\n".join(rows)


def lower(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    dump_dir: str | None = None,
    stop_after: str | None = None,
    records: str | None = None,
    target: str = "cpu",
    host: str | None = None,
    verify_each: bool | None = None,
    vector_bits: int | None = None,
    precision: str = "fp32",
    on_stage: Callable[[func.FuncOp], None] | None = None,
) -> tuple[WeightStore, CompileReport]:
    """Run the tg -> loops pipeline on `module` in place (up to and including the pass named
    `stop_after`, when given); the store holds folded weights.

    The input is verified where it enters (the importer's result, a parsed file); with
    `verify_each` (default: the environment's TESSEL_VERIFY_EACH, which the test suite sets)
    so is the module after every pass, as mlir-opt's -verify-each, naming the pass that
    broke it. Not by default: xDSL's verifiers run in Python, and after every one of the passes
    they were half of a large model's compile time (DenseNet-121 55%, a 2-layer GRU 57%;
    the loop-level module alone 35%), while what the passes make is checked by LLVM's
    verifier before code generation. With `records` (a tuning
    log), each stage the log has measured on `host` (this CPU unless given) gets its
    fastest schedule, as sched IR written into the module before kernel-to-loops (as the
    pass sched-apply-records does). `target` "gpu" gives the stages GPU schedules (loops
    bound to block and thread indices). `vector_bits` sets the CPU schedules' vector register
    (default: the host's). `on_stage` is called with each stage function as soon as
    kernel-to-loops has lowered it (compile_for_cpu starts compiling it there)."""
    from tessel.dialects.kernel import KERNEL_ATTR, STAGE_ATTR
    from tessel.dialects.tg.dynamic import refuse_data_dependent
    from tessel.dialects.tg.fused import MEMORY_ATTR

    refuse_data_dependent(module)  # buffers are planned statically: no data-dependent shapes
    ctx = make_context()
    store = weights if isinstance(weights, WeightStore) else WeightStore(weights)
    report = CompileReport()
    if precision not in PRECISIONS or (precision != "fp32" and target != "cpu"):
        raise TesselError(f"precision '{precision}' is not one the {target} target has (it has: fp32, bf16 on the cpu)")
    passes = [*graph_passes(target, precision), *kernel_passes(target, vector_bits)]
    if on_stage is not None:
        from tessel.passes.kernel.to_loops import KernelToLoops
        from tessel.pipelines.streaming import StreamingKernelToLoops

        passes = [StreamingKernelToLoops(on_stage, p) if isinstance(p, KernelToLoops) else p for p in passes]
    done = passes_done(module)
    if verify_each is None:
        verify_each = os.environ.get("TESSEL_VERIFY_EACH", "") not in ("", "0")
    if dump_dir:
        os.makedirs(dump_dir, exist_ok=True)
        for old in os.listdir(dump_dir):
            if old[:2].isdigit() and old[2:3] == "-" and old.endswith((".mlir", ".ll")):
                os.remove(os.path.join(dump_dir, old))
        _dump(dump_dir, 0, "input", module)
    for i, p in enumerate(passes, start=1):
        if p.name in done:
            continue
        start = time.perf_counter()
        if records and i > 1 and passes[i - 2].name == TASK_FORM:
            report.tuned, report.untuned = apply_records(module, records, host)
        PassPipeline(with_weights((p,), store)).apply(ctx, module)
        report.seconds[p.name] = time.perf_counter() - start
        if verify_each:
            start = time.perf_counter()
            verify(module)
            report.seconds["verify"] = report.seconds.pop("verify", 0.0) + time.perf_counter() - start
        if dump_dir:
            _dump(dump_dir, i, p.name, module)
        if p.name == "tg-plan-memory":
            for fn in module.ops:
                memory = fn.attributes.get(MEMORY_ATTR) if isinstance(fn, func.FuncOp) else None
                if isinstance(memory, DictionaryAttr):
                    report.arena_bytes = _int(memory, "arena")
                    report.unplanned_bytes = _int(memory, "unplanned")
        if p.name == stop_after:
            break
    report.kernels = sum(1 for f in module.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR in f.attributes)
    report.stages = sum(1 for f in module.ops if isinstance(f, func.FuncOp) and STAGE_ATTR in f.attributes)
    return store, report


def passes_done(module: ModuleOp) -> set[str]:
    """The pipeline's passes the module has already been through, read from the IR itself,
    so that the output of any prefix of the pipeline (`tessel-opt -p tg-fold-batchnorm,tg-fuse`)
    is a valid input to the rest of it: after tg-fuse, every tg computation sits in a
    tg.fused group and the passes before it have nothing left to do (tg-layout would block a
    conv inside a group); after tg-to-kernel the graph is kernel IR, after kernel-to-loops
    loops."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import TensorType

    from tessel.dialects import kernel, tg
    from tessel.dialects.kernel import KERNEL_ATTR, STAGE_ATTR
    from tessel.dialects.tg.fused import MEMORY_ATTR

    graph = [p.name for p in graph_passes()]
    fns = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if any(STAGE_ATTR in f.attributes for f in fns) or (
        fns
        and not any(isinstance(op, kernel.ComputeOp | tg.TgOp | tg.FusedOp) for op in module.walk())
        and not any(isinstance(t, TensorType) for f in fns for t in (*f.function_type.inputs, *f.function_type.outputs))
    ):  # (a tg function with no tg op, which returns an input, still needs tg-to-kernel)
        return {*graph, "tg-to-kernel", "kernel-simplify-indices", "kernel-to-loops"}
    if any(KERNEL_ATTR in f.attributes for f in fns):
        return {*graph, "tg-to-kernel"}
    if any(isinstance(op, tg.FusedOp) for op in module.walk()):
        fused = set(graph[: graph.index("tg-fuse") + 1])
        return fused | ({"tg-plan-memory"} if any(MEMORY_ATTR in f.attributes for f in fns) else set())
    return set()


def _int(attrs: DictionaryAttr, key: str) -> int:
    value = attrs.data[key]
    assert isinstance(value, IntegerAttr)
    return value.value.data


def apply_records(module: ModuleOp, path: str, host: str | None = None) -> tuple[int, list[str]]:
    """Write the fastest recorded schedule of every stage the log at `path` knows into
    `module` (after tg-to-kernel) as sched IR; the number of stages scheduled so and the
    names of the others. `host`: the machine the records are for (this CPU by default)."""
    from tessel.passes.sched.tuning.apply import insert_schedules, recorded_schedules
    from tessel.passes.sched.tuning.records import Records
    from tessel.targets.cpu import cpu_target

    schedules, untuned = recorded_schedules(module, Records(path), host or cpu_target.current().description)
    insert_schedules(module, schedules)
    return len(schedules), untuned


def _dump(directory: str, index: int, name: str, module: ModuleOp) -> None:
    with open(os.path.join(directory, f"{index:02d}-{name}.mlir"), "w") as f:
        f.write(print_module(module))


@without_cycle_collection
def compile_for_gpu(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    emulate: bool = False,
    threads: int = 2,
    dump_dir: str | None = None,
    arch: str | None = None,
    records: str | None = None,
    verify_each: bool | None = None,
):
    """Lower a tg module with GPU schedules and load it on the GPU (targets/gpu/runtime.py),
    or, with `emulate`, run the same kernels on this CPU (targets/gpu/emulate.py). With
    `records` (a `tessel-tune --target gpu` log), each stage measured on this GPU gets its
    fastest schedule."""
    host = None
    if records:
        if emulate:
            raise TesselError("tuning records hold schedules measured on a GPU; --emulate takes none")
        from tessel.targets.gpu.runtime import device_description

        host = device_description()
    store, report = lower(module, weights, dump_dir, records=records, target="gpu", host=host, verify_each=verify_each)
    start = time.perf_counter()
    executable: CpuExecutable
    ptx: str | None = None  # what the GPU executable loaded
    if emulate:
        from tessel.targets.gpu.emulate import EmulatedGpuExecutable

        executable = EmulatedGpuExecutable(module, store, threads=threads)
    else:
        from tessel.targets.gpu.runtime import GpuExecutable

        executable = gpu = GpuExecutable(module, store, arch=arch)
        ptx = gpu.ptx
    _code_seconds(report, executable, time.perf_counter() - start)
    if dump_dir:
        _dump_code(dump_dir, "host.ll" if emulate else "nvptx.ll", executable.llvm_ir)
        if ptx is not None:
            _dump_code(dump_dir, "kernels.ptx", ptx, 1)
    return executable, report


def _code_seconds(report: CompileReport, executable: CpuExecutable, seconds: float) -> None:
    """The code generator's stages as the executable measured them, and the rest of making
    it (the executor's plan of launches and buffers)."""
    stages = dict(getattr(executable, "seconds", {}))
    report.seconds.update(stages)
    report.code = getattr(executable.compiled, "note", "")
    report.seconds["executor-plan"] = max(0.0, seconds - sum(stages.values()))


def _dump_code(directory: str, name: str, text: str, after: int = 0) -> None:
    """Code after the passes' IR dumps: NN-name, numbered after the last pass."""
    count = len(graph_passes()) + len(kernel_passes()) + 1 + after
    with open(os.path.join(directory, f"{count:02d}-{name}"), "w") as f:
        f.write(text)


@without_cycle_collection
def compile_for_cpu(
    module: ModuleOp,
    weights: Mapping[str, np.ndarray],
    threads: int = 2,
    dump_dir: str | None = None,
    records: str | None = None,
    verify_each: bool | None = None,
    precision: str = "fp32",
):
    """Lower a tg module and JIT it: returns (CpuExecutable, CompileReport). `precision`
    "bf16": dense layers on bfloat16 weights and activations, float32 sums (tg-bf16-dense)."""
    from tessel.targets.cpu.runtime import CpuExecutable
    from tessel.targets.cpu.stage_stream import StageStream

    # each stage compiles as soon as kernel-to-loops has made it, beside the lowering of
    # the rest (targets/cpu/stage_stream.py)
    with StageStream() as stream:
        store, report = lower(
            module, weights, dump_dir, records=records, verify_each=verify_each, precision=precision, on_stage=stream
        )
    streamed = stream.emit_seconds  # (llvm-emit's, inside kernel-to-loops' time)
    if "kernel-to-loops" in report.seconds:
        report.seconds["kernel-to-loops"] -= streamed
    start = time.perf_counter()
    executable = CpuExecutable(module, store, threads=threads, stream=stream)
    _code_seconds(report, executable, time.perf_counter() - start + streamed)
    if dump_dir:
        _dump_code(dump_dir, "llvm.ll", executable.llvm_ir)
    return executable, report


def translate_for_cpu(path: str, options: Mapping[str, str]) -> str:
    """`tessel-translate FILE --target cpu`: a tg module compiled through the pipeline (a
    module already at loop level as it is), then the CPU target's LLVM IR or assembly."""
    from tessel.targets.cpu import translate as cpu
    from tessel.targets.cpu.cpu_target import use

    cpu.check_options(options)
    bits = options.get("vector-bits")
    with use(options.get("mcpu")):
        return cpu.translate(_loop_level(path, "cpu", int(bits) if bits else None), options)


def translate_for_gpu(path: str, options: Mapping[str, str]) -> str:
    """`tessel-translate FILE --target gpu`: as translate_for_cpu, with GPU schedules, then
    the GPU target's PTX."""
    from tessel.targets.gpu import translate as gpu

    gpu.check_options(options)
    return gpu.translate(_loop_level(path, "gpu"), options)


def _loop_level(path: str, target: str, vector_bits: int | None = None) -> ModuleOp:
    from tessel.ir.source import read_module

    module = read_module(make_context(), path)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        lower(module, WeightStore.for_module(module, path), target=target, vector_bits=vector_bits)
    return module
