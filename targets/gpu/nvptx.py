"""LLVM IR for NVIDIA GPUs from the loop IR of GPU stage functions, and PTX from it.

The CPU emitter (targets/cpu/llvm_emit.py) in its GPU flavour: the same scf/arith/math/
memref/vector lowering, with

* each stage function a kernel (`ptx_kernel` calling convention), its buffers generic
  pointers that LLVM's NVPTX argument lowering turns into global-space loads and stores;
* `gpu.block_id` / `gpu.thread_id` read from the special registers (`%ctaid`, `%tid`)
  through the `llvm.nvvm.read.ptx.sreg.*` intrinsics;
* shared-memory tiles (allocas in memory space 3) as `addrspace(3)` globals, `gpu.barrier`
  as `llvm.nvvm.barrier0` (bar.sync 0);
* f32 exp/log/tanh/erf as the polynomial functions of targets/cpu/vector_math.py (plain
  IR, so they compile for any target), sqrt/fabs/floor/ceil as the intrinsics NVPTX selects
  natively; what would need a libm call on the device (f64 transcendental functions) is a
  one-line error naming the op.

The same kernels also compile for the host (`flavour="host"`): the block and thread
indices, the block's shared buffer and its barrier become extra arguments, and a
dispatcher runs blocks [lo, hi) of the grid: a block's threads one after another where the
kernel has no barrier (the GPU's semantics exactly), as POSIX threads meeting at a pthread
barrier where it has. So the GPU lowering is tested on every machine against the reference
(targets/gpu/emulate.py).
"""

from __future__ import annotations

import math
from functools import cache

from xdsl.dialects import func, gpu, math as mathd, memref
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerAttr, ModuleOp
from xdsl.ir import Operation

from tessel.dialects.kernel import GPU_DIMS_ATTR, STAGE_ATTR
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.llvm_emit import LIBM, MATH_INTRINSICS, POLYNOMIAL, FunctionEmitter, llvm_type, scalar_of

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_90"
DEFAULT_PTX = "ptx80"
INDEX_ARGS = [f"%gpu.{kind}.{d}" for kind in ("ctaid", "tid") for d in "xyz"]  # host flavour
NATIVE_MATH = (mathd.SqrtOp, mathd.AbsFOp, mathd.FloorOp, mathd.CeilOp)


def _shared(op: Operation) -> bool:
    """A shared-memory tile: an alloca in memory space 3."""
    space = getattr(op.results[0].type, "memory_space", None) if isinstance(op, memref.AllocaOp) else None
    return isinstance(space, IntegerAttr) and space.value.data == 3


def shared_bytes(fn: func.FuncOp) -> int:
    """Bytes of shared memory a GPU stage's tiles take (each 16-byte aligned)."""
    total = 0
    for op in fn.walk():
        if _shared(op):
            t = op.results[0].type
            total += -(-math.prod(t.get_shape()) * _bytes(t.element_type) // 16) * 16  # type: ignore[attr-defined]
    return total


def has_barrier(fn: func.FuncOp) -> bool:
    return any(isinstance(op, gpu.BarrierOp) for op in fn.walk())


def _bytes(t) -> int:  # noqa: ANN001
    return max(1, (getattr(t, "bitwidth", None) or getattr(getattr(t, "width", None), "data", 32)) // 8)


class KernelEmitter(FunctionEmitter):
    def __init__(self, fn: func.FuncOp, declares: set[str], flavour: str = "ptx"):
        super().__init__(fn, declares)
        self.flavour = flavour
        self.shared_offset = 0

    def op(self, op: Operation) -> None:
        if _shared(op):
            self._shared_tile(op)
            return
        if isinstance(op, gpu.BarrierOp):
            if self.flavour == "host":
                self.declare("declare i32 @pthread_barrier_wait(ptr)")
                self.line(f"{self.fresh()} = call i32 @pthread_barrier_wait(ptr %gpu.barrier)")
            else:
                self.declare("declare void @llvm.nvvm.barrier0()")
                self.line("call void @llvm.nvvm.barrier0()")
            return
        if isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp):
            kind = "tid" if isinstance(op, gpu.ThreadIdOp) else "ctaid"
            dim = op.dimension.data.value
            if self.flavour == "host":
                self.names[op.results[0]] = f"%gpu.{kind}.{dim}"
                return
            reg = f"llvm.nvvm.read.ptx.sreg.{kind}.{dim}"
            self.declare(f"declare i32 @{reg}()")
            raw, wide = self.fresh(), self.fresh()
            self.line(f"{raw} = call i32 @{reg}()")
            self.line(f"{wide} = zext i32 {raw} to i64")
            self.names[op.results[0]] = wide
            return
        if self.flavour == "ptx" and op.results and (type(op) in LIBM or type(op) in MATH_INTRINSICS):
            floating = scalar_of(op.results[0].type)
            if not isinstance(op, NATIVE_MATH) and not (isinstance(floating, Float32Type) and type(op) in POLYNOMIAL):
                raise TesselError(f"{op.name} on {floating} has no GPU lowering (it would need a device libm); "
                                  "on f32 it is supported", op_location(op))  # fmt: skip
        super().op(op)

    def _shared_tile(self, op: Operation) -> None:
        """Shared memory: a module global in address space 3 on the GPU (used through a
        generic pointer, which LLVM's address-space inference turns back into ld/st.shared);
        on the host, a slice of the block's shared buffer."""
        t = op.results[0].type
        count = math.prod(t.get_shape())  # type: ignore[attr-defined]
        et = llvm_type(t.element_type)  # type: ignore[attr-defined]
        name = self.fresh("smem")
        if self.flavour == "host":
            self.allocas.append(f"{name} = getelementptr i8, ptr %gpu.shared, i64 {self.shared_offset}")
            self.shared_offset += -(-count * _bytes(t.element_type) // 16) * 16  # type: ignore[attr-defined]
        else:
            glob = f"@{self.fn.sym_name.data}.{name[1:]}"
            self.declare(f"{glob} = internal addrspace(3) global [{count} x {et}] undef, align 16")
            self.allocas.append(f"{name} = addrspacecast ptr addrspace(3) {glob} to ptr")
        self.names[op.results[0]] = name

    def extra_args(self) -> list[str]:
        return [f"i64 {n}" for n in INDEX_ARGS] + ["ptr %gpu.shared", "ptr %gpu.barrier"] if self.flavour == "host" else []

    def calling_convention(self) -> str:
        return "ptx_kernel " if self.flavour == "ptx" else ""


def gpu_dims(fn: func.FuncOp) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of a GPU stage function, from `kernel.gpu_dims`."""
    attr = fn.attributes.get(GPU_DIMS_ATTR)
    if not isinstance(attr, DenseArrayBase):
        raise TesselError(f"@{fn.sym_name.data} is not a GPU stage (compile with the gpu target: kernel-to-loops{{target=gpu}})",
                          op_location(fn))  # fmt: skip
    v = [int(x) for x in attr.get_values()]
    return (v[0], v[1], v[2]), (v[3], v[4], v[5])


def stages(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and STAGE_ATTR in op.attributes]


def emit_ptx_module(module: ModuleOp) -> str:
    """LLVM IR (text) for nvptx64 with every GPU stage function as a kernel."""
    declares: set[str] = set()
    kernels = []
    for fn in stages(module):
        gpu_dims(fn)
        kernels.append(KernelEmitter(fn, declares, "ptx").emit())
    head = f'target triple = "{TRIPLE}"'
    return "\n\n".join([head, *sorted(declares), *kernels, "attributes #0 = { nounwind }"]) + "\n"


def host_dispatcher(fn: func.FuncOp) -> str:
    """@<stage>.dispatch(args, lo, hi): blocks [lo, hi) of the grid (x fastest), each block's
    threads one after another."""
    name = fn.sym_name.data
    (gx, gy, _), (tx, ty, tz) = gpu_dims(fn)
    arity = len(fn.body.block.args) - 2
    lines = [f"define void @{name}.dispatch(ptr %args, i64 %lo, i64 %hi) {{", "entry:"]
    for i in range(arity):
        lines += [f"  %p{i} = getelementptr ptr, ptr %args, i64 {i}", f"  %a{i} = load ptr, ptr %p{i}, align 8"]
    buffers = ", ".join(f"ptr %a{i}" for i in range(arity))
    lines += ["  br label %block", "block:", "  %b = phi i64 [ %lo, %entry ], [ %b.next, %block.done ]",
              "  %more = icmp slt i64 %b, %hi", "  br i1 %more, label %block.body, label %exit", "block.body:",
              f"  %bx = urem i64 %b, {gx}", f"  %bq = udiv i64 %b, {gx}", f"  %by = urem i64 %bq, {gy}", f"  %bz = udiv i64 %bq, {gy}",
              "  br label %thread", "thread:", "  %t = phi i64 [ 0, %block.body ], [ %t.next, %thread ]",
              f"  %tx = urem i64 %t, {tx}", f"  %tq = udiv i64 %t, {tx}", f"  %ty = urem i64 %tq, {ty}", f"  %tz = udiv i64 %tq, {ty}",
              f"  call void @{name}({buffers}{', ' if buffers else ''}i64 0, i64 0, i64 %bx, i64 %by, i64 %bz, i64 %tx, i64 %ty, i64 %tz, ptr null, ptr null)",
              "  %t.next = add i64 %t, 1", f"  %tmore = icmp slt i64 %t.next, {tx * ty * tz}",
              "  br i1 %tmore, label %thread, label %block.done", "block.done:", "  %b.next = add i64 %b, 1", "  br label %block",
              "exit:", "  ret void", "}"]  # fmt: skip
    return "\n".join(lines)


def threaded_dispatcher(fn: func.FuncOp, declares: set[str]) -> str:
    """@<stage>.dispatch for a kernel with barriers: the block's threads as POSIX threads,
    created once per call, each running its thread of every block in [lo, hi) and meeting
    the others at a pthread barrier (the kernel's, and one after each block, so the
    shared buffer is free again before the next block loads its tiles). The GPU's
    semantics, slowly: a test device."""
    name = fn.sym_name.data
    (gx, gy, _), (tx, ty, tz) = gpu_dims(fn)
    n = tx * ty * tz
    arity = len(fn.body.block.args) - 2
    smem = max(16, shared_bytes(fn))
    # (pthread_create/join are declared by the thread-pool runtime the host module links)
    declares |= {"declare i32 @pthread_barrier_init(ptr, ptr, i32)", "declare i32 @pthread_barrier_destroy(ptr)",
                 "declare i32 @pthread_barrier_wait(ptr)", "declare ptr @calloc(i64, i64)", "declare void @free(ptr)"}  # fmt: skip
    # a thread's context: args, lo, hi, tx, ty, tz, shared, barrier (8 words)
    t = [f"define internal ptr @{name}.thread(ptr %c) {{", "entry:"]
    for i in range(8):
        t += [f"  %q{i} = getelementptr i64, ptr %c, i64 {i}", f"  %w{i} = load i64, ptr %q{i}, align 8"]
    t += ["  %args = inttoptr i64 %w0 to ptr", "  %sh = inttoptr i64 %w6 to ptr", "  %br = inttoptr i64 %w7 to ptr"]
    for i in range(arity):
        t += [f"  %p{i} = getelementptr ptr, ptr %args, i64 {i}", f"  %a{i} = load ptr, ptr %p{i}, align 8"]
    buffers = "".join(f"ptr %a{i}, " for i in range(arity))
    t += ["  br label %block", "block:", "  %b = phi i64 [ %w1, %entry ], [ %b.next, %body ]", "  %more = icmp slt i64 %b, %w2",
          "  br i1 %more, label %body, label %done", "body:",
          f"  %bx = urem i64 %b, {gx}", f"  %bq = udiv i64 %b, {gx}", f"  %by = urem i64 %bq, {gy}", f"  %bz = udiv i64 %bq, {gy}",
          f"  call void @{name}({buffers}i64 0, i64 0, i64 %bx, i64 %by, i64 %bz, i64 %w3, i64 %w4, i64 %w5, ptr %sh, ptr %br)",
          "  %r = call i32 @pthread_barrier_wait(ptr %br)", "  %b.next = add i64 %b, 1", "  br label %block",
          "done:", "  ret ptr null", "}"]  # fmt: skip
    d = [f"define void @{name}.dispatch(ptr %args, i64 %lo, i64 %hi) {{", "entry:",
         f"  %ctx = call ptr @calloc(i64 {n * 8}, i64 8)", f"  %tids = call ptr @calloc(i64 {n}, i64 8)",
         "  %bar = call ptr @calloc(i64 256, i64 1)", f"  %sh = call ptr @calloc(i64 {smem}, i64 1)",
         f"  %r0 = call i32 @pthread_barrier_init(ptr %bar, ptr null, i32 {n})",
         "  %argi = ptrtoint ptr %args to i64", "  %bari = ptrtoint ptr %bar to i64", "  %shi = ptrtoint ptr %sh to i64",
         "  br label %spawn", "spawn:", "  %t = phi i64 [ 0, %entry ], [ %t.next, %spawn ]",
         f"  %tx = urem i64 %t, {tx}", f"  %tq = udiv i64 %t, {tx}", f"  %ty = urem i64 %tq, {ty}", f"  %tz = udiv i64 %tq, {ty}",
         "  %slot = mul i64 %t, 8", "  %c = getelementptr i64, ptr %ctx, i64 %slot"]  # fmt: skip
    for i, v in enumerate(["%argi", "%lo", "%hi", "%tx", "%ty", "%tz", "%shi", "%bari"]):
        d += [f"  %c{i} = getelementptr i64, ptr %c, i64 {i}", f"  store i64 {v}, ptr %c{i}, align 8"]
    d += ["  %tid = getelementptr i64, ptr %tids, i64 %t", f"  %r1 = call i32 @pthread_create(ptr %tid, ptr null, ptr @{name}.thread, ptr %c)",
          "  %t.next = add i64 %t, 1", f"  %tmore = icmp slt i64 %t.next, {n}", "  br i1 %tmore, label %spawn, label %join",
          "join:", "  %u = phi i64 [ 0, %spawn ], [ %u.next, %join ]",
          "  %uid = getelementptr i64, ptr %tids, i64 %u", "  %h = load i64, ptr %uid, align 8", "  %r2 = call i32 @pthread_join(i64 %h, ptr null)",
          "  %u.next = add i64 %u, 1", f"  %umore = icmp slt i64 %u.next, {n}", "  br i1 %umore, label %join, label %exit",
          "exit:", "  %r3 = call i32 @pthread_barrier_destroy(ptr %bar)", "  call void @free(ptr %sh)", "  call void @free(ptr %ctx)",
          "  call void @free(ptr %tids)", "  call void @free(ptr %bar)", "  ret void", "}"]  # fmt: skip
    return "\n".join(t) + "\n\n" + "\n".join(d)


def emit_host_module(module: ModuleOp) -> str:
    """The GPU kernels compiled for this CPU, with dispatchers for the native launch plan."""
    from tessel.targets.cpu import native_plan
    from tessel.targets.cpu.llvm_emit import SUPPORT

    declares: set[str] = set()
    functions, dispatchers = [], []
    for fn in stages(module):
        functions.append(KernelEmitter(fn, declares, "host").emit())
        dispatchers.append(threaded_dispatcher(fn, declares) if has_barrier(fn) else host_dispatcher(fn))
    parts = [*sorted(declares), *functions, *dispatchers, native_plan.RUNTIME, SUPPORT]
    return "\n\n".join([*parts, "attributes #0 = { nounwind }"]) + "\n"


@cache
def _initialize() -> None:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def compile_ptx(ir: str, arch: str = DEFAULT_ARCH, ptx: str = DEFAULT_PTX, optimized_ir: list[str] | None = None) -> str:
    """PTX assembly for `arch` from LLVM IR text, after LLVM's O3 for the NVPTX target."""
    import llvmlite.binding as llvm

    _initialize()
    try:
        target = llvm.Target.from_triple(TRIPLE)
    except RuntimeError as err:
        raise TesselError(f"this llvmlite has no NVPTX backend: {err}") from err
    tm = target.create_target_machine(cpu=arch, features=f"+{ptx}", opt=3)
    mod = llvm.parse_assembly(ir)
    mod.triple = TRIPLE
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    if optimized_ir is not None:
        optimized_ir.append(str(mod))
    return tm.emit_assembly(mod)
