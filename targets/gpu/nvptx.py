"""LLVM IR for NVIDIA GPUs from the loop IR of GPU stage functions, and PTX from it.

The CPU emitter (targets/cpu/llvm_emit.py) in its GPU flavour: the same scf/arith/math/
memref/vector lowering, with

* each stage function a kernel (`ptx_kernel` calling convention), its buffers generic
  pointers that LLVM's NVPTX argument lowering turns into global-space loads and stores;
* `gpu.block_id` / `gpu.thread_id` read from the special registers (`%ctaid`, `%tid`)
  through the `llvm.nvvm.read.ptx.sreg.*` intrinsics;
* f32 exp/log/tanh/erf as the polynomial functions of targets/cpu/vector_math.py (plain
  IR, so they compile for any target), sqrt/fabs/floor/ceil as the intrinsics NVPTX selects
  natively; what would need a libm call on the device (f64 transcendental functions) is a
  one-line error naming the op.

The same kernels also compile for the host (`flavour="host"`): the block and thread
indices become extra arguments, and a dispatcher runs blocks [lo, hi) of the grid, every
thread of each block in turn. With no barriers in the kernels (the schedules bind loops,
they do not stage through shared memory yet), running the threads of a block one after
another is the GPU's semantics exactly, so the GPU lowering is tested on every machine
against the reference (targets/gpu/emulate.py).
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects import func, gpu, math as mathd
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, MemRefType, ModuleOp
from xdsl.ir import Operation

from tessel.dialects.kernel import GPU_DIMS_ATTR, STAGE_ATTR
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.llvm_emit import LIBM, MATH_INTRINSICS, POLYNOMIAL, FunctionEmitter, llvm_type, scalar_of

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_90"
DEFAULT_PTX = "ptx80"
INDEX_ARGS = [f"%gpu.{kind}.{d}" for kind in ("ctaid", "tid") for d in "xyz"]  # host flavour
NATIVE_MATH = (mathd.SqrtOp, mathd.AbsFOp, mathd.FloorOp, mathd.CeilOp)


class KernelEmitter(FunctionEmitter):
    def __init__(self, fn: func.FuncOp, declares: set[str], flavour: str = "ptx"):
        super().__init__(fn, declares)
        self.flavour = flavour

    def op(self, op: Operation) -> None:
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

    def emit(self) -> str:
        args = []
        for i, a in enumerate(self.fn.body.block.args):
            name = f"%a{i}"
            self.names[a] = name
            attrs = " noalias" if isinstance(a.type, MemRefType) else ""
            args.append(f"{llvm_type(a.type)}{attrs} {name}")
        if self.flavour == "host":
            args += [f"i64 {n}" for n in INDEX_ARGS]
        self.start_block("entry")
        body_start = len(self.lines)
        self.block(self.fn.body.block)
        self.lines[body_start:body_start] = ["  " + a for a in self.allocas]
        cc = "ptx_kernel " if self.flavour == "ptx" else ""
        header = f"define {cc}void @{self.fn.sym_name.data}({', '.join(args)}) #0 {{"
        return "\n".join([header, *self.lines, "}"])


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
              f"  call void @{name}({buffers}{', ' if buffers else ''}i64 0, i64 0, i64 %bx, i64 %by, i64 %bz, i64 %tx, i64 %ty, i64 %tz)",
              "  %t.next = add i64 %t, 1", f"  %tmore = icmp slt i64 %t.next, {tx * ty * tz}",
              "  br i1 %tmore, label %thread, label %block.done", "block.done:", "  %b.next = add i64 %b, 1", "  br label %block",
              "exit:", "  ret void", "}"]  # fmt: skip
    return "\n".join(lines)


def emit_host_module(module: ModuleOp) -> str:
    """The GPU kernels compiled for this CPU, with dispatchers for the native launch plan."""
    from tessel.targets.cpu import native_plan
    from tessel.targets.cpu.llvm_emit import SUPPORT

    declares: set[str] = set()
    functions, dispatchers = [], []
    for fn in stages(module):
        functions.append(KernelEmitter(fn, declares, "host").emit())
        dispatchers.append(host_dispatcher(fn))
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
