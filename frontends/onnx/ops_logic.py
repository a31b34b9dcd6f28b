"""Converters for comparisons, logic, bitwise ops, Where, IsNaN and IsInf.

ONNX's logical And/Or/Xor/Not (booleans) and BitwiseAnd/Or/Xor/Not (integers) are the same
tg ops, which are logical on booleans and bitwise on integers.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.ir import dtypes

COMPARISONS = {
    "Equal": tg.EqualOp,
    "Less": tg.LessOp,
    "Greater": tg.GreaterOp,
    "LessOrEqual": tg.LessEqualOp,
    "GreaterOrEqual": tg.GreaterEqualOp,
}
LOGIC = {
    "And": tg.AndOp,
    "Or": tg.OrOp,
    "Xor": tg.XorOp,
    "BitwiseAnd": tg.AndOp,
    "BitwiseOr": tg.OrOp,
    "BitwiseXor": tg.XorOp,
}


@converter(*COMPARISONS)
def convert_comparison(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(COMPARISONS[ctx.node.op_type], [ctx.input(0), ctx.input(1)])]


@converter(*LOGIC)
def convert_logic(ctx: NodeContext) -> list[SSAValue]:
    bitwise = ctx.node.op_type.startswith("Bitwise")
    if bitwise == dtypes.is_bool(ctx.type(0).element_type):
        ctx.fail(f"{ctx.node.op_type} takes {'integers' if bitwise else 'booleans'}, got {ctx.type(0).element_type}")
    return [ctx.value(LOGIC[ctx.node.op_type], [ctx.input(0), ctx.input(1)])]


@converter("Not", "BitwiseNot")
def convert_not(ctx: NodeContext) -> list[SSAValue]:
    bitwise = ctx.node.op_type == "BitwiseNot"
    if bitwise == dtypes.is_bool(ctx.type(0).element_type):
        ctx.fail(f"{ctx.node.op_type} takes {'integers' if bitwise else 'booleans'}, got {ctx.type(0).element_type}")
    return [ctx.value(tg.NotOp, [ctx.input(0)])]


@converter("BitShift")
def convert_bitshift(ctx: NodeContext) -> list[SSAValue]:
    direction = ctx.attr("direction")
    if direction not in ("LEFT", "RIGHT"):
        ctx.fail(f"attribute direction={direction!r} must be 'LEFT' or 'RIGHT'")
    props: dict[str, Attribute] = {"direction": StringAttr(direction.lower())}
    return [ctx.value(tg.BitShiftOp, [ctx.input(0), ctx.input(1)], props)]


@converter("Where")
def convert_where(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(tg.WhereOp, [ctx.input(0), ctx.input(1), ctx.input(2)])]


@converter("IsNaN")
def convert_isnan(ctx: NodeContext) -> list[SSAValue]:
    return [ctx.value(tg.IsNanOp, [ctx.input(0)])]


@converter("IsInf")
def convert_isinf(ctx: NodeContext) -> list[SSAValue]:
    props: dict[str, Attribute] = {
        "detect_negative": bool_attr(bool(ctx.attr("detect_negative", 1))),
        "detect_positive": bool_attr(bool(ctx.attr("detect_positive", 1))),
    }
    return [ctx.value(tg.IsInfOp, [ctx.input(0)], props)]
