"""Comparison, logic, selection and bit `tg` ops: the element-wise ops with boolean
(`i1`) operands or results.

All are injective and element-wise. Comparisons take two operands of one element type
(numbers or booleans), broadcast like numpy and give booleans; a comparison with NaN is
false (IEEE ordered predicates):
    %b = tg.less %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
`tg.and`/`tg.or`/`tg.xor`/`tg.not` are logical on booleans and bitwise on integers.
`tg.where` selects per element from a boolean condition, broadcasting all three operands:
    %z = tg.where %c, %x, %y : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
`tg.bitshift` shifts integers by per-element amounts as ONNX BitShift does: a shift by a
negative amount or by the width or more gives 0 (left) or the sign fill (right).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, TensorType, i1
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import INJECTIVE, Elementwise, Props, TgOp, broadcast_shapes, flag, require, same_element_type, string
from .elementwise import FLOATS, UnaryOp, check_kind
from .reference import bitshift, wide

# --------------------------------------------------------------------------- comparisons


class CompareOp(TgOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
    FUNCTION: ClassVar[Callable[..., Any]]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b = operand_types
        same_element_type([a, b])
        return [TensorType(i1, broadcast_shapes(a.get_shape(), b.get_shape()))]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [type(self).FUNCTION(wide(args[0]), wide(args[1]))]


@irdl_op_definition
class EqualOp(CompareOp):
    name = "tg.equal"
    FUNCTION = staticmethod(np.equal)


@irdl_op_definition
class LessOp(CompareOp):
    name = "tg.less"
    FUNCTION = staticmethod(np.less)


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "tg.greater"
    FUNCTION = staticmethod(np.greater)


@irdl_op_definition
class LessEqualOp(CompareOp):
    name = "tg.less_equal"
    FUNCTION = staticmethod(np.less_equal)


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    name = "tg.greater_equal"
    FUNCTION = staticmethod(np.greater_equal)


# --------------------------------------------------------------------------- logic


class LogicOp(TgOp):
    """Booleans or integers of one type, broadcast; the result has that type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"
    FUNCTION: ClassVar[Callable[..., Any]]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b = operand_types
        et = same_element_type([a, b])
        require(isinstance(et, IntegerType), lambda: f"{cls.name} needs boolean or integer operands, got {et}")
        return [TensorType(et, broadcast_shapes(a.get_shape(), b.get_shape()))]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [type(self).FUNCTION(args[0], args[1])]


@irdl_op_definition
class AndOp(LogicOp):
    name = "tg.and"
    FUNCTION = staticmethod(np.bitwise_and)


@irdl_op_definition
class OrOp(LogicOp):
    name = "tg.or"
    FUNCTION = staticmethod(np.bitwise_or)


@irdl_op_definition
class XorOp(LogicOp):
    name = "tg.xor"
    FUNCTION = staticmethod(np.bitwise_xor)


@irdl_op_definition
class NotOp(UnaryOp):
    """Logical not of booleans, bitwise complement of integers."""

    name = "tg.not"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (t,) = operand_types
        et = t.element_type
        require(isinstance(et, IntegerType), lambda: f"{cls.name} needs a boolean or integer operand, got {et}")
        return [t]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.invert(args[0])]


@irdl_op_definition
class BitShiftOp(TgOp):
    """x shifted by y bits (`direction` "left" or "right"; right is arithmetic on signed
    integers), per element; out-of-range amounts as ONNX BitShift (see the module)."""

    name = "tg.bitshift"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    direction = prop_def(StringAttr)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        string(props, "direction", ("left", "right"))
        a, b = operand_types
        et = same_element_type([a, b])
        require(dtypes.is_integer(et), lambda: f"{cls.name} needs integer operands, got {et}")
        return [TensorType(et, broadcast_shapes(a.get_shape(), b.get_shape()))]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [bitshift(args[0], args[1], string(self.properties, "direction", ("left", "right")) == "left")]


# --------------------------------------------------------------------------- selection


@irdl_op_definition
class WhereOp(TgOp):
    """`x` where `cond` is true, else `y`; the three operands broadcast together."""

    name = "tg.where"
    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        c, a, b = operand_types
        require(dtypes.is_bool(c.element_type), lambda: f"the condition must be boolean (i1), got {c.element_type}")
        et = same_element_type([a, b], "values")
        shape = broadcast_shapes(broadcast_shapes(c.get_shape(), a.get_shape()), b.get_shape())
        return [TensorType(et, shape)]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.where(args[0], args[1], args[2])]


# --------------------------------------------------------------------------- classification


class ClassifyOp(TgOp):
    """A float test with a boolean result of the operand's shape."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (t,) = operand_types
        check_kind(cls.name, t.element_type, FLOATS)
        return [TensorType(i1, t.get_shape())]


@irdl_op_definition
class IsNanOp(ClassifyOp):
    name = "tg.isnan"

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.isnan(wide(args[0]))]


@irdl_op_definition
class IsInfOp(ClassifyOp):
    """Infinities of the signs asked for (`detect_negative`, `detect_positive`: both by
    default, as ONNX IsInf)."""

    name = "tg.isinf"
    detect_negative = opt_prop_def(IntegerAttr)
    detect_positive = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        flag(props, "detect_negative", True)
        flag(props, "detect_positive", True)
        return super().infer_result_types(operand_types, props)

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = wide(args[0])
        negative = flag(self.properties, "detect_negative", True)
        positive = flag(self.properties, "detect_positive", True)
        return [(np.isneginf(x) & negative) | (np.isposinf(x) & positive)]


OPS = [
    EqualOp,
    LessOp,
    GreaterOp,
    LessEqualOp,
    GreaterEqualOp,
    AndOp,
    OrOp,
    XorOp,
    NotOp,
    BitShiftOp,
    WhereOp,
    IsNanOp,
    IsInfOp,
]
