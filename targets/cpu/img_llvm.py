"""LLVM IR text for an image pipeline: fused, line-buffered, vectorized row loops.

Why not the tensor path (kernel.compute -> sched -> loops): image stencils need clamp and
mirror borders (kernel.load only pads with a constant), producer-consumer chains need a
row-granular compute_at with a ring of rows per producer (the line buffer), and u8/u16
bodies need integer vectors at full width. The shape of the code is fixed and regular, so
it is emitted directly, the way Halide lowers a (inline / compute_at row) schedule:

    define void @pipeline(ptr %args, i64 %a, i64 %b)   ; driver rows [a, b), one strip
      for y in [a, b):
        for each materialized stage s (producers first):
          while next[s] <= newest row of s needed for y:  call @row_s(ctx, dst, next[s]++)

`@row_s` computes one row of a stage: the body's arith ops on <V x iN>/<V x float> vectors
over the interior elements (every load in bounds at a constant offset from a row pointer,
the last vector overlapping the previous one instead of a scalar tail), and scalar code
with border-mapped columns for the few edge pixels. Inline producers (`img.compute =
"inline"`) are re-evaluated at each position their consumer reads, with their row and
column offsets composed through the border maps of every level (exactly the reference's
nested semantics). Rows of a buffered stage live in a ring of `ring_rows` rows
(passes/img/rows.py); the row index is folded by the reader's border (clamp, mirror, or a
row of zeros).

Values MLIR leaves undefined get the reference's meaning (dialects/img/scalar.py): integer
division by zero is 0, over-wide shifts are 0 (or the sign), float-to-integer conversions
saturate (`llvm.fpto*i.sat`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith, math as mathd
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tessel.dialects import img
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.llvm_emit import ATTRIBUTES, float_literal

if TYPE_CHECKING:
    from tessel.passes.img.rows import RowPlan, Stage

ENTRY = "pipeline"
Chain = tuple[tuple[int, str, int], ...]  # (offset, border, extent) from the consumer inwards


def elem_type(bits: int, is_float: bool) -> str:
    return "float" if is_float else f"i{bits}"


def _scalar(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    raise TesselError(f"image bodies compute on integers and f32, not {t}")


def _bits(t: Attribute) -> int:
    return 32 if isinstance(t, Float32Type) else t.width.data  # type: ignore[attr-defined]


class Func:
    """One LLVM function being written: fresh names, lines, intrinsic declarations."""

    def __init__(self, decls: set[str]):
        self.lines: list[str] = []
        self.n = 0
        self.decls = decls

    def tmp(self, prefix: str = "t") -> str:
        self.n += 1
        return f"%{prefix}{self.n}"

    def emit(self, text: str, prefix: str = "t") -> str:
        name = self.tmp(prefix)
        self.lines.append(f"  {name} = {text}")
        return name

    def do(self, text: str) -> None:
        self.lines.append(f"  {text}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def intrinsic(self, name: str, ret: str, args: list[tuple[str, str]]) -> str:
        """A call of an LLVM intrinsic on (type, value) arguments, declared once."""
        self.decls.add(f"declare {ret} @{name}({', '.join(t for t, _ in args)})")
        return f"call {ret} @{name}({', '.join(f'{t} {v}' for t, v in args)})"

    def loop(self, start: str, end: str, step: int, body: Callable[[str], None], prefix: str = "i") -> None:
        """for (i = start; i < end; i += step) body(i); bounds are i64 values."""
        head, inner, done = self.tmp(prefix + "h")[1:], self.tmp(prefix + "b")[1:], self.tmp(prefix + "x")[1:]
        pre = self.tmp(prefix + "p")[1:]
        iv = self.tmp(prefix)
        nxt = self.tmp(prefix + "n")
        self.do(f"br label %{pre}")
        self.label(pre)
        self.do(f"br label %{head}")
        self.label(head)
        latch = self.tmp(prefix + "l")[1:]
        self.do(f"{iv} = phi i64 [ {start}, %{pre} ], [ {nxt}, %{latch} ]")
        c = self.emit(f"icmp slt i64 {iv}, {end}")
        self.do(f"br i1 {c}, label %{inner}, label %{done}")
        self.label(inner)
        body(iv)
        self.do(f"br label %{latch}")
        self.label(latch)
        self.do(f"{nxt} = add i64 {iv}, {step}")
        self.do(f"br label %{head}")
        self.label(done)


def _vec(t: str, lanes: int) -> str:
    return t if lanes == 1 else f"<{lanes} x {t}>"


def _mangle(t: str, lanes: int) -> str:
    base = "f32" if t == "float" else t
    return base if lanes == 1 else f"v{lanes}{base}"


def _const(value: int | float, t: str, lanes: int) -> str:
    if t == "float":
        lit = float_literal(float(value), Float32Type())
    elif t == "i1":
        lit = "true" if value else "false"
    else:
        bits = int(t[1:])
        v = int(value) & ((1 << bits) - 1)
        lit = str(v - (1 << bits) if v >= 1 << (bits - 1) else v)
    return lit if lanes == 1 else f"splat ({t} {lit})"


_INT_BINARY = {arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul", arith.AndIOp: "and", arith.OrIOp: "or",
               arith.XOrIOp: "xor"}  # fmt: skip
_FLOAT_BINARY = {arith.AddfOp: "fadd", arith.SubfOp: "fsub", arith.MulfOp: "fmul", arith.DivfOp: "fdiv"}
_MINMAX = {arith.MaxUIOp: "umax", arith.MinUIOp: "umin", arith.MaxSIOp: "smax", arith.MinSIOp: "smin",
           arith.MaximumfOp: "maximum", arith.MinimumfOp: "minimum"}  # fmt: skip
_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]


class Value:
    """An SSA value (or constant literal) of the function being written, with its known
    constant (for division and shift guards)."""

    __slots__ = ("text", "const")

    def __init__(self, text: str, const: int | float | None = None):
        self.text = text
        self.const = const


def emit_op(f: Func, op: Operation, args: list[Value], lanes: int) -> Value:
    """One body op on `lanes`-wide values (1: scalar)."""
    t = _scalar(op.results[0].type)
    vt = _vec(t, lanes)
    a = [x.text for x in args]
    if isinstance(op, arith.ConstantOp):
        v = op.value
        if isinstance(v, IntegerAttr):
            return Value(_const(v.value.data, t, lanes), v.value.data)
        if isinstance(v, FloatAttr):
            return Value(_const(v.value.data, t, lanes), v.value.data)
    if type(op) in _INT_BINARY:
        return Value(f.emit(f"{_INT_BINARY[type(op)]} {vt} {a[0]}, {a[1]}"))
    if type(op) in _FLOAT_BINARY:
        return Value(f.emit(f"{_FLOAT_BINARY[type(op)]} {vt} {a[0]}, {a[1]}"))
    if type(op) in _MINMAX:
        name = f"llvm.{_MINMAX[type(op)]}.{_mangle(t, lanes)}"
        return Value(f.emit(f.intrinsic(name, vt, [(f"{vt}", f"{a[0]}"), (f"{vt}", f"{a[1]}")])))
    if isinstance(op, arith.DivUIOp | arith.DivSIOp | arith.RemUIOp | arith.RemSIOp):
        return _division(f, op, args, t, lanes)
    if isinstance(op, arith.ShLIOp | arith.ShRUIOp | arith.ShRSIOp):
        return _shift(f, op, args, t, lanes)
    if isinstance(op, arith.CmpiOp):
        src = _vec(_scalar(op.lhs.type), lanes)
        return Value(f.emit(f"icmp {_CMPI[op.predicate.value.data]} {src} {a[0]}, {a[1]}"))
    if isinstance(op, arith.CmpfOp):
        pred = _CMPF[op.predicate.value.data]
        if pred in ("false", "true", "ord", "uno"):
            raise TesselError(f"arith.cmpf predicate {pred} is not supported in image bodies", op_location(op))
        return Value(f.emit(f"fcmp {pred} {_vec('float', lanes)} {a[0]}, {a[1]}"))
    if isinstance(op, arith.SelectOp):
        return Value(f.emit(f"select {_vec('i1', lanes)} {a[0]}, {vt} {a[1]}, {vt} {a[2]}"))
    if isinstance(op, arith.ExtUIOp | arith.ExtSIOp | arith.TruncIOp | arith.UIToFPOp | arith.SIToFPOp):
        src_t = _scalar(op.operands[0].type)
        kind = {arith.ExtUIOp: "zext", arith.ExtSIOp: "sext", arith.TruncIOp: "trunc", arith.UIToFPOp: "uitofp",
                arith.SIToFPOp: "sitofp"}[type(op)]  # fmt: skip
        return Value(f.emit(f"{kind} {_vec(src_t, lanes)} {a[0]} to {vt}"))
    if isinstance(op, arith.FPToUIOp | arith.FPToSIOp):
        return _fp_to_int(f, isinstance(op, arith.FPToSIOp), a[0], t, lanes)
    if isinstance(op, arith.NegfOp):
        return Value(f.emit(f"fneg {vt} {a[0]}"))
    if isinstance(op, mathd.AbsFOp | mathd.SqrtOp):
        name = f"llvm.{'fabs' if isinstance(op, mathd.AbsFOp) else 'sqrt'}.{_mangle(t, lanes)}"
        return Value(f.emit(f.intrinsic(name, vt, [(f"{vt}", f"{a[0]}")])))
    if isinstance(op, mathd.AbsIOp):
        return Value(f.emit(f.intrinsic(f"llvm.abs.{_mangle(t, lanes)}", vt, [(f"{vt}", f"{a[0]}"), ("i1", "false")])))
    raise TesselError(f"{op.name} is not supported in image bodies", op_location(op))


def _fp_to_int(f: Func, signed: bool, x: str, t: str, lanes: int) -> Value:
    """Saturating, NaN to 0. `llvm.fpto*i.sat` to i8/i16 is scalarized on x86, so narrow
    results clamp in float (exact for these ranges) and convert through i32."""
    vf, vt = _vec("float", lanes), _vec(t, lanes)
    width = int(t[1:])
    if width > 16:
        name = f"llvm.fpto{'s' if signed else 'u'}i.sat.{_mangle(t, lanes)}.{_mangle('float', lanes)}"
        return Value(f.emit(f.intrinsic(name, vt, [(vf, x)])))
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    nan = f.emit(f"fcmp uno {vf} {x}, {x}")
    x = f.emit(f"select {_vec('i1', lanes)} {nan}, {vf} {_const(0.0, 'float', lanes)}, {vf} {x}")
    x = f.emit(f.intrinsic(f"llvm.maxnum.{_mangle('float', lanes)}", vf, [(vf, x), (vf, _const(float(lo), "float", lanes))]))
    x = f.emit(f.intrinsic(f"llvm.minnum.{_mangle('float', lanes)}", vf, [(vf, x), (vf, _const(float(hi), "float", lanes))]))
    wide = f.emit(f"fptosi {vf} {x} to {_vec('i32', lanes)}")
    return Value(f.emit(f"trunc {_vec('i32', lanes)} {wide} to {vt}"))


def _division(f: Func, op: Operation, args: list[Value], t: str, lanes: int) -> Value:
    vt, bt = _vec(t, lanes), _vec("i1", lanes)
    signed = isinstance(op, arith.DivSIOp | arith.RemSIOp)
    rem = isinstance(op, arith.RemUIOp | arith.RemSIOp)
    kind = ("s" if signed else "u") + ("rem" if rem else "div")
    x, y = args[0].text, args[1].text
    c = args[1].const
    if c is not None and c != 0 and not (signed and (int(c) & ((1 << int(t[1:])) - 1)) == (1 << int(t[1:])) - 1):
        return Value(f.emit(f"{kind} {vt} {x}, {y}"))
    zero, one = _const(0, t, lanes), _const(1, t, lanes)
    is0 = f.emit(f"icmp eq {vt} {y}, {zero}")
    bad = is0
    if signed:
        ism1 = f.emit(f"icmp eq {vt} {y}, {_const(-1, t, lanes)}")
        bad = f.emit(f"or {bt} {is0}, {ism1}")
    safe = f.emit(f"select {bt} {bad}, {vt} {one}, {vt} {y}")
    q = f.emit(f"{kind} {vt} {x}, {safe}")
    if signed:  # x / -1 wraps to -x, x % -1 is 0
        neg = zero if rem else f.emit(f"sub {vt} {zero}, {x}")
        q = f.emit(f"select {bt} {ism1}, {vt} {neg}, {vt} {q}")
    return Value(f.emit(f"select {bt} {is0}, {vt} {zero}, {vt} {q}"))


def _shift(f: Func, op: Operation, args: list[Value], t: str, lanes: int) -> Value:
    vt, bt = _vec(t, lanes), _vec("i1", lanes)
    kind = {arith.ShLIOp: "shl", arith.ShRUIOp: "lshr", arith.ShRSIOp: "ashr"}[type(op)]
    width = int(t[1:])
    x, y = args[0].text, args[1].text
    c = args[1].const
    if c is not None and 0 <= int(c) < width:
        return Value(f.emit(f"{kind} {vt} {x}, {y}"))
    big = f.emit(f"icmp uge {vt} {y}, {_const(width, t, lanes)}")
    amount = f.emit(f"select {bt} {big}, {vt} {_const(width - 1, t, lanes)}, {vt} {y}")
    r = f.emit(f"{kind} {vt} {x}, {amount}")
    if kind == "ashr":
        return Value(r)  # shifting by width-1 already gives the sign
    return Value(f.emit(f"select {bt} {big}, {vt} {_const(0, t, lanes)}, {vt} {r}"))


def fold_index(f: Func, i: str, extent: int, border: str) -> tuple[str, str | None]:
    """Map an i64 index into [0, extent) by the border; for `zero`, also an i1 that is true
    where the index was outside (the value read there is 0)."""
    if border == "zero":
        lo = f.emit(f"icmp slt i64 {i}, 0")
        hi = f.emit(f"icmp sge i64 {i}, {extent}")
        out = f.emit(f"or i1 {lo}, {hi}")
        return f.emit(f"select i1 {out}, i64 0, i64 {i}"), out
    if border == "mirror" and extent > 1:
        neg = f.emit(f"sub i64 0, {i}")
        i = f.emit(f.intrinsic("llvm.smax.i64", "i64", [(f"i64", f"{i}"), (f"i64", f"{neg}")]))  # reflect at 0
        over = f.emit(f"sub i64 {2 * extent - 2}, {i}")
        i = f.emit(f.intrinsic("llvm.smin.i64", "i64", [(f"i64", f"{i}"), (f"i64", f"{over}")]))  # reflect at extent-1
    lo = f.emit(f.intrinsic("llvm.smax.i64", "i64", [(f"i64", f"{i}"), ("i64", "0")]))
    return f.emit(f.intrinsic("llvm.smin.i64", "i64", [(f"i64", f"{lo}"), (f"i64", f"{extent - 1}")])), None


class PipelineEmitter:
    """A RowPlan -> one LLVM module with @pipeline(args, a, b)."""

    def __init__(self, plan: RowPlan, lanes_factor: int = 2):
        self.plan = plan
        # llvm.memcpy is declared by the thread-pool runtime linked in (native_plan.RUNTIME)
        self.decls: set[str] = {"declare ptr @malloc(i64)", "declare ptr @calloc(i64, i64)", "declare void @free(ptr)"}
        self.funcs: list[str] = []
        self.lanes_factor = lanes_factor
        self.n_slots = len(plan.stages) + 1  # ctx: one storage base per stage, then the zero row

    # ------------------------------------------------------------------ module

    def module(self) -> str:
        rows = [self._row_function(s) for s in self.plan.materialized() if s.op not in self.plan.inline]
        main = self._main()
        return "\n".join(sorted(self.decls)) + "\n\n" + "\n\n".join(rows + [main]) + f"\n\nattributes #0 = {{ {ATTRIBUTES} }}\n"

    def _element(self, s: Stage) -> str:
        return elem_type(s.bits, isinstance(s.value.type.element, Float32Type))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ the strip loop

    def _main(self) -> str:
        plan = self.plan
        f = Func(self.decls)
        n_in = len(plan.fn.body.block.args)
        f.do(f"%ctx = alloca [{self.n_slots} x ptr], align 8")
        todo = [s for s in plan.materialized() if s.op not in plan.inline]
        counters = {s.index: f"%next{s.index}" for s in todo}
        for s in todo:
            f.do(f"{counters[s.index]} = alloca i64, align 8")
        outs: dict[int, str] = {}
        for s in plan.stages:
            slot = f.emit(f"getelementptr ptr, ptr %ctx, i64 {s.index}")
            if s.kind == "input":
                base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %args, i64 {s.index}')}, align 8")
            elif s.op in plan.inline:
                base = "null"
            elif s.buffered:
                base = f.emit(f"call ptr @malloc(i64 {s.ring_rows * s.row_bytes + 64})")
            else:
                base = "null"
            for j in s.results:
                outs.setdefault(s.index, f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %args, i64 {n_in + j}')}, align 8"))
            if s.kind != "input" and not s.buffered:
                base = outs[s.index]
            f.do(f"store ptr {base}, ptr {slot}, align 8")
        widest = max(s.row_bytes for s in plan.stages)
        zero = f.emit(f"call ptr @calloc(i64 {widest + 64}, i64 1)")
        f.do(f"store ptr {zero}, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {len(plan.stages)}')}, align 8")
        # first rows of the strip, consumers first
        lo: dict[int, str] = {}
        for s in reversed(todo):
            want = "%a" if s.results else str(1 << 62)
            for fp in s.reads:
                v = f.emit(f"add i64 {f.emit(f'mul i64 {lo[fp.consumer]}, {fp.scale}')}, {fp.lo}")
                want = f.emit(f.intrinsic("llvm.smin.i64", "i64", [(f"i64", f"{want}"), (f"i64", f"{v}")]))
            lo[s.index] = f.emit(f.intrinsic("llvm.smax.i64", "i64", [(f"i64", f"{want}"), ("i64", "0")]))
            f.do(f"store i64 {lo[s.index]}, ptr {counters[s.index]}, align 8")

        def per_row(y: str) -> None:
            hi: dict[int, str] = {}
            for s in reversed(todo):
                want = y if s.results else "-1"
                for fp in s.reads:
                    v = f.emit(f"add i64 {f.emit(f'mul i64 {hi[fp.consumer]}, {fp.scale}')}, {fp.hi}")
                    want = f.emit(f.intrinsic("llvm.smax.i64", "i64", [(f"i64", f"{want}"), (f"i64", f"{v}")]))
                hi[s.index] = f.emit(f.intrinsic("llvm.smin.i64", "i64", [(f"i64", f"{want}"), (f"i64", f"{s.shape[0] - 1}")]))
            for s in todo:
                start = f.emit(f"load i64, ptr {counters[s.index]}, align 8")
                end = f.emit(f"add i64 {hi[s.index]}, 1")
                f.loop(start, end, 1, lambda r, s=s: self._compute_row(f, s, r, outs), prefix="r")
                top = f.emit(f.intrinsic("llvm.smax.i64", "i64", [(f"i64", f"{start}"), (f"i64", f"{end}")]))
                f.do(f"store i64 {top}, ptr {counters[s.index]}, align 8")

        f.loop("%a", "%b", 1, per_row, prefix="y")
        for s in todo:
            if s.buffered:
                slot = f.emit(f"getelementptr ptr, ptr %ctx, i64 {s.index}")
                f.do(f"call void @free(ptr {f.emit(f'load ptr, ptr {slot}, align 8')})")
        f.do(f"call void @free(ptr {zero})")
        f.do("ret void")
        return f"define void @{ENTRY}(ptr noalias %args, i64 %a, i64 %b) #0 {{\nentry:\n" + "\n".join(f.lines) + "\n}"

    def _compute_row(self, f: Func, s: Stage, r: str, outs: dict[int, str]) -> None:
        if s.buffered:
            slot = f.emit(f"urem i64 {r}, {s.ring_rows}")
            base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {s.index}')}, align 8")
            dst = f.emit(f"getelementptr i8, ptr {base}, i64 {f.emit(f'mul i64 {slot}, {s.row_bytes}')}")
        else:
            dst = f.emit(f"getelementptr i8, ptr {outs[s.index]}, i64 {f.emit(f'mul i64 {r}, {s.row_bytes}')}")
        f.do(f"call void @row{s.index}(ptr %ctx, ptr {dst}, i64 {r})")
        if s.buffered and s.results:  # a result that is also read: copy the strip's own rows out
            inside = f.emit(f"and i1 {f.emit(f'icmp sge i64 {r}, %a')}, {f.emit(f'icmp slt i64 {r}, %b')}")
            yes, no = f.tmp("cp")[1:], f.tmp("cpx")[1:]
            f.do(f"br i1 {inside}, label %{yes}, label %{no}")
            f.label(yes)
            out = f.emit(f"getelementptr i8, ptr {outs[s.index]}, i64 {f.emit(f'mul i64 {r}, {s.row_bytes}')}")
            f.do(f"call void @llvm.memcpy.p0.p0.i64(ptr {out}, ptr {dst}, i64 {s.row_bytes}, i1 false)")
            f.do(f"br label %{no}")
            f.label(no)

    # ------------------------------------------------------------------ one row of a stage

    def _row_function(self, s: Stage) -> str:
        f = Func(self.decls)
        if s.kind == "expr":
            ExprRow(self, f, s).emit()
        elif s.kind == "downsample":
            _downsample_row(self, f, s)
        else:
            _crop_row(self, f, s)
        f.do("ret void")
        return (f"define internal void @row{s.index}(ptr noalias %ctx, ptr noalias %dst, i64 %r) #0 {{\nentry:\n"
                + "\n".join(f.lines) + "\n}")  # fmt: skip

    def row_pointer(self, f: Func, src: Stage, row: str, zero: str | None) -> str:
        """Address of row `row` (already inside the frame) of a materialized stage or input."""
        base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {src.index}')}, align 8")
        if src.buffered:
            row = f.emit(f"urem i64 {row}, {src.ring_rows}")
        p = f.emit(f"getelementptr i8, ptr {base}, i64 {f.emit(f'mul i64 {row}, {src.row_bytes}')}")
        if zero is None:
            return p
        zrow = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {len(self.plan.stages)}')}, align 8")
        return f.emit(f"select i1 {zero}, ptr {zrow}, ptr {p}")

    def lanes_for(self, bits: int) -> int:
        return max(1, self.lanes_factor * 512 // bits)


def _body_bits(op: Operation, plan: RowPlan, seen: set | None = None) -> int:
    """The widest scalar in op's body and the bodies of the inline producers it reads."""
    seen = set() if seen is None else seen
    bits = 8
    for inner in op.regions[0].block.ops:  # type: ignore[union-attr]
        for r in list(inner.results) + list(inner.operands):
            if isinstance(r.type, IntegerType | Float32Type) and r.type != IntegerType(1):
                bits = max(bits, _bits(r.type))
    for v in op.operands:
        p = plan.by_value[v]
        if p.op is not None and p.op in plan.inline and p.op not in seen:
            seen.add(p.op)
            bits = max(bits, _body_bits(p.op, plan, seen))
    return bits


class ExprRow:
    """A row of a map/stencil stage (with its inline producers)."""

    def __init__(self, em: PipelineEmitter, f: Func, s: Stage):
        self.em, self.f, self.s = em, f, s
        self.plan = em.plan
        self.h, self.w, self.c = s.shape

    def leaves(self, op: Operation, rows: Chain, cols: Chain, out: set) -> None:
        """Every (source stage, row chain, column chain) the body reads."""
        for v, dy, dx, border in _taps(op):
            src = self.plan.by_value[v]
            r2 = rows + ((dy, border, src.shape[0]),)
            c2 = cols + ((dx, border, src.shape[1]),)
            if src.op is not None and src.op in self.plan.inline:
                self.leaves(src.op, r2, c2, out)
            else:
                out.add((src.index, r2, c2))

    def emit(self) -> None:
        f, s = self.f, self.s
        leaves: set = set()
        self.leaves(s.op, (), (), leaves)  # type: ignore[arg-type]
        # row pointers, one per (source, row chain)
        self.rowptr: dict[tuple, str] = {}
        for src, rows, _ in sorted(leaves, key=str):
            if (src, rows) in self.rowptr:
                continue
            i, zero = "%r", None
            for dy, border, extent in rows:
                i = f.emit(f"add i64 {i}, {dy}")
                i, z = fold_index(f, i, extent, border)
                zero = z or zero
            self.rowptr[(src, rows)] = self.em.row_pointer(f, self.plan.stages[src], i, zero)
        left = max((sum(max(-dx, 0) for dx, _, _ in cols) for _, _, cols in leaves), default=0)
        right = max((sum(max(dx, 0) for dx, _, _ in cols) for _, _, cols in leaves), default=0)
        n = self.w * self.c
        lo, hi = min(left, self.w) * self.c, max(self.w - right, 0) * self.c
        lanes = self.em.lanes_for(_body_bits(s.op, self.plan))  # type: ignore[arg-type]
        if hi - lo >= lanes:
            f.loop(str(lo), str(hi - lanes + 1), lanes, lambda e: self.vector_at(e, lanes), prefix="v")
            self.vector_at(str(hi - lanes), lanes)  # the last vector overlaps the previous one
            edges = [(0, lo), (hi, n)]
        else:
            edges = [(0, n)]
        for a, b in edges:
            if b > a:
                f.loop(str(a), str(b), 1, self.scalar_at, prefix="e")

    def vector_at(self, e: str, lanes: int) -> None:
        memo: dict = {}

        def load(src: int, rows: Chain, cols: Chain) -> Value:
            stage = self.plan.stages[src]
            t = self.em._element(stage)
            dx = sum(d for d, _, _ in cols)
            idx = self.f.emit(f"add i64 {e}, {dx * stage.shape[2]}") if dx else e
            p = self.f.emit(f"getelementptr {t}, ptr {self.rowptr[(src, rows)]}, i64 {idx}")
            return Value(self.f.emit(f"load {_vec(t, lanes)}, ptr {p}, align 1"))

        v = self.value(self.s.op, (), (), lanes, load, memo)  # type: ignore[arg-type]
        t = self.em._element(self.s)
        p = self.f.emit(f"getelementptr {t}, ptr %dst, i64 {e}")
        self.f.do(f"store {_vec(t, lanes)} {v.text}, ptr {p}, align 1")

    def scalar_at(self, e: str) -> None:
        f = self.f
        c = self.c
        x, ch = (f.emit(f"udiv i64 {e}, {c}"), f.emit(f"urem i64 {e}, {c}")) if c > 1 else (e, "0")
        memo: dict = {}

        def load(src: int, rows: Chain, cols: Chain) -> Value:
            stage = self.plan.stages[src]
            t = self.em._element(stage)
            i, zero = x, None
            for dx, border, extent in cols:
                i = f.emit(f"add i64 {i}, {dx}")
                i, z = fold_index(f, i, extent, border)
                zero = z or zero
            idx = f.emit(f"add i64 {f.emit(f'mul i64 {i}, {stage.shape[2]}')}, {ch}") if stage.shape[2] > 1 else i
            v = f.emit(f"load {t}, ptr {f.emit(f'getelementptr {t}, ptr {self.rowptr[(src, rows)]}, i64 {idx}')}, align 1")
            if zero is not None:
                v = f.emit(f"select i1 {zero}, {t} {_const(0, t, 1)}, {t} {v}")
            return Value(v)

        v = self.value(self.s.op, (), (), 1, load, memo)  # type: ignore[arg-type]
        t = self.em._element(self.s)
        f.do(f"store {t} {v.text}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {e}')}, align 1")

    def value(self, op: Operation, rows: Chain, cols: Chain, lanes: int, load, memo: dict) -> Value:
        """The op's result at the position reached through (rows, cols)."""
        key = (id(op), rows, cols)
        if key in memo:
            return memo[key]
        block = op.regions[0].block
        args: list[Value] = []
        for (v, dy, dx, border), arg in zip(_taps(op), block.args):
            src = self.plan.by_value[v]
            r2 = rows + ((dy, border, src.shape[0]),)
            c2 = cols + ((dx, border, src.shape[1]),)
            k2 = (src.index, r2, c2)
            if src.op is not None and src.op in self.plan.inline:
                args.append(self.value(src.op, r2, c2, lanes, load, memo))
            else:
                if k2 not in memo:
                    memo[k2] = load(src.index, r2, c2)
                args.append(memo[k2])
        env: dict[SSAValue, Value] = dict(zip(block.args, args))
        for inner in block.ops:
            if isinstance(inner, img.YieldOp):
                memo[key] = env[inner.values[0]]
                return memo[key]
            env[inner.results[0]] = emit_op(self.f, inner, [env[a] for a in inner.operands], lanes)
        raise TesselError("image body has no img.yield", op_location(op))


def _taps(op: Operation) -> list[tuple[SSAValue, int, int, str]]:
    """(input, dy, dx, border) for each body argument, in order."""
    if isinstance(op, img.MapOp):
        return [(v, 0, 0, "clamp") for v in op.inputs]
    assert isinstance(op, img.StencilOp)
    kh, kw = op.size
    top, left = (kh - 1) // 2, (kw - 1) // 2
    return [(op.input, i // kw - top, i % kw - left, op.border.data) for i in range(kh * kw)]


def _downsample_row(em: PipelineEmitter, f: Func, s: Stage) -> None:
    op = s.op
    assert isinstance(op, img.DownsampleOp)
    src = em.plan.by_value[op.input]
    fy, fx = (int(v) for v in op.factor.get_values())
    nearest = op.mode.data == "nearest"
    t = em._element(s)
    is_float = t == "float"
    signed = not is_float and not img.types.element_name(s.value.type.element).startswith("u")  # type: ignore[attr-defined]
    c = s.shape[2]
    n_out = s.shape[1] * c
    n = fy * fx
    acc = "float" if is_float else ("i16" if s.bits == 8 and n <= 256 else "i32" if s.bits <= 16 else "i64")
    rows = [em.row_pointer(f, src, f.emit(f"add i64 {f.emit(f'mul i64 %r, {fy}')}, {i}"), None) for i in range(1 if nearest else fy)]
    base_lanes = em.lanes_for(int(acc[1:]) if not is_float else 32)
    lanes = max(c, base_lanes // c * c)

    def block_at(e: str, width: int) -> None:
        total = None
        for p in rows:
            at = f.emit(f"mul i64 {e}, {fx}")
            wide = f.emit(f"load {_vec(t, width * fx)}, ptr {f.emit(f'getelementptr {t}, ptr {p}, i64 {at}')}, align 1")
            for j in range(1 if nearest else fx):
                if width == 1 and fx == 1:
                    part = wide
                else:
                    mask = ", ".join(f"i32 {(k // c * fx + j) * c + k % c}" for k in range(width))
                    part = f.emit(f"shufflevector {_vec(t, width * fx)} {wide}, {_vec(t, width * fx)} poison, <{width} x i32> <{mask}>")
                    if width == 1:
                        part = f.emit(f"extractelement <1 x {t}> {part}, i64 0")
                if nearest:
                    total = part
                    continue
                if not is_float:
                    part = f.emit(f"{'sext' if signed else 'zext'} {_vec(t, width)} {part} to {_vec(acc, width)}")
                if total is None:
                    total = part
                else:
                    total = f.emit(f"{'fadd' if is_float else 'add'} {_vec(acc, width)} {total}, {part}")
        if not nearest:
            va = _vec(acc, width)
            if is_float:
                total = f.emit(f"fdiv {va} {total}, {_const(float(n), 'float', width)}")
            else:
                biased = f.emit(f"add {va} {total}, {_const(n // 2, acc, width)}")
                if signed:  # floor division, as the reference's (sum + n//2) // n
                    q = f.emit(f"sdiv {va} {biased}, {_const(n, acc, width)}")
                    r = f.emit(f"srem {va} {biased}, {_const(n, acc, width)}")
                    fix = f.emit(f"and {_vec('i1', width)} {f.emit(f'icmp ne {va} {r}, {_const(0, acc, width)}')}, "
                                 f"{f.emit(f'icmp slt {va} {biased}, {_const(0, acc, width)}')}")  # fmt: skip
                    bits1 = _vec("i1", width)
                    total = f.emit(f"sub {va} {q}, {f.emit(f'zext {bits1} {fix} to {va}')}")
                else:
                    total = f.emit(f"udiv {va} {biased}, {_const(n, acc, width)}")
                total = f.emit(f"trunc {va} {total} to {_vec(t, width)}")
        f.do(f"store {_vec(t, width)} {total}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {e}')}, align 1")

    full = n_out // lanes * lanes
    if full:
        f.loop("0", str(full), lanes, lambda e: block_at(e, lanes), prefix="v")
    if full < n_out:
        f.loop(str(full), str(n_out), c, lambda e: block_at(e, c), prefix="e")


def _crop_row(em: PipelineEmitter, f: Func, s: Stage) -> None:
    op = s.op
    assert isinstance(op, img.CropOp)
    src = em.plan.by_value[op.input]
    y, x, _, _ = (int(v) for v in op.roi.get_values())
    p = em.row_pointer(f, src, f.emit(f"add i64 %r, {y}"), None)
    start = f.emit(f"getelementptr i8, ptr {p}, i64 {x * src.shape[2] * src.bits // 8}")
    f.do(f"call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr {start}, i64 {s.row_bytes}, i1 false)")


def emit_pipeline(plan: RowPlan, lanes_factor: int = 2) -> str:
    """The LLVM module of a planned pipeline; entry `@pipeline(ptr args, i64 a, i64 b)`
    with args = input base pointers, then output base pointers."""
    return PipelineEmitter(plan, lanes_factor).module()
