"""Normalizations: batch_norm (inference), layer_norm, softmax, log_softmax.

batch_norm is a per-channel affine map once its statistics are constants, hence injective
(and `tg-fold-batchnorm` folds it into the producing conv). layer_norm and the softmaxes
reduce and then map, so they are opaque to fusion, as in TVM.

    %y = tg.softmax %x {axis = 1 : i64} : tensor<1x1000xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from .base import (
    INJECTIVE,
    OPAQUE,
    Elementwise,
    Props,
    TgOp,
    broadcasts_to,
    floating,
    integer,
    require,
    require_float,
    same_element_type,
)


@irdl_op_definition
class BatchNormOp(TgOp):
    """y = (x - mean) / sqrt(var + epsilon) * scale + bias, per channel (dim 1) of (N, C, ...)."""

    name = "tg.batch_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)
    mean = operand_def(TensorType)
    var = operand_def(TensorType)
    result = result_def(TensorType)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x = operand_types[0]
        same_element_type(list(operand_types))
        require_float(x, "input")
        require(x.get_num_dims() >= 2, lambda: f"input must have rank >= 2 (N, C, ...), got {x}")
        floating(props, "epsilon")
        c = x.get_shape()[1]
        for what, t in zip(("scale", "bias", "mean", "var"), operand_types[1:]):
            require(t.get_shape() == (c,), lambda: f"{what} must have shape ({c},), got {t}")
        return [x]


@irdl_op_definition
class LayerNormOp(TgOp):
    """Normalize over dims [axis, rank): (x - mean) / sqrt(var + epsilon) * scale (+ bias).

    scale and bias broadcast (numpy rules, one direction) to the normalized shape x.shape[axis:].
    """

    name = "tg.layer_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x = operand_types[0]
        same_element_type(list(operand_types))
        require_float(x, "input")
        floating(props, "epsilon")
        axis = integer(props, "axis")
        require(0 <= axis < x.get_num_dims(), lambda: f"axis {axis} must be in [0, {x.get_num_dims()})")
        normalized = x.get_shape()[axis:]
        for what, t in zip(("scale", "bias"), operand_types[1:]):
            require(
                broadcasts_to(t.get_shape(), normalized),
                lambda: f"{what} {t} does not broadcast to the normalized shape {normalized}",
            )
        return [x]


class SoftmaxLikeOp(TgOp):
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = "$input attr-dict `:` type($input)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require_float(x, "input")
        axis = integer(props, "axis")
        require(0 <= axis < x.get_num_dims(), lambda: f"axis {axis} must be in [0, {x.get_num_dims()})")
        return [x]


@irdl_op_definition
class SoftmaxOp(SoftmaxLikeOp):
    """exp(x - max) / sum(exp(x - max)) along one axis (ONNX Softmax, opset 13). With
    16-bit floats every step rounds to the element type, as in ONNX's reference."""

    name = "tg.softmax"


@irdl_op_definition
class LogSoftmaxOp(SoftmaxLikeOp):
    """x - max - log(sum(exp(x - max))) along one axis."""

    name = "tg.log_softmax"
