"""Converters for indexing: Gather, GatherElements, GatherND, ScatterElements (and the old
Scatter), ScatterND, Trilu, OneHot.

Index tensors may be computed at run time; only what sets a shape (OneHot's depth) or a
constant of the op (Trilu's k) must be known at compile time.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr
from tessel.dialects.tg.indexing import SCATTER_REDUCTIONS
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_shape import axis_of


@converter("Gather")
def convert_gather(ctx: NodeContext) -> list[SSAValue]:
    axis = axis_of(ctx, ctx.attr("axis", 0), len(ctx.shape(0)))
    return [ctx.value(tg.GatherOp, [ctx.input(0), ctx.input(1)], {"axis": int_attr(axis)})]


@converter("GatherElements")
def convert_gather_elements(ctx: NodeContext) -> list[SSAValue]:
    axis = axis_of(ctx, ctx.attr("axis", 0), len(ctx.shape(0)))
    return [ctx.value(tg.GatherElementsOp, [ctx.input(0), ctx.input(1)], {"axis": int_attr(axis)})]


@converter("GatherND")
def convert_gather_nd(ctx: NodeContext) -> list[SSAValue]:
    props: dict[str, Attribute] = {"batch_dims": int_attr(ctx.attr("batch_dims", 0))}
    return [ctx.value(tg.GatherNdOp, [ctx.input(0), ctx.input(1)], props)]


def _reduction(ctx: NodeContext) -> StringAttr:
    reduction = ctx.attr("reduction", "none")
    if reduction not in SCATTER_REDUCTIONS:
        ctx.fail(f"reduction {reduction!r} is not one of {', '.join(SCATTER_REDUCTIONS)}")
    return StringAttr(reduction)


@converter("ScatterElements", "Scatter")
def convert_scatter_elements(ctx: NodeContext) -> list[SSAValue]:
    axis = axis_of(ctx, ctx.attr("axis", 0), len(ctx.shape(0)))
    props: dict[str, Attribute] = {"axis": int_attr(axis), "reduction": _reduction(ctx)}
    return [ctx.value(tg.ScatterElementsOp, [ctx.input(0), ctx.input(1), ctx.input(2)], props)]


@converter("ScatterND")
def convert_scatter_nd(ctx: NodeContext) -> list[SSAValue]:
    props: dict[str, Attribute] = {"reduction": _reduction(ctx)}
    return [ctx.value(tg.ScatterNdOp, [ctx.input(0), ctx.input(1), ctx.input(2)], props)]


@converter("Trilu", static=(1,))
def convert_trilu(ctx: NodeContext) -> list[SSAValue]:
    k = ctx.const_ints(1, "k")
    if k is not None and len(k) != 1:
        ctx.fail(f"k must be a scalar, got {k}")
    props: dict[str, Attribute] = {"upper": bool_attr(ctx.attr("upper", 1)), "k": int_attr(k[0] if k else 0)}
    return [ctx.value(tg.TriluOp, [ctx.input(0)], props)]


@converter("OneHot", static=(1,))
def convert_one_hot(ctx: NodeContext) -> list[SSAValue]:
    """depth sets the output shape, so it is a compile-time constant (ONNX casts a float
    depth to an integer)."""
    depth = ctx.const(1, "depth")
    assert depth is not None
    if depth.size != 1:
        ctx.fail(f"depth must be a scalar, got shape {list(depth.shape)}")
    rank = len(ctx.shape(0)) + 1
    axis = axis_of(ctx, ctx.attr("axis", -1), rank)
    props: dict[str, Attribute] = {"axis": int_attr(axis), "depth": int_attr(int(depth.reshape(-1)[0]))}
    return [ctx.value(tg.OneHotOp, [ctx.input(0), ctx.input(2)], props)]
