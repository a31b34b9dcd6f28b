"""The vocabulary of the CPU emitter (llvm_emit.py): LLVM type names and literals of xDSL
types and attributes, and the tables from arith/math/vector ops to LLVM instructions,
intrinsics and libm or polynomial calls. Data and small pure functions, shared with the
GPU emitter, which prints the same instructions for NVPTX.
"""

from __future__ import annotations

import struct

from xdsl.dialects import arith, llvm
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from tessel.dialects.arith_vectors import CAST_FORMS
from tessel.ir.predicates import CMPF_PREDICATES, CMPI_PREDICATES


def llvm_type(t: Attribute) -> str:
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type):
        return "half"
    if isinstance(t, BFloat16Type):
        return "bfloat"
    if isinstance(t, VectorType):
        return f"<{t.get_shape()[0]} x {llvm_type(t.element_type)}>"
    if isinstance(t, MemRefType):
        return "ptr"
    raise NotImplementedError(f"no LLVM type for {t}")


def scalar_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def mangle(t: Attribute) -> str:
    """The type suffix of overloaded intrinsics: f32, v16f32, i64, v8i1."""
    s = scalar_of(t)
    base = {"float": "f32", "double": "f64", "half": "f16", "bfloat": "bf16"}.get(llvm_type(s), llvm_type(s))
    return f"v{t.get_shape()[0]}{base}" if isinstance(t, VectorType) else base


def float_literal(value: float, t: Attribute) -> str:
    if isinstance(t, Float16Type):
        return "0xH" + struct.pack(">e", value).hex().upper()
    if isinstance(t, BFloat16Type):
        return "0xR" + struct.pack(">f", value).hex().upper()[:4]
    if isinstance(t, Float32Type):
        value = struct.unpack(">f", struct.pack(">f", value))[0]  # exactly representable in float
    return "0x" + struct.pack(">d", value).hex().upper()


def constant_literal(attr: Attribute) -> str:
    if isinstance(attr, FloatAttr):
        return float_literal(attr.value.data, attr.type)
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return "true" if attr.value.data else "false"
        return str(attr.value.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        et = attr.get_element_type()
        values = attr.get_values() if hasattr(attr, "get_values") else attr.iter_values()
        lanes = ", ".join(f"{llvm_type(et)} {_scalar_literal(v, et)}" for v in values)
        return f"<{lanes}>"
    raise NotImplementedError(f"constant {attr}")


def _scalar_literal(v, et: Attribute) -> str:
    if isinstance(et, IntegerType | IndexType):
        if isinstance(et, IntegerType) and et.width.data == 1:
            return "true" if v else "false"
        return str(int(v))
    return float_literal(float(v), et)


ICMP = {
    "eq": "eq",
    "ne": "ne",
    "slt": "slt",
    "sle": "sle",
    "sgt": "sgt",
    "sge": "sge",
    "ult": "ult",
    "ule": "ule",
    "ugt": "ugt",
    "uge": "uge",
}
ICMP_BY_INDEX = CMPI_PREDICATES
FCMP_BY_INDEX = CMPF_PREDICATES

BINARY = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.DivSIOp: "sdiv",
    arith.DivUIOp: "udiv",
    arith.RemSIOp: "srem",
    arith.RemUIOp: "urem",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
    arith.ShRSIOp: "ashr",
    arith.ShRUIOp: "lshr",
    arith.ShLIOp: "shl",
    llvm.FRemOp: "frem",  # C's fmod (xDSL's arith has no remf)
}
INTRINSIC_BINARY = {
    arith.MaximumfOp: "llvm.maximum",
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maxnum",
    arith.MinnumfOp: "llvm.minnum",
    arith.MaxSIOp: "llvm.smax",
    arith.MinSIOp: "llvm.smin",
    arith.MaxUIOp: "llvm.umax",
    arith.MinUIOp: "llvm.umin",
    mathd.CopySignOp: "llvm.copysign",
}
CASTS = {
    arith.ExtFOp: "fpext",
    arith.TruncFOp: "fptrunc",
    arith.SIToFPOp: "sitofp",
    arith.UIToFPOp: "uitofp",
    arith.FPToSIOp: "fptosi",
    arith.FPToUIOp: "fptoui",
    arith.ExtSIOp: "sext",
    arith.ExtUIOp: "zext",
    arith.TruncIOp: "trunc",
    arith.BitcastOp: "bitcast",
}
# the vector-accepting forms Tessel's context parses these ops as (dialects/arith_vectors.py)
CASTS.update({vector_form: CASTS[upstream] for upstream, vector_form in CAST_FORMS.items()})
MATH_INTRINSICS: dict[type[Operation], str] = {
    mathd.ExpOp: "llvm.exp",
    mathd.SqrtOp: "llvm.sqrt",
    mathd.LogOp: "llvm.log",
    mathd.AbsFOp: "llvm.fabs",
    mathd.FloorOp: "llvm.floor",
    mathd.CeilOp: "llvm.ceil",
    mathd.RoundEvenOp: "llvm.roundeven",
}
# scalar libm functions, per lane (f32: the `f` variant)
LIBM: dict[type[Operation], str] = {
    mathd.TanhOp: "tanh",
    mathd.ErfOp: "erf",
    mathd.ExpM1Op: "expm1",
    mathd.Log1pOp: "log1p",
    mathd.SinOp: "sin",
    mathd.CosOp: "cos",
    mathd.TanOp: "tan",
    mathd.AsinOp: "asin",
    mathd.AcosOp: "acos",
    mathd.AtanOp: "atan",
    mathd.SinhOp: "sinh",
    mathd.CoshOp: "cosh",
    mathd.AsinhOp: "asinh",
    mathd.AcoshOp: "acosh",
    mathd.AtanhOp: "atanh",
}
LIBM_BINARY: dict[type[Operation], str] = {mathd.PowFOp: "pow"}
# float32 (scalar and vector) goes to the polynomial versions of vector_math.py.
POLYNOMIAL: dict[type[Operation], str] = {
    mathd.ExpOp: "exp",
    mathd.LogOp: "log",
    mathd.TanhOp: "tanh",
    mathd.ErfOp: "erf",
    mathd.ExpM1Op: "expm1",
    mathd.Log1pOp: "log1p",
}
