"""Converters for element-wise math, casts and the matrix products.

Variadic Sum, Mean, Min and Max are chains of the binary tg ops (in input order, as ONNX's
reference computes them); Pow with operands of different types computes in f64 and casts
back to the base's type (numpy's promotion, which ONNX's reference follows); Pow by the
constant 2 or 3 is a product, as in onnxruntime.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType, f64
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, broadcasts_to, float_attr
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
    "Abs": tg.AbsOp,
    "Sign": tg.SignOp,
    "Reciprocal": tg.ReciprocalOp,
    "Floor": tg.FloorOp,
    "Ceil": tg.CeilOp,
    "Round": tg.RoundOp,
    "Log": tg.LogOp,
    "Erf": tg.ErfOp,
    "Sin": tg.SinOp,
    "Cos": tg.CosOp,
    "Tan": tg.TanOp,
    "Asin": tg.AsinOp,
    "Acos": tg.AcosOp,
    "Atan": tg.AtanOp,
    "Sinh": tg.SinhOp,
    "Cosh": tg.CoshOp,
    "Asinh": tg.AsinhOp,
    "Acosh": tg.AcoshOp,
    "Atanh": tg.AtanhOp,
}
VARIADIC = {"Sum": tg.AddOp, "Mean": tg.AddOp, "Min": tg.MinOp, "Max": tg.MaxOp}


@converter(*BINARY)
def convert_binary(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(BINARY[ctx.node.op_type], [ctx.input(0), ctx.input(1)])]


@converter(*UNARY)
def convert_unary(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(UNARY[ctx.node.op_type], [ctx.input(0)])]


@converter(*VARIADIC)
def convert_variadic(ctx: NodeContext) -> list[SSAValue]:
    """A left fold in input order; Mean divides the sum by the count."""
    operands = [ctx.input(i) for i in range(ctx.num_inputs) if ctx.has_input(i)]
    if not operands:
        ctx.fail("needs at least one input")
    acc = operands[0]
    for x in operands[1:]:
        acc = ctx.value(VARIADIC[ctx.node.op_type], [acc, x])
    if ctx.node.op_type == "Mean" and len(operands) > 1:
        assert isinstance(acc.type, TensorType)
        acc = ctx.value(tg.DivOp, [acc, ctx.scalar(len(operands), acc.type)])
    return [acc]


def _all_equal(value: np.ndarray | None, wanted: float) -> bool:
    return value is not None and value.size > 0 and bool(np.all(value == wanted))


@converter("Pow")
def convert_pow(ctx: NodeContext) -> list[SSAValue]:
    x, y = ctx.input(0), ctx.input(1)
    base, exponent = ctx.type(0), ctx.type(1)
    if dtypes.is_bool(base.element_type) or dtypes.is_bool(exponent.element_type):
        ctx.fail(f"Pow of {base.element_type} by {exponent.element_type} is not defined")
    known = ctx.state.known.get(y)
    if broadcasts_to(exponent.get_shape(), base.get_shape()):
        # x^2 and x^3 (layer norms, GELU's tanh form) as products, as onnxruntime does: x * x
        # is the power exactly, x * x * x within an ulp of it, and both vectorize
        if _all_equal(known, 2):
            return [ctx.value(tg.MulOp, [x, x])]
        if _all_equal(known, 3):
            return [ctx.value(tg.MulOp, [ctx.value(tg.MulOp, [x, x]), x])]
    if base.element_type == exponent.element_type:
        return [ctx.value(tg.PowOp, [x, y])]
    wide = cast(ctx, x, f64) if base.element_type != f64 else x
    power = ctx.value(tg.PowOp, [wide, cast(ctx, y, f64) if exponent.element_type != f64 else y])
    return [cast(ctx, power, base.element_type)]


@converter("Mod")
def convert_mod(ctx: NodeContext) -> list[SSAValue]:
    fmod = ctx.attr("fmod", 0)
    if fmod not in (0, 1):
        ctx.fail(f"attribute fmod={fmod} must be 0 or 1")
    props: dict[str, Attribute] = {"fmod": bool_attr(True)} if fmod else {}
    return [ctx.value(tg.ModOp, [ctx.input(0), ctx.input(1)], props)]


@converter("Gelu")
def convert_gelu(ctx: NodeContext) -> list[SSAValue]:
    approximate = ctx.attr("approximate", "none")
    if approximate not in ("none", "tanh"):
        ctx.fail(f"attribute approximate={approximate!r} must be 'none' or 'tanh'")
    props: dict[str, Attribute] = {"approximate": StringAttr(approximate)} if approximate == "tanh" else {}
    return [ctx.value(tg.GeluOp, [ctx.input(0)], props)]


def scalar_attr(value: float | int, element_type: Attribute) -> Attribute:
    """A property holding `value` typed exactly like the tensor elements."""
    if dtypes.is_float(element_type):
        return FloatAttr(float(value), element_type)  # type: ignore[call-overload]
    return IntegerAttr(int(value), element_type)  # type: ignore[call-overload]


@converter("Clip")
def convert_clip(ctx: NodeContext) -> list[SSAValue]:
    """Constant bounds become tg.clip's properties; bounds computed at run time are
    tg.max then tg.min with the scalar (ONNX: min > max gives max, as here)."""
    x = ctx.input(0)
    et = ctx.type(0).element_type
    props: dict[str, Attribute] = {}
    runtime: list[tuple[type[tg.TgOp], SSAValue]] = []
    bounds: tuple[tuple[str, int, type[tg.TgOp]], ...] = (("min", 1, tg.MaxOp), ("max", 2, tg.MinOp))
    for key, index, combine in bounds:
        if not ctx.has_input(index):
            continue
        if math.prod(ctx.shape(index)) != 1:
            ctx.fail(f"{key} must be a scalar, got shape {list(ctx.shape(index))}")
        known = ctx.state.known.get(ctx.input(index))
        if known is not None:
            props[key] = scalar_attr(known.reshape(()).item(), et)
        else:
            runtime.append((combine, ctx.reshape(ctx.input(index), ())))
    if props or not runtime:
        x = ctx.value(tg.ClipOp, [x], props)
    for combine, bound in runtime:
        x = ctx.value(combine, [x, bound])
    return [x]


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


@converter("BitCast")
def convert_bitcast(ctx: NodeContext) -> list[SSAValue]:
    x = ctx.input(0)
    to = onnx_element_type(ctx, ctx.attr("to"), "bit cast to")
    return [ctx.value(tg.BitcastOp, [x], result_types=[TensorType(to, ctx.shape(0))])]


@converter("Identity")
def convert_identity(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.input(0)]


@converter("Dropout", static=(1, 2))
def convert_dropout(ctx: NodeContext) -> list[SSAValue | None]:
    """Inference mode (or ratio 0) is the identity and an all-true mask. Training mode with
    a `seed` is deterministic: the mask is the one ONNX's reference draws (numpy's
    RandomState(seed).uniform over the static shape, kept where >= ratio), made here at
    compile time, and y = x * mask * 1 / (1 - ratio)."""
    training = ctx.const(2, "training_mode")
    ratio_value = ctx.const(1, "ratio")
    ratio = float(ratio_value.reshape(-1)[0]) if ratio_value is not None else float(ctx.attr("ratio", 0.5))
    x = ctx.input(0)
    shape = ctx.shape(0)
    mask = np.ones(shape, dtype=np.bool_)
    if training is not None and bool(training.reshape(-1)[0]) and ratio != 0:
        seed = ctx.attr("seed")
        if seed is None:
            ctx.fail("training_mode=true without a seed draws a random mask (give the node a seed)")
        if not 0 < ratio < 1:
            ctx.fail(f"ratio={ratio} must be in [0, 1)")
        mask = np.random.RandomState(seed).uniform(0, 1.0, shape) >= ratio
        t = ctx.type(0)
        kept = ctx.value(tg.MulOp, [x, ctx.constant(mask.astype(dtypes.to_numpy(t.element_type)))])
        x = ctx.value(tg.MulOp, [kept, ctx.scalar(1.0 / (1.0 - ratio), t)])
    outputs: list[SSAValue | None] = [x]
    if ctx.wants_output(1):
        outputs.append(ctx.constant(mask, hint=ctx.node.output[1]))
    return outputs


@converter("MatMul")
def convert_matmul(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(tg.MatmulOp, [ctx.input(0), ctx.input(1)])]


@converter("Gemm")
def convert_gemm(ctx: NodeContext) -> list[SSAValue]:
    operands = [ctx.input(0), ctx.input(1)]
    if (c := ctx.optional_input(2)) is not None:
        operands.append(c)
    props: dict[str, Attribute] = {
        "alpha": float_attr(ctx.attr("alpha", 1.0)),
        "beta": float_attr(ctx.attr("beta", 1.0)),
        "trans_a": bool_attr(ctx.attr("transA", 0)),
        "trans_b": bool_attr(ctx.attr("transB", 0)),
    }
    return [ctx.value(tg.GemmOp, operands, props)]
