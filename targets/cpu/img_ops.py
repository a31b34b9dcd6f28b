"""One image-body operation as LLVM IR on <lanes x T> vectors (or scalars when lanes is 1).

The arithmetic of `img.map`/`img.stencil` bodies, shared by the vector interior and the
scalar border code of every row function (targets/cpu/img_llvm.py). Values MLIR leaves
undefined get the reference's meaning (dialects/img/scalar.py): integer division by zero is
0, over-wide shifts are 0 (or the sign), float-to-integer conversions saturate.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation

from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.predicates import CMPF_PREDICATES, CMPI_PREDICATES
from tessel.targets.cpu.llvm_tables import CASTS, float_literal


def elem_type(bits: int, is_float: bool) -> str:
    return "float" if is_float else f"i{bits}"


def _scalar(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    raise TesselError(f"image bodies compute on integers and f32, not {t}")


def bits_of(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return 32  # f32


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


def vec_type(t: str, lanes: int) -> str:
    return t if lanes == 1 else f"<{lanes} x {t}>"


def _mangle(t: str, lanes: int) -> str:
    base = "f32" if t == "float" else t
    return base if lanes == 1 else f"v{lanes}{base}"


def const(value: int | float, t: str, lanes: int) -> str:
    if t == "float":
        lit = float_literal(float(value), Float32Type())
    elif t == "i1":
        lit = "true" if value else "false"
    else:
        bits = int(t[1:])
        v = int(value) & ((1 << bits) - 1)
        lit = str(v - (1 << bits) if v >= 1 << (bits - 1) else v)
    return lit if lanes == 1 else f"splat ({t} {lit})"


_INT_BINARY: dict[type[Operation], str] = {arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul", arith.AndIOp: "and", arith.OrIOp: "or",
               arith.XOrIOp: "xor"}  # fmt: skip
_FLOAT_BINARY: dict[type[Operation], str] = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}
_MINMAX: dict[type[Operation], str] = {arith.MaxUIOp: "umax", arith.MinUIOp: "umin", arith.MaxSIOp: "smax", arith.MinSIOp: "smin",
           arith.MaximumfOp: "maximum", arith.MinimumfOp: "minimum"}  # fmt: skip


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
    vt = vec_type(t, lanes)
    a = [x.text for x in args]
    if isinstance(op, arith.ConstantOp):
        v = op.value
        if isinstance(v, IntegerAttr):
            return Value(const(v.value.data, t, lanes), v.value.data)
        if isinstance(v, FloatAttr):
            return Value(const(v.value.data, t, lanes), v.value.data)
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
        src = vec_type(_scalar(op.lhs.type), lanes)
        return Value(f.emit(f"icmp {CMPI_PREDICATES[op.predicate.value.data]} {src} {a[0]}, {a[1]}"))
    if isinstance(op, arith.CmpfOp):
        pred = CMPF_PREDICATES[op.predicate.value.data]
        if pred in ("false", "true", "ord", "uno"):
            raise TesselError(f"arith.cmpf predicate {pred} is not supported in image bodies", op_location(op))
        return Value(f.emit(f"fcmp {pred} {vec_type('float', lanes)} {a[0]}, {a[1]}"))
    if isinstance(op, arith.SelectOp):
        return Value(f.emit(f"select {vec_type('i1', lanes)} {a[0]}, {vt} {a[1]}, {vt} {a[2]}"))
    if isinstance(op, arith.ExtUIOp | arith.ExtSIOp | arith.TruncIOp | arith.UIToFPOp | arith.SIToFPOp):
        src_t = _scalar(op.operands[0].type)
        kind = CASTS[type(op)]  # (the class Tessel's context parsed: upstream or its vector form)
        return Value(f.emit(f"{kind} {vec_type(src_t, lanes)} {a[0]} to {vt}"))
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
    vf, vt = vec_type("float", lanes), vec_type(t, lanes)
    width = int(t[1:])
    if width > 16:
        name = f"llvm.fpto{'s' if signed else 'u'}i.sat.{_mangle(t, lanes)}.{_mangle('float', lanes)}"
        return Value(f.emit(f.intrinsic(name, vt, [(vf, x)])))
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    nan = f.emit(f"fcmp uno {vf} {x}, {x}")
    x = f.emit(f"select {vec_type('i1', lanes)} {nan}, {vf} {const(0.0, 'float', lanes)}, {vf} {x}")
    x = f.emit(
        f.intrinsic(f"llvm.maxnum.{_mangle('float', lanes)}", vf, [(vf, x), (vf, const(float(lo), "float", lanes))])
    )
    x = f.emit(
        f.intrinsic(f"llvm.minnum.{_mangle('float', lanes)}", vf, [(vf, x), (vf, const(float(hi), "float", lanes))])
    )
    wide = f.emit(f"fptosi {vf} {x} to {vec_type('i32', lanes)}")
    return Value(f.emit(f"trunc {vec_type('i32', lanes)} {wide} to {vt}"))


def _division(f: Func, op: Operation, args: list[Value], t: str, lanes: int) -> Value:
    vt, bt = vec_type(t, lanes), vec_type("i1", lanes)
    signed = isinstance(op, arith.DivSIOp | arith.RemSIOp)
    rem = isinstance(op, arith.RemUIOp | arith.RemSIOp)
    kind = ("s" if signed else "u") + ("rem" if rem else "div")
    x, y = args[0].text, args[1].text
    c = args[1].const
    if c is not None and c != 0 and not (signed and (int(c) & ((1 << int(t[1:])) - 1)) == (1 << int(t[1:])) - 1):
        return Value(f.emit(f"{kind} {vt} {x}, {y}"))
    zero, one = const(0, t, lanes), const(1, t, lanes)
    is0 = f.emit(f"icmp eq {vt} {y}, {zero}")
    bad = is0
    if signed:
        ism1 = f.emit(f"icmp eq {vt} {y}, {const(-1, t, lanes)}")
        bad = f.emit(f"or {bt} {is0}, {ism1}")
    safe = f.emit(f"select {bt} {bad}, {vt} {one}, {vt} {y}")
    q = f.emit(f"{kind} {vt} {x}, {safe}")
    if signed:  # x / -1 wraps to -x, x % -1 is 0
        neg = zero if rem else f.emit(f"sub {vt} {zero}, {x}")
        q = f.emit(f"select {bt} {ism1}, {vt} {neg}, {vt} {q}")
    return Value(f.emit(f"select {bt} {is0}, {vt} {zero}, {vt} {q}"))


def _shift(f: Func, op: Operation, args: list[Value], t: str, lanes: int) -> Value:
    vt, bt = vec_type(t, lanes), vec_type("i1", lanes)
    kind = {arith.ShLIOp: "shl", arith.ShRUIOp: "lshr", arith.ShRSIOp: "ashr"}[type(op)]
    width = int(t[1:])
    x, y = args[0].text, args[1].text
    c = args[1].const
    if c is not None and 0 <= int(c) < width:
        return Value(f.emit(f"{kind} {vt} {x}, {y}"))
    big = f.emit(f"icmp uge {vt} {y}, {const(width, t, lanes)}")
    amount = f.emit(f"select {bt} {big}, {vt} {const(width - 1, t, lanes)}, {vt} {y}")
    r = f.emit(f"{kind} {vt} {x}, {amount}")
    if kind == "ashr":
        return Value(r)  # shifting by width-1 already gives the sign
    return Value(f.emit(f"select {bt} {big}, {vt} {const(0, t, lanes)}, {vt} {r}"))
