"""Converters for element-wise math, casts and the matrix products."""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, float_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.ir import dtypes

BINARY = {"Add": tg.AddOp, "Sub": tg.SubOp, "Mul": tg.MulOp, "Div": tg.DivOp}
UNARY = {
    "Neg": tg.NegOp,
    "Exp": tg.ExpOp,
    "Sqrt": tg.SqrtOp,
    "Relu": tg.ReluOp,
    "Sigmoid": tg.SigmoidOp,
    "Tanh": tg.TanhOp,
}


@converter(*BINARY)
def convert_binary(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(BINARY[ctx.node.op_type], [ctx.input(0), ctx.input(1)])]


@converter(*UNARY)
def convert_unary(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(UNARY[ctx.node.op_type], [ctx.input(0)])]


@converter("Gelu")
def convert_gelu(ctx: NodeContext) -> list[SSAValue]:
    approximate = ctx.attr("approximate", "none")
    if approximate not in ("none", "tanh"):
        ctx.fail(f"attribute approximate={approximate!r} must be 'none' or 'tanh'")
    props = {"approximate": StringAttr(approximate)} if approximate == "tanh" else {}
    return [ctx.value(tg.GeluOp, [ctx.input(0)], props)]


def scalar_attr(value: float | int, element_type: Attribute) -> Attribute:
    """A property holding `value` typed exactly like the tensor elements."""
    if dtypes.is_float(element_type):
        return FloatAttr(float(value), element_type)  # type: ignore[arg-type]
    return IntegerAttr(int(value), element_type)  # type: ignore[arg-type]


@converter("Clip", static=(1, 2))
def convert_clip(ctx: NodeContext) -> list[SSAValue]:
    et = ctx.type(0).element_type
    props: dict[str, Attribute] = {}
    for key, index in (("min", 1), ("max", 2)):
        bound = ctx.const(index, key)
        if bound is not None:
            if bound.size != 1:
                ctx.fail(f"{key} must be a scalar, got shape {list(bound.shape)}")
            props[key] = scalar_attr(bound.reshape(()).item(), et)
    return [ctx.value(tg.ClipOp, [ctx.input(0)], props)]


def onnx_element_type(ctx: NodeContext, code: int, what: str) -> Attribute:
    try:
        return dtypes.from_numpy(onnx.helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, TypeError, ValueError):
        name = onnx.TensorProto.DataType.Name(code) if code in onnx.TensorProto.DataType.values() else str(code)
        ctx.fail(f"{what} {name} is not supported")


def cast(ctx: NodeContext, x: SSAValue, element_type: Attribute) -> SSAValue:
    assert isinstance(x.type, TensorType)
    return ctx.value(tg.CastOp, [x], result_types=[TensorType(element_type, x.type.get_shape())])


@converter("Cast")
def convert_cast(ctx: NodeContext) -> list[SSAValue]:
    return [cast(ctx, ctx.input(0), onnx_element_type(ctx, ctx.attr("to"), "cast to"))]


@converter("CastLike")
def convert_cast_like(ctx: NodeContext) -> list[SSAValue]:
    return [cast(ctx, ctx.input(0), ctx.type(1).element_type)]


@converter("Identity")
def convert_identity(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.input(0)]


@converter("Dropout", static=(1, 2))
def convert_dropout(ctx: NodeContext) -> list[SSAValue | None]:
    """Inference-mode Dropout is the identity (and an all-true mask)."""
    training = ctx.const(2, "training_mode")
    if training is not None and bool(training.reshape(-1)[0]):
        ctx.fail("training_mode=true is not supported (Tessel compiles inference)")
    x = ctx.input(0)
    outputs: list[SSAValue | None] = [x]
    if ctx.wants_output(1):
        outputs.append(ctx.constant(np.ones(ctx.shape(0), dtype=np.bool_), hint=ctx.node.output[1]))
    return outputs


@converter("MatMul")
def convert_matmul(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(tg.MatmulOp, [ctx.input(0), ctx.input(1)])]


@converter("Gemm")
def convert_gemm(ctx: NodeContext) -> list[SSAValue]:
    operands = [ctx.input(0), ctx.input(1)]
    if (c := ctx.optional_input(2)) is not None:
        operands.append(c)
    props = {
        "alpha": float_attr(ctx.attr("alpha", 1.0)),
        "beta": float_attr(ctx.attr("beta", 1.0)),
        "trans_a": bool_attr(ctx.attr("transA", 0)),
        "trans_b": bool_attr(ctx.attr("transB", 0)),
    }
    return [ctx.value(tg.GemmOp, operands, props)]
