"""Element-wise `tg` ops: numpy-broadcasting binaries, unaries, clip, gelu and casts.

All are injective. Binary ops broadcast like numpy/ONNX and need equal element types:
    %z = tg.add %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
Unary ops keep the type:
    %y = tg.relu %x : tensor<3x4xf32>

The element-wise primitives other operators are built from, by module:
- here: tg.add, tg.sub, tg.mul, tg.div, tg.neg, tg.exp, tg.sqrt, tg.relu, tg.sigmoid,
  tg.tanh, tg.gelu, tg.clip, tg.shift_right, tg.cast, tg.bitcast;
- math.py: tg.abs, tg.sign, tg.reciprocal, tg.floor, tg.ceil, tg.round, tg.log, tg.expm1,
  tg.log1p, tg.erf, tg.sin, tg.cos, tg.tan, tg.asin, tg.acos, tg.atan, tg.sinh, tg.cosh,
  tg.asinh, tg.acosh, tg.atanh; binary tg.min, tg.max, tg.pow, tg.mod (`fmod`);
- logic.py: comparisons tg.equal, tg.less, tg.greater, tg.less_equal, tg.greater_equal
  (i1 results); tg.and, tg.or, tg.xor, tg.not (logical on i1, bitwise on integers);
  tg.where (select, three-way broadcast); tg.isnan, tg.isinf; tg.bitshift.
Activations (LeakyRelu, Elu, HardSwish, Softplus, ...) are compositions of these, made
by the ONNX importer (frontends/onnx/ops_activation.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, Signedness, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tessel.ir import dtypes

from .base import INJECTIVE, Elementwise, Props, TgOp, broadcast_shapes, integer, require, same_element_type, string

# --------------------------------------------------------------------------- binary


class BinaryOp(TgOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b = operand_types
        et = same_element_type([a, b])
        require(not dtypes.is_bool(et), lambda: f"{cls.name} does not take booleans")
        return [TensorType(et, broadcast_shapes(a.get_shape(), b.get_shape()))]


@irdl_op_definition
class AddOp(BinaryOp):
    name = "tg.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "tg.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "tg.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """Division; on integers it truncates toward zero (ONNX Div, C semantics)."""

    name = "tg.div"


# --------------------------------------------------------------------------- unary

# Which element types a unary op accepts.
FLOATS = "float"
SIGNED = "signed"  # floats and signed integers
NUMBERS = "number"  # floats and all integers


def check_kind(op_name: str, et: Attribute, kind: str) -> None:
    if dtypes.is_float(et):
        return
    signed = dtypes.is_integer(et) and isinstance(et, IntegerType) and et.signedness.data != Signedness.UNSIGNED
    ok = (kind == SIGNED and signed) or (kind == NUMBERS and dtypes.is_integer(et))
    expected = {FLOATS: "a float", SIGNED: "a float or signed integer", NUMBERS: "a numeric"}[kind]
    require(ok, lambda: f"{op_name} needs {expected} element type, got {et}")


class UnaryOp(TgOp):
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input attr-dict `:` type($input)"
    ACCEPTS: ClassVar[str] = FLOATS

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (t,) = operand_types
        check_kind(cls.name, t.element_type, cls.ACCEPTS)
        return [t]


@irdl_op_definition
class NegOp(UnaryOp):
    name = "tg.neg"
    ACCEPTS: ClassVar[str] = SIGNED


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "tg.exp"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "tg.sqrt"


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "tg.relu"
    ACCEPTS: ClassVar[str] = SIGNED


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "tg.sigmoid"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "tg.tanh"


@irdl_op_definition
class GeluOp(UnaryOp):
    """x * Phi(x); `approximate = "tanh"` selects the tanh formula of ONNX Gelu."""

    name = "tg.gelu"
    approximate = opt_prop_def(StringAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        string(props, "approximate", ("none", "tanh"), default="none")
        return super().infer_result_types(operand_types, props)


@irdl_op_definition
class ClipOp(UnaryOp):
    """min(max(x, min), max); either bound may be absent. Bounds are typed like the elements."""

    name = "tg.clip"
    min = opt_prop_def(Attribute)
    max = opt_prop_def(Attribute)
    ACCEPTS: ClassVar[str] = NUMBERS

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (t,) = operand_types
        for key in ("min", "max"):
            if (bound := props.get(key)) is not None:
                check_scalar_attr(bound, t.element_type, f"property '{key}'")
        return super().infer_result_types(operand_types, props)


def check_scalar_attr(attr: Attribute, element_type: Attribute, what: str) -> None:
    """A scalar property must have exactly the tensor's element type (`0.5 : f16`, `3 : ui8`)."""
    if isinstance(attr, FloatAttr | IntegerAttr) and attr.type == element_type:
        return
    raise VerifyException(f"{what} must be a {element_type} scalar, got {attr}")


@irdl_op_definition
class ShiftRightOp(UnaryOp):
    """Arithmetic shift right by a constant, `floor(x / 2^amount)`: the requantizing step of
    an int8 layer (TVM's `right_shift`; VTA's ALU SHR). ONNX BitShift is unsigned-only, and
    `tg.div` truncates toward zero, so neither means this on negative accumulators."""

    name = "tg.shift_right"
    amount = prop_def(IntegerAttr)
    ACCEPTS: ClassVar[str] = NUMBERS

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (t,) = operand_types
        require(
            dtypes.is_integer(t.element_type), lambda: f"{cls.name} needs an integer element type, got {t.element_type}"
        )
        width = t.element_type.width.data  # type: ignore[attr-defined]
        amount = integer(props, "amount")
        require(0 <= amount < width, lambda: f"amount={amount} must be in [0, {width}) for {t.element_type}")
        return super().infer_result_types(operand_types, props)


# --------------------------------------------------------------------------- cast


@irdl_op_definition
class CastOp(TgOp):
    """Element type conversion (ONNX Cast), numpy's astype: floats to integers truncate
    toward zero; a value outside the conversion's range, or NaN, converts as numpy does on
    x86-64 (the conversion's "integer indefinite", its most negative value, with types
    narrower than 32 bits converted through 32 bits and wrapped, ui32 through 64 bits); a
    float is true where it is not zero (NaN included)."""

    name = "tg.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        require(
            operand_types[0].get_shape() == result_types[0].get_shape(),
            lambda: f"result shape must equal the input shape {operand_types[0].get_shape()}",
        )


def storage_bits(element_type: Attribute) -> int:
    """Bits an element occupies in memory (a boolean is a byte, as in ONNX and numpy)."""
    return dtypes.to_numpy(element_type).itemsize * 8


@irdl_op_definition
class BitcastOp(TgOp):
    """The same bits read as another element type of the same width (ONNX BitCast):
    `tg.bitcast %x : tensor<4xf32> -> tensor<4xi32>`; a boolean is one byte."""

    name = "tg.bitcast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (src,), (dst,) = operand_types, result_types
        require(
            src.get_shape() == dst.get_shape(), lambda: f"result shape must equal the input shape {src.get_shape()}"
        )
        if dtypes.is_supported(src.element_type) and dtypes.is_supported(dst.element_type):
            a, b = storage_bits(src.element_type), storage_bits(dst.element_type)
            require(a == b, lambda: f"{src.element_type} ({a} bits) and {dst.element_type} ({b} bits) differ in width")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        t = self.result.type
        assert isinstance(t, TensorType)
        return [np.array(args[0], order="C").view(dtypes.to_numpy(t.element_type))]
