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
  IR, so they compile for any target), sqrt/fabs/floor/ceil/roundeven as the intrinsics NVPTX selects
  natively; what needs a libm call on the device (f64 transcendental functions, the
  trigonometric family, pow, and frem, which LLVM would lower approximately) calls NVIDIA's
  libdevice (`__nv_sinf`, `__nv_fmod`; targets/gpu/libdevice.py links it in).

The same kernels also compile for the host (`flavour="host"`): the block and thread
indices, the block's shared buffer and its barrier become extra arguments, and a
dispatcher runs blocks [lo, hi) of the grid: a block's threads one after another where the
kernel has no barrier (the GPU's semantics exactly), as fibers meeting at every barrier
where it has. So the GPU lowering is tested on every machine against the reference
(targets/gpu/emulate.py).
"""

from __future__ import annotations

import math
from functools import cache

from xdsl.dialects import func, gpu, memref
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerAttr, ModuleOp
from xdsl.dialects.llvm import FRemOp
from xdsl.ir import Attribute, Operation

from tessel.dialects.kernel import GPU_DIMS_ATTR, STAGE_ATTR
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.llvm_emit import FunctionEmitter
from tessel.targets.cpu.llvm_tables import LIBM, LIBM_BINARY, MATH_INTRINSICS, POLYNOMIAL, llvm_type, scalar_of
from tessel.targets.gpu import libdevice

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_90"
DEFAULT_PTX = "ptx80"
INDEX_ARGS = [f"%gpu.{kind}.{d}" for kind in ("ctaid", "tid") for d in "xyz"]  # host flavour
NATIVE_MATH = (mathd.SqrtOp, mathd.AbsFOp, mathd.FloorOp, mathd.CeilOp, mathd.RoundEvenOp)


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


def _bytes(t: Attribute) -> int:
    """Bytes of an element type: its bit width (floats, integers), 32 bits without one."""
    bits: int = getattr(t, "bitwidth", 0) or getattr(getattr(t, "width", None), "data", 32)
    return max(1, bits // 8)


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
            if self.flavour == "host":  # a fiber yields to its block's scheduler
                self.line("call void @tessel.fiber.yield(ptr %gpu.barrier)")
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
        if self.flavour == "ptx" and op.results and _device_math(op) is not None:
            name = self.fresh()
            self.names[op.results[0]] = name
            self.libm(op, name, llvm_type(op.results[0].type))
            return
        super().op(op)

    def libm_function(self, op: Operation) -> str:
        device = _device_math(op) if self.flavour == "ptx" else None
        if device is None:
            return super().libm_function(op)
        return libdevice.function(device, isinstance(scalar_of(op.results[0].type), Float32Type))

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
        return (
            [f"i64 {n}" for n in INDEX_ARGS] + ["ptr %gpu.shared", "ptr %gpu.barrier"] if self.flavour == "host" else []
        )

    def calling_convention(self) -> str:
        return "ptx_kernel " if self.flavour == "ptx" else ""


def _device_math(op: Operation) -> str | None:
    """The C name of the math function a GPU op needs from libdevice (None: the op is an
    NVPTX instruction, or a polynomial of targets/cpu/vector_math.py on f32)."""
    if isinstance(op, FRemOp):
        return "fmod"
    kind = type(op)
    if kind not in LIBM and kind not in LIBM_BINARY and kind not in MATH_INTRINSICS or isinstance(op, NATIVE_MATH):
        return None
    if isinstance(scalar_of(op.results[0].type), Float32Type) and kind in POLYNOMIAL:
        return None
    name = LIBM.get(kind) or LIBM_BINARY.get(kind) or MATH_INTRINSICS[kind].removeprefix("llvm.")
    return {"roundeven": "rint"}.get(name, name)  # libdevice's rint rounds half to even


def gpu_dims(fn: func.FuncOp) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of a GPU stage function, from `kernel.gpu_dims`."""
    attr = fn.attributes.get(GPU_DIMS_ATTR)
    if not isinstance(attr, DenseArrayBase):
        raise TesselError(
            f"@{fn.sym_name.data} is not a GPU stage (compile with the gpu target: kernel-to-loops{{target=gpu}})",
            op_location(fn),
        )
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
    lines += [
        "  br label %block",
        "block:",
        "  %b = phi i64 [ %lo, %entry ], [ %b.next, %block.done ]",
        "  %more = icmp slt i64 %b, %hi",
        "  br i1 %more, label %block.body, label %exit",
        "block.body:",
        f"  %bx = urem i64 %b, {gx}",
        f"  %bq = udiv i64 %b, {gx}",
        f"  %by = urem i64 %bq, {gy}",
        f"  %bz = udiv i64 %bq, {gy}",
        "  br label %thread",
        "thread:",
        "  %t = phi i64 [ 0, %block.body ], [ %t.next, %thread ]",
        f"  %tx = urem i64 %t, {tx}",
        f"  %tq = udiv i64 %t, {tx}",
        f"  %ty = urem i64 %tq, {ty}",
        f"  %tz = udiv i64 %tq, {ty}",
        f"  call void @{name}({buffers}{', ' if buffers else ''}i64 0, i64 0, i64 %bx, i64 %by, i64 %bz, i64 %tx, i64 %ty, i64 %tz, ptr null, ptr null)",
        "  %t.next = add i64 %t, 1",
        f"  %tmore = icmp slt i64 %t.next, {tx * ty * tz}",
        "  br i1 %tmore, label %thread, label %block.done",
        "block.done:",
        "  %b.next = add i64 %b, 1",
        "  br label %block",
        "exit:",
        "  ret void",
        "}",
    ]
    return "\n".join(lines)


FIBER_STACK = 64 * 1024  # bytes of stack per emulated GPU thread
UCONTEXT = 1024  # bytes reserved per ucontext_t (968 on x86-64 glibc)
YIELD = """define void @tessel.fiber.yield(ptr %state) {
entry:
  %sched = load ptr, ptr %state, align 8
  %ctxp = getelementptr ptr, ptr %state, i64 1
  %ctxs = load ptr, ptr %ctxp, align 8
  %curp = getelementptr i64, ptr %state, i64 2
  %cur = load i64, ptr %curp, align 8
  %off = mul i64 %cur, 1024
  %me = getelementptr i8, ptr %ctxs, i64 %off
  %r = call i32 @swapcontext(ptr %me, ptr %sched)
  ret void
}"""


def fiber_dispatcher(fn: func.FuncOp, declares: set[str]) -> str:
    """@<stage>.dispatch for a kernel with barriers: each block's threads as fibers
    (ucontext) on the calling thread, run round-robin, each until its next barrier (which
    yields back to the scheduler) or its end; a round ends when every live fiber has had its
    turn, so all of them meet at every barrier. The GPU's semantics, one CPU thread per
    block, no system threads or futexes: a test device."""
    name = fn.sym_name.data
    (gx, gy, _), (tx, ty, tz) = gpu_dims(fn)
    n = tx * ty * tz
    arity = len(fn.body.block.args) - 2
    smem = max(16, shared_bytes(fn))
    declares |= {
        "declare i32 @getcontext(ptr)",
        "declare void @makecontext(ptr, ptr, i32, ...)",
        "declare i32 @swapcontext(ptr, ptr)",
        "declare ptr @calloc(i64, i64)",
        "declare ptr @malloc(i64)",
        "declare void @free(ptr)",
        YIELD,
    }
    # a fiber's record: args, bx, by, bz, tx, ty, tz, shared, state, done (10 words)
    f = [
        f"define internal void @{name}.fiber(i32 %hi, i32 %lo) {{",
        "entry:",
        "  %h = zext i32 %hi to i64",
        "  %l = zext i32 %lo to i64",
        "  %hs = shl i64 %h, 32",
        "  %ri = or i64 %hs, %l",
        "  %rec = inttoptr i64 %ri to ptr",
    ]
    for i in range(9):
        f += [f"  %q{i} = getelementptr i64, ptr %rec, i64 {i}", f"  %w{i} = load i64, ptr %q{i}, align 8"]
    f += ["  %args = inttoptr i64 %w0 to ptr", "  %sh = inttoptr i64 %w7 to ptr", "  %st = inttoptr i64 %w8 to ptr"]
    for i in range(arity):
        f += [f"  %p{i} = getelementptr ptr, ptr %args, i64 {i}", f"  %a{i} = load ptr, ptr %p{i}, align 8"]
    buffers = "".join(f"ptr %a{i}, " for i in range(arity))
    f += [
        f"  call void @{name}({buffers}i64 0, i64 0, i64 %w1, i64 %w2, i64 %w3, i64 %w4, i64 %w5, i64 %w6, ptr %sh, ptr %st)",
        "  %dp = getelementptr i64, ptr %rec, i64 9",
        "  store i64 1, ptr %dp, align 8",
        "  ret void",
        "}",
    ]
    d = [
        f"define void @{name}.dispatch(ptr %args, i64 %lo, i64 %hi) {{",
        "entry:",
        f"  %ctxs = call ptr @calloc(i64 {n}, i64 {UCONTEXT})",
        f"  %sched = call ptr @calloc(i64 1, i64 {UCONTEXT})",
        f"  %stacks = call ptr @malloc(i64 {n * FIBER_STACK})",
        f"  %recs = call ptr @calloc(i64 {n * 10}, i64 8)",
        "  %state = call ptr @calloc(i64 3, i64 8)",
        f"  %sh = call ptr @calloc(i64 {smem}, i64 1)",
        "  store ptr %sched, ptr %state, align 8",
        "  %sctx = getelementptr ptr, ptr %state, i64 1",
        "  store ptr %ctxs, ptr %sctx, align 8",
        "  %curp = getelementptr i64, ptr %state, i64 2",
        "  %argi = ptrtoint ptr %args to i64",
        "  %shi = ptrtoint ptr %sh to i64",
        "  %sti = ptrtoint ptr %state to i64",
        "  br label %block",
        "block:",
        "  %b = phi i64 [ %lo, %entry ], [ %b.next, %block.done ]",
        "  %more = icmp slt i64 %b, %hi",
        "  br i1 %more, label %block.body, label %exit",
        "block.body:",
        f"  %bx = urem i64 %b, {gx}",
        f"  %bq = udiv i64 %b, {gx}",
        f"  %by = urem i64 %bq, {gy}",
        f"  %bz = udiv i64 %bq, {gy}",
        "  br label %make",
        "make:",
        "  %t = phi i64 [ 0, %block.body ], [ %t.next, %make ]",
        f"  %tx = urem i64 %t, {tx}",
        f"  %tq = udiv i64 %t, {tx}",
        f"  %ty = urem i64 %tq, {ty}",
        f"  %tz = udiv i64 %tq, {ty}",
        "  %slot = mul i64 %t, 10",
        "  %rec = getelementptr i64, ptr %recs, i64 %slot",
    ]
    for i, v in enumerate(["%argi", "%bx", "%by", "%bz", "%tx", "%ty", "%tz", "%shi", "%sti", "0"]):
        d += [f"  %r{i} = getelementptr i64, ptr %rec, i64 {i}", f"  store i64 {v}, ptr %r{i}, align 8"]
    d += [
        f"  %coff = mul i64 %t, {UCONTEXT}",
        "  %ctx = getelementptr i8, ptr %ctxs, i64 %coff",
        "  %g = call i32 @getcontext(ptr %ctx)",
        "  %link = getelementptr i8, ptr %ctx, i64 8",
        "  store ptr %sched, ptr %link, align 8",
        f"  %soff = mul i64 %t, {FIBER_STACK}",
        "  %stk = getelementptr i8, ptr %stacks, i64 %soff",
        "  %ssp = getelementptr i8, ptr %ctx, i64 16",
        "  store ptr %stk, ptr %ssp, align 8",
        "  %ssf = getelementptr i8, ptr %ctx, i64 24",
        "  store i32 0, ptr %ssf, align 4",
        "  %sss = getelementptr i8, ptr %ctx, i64 32",
        f"  store i64 {FIBER_STACK}, ptr %sss, align 8",
        "  %reci = ptrtoint ptr %rec to i64",
        "  %rhi64 = lshr i64 %reci, 32",
        "  %rhi = trunc i64 %rhi64 to i32",
        "  %rlo = trunc i64 %reci to i32",
        f"  call void (ptr, ptr, i32, ...) @makecontext(ptr %ctx, ptr @{name}.fiber, i32 2, i32 %rhi, i32 %rlo)",
        "  %t.next = add i64 %t, 1",
        f"  %tmore = icmp slt i64 %t.next, {n}",
        "  br i1 %tmore, label %make, label %round",
        # rounds: every live fiber runs to its next barrier or its end
        "round:",
        "  br label %turn",
        "turn:",
        "  %u = phi i64 [ 0, %round ], [ %u.next, %turn.end ]",
        "  %live = phi i1 [ false, %round ], [ %live.next, %turn.end ]",
        "  %uslot = mul i64 %u, 10",
        "  %urec = getelementptr i64, ptr %recs, i64 %uslot",
        "  %udp = getelementptr i64, ptr %urec, i64 9",
        "  %udone = load i64, ptr %udp, align 8",
        "  %isdone = icmp ne i64 %udone, 0",
        "  br i1 %isdone, label %turn.end, label %run",
        "run:",
        "  store i64 %u, ptr %curp, align 8",
        f"  %uoff = mul i64 %u, {UCONTEXT}",
        "  %uctx = getelementptr i8, ptr %ctxs, i64 %uoff",
        "  %sw = call i32 @swapcontext(ptr %sched, ptr %uctx)",
        "  %after = load i64, ptr %udp, align 8",
        "  %alive = icmp eq i64 %after, 0",
        "  br label %turn.end",
        "turn.end:",
        "  %ran = phi i1 [ false, %turn ], [ %alive, %run ]",
        "  %live.next = or i1 %live, %ran",
        "  %u.next = add i64 %u, 1",
        f"  %umore = icmp slt i64 %u.next, {n}",
        "  br i1 %umore, label %turn, label %round.end",
        "round.end:",
        "  br i1 %live.next, label %round, label %block.done",
        "block.done:",
        "  %b.next = add i64 %b, 1",
        "  br label %block",
        "exit:",
        "  call void @free(ptr %sh)",
        "  call void @free(ptr %state)",
        "  call void @free(ptr %recs)",
        "  call void @free(ptr %stacks)",
        "  call void @free(ptr %sched)",
        "  call void @free(ptr %ctxs)",
        "  ret void",
        "}",
    ]
    return "\n".join(f) + "\n\n" + "\n".join(d)


def emit_host_module(module: ModuleOp) -> str:
    """The GPU kernels compiled for this CPU, with dispatchers for the native launch plan."""
    from tessel.targets.cpu import native_plan
    from tessel.targets.cpu.llvm_modules import SUPPORT

    declares: set[str] = set()
    functions, dispatchers = [], []
    for fn in stages(module):
        functions.append(KernelEmitter(fn, declares, "host").emit())
        dispatchers.append(fiber_dispatcher(fn, declares) if has_barrier(fn) else host_dispatcher(fn))
    parts = [*sorted(declares), *functions, *dispatchers, native_plan.RUNTIME, SUPPORT]
    return "\n\n".join([*parts, "attributes #0 = { nounwind }"]) + "\n"


@cache
def _initialize() -> None:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def compile_ptx(
    ir: str, arch: str = DEFAULT_ARCH, ptx: str = DEFAULT_PTX, optimized_ir: list[str] | None = None
) -> str:
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
    if libdevice.needed(ir):
        libdevice.link(mod, str(tm.target_data), TRIPLE)
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    if optimized_ir is not None:
        optimized_ir.append(str(mod))
    return tm.emit_assembly(mod)
