"""LLVM IR (text) from the loop IR of stage functions: scf, arith, math, memref, vector.

Text, not llvmlite.ir objects: building IR objects costs ~40x more per instruction
(shared/research/compile_time.md) and the IR here is regular. Memrefs are static and
row-major, passed as `ptr noalias`; an element's address is a GEP by its linear index.
Structured control flow becomes blocks with phis; allocas are hoisted to the entry block
so a tile accumulator inside a loop is one stack slot that SROA turns into registers.
Every function asks for 512-bit vectors (`prefer-vector-width` and
`min-legal-vector-width`): LLVM otherwise splits <16 x float> into ymm halves on this CPU.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    Float32Type,
    MemRefType,
    VectorType,
)
from xdsl.ir import Block, Operation, SSAValue

from tessel.dialects import kernel
from tessel.targets.cpu import vector_math, vector_memory
from tessel.targets.cpu.llvm_tables import (
    BINARY,
    CASTS,
    FCMP_BY_INDEX,
    ICMP_BY_INDEX,
    INTRINSIC_BINARY,
    LIBM,
    LIBM_BINARY,
    MATH_INTRINSICS,
    POLYNOMIAL,
    constant_literal,
    llvm_type,
    mangle,
    scalar_of,
)
from tessel.targets.cpu.vector_memory import alignment as _align

ATTRIBUTES = '"prefer-vector-width"="512" "min-legal-vector-width"="512" nounwind'


class FunctionEmitter:
    def __init__(
        self,
        fn: func.FuncOp,
        declares: set[str],
        symbol: str | None = None,
        dot4_lanes: frozenset[int] = frozenset(),
        bf16_features: str | None = None,
    ):
        """`dot4_lanes`: the vector lengths (of i32) for which the CPU has vpdpbusd
        (cpu_target.CpuTarget.dot4_lanes); kernel.dot4 of other lengths is emitted as generic code.
        `bf16_features`: where the CPU has vdpbf16ps, the feature string of the functions that
        use it (cpu_target.CpuTarget.bf16_features); None: kernel.bf16dot2 as generic code."""
        self.fn = fn
        self.dot4_lanes = dot4_lanes
        self.bf16_features = bf16_features
        self.group = 0  # the attribute group: 1 where the function uses vdpbf16ps
        self.symbol = symbol or fn.sym_name.data  # the name it is defined under
        self.declares = declares
        self.names: dict[SSAValue, str] = {}
        self.counter = 0
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self.block_label = "entry"
        # address arithmetic emitted in the current block, by (op, a, b): the accesses of a
        # register tile share their row and plane terms (start_block clears it)
        self._address_terms: dict[tuple[str, str, int | str], str] = {}

    def fresh(self, hint: str = "v") -> str:
        self.counter += 1
        return f"%{hint}{self.counter}"

    def label(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    def v(self, value: SSAValue) -> str:
        return self.names[value]

    def typed(self, value: SSAValue) -> str:
        return f"{llvm_type(value.type)} {self.v(value)}"

    def line(self, text: str) -> None:
        self.lines.append("  " + text)

    def start_block(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.block_label = label
        self._address_terms = {}

    def _address_term(self, op: str, a: str, b: int | str) -> str:
        """`a op b` in i64, emitted once per block."""
        key = (op, a, b)
        name = self._address_terms.get(key)
        if name is None:
            name = self._address_terms[key] = self.fresh()
            self.line(f"{name} = {op} i64 {a}, {b}")
        return name

    def emit(self) -> str:
        args = []
        for i, a in enumerate(self.fn.body.block.args):
            name = f"%a{i}"
            self.names[a] = name
            attrs = " noalias" if isinstance(a.type, MemRefType) else ""
            args.append(f"{llvm_type(a.type)}{attrs} {name}")
        args += self.extra_args()
        self.start_block("entry")
        body_start = len(self.lines)
        self.block(self.fn.body.block)
        self.lines[body_start:body_start] = ["  " + a for a in self.allocas]
        header = f"define {self.calling_convention()}void @{self.symbol}({', '.join(args)}) #{self.group} {{"
        return "\n".join([header, *self.lines, "}"])

    def extra_args(self) -> list[str]:
        """Parameters after the function's own (the GPU emulator's indices)."""
        return []

    def calling_convention(self) -> str:
        return ""

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    # ------------------------------------------------------------------ ops

    def op(self, op: Operation) -> None:  # noqa: C901 - one case per op kind
        if isinstance(op, func.ReturnOp):
            self.line("ret void")
            return
        if isinstance(op, scf.ForOp):
            self.for_op(op)
            return
        if isinstance(op, scf.IfOp):
            self.if_op(op)
            return
        if isinstance(op, scf.YieldOp):
            return  # handled by the parent
        if isinstance(op, arith.ConstantOp):
            self.names[op.result] = constant_literal(op.value)
            return
        r = op.results[0] if op.results else None
        name = self.fresh()
        if r is not None:
            self.names[r] = name
        rt: Any = r.type if r is not None else None  # the result type (a vector's, a scalar's)
        t = llvm_type(rt) if r is not None else ""
        if type(op) in BINARY:
            flags = self._flags(op)
            self.line(f"{name} = {BINARY[type(op)]}{flags} {t} {self.v(op.operands[0])}, {self.v(op.operands[1])}")
        elif isinstance(op, arith.NegfOp):
            self.line(f"{name} = fneg {t} {self.v(op.operands[0])}")
        elif type(op) in INTRINSIC_BINARY:
            fn = f"{INTRINSIC_BINARY[type(op)]}.{mangle(rt)}"
            self.declare(f"declare {t} @{fn}({t}, {t})")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.operands[0])}, {self.typed(op.operands[1])})")
        elif isinstance(op, arith.FloorDivSIOp | arith.CeilDivSIOp):
            self.div_round(op, name, t)
        elif isinstance(op, arith.CmpiOp):
            pred = ICMP_BY_INDEX[op.predicate.value.data]
            self.line(f"{name} = icmp {pred} {self.typed(op.lhs)}, {self.v(op.rhs)}")
        elif isinstance(op, arith.CmpfOp):
            pred = FCMP_BY_INDEX[op.predicate.value.data]
            self.line(f"{name} = fcmp {pred} {self.typed(op.lhs)}, {self.v(op.rhs)}")
        elif isinstance(op, arith.SelectOp):
            self.line(f"{name} = select {self.typed(op.cond)}, {self.typed(op.lhs)}, {self.typed(op.rhs)}")
        elif type(op) in CASTS:
            self.line(f"{name} = {CASTS[type(op)]} {self.typed(op.operands[0])} to {t}")
        elif isinstance(op, arith.IndexCastOp):
            src = llvm_type(op.operands[0].type)
            kind = "sext" if _bits(src) < _bits(t) else "trunc" if _bits(src) > _bits(t) else None
            if kind is None:
                assert r is not None
                self.names[r] = self.v(op.operands[0])
            else:
                self.line(f"{name} = {kind} {self.typed(op.operands[0])} to {t}")
        elif type(op) in POLYNOMIAL and isinstance(scalar_of(rt), Float32Type):
            n = rt.get_shape()[0] if isinstance(rt, VectorType) else 1
            self.declare(vector_math.definition(POLYNOMIAL[type(op)], n))
            self.line(
                f"{name} = call {t} @{vector_math.function_name(POLYNOMIAL[type(op)], n)}({self.typed(op.operands[0])})"
            )
        elif type(op) in MATH_INTRINSICS:
            fn = f"{MATH_INTRINSICS[type(op)]}.{mangle(rt)}"
            self.declare(f"declare {t} @{fn}({t})")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.operands[0])})")
        elif type(op) in LIBM or type(op) in LIBM_BINARY:
            self.libm(op, name, t)
        elif isinstance(op, mathd.AbsIOp):
            fn = f"llvm.abs.{mangle(rt)}"
            self.declare(f"declare {t} @{fn}({t}, i1)")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.operands[0])}, i1 false)")
        elif isinstance(op, memref.LoadOp):
            ptr = self.address(op.memref, op.indices)
            self.line(f"{name} = load {t}, ptr {ptr}, align {_align(rt)}")
        elif isinstance(op, memref.StoreOp):
            ptr = self.address(op.memref, op.indices)
            self.line(f"store {self.typed(op.value)}, ptr {ptr}, align {_align(op.value.type)}")
        elif isinstance(op, memref.AllocaOp):
            mt = op.memref.type
            count = math.prod(mt.get_shape())
            et = llvm_type(mt.element_type)
            self.allocas.append(f"{name} = alloca {et}, i64 {max(count, 1)}, align 64")
        elif isinstance(op, vector.LoadOp | vector.MaskedLoadOp):
            vector_memory.load(self, op, name)
        elif isinstance(op, vector.StoreOp | vector.MaskedStoreOp):
            vector_memory.store(self, op)
        elif isinstance(op, vector.TransferReadOp | vector.TransferWriteOp):
            vector_memory.transfer(self, op, name)
        elif isinstance(op, vector.BroadcastOp) and _builds_vector(op):
            self.line(f"{name} = insertelement {t} poison, {self.typed(op.source)}, i64 0")
        elif isinstance(op, vector.BroadcastOp):
            n = rt.get_shape()[0]
            s = llvm_type(op.source.type)
            one = self.fresh()
            self.line(f"{one} = insertelement <1 x {s}> poison, {self.typed(op.source)}, i64 0")
            self.line(f"{name} = shufflevector <1 x {s}> {one}, <1 x {s}> poison, <{n} x i32> zeroinitializer")
        elif isinstance(op, vector.ShuffleOp):
            mask = ", ".join(f"i32 {m}" for m in op.mask.get_values())
            n = len(op.mask.get_values())
            self.line(f"{name} = shufflevector {self.typed(op.v1)}, {self.typed(op.v2)}, <{n} x i32> <{mask}>")
        elif isinstance(op, vector.InsertOp):
            (pos,) = _static_position(op)
            self.line(f"{name} = insertelement {self.typed(op.dest)}, {self.typed(op.source)}, i64 {pos}")
        elif isinstance(op, vector.ExtractOp):
            (pos,) = _static_position(op)
            self.line(f"{name} = extractelement {self.typed(op.vector)}, i64 {pos}")
        elif isinstance(op, vector.CreateMaskOp):
            n = rt.get_shape()[0]
            (size,) = op.mask_dim_sizes
            one, splat = self.fresh(), self.fresh()
            self.line(f"{one} = insertelement <1 x i64> poison, i64 {self.v(size)}, i64 0")
            self.line(f"{splat} = shufflevector <1 x i64> {one}, <1 x i64> poison, <{n} x i32> zeroinitializer")
            iota = ", ".join(f"i64 {i}" for i in range(n))
            self.line(f"{name} = icmp slt <{n} x i64> <{iota}>, {splat}")
        elif isinstance(op, kernel.Dot4Op):
            self.dot4(op, name, t)
        elif isinstance(op, kernel.Bf16Dot2Op):
            self.bf16dot2(op, name, t)
        elif isinstance(op, vector.FMAOp):
            fn = f"llvm.fma.{mangle(rt)}"
            self.declare(f"declare {t} @{fn}({t}, {t}, {t})")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.lhs)}, {self.typed(op.rhs)}, {self.typed(op.acc)})")
        else:
            raise NotImplementedError(f"LLVM emission of {op.name}")

    def dot4(self, op: kernel.Dot4Op, name: str, t: str) -> None:
        """vpdpbusd where the CPU has it for this length (AVX-512 VNNI: 4, 8, 16 lanes with
        AVX-512VL; AVX-VNNI: 4, 8); otherwise the same arithmetic in generic vector code: the
        bytes widened (lhs unsigned, rhs signed), multiplied, and every fourth product summed.
        The intrinsic on a CPU without the instruction would abort LLVM, hence the list."""
        rt = op.result.type
        n = rt.get_shape()[0] if isinstance(rt, VectorType) else 1
        if n in self.dot4_lanes and n > 1:
            fn = f"llvm.x86.avx512.vpdpbusd.{32 * n}"
            self.declare(f"declare {t} @{fn}({t}, {t}, {t})")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.acc)}, {self.typed(op.lhs)}, {self.typed(op.rhs)})")
            return
        if n == 1:
            self._dot4_scalar(op, name, t)
            return
        # Exact on any x86-64 without a byte dot product: each i32 lane's bytes as i16
        # halves in place, the even bytes (0, 2) and the odd ones (1, 3) apart (lhs zero-,
        # rhs sign-extended: every product fits an i16's operands), and each pair of
        # neighbouring i16 products summed in i32: the pattern LLVM makes one pmaddwd of
        # (SSE2 / AVX2 / AVX-512BW), no cross-lane shuffles. (vpmaddubsw would do the bytes
        # in one step but saturates its i16 sums: 2 x 255 x 127 does not fit.) Widening all
        # 4n bytes to i32 and summing every fourth product cost 200 shuffles a tile on a Zen 3.
        half = f"<{2 * n} x i16>"
        wide = f"<{2 * n} x i32>"
        a, b = self.fresh(), self.fresh()
        self.line(f"{a} = bitcast {self.typed(op.lhs)} to {half}")
        self.line(f"{b} = bitcast {self.typed(op.rhs)} to {half}")
        splat8 = "splat (i16 8)"
        low, hi_a, b_shift, lo_b, hi_b = (self.fresh() for _ in range(5))
        self.line(f"{low} = and {half} {a}, splat (i16 255)")
        self.line(f"{hi_a} = lshr {half} {a}, {splat8}")
        self.line(f"{b_shift} = shl {half} {b}, {splat8}")
        self.line(f"{lo_b} = ashr {half} {b_shift}, {splat8}")
        self.line(f"{hi_b} = ashr {half} {b}, {splat8}")
        evens = ", ".join(f"i32 {2 * i}" for i in range(n))
        odds = ", ".join(f"i32 {2 * i + 1}" for i in range(n))
        total = self.v(op.acc)
        for k, (x, y) in enumerate(((low, lo_b), (hi_a, hi_b))):
            xw, yw, prod, even, odd, pair = (self.fresh() for _ in range(6))
            self.line(f"{xw} = sext {half} {x} to {wide}")
            self.line(f"{yw} = sext {half} {y} to {wide}")
            self.line(f"{prod} = mul nsw {wide} {xw}, {yw}")
            self.line(f"{even} = shufflevector {wide} {prod}, {wide} poison, <{n} x i32> <{evens}>")
            self.line(f"{odd} = shufflevector {wide} {prod}, {wide} poison, <{n} x i32> <{odds}>")
            self.line(f"{pair} = add {t} {even}, {odd}")
            step = name if k == 1 else self.fresh()
            self.line(f"{step} = add {t} {total}, {pair}")
            total = step

    def _dot4_scalar(self, op: kernel.Dot4Op, name: str, t: str) -> None:
        """kernel.dot4 on one i32: the four bytes widened, multiplied and added in order."""
        wide, nb = "<4 x i32>", "<4 x i8>"
        a, b, az, bz, p = (self.fresh() for _ in range(5))
        self.line(f"{a} = bitcast {self.typed(op.lhs)} to {nb}")
        self.line(f"{b} = bitcast {self.typed(op.rhs)} to {nb}")
        self.line(f"{az} = zext {nb} {a} to {wide}")
        self.line(f"{bz} = sext {nb} {b} to {wide}")
        self.line(f"{p} = mul {wide} {az}, {bz}")
        total = self.v(op.acc)
        for j in range(4):
            part, step = self.fresh(), self.fresh() if j < 3 else name
            self.line(f"{part} = extractelement {wide} {p}, i64 {j}")
            self.line(f"{step} = add {t} {total}, {part}")
            total = step

    def bf16dot2(self, op: kernel.Bf16Dot2Op, name: str, t: str) -> None:
        """vdpbf16ps on 16 lanes where the CPU has it (the function then gets attribute group
        #1, this target's features plus AVX512-BF16); otherwise each word's halves widened to
        float (the high half masked, the low shifted up) and multiplied and added in order,
        high first, as the instruction does (subnormals are kept, not flushed)."""
        n = op.result.type.get_shape()[0] if isinstance(op.result.type, VectorType) else 1
        words = llvm_type(op.lhs.type)
        if n == 16 and self.bf16_features is not None:
            fn = "llvm.x86.avx512bf16.dpbf16ps.512"
            self.declare(f"declare {t} @{fn}({t}, <32 x bfloat>, <32 x bfloat>)")
            self.declare(f'attributes #1 = {{ {ATTRIBUTES} "target-features"="{self.bf16_features}" }}')
            self.group = 1
            a, b = self.fresh(), self.fresh()
            self.line(f"{a} = bitcast {self.typed(op.lhs)} to <32 x bfloat>")
            self.line(f"{b} = bitcast {self.typed(op.rhs)} to <32 x bfloat>")
            self.line(f"{name} = call {t} @{fn}({self.typed(op.acc)}, <32 x bfloat> {a}, <32 x bfloat> {b})")
            return
        high = "-65536" if n == 1 else f"<{', '.join(['i32 -65536'] * n)}>"  # 0xFFFF0000
        sixteen = "16" if n == 1 else f"<{', '.join(['i32 16'] * n)}>"
        halves = []
        for word in (op.lhs, op.rhs):
            hi_bits, lo_bits, hi, lo = (self.fresh() for _ in range(4))
            self.line(f"{hi_bits} = and {self.typed(word)}, {high}")
            self.line(f"{lo_bits} = shl {self.typed(word)}, {sixteen}")
            self.line(f"{hi} = bitcast {words} {hi_bits} to {t}")
            self.line(f"{lo} = bitcast {words} {lo_bits} to {t}")
            halves.append((hi, lo))
        (ahi, alo), (bhi, blo) = halves
        p1, s1, p2 = self.fresh(), self.fresh(), self.fresh()
        self.line(f"{p1} = fmul {t} {ahi}, {bhi}")
        self.line(f"{s1} = fadd {t} {self.v(op.acc)}, {p1}")
        self.line(f"{p2} = fmul {t} {alo}, {blo}")
        self.line(f"{name} = fadd {t} {s1}, {p2}")

    def _flags(self, op: Operation) -> str:
        fm = op.properties.get("fastmath")
        if fm is None or not isinstance(op, arith.AddfOp | arith.SubfOp | arith.MulfOp | arith.DivfOp):
            return ""
        flags = [str(getattr(f, "value", f)) for f in getattr(fm, "data", ())]
        return (" " + " ".join(sorted(flags))) if flags else ""

    def declare(self, line: str) -> None:
        self.declares.add(line)

    def address(self, base: SSAValue, indices: Iterable[SSAValue]) -> str:
        t = base.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        et = llvm_type(t.element_type)
        # the constant indices' part folded here (a register tile's accumulators are
        # addressed by constants: as mul/add of literals they were half of some modules'
        # instructions, for LLVM to fold again)
        linear, offset, stride = None, 0, 1
        for idx, n in reversed(list(zip(indices, shape))):
            name, st = self.v(idx), stride
            stride *= n
            if name.lstrip("-").isdigit():
                offset += int(name) * st
                continue
            term = name if st == 1 else self._address_term("mul", name, st)
            linear = term if linear is None else self._address_term("add", linear, term)
        if linear is not None and offset:
            linear = self._address_term("add", linear, offset)
        ptr = self.fresh("p")
        self.line(f"{ptr} = getelementptr {et}, ptr {self.v(base)}, i64 {linear or offset}")
        return ptr

    def div_round(self, op: Operation, name: str, t: str) -> None:
        """floordiv/ceildiv of signed integers from sdiv and a correction."""
        a, b = self.v(op.operands[0]), self.v(op.operands[1])
        q, r_, nz, sa, sb, diff, adj = (self.fresh() for _ in range(7))
        self.line(f"{q} = sdiv {t} {a}, {b}")
        self.line(f"{r_} = srem {t} {a}, {b}")
        self.line(f"{nz} = icmp ne {t} {r_}, 0")
        self.line(f"{sa} = icmp slt {t} {a}, 0")
        self.line(f"{sb} = icmp slt {t} {b}, 0")
        if isinstance(op, arith.FloorDivSIOp):
            self.line(f"{diff} = xor i1 {sa}, {sb}")
            self.line(f"{adj} = and i1 {nz}, {diff}")
            delta = self.fresh()
            self.line(f"{delta} = sext i1 {adj} to {t}")
            self.line(f"{name} = add {t} {q}, {delta}")
        else:
            self.line(f"{diff} = icmp eq i1 {sa}, {sb}")
            self.line(f"{adj} = and i1 {nz}, {diff}")
            delta = self.fresh()
            self.line(f"{delta} = zext i1 {adj} to {t}")
            self.line(f"{name} = add {t} {q}, {delta}")

    def libm_function(self, op: Operation) -> str:
        """The scalar function computing `op` on its element type (libm: sinf, sin)."""
        base = LIBM.get(type(op)) or LIBM_BINARY[type(op)]
        return base + ("f" if isinstance(scalar_of(op.results[0].type), Float32Type) else "")

    def libm(self, op: Operation, name: str, t: str) -> None:
        rt = op.results[0].type
        st = llvm_type(scalar_of(rt))
        fn = self.libm_function(op)
        self.declare(f"declare {st} @{fn}({', '.join(st for _ in op.operands)})")
        if not isinstance(rt, VectorType):
            self.line(f"{name} = call {st} @{fn}({', '.join(self.typed(x) for x in op.operands)})")
            return
        current = "poison"
        for lane in range(rt.get_shape()[0]):
            args = []
            for x in op.operands:
                e = self.fresh()
                self.line(f"{e} = extractelement {self.typed(x)}, i64 {lane}")
                args.append(f"{st} {e}")
            y, nxt = self.fresh(), self.fresh()
            self.line(f"{y} = call {st} @{fn}({', '.join(args)})")
            self.line(f"{nxt} = insertelement {t} {current}, {st} {y}, i64 {lane}")
            current = nxt
        self.names[op.results[0]] = current

    # ------------------------------------------------------------------ control flow

    def for_op(self, op: scf.ForOp) -> None:
        body = op.body.block
        iv = body.args[0]
        carried = list(body.args[1:])
        header, loop, exit_ = self.label("for.head"), self.label("for.body"), self.label("for.exit")
        pre = self.block_label
        self.line(f"br label %{header}")
        self.start_block(header)
        iv_name = self.fresh("i")
        self.names[iv] = iv_name
        phis_at = len(self.lines)
        carried_names = []
        for arg in carried:
            n = self.fresh("c")
            self.names[arg] = n
            carried_names.append(n)
        cond = self.fresh()
        self.line(f"{cond} = icmp slt i64 {iv_name}, {self.v(op.ub)}")
        self.line(f"br i1 {cond}, label %{loop}, label %{exit_}")
        self.start_block(loop)
        self.block(body)
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        next_iv = self.fresh("i")
        self.line(f"{next_iv} = add i64 {iv_name}, {self.v(op.step)}")
        latch = self.block_label
        self.line(f"br label %{header}")
        phis = [f"  {iv_name} = phi i64 [ {self.v(op.lb)}, %{pre} ], [ {next_iv}, %{latch} ]"]
        for arg, n, init, nxt in zip(carried, carried_names, op.iter_args, yield_op.operands):
            t = llvm_type(arg.type)
            phis.append(f"  {n} = phi {t} [ {self.v(init)}, %{pre} ], [ {self.v(nxt)}, %{latch} ]")
        self.lines[phis_at:phis_at] = phis
        self.start_block(exit_)
        for res, n in zip(op.results, carried_names):
            self.names[res] = n

    def if_op(self, op: scf.IfOp) -> None:
        then_l, else_l, merge = self.label("if.then"), self.label("if.else"), self.label("if.end")
        has_else = bool(op.false_region.blocks) and bool(list(op.false_region.block.ops))
        self.line(f"br i1 {self.v(op.cond)}, label %{then_l}, label %{else_l if has_else or op.results else merge}")
        self.start_block(then_l)
        self.block(op.true_region.block)
        then_vals = [self.v(v) for v in op.true_region.block.last_op.operands] if op.results else []  # type: ignore[union-attr]
        then_end = self.block_label
        self.line(f"br label %{merge}")
        else_vals: list[str] = []
        else_end = None
        if has_else or op.results:
            self.start_block(else_l)
            if op.false_region.blocks:
                self.block(op.false_region.block)
                else_vals = [self.v(v) for v in op.false_region.block.last_op.operands] if op.results else []  # type: ignore[union-attr]
            else_end = self.block_label
            self.line(f"br label %{merge}")
        self.start_block(merge)
        for i, res in enumerate(op.results):
            n = self.fresh()
            self.line(
                f"{n} = phi {llvm_type(res.type)} [ {then_vals[i]}, %{then_end} ], [ {else_vals[i]}, %{else_end} ]"
            )
            self.names[res] = n


def _builds_vector(op: vector.BroadcastOp) -> bool:
    """Is `op` the start of a build vector: a splat of lane 0 whose other lanes a chain of
    inserts all overwrite (the lane body's per-lane compares and selects)? Emitted as an
    insert into poison, the chain is one LLVM's SLP vectorizer recognizes and turns back
    into vector code; a splat start hides it."""
    lanes = op.results[0].type.get_shape()[0]  # type: ignore[attr-defined]
    covered: set[int] = set()
    value: SSAValue = op.results[0]
    while len(uses := list(value.uses)) == 1:
        user = uses[0].operation
        if not isinstance(user, vector.InsertOp) or user.dest is not value:
            break
        covered.update(_static_position(user))
        value = user.results[0]
    return covered >= set(range(1, lanes))


def _bits(t: str) -> int:
    return int(t[1:]) if t.startswith("i") else 64


def _static_position(op: vector.InsertOp | vector.ExtractOp) -> list[int]:
    return [int(p) for p in op.static_position.get_values()]
