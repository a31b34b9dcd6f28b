"""Converters for the reductions: Reduce*, ArgMax/ArgMin, CumSum/CumProd, TopK, Hardmax.

Five reductions are tg ops (sum, mean, prod, max, min); the other ONNX reductions are
compositions that tg-fuse puts back into one kernel (the element-wise prologue feeds the
reduction, the epilogue follows it):

    ReduceSumSquare(x) = reduce_sum(x * x)        ReduceL1(x) = reduce_sum(abs(x))
    ReduceL2(x)        = sqrt(reduce_sum(x * x))  ReduceLogSum(x) = log(reduce_sum(x))
    ReduceLogSumExp(x) = log(reduce_sum(exp(x - m))) + m, m = reduce_max(x, inf -> -inf)
    Hardmax(x)         = cast(arg_max(x, keepdims) == iota along the axis)

The axes are an input since opset 18 (13 for ReduceSum) and an attribute before; either
must be known at compile time. With `noop_with_empty_axes` and no axes nothing is reduced
(the prologue and epilogue still apply, as ONNX's reference computes them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import f64
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.ir import dtypes


def _axis(ctx: NodeContext, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def _reduced_axes(ctx: NodeContext) -> list[int]:
    """The sorted non-negative axes to reduce; [] when nothing is reduced (noop)."""
    rank = len(ctx.shape(0))
    axes = ctx.const_ints(1, "axes") if ctx.has_input(1) else ctx.attr("axes")
    if not axes:
        return [] if ctx.attr("noop_with_empty_axes", 0) else list(range(rank))
    canonical = sorted({_axis(ctx, a, rank) for a in axes})
    if len(canonical) != len(axes):
        ctx.fail(f"axes {list(axes)} name an axis twice")
    return canonical


def _keepdims(ctx: NodeContext) -> bool:
    return bool(ctx.attr("keepdims", 1))


def reduce(ctx: NodeContext, op_type: type[tg.TgOp], x: SSAValue, axes: Sequence[int], keepdims: bool) -> SSAValue:
    """tg.reduce_* over `axes`; no axes is the identity (nothing to combine)."""
    if not axes:
        return x
    return ctx.value(op_type, [x], {"axes": ints_attr(axes), "keepdims": bool_attr(keepdims)})


def _require_float(ctx: NodeContext, what: str) -> None:
    if not dtypes.is_float(ctx.type(0).element_type):
        ctx.fail(f"{what} on {ctx.type(0).element_type} is not supported (it is defined on floats)")


PLAIN = {
    "ReduceSum": tg.ReduceSumOp,
    "ReduceMean": tg.ReduceMeanOp,
    "ReduceProd": tg.ReduceProdOp,
    "ReduceMax": tg.ReduceMaxOp,
    "ReduceMin": tg.ReduceMinOp,
}


@converter(*PLAIN, static=(1,))
def convert_reduce(ctx: NodeContext) -> list[SSAValue]:
    return [reduce(ctx, PLAIN[ctx.node.op_type], ctx.input(0), _reduced_axes(ctx), _keepdims(ctx))]


def _square(ctx: NodeContext, x: SSAValue) -> SSAValue:
    return ctx.value(tg.MulOp, [x, x])


@converter("ReduceSumSquare", static=(1,))
def convert_reduce_sum_square(ctx: NodeContext) -> list[SSAValue]:
    return [reduce(ctx, tg.ReduceSumOp, _square(ctx, ctx.input(0)), _reduced_axes(ctx), _keepdims(ctx))]


@converter("ReduceL1", static=(1,))
def convert_reduce_l1(ctx: NodeContext) -> list[SSAValue]:
    magnitude = ctx.value(tg.AbsOp, [ctx.input(0)])
    return [reduce(ctx, tg.ReduceSumOp, magnitude, _reduced_axes(ctx), _keepdims(ctx))]


@converter("ReduceL2", static=(1,))
def convert_reduce_l2(ctx: NodeContext) -> list[SSAValue]:
    """sqrt of the sum of squares; on integers the sum is exact (wrapping) and its root
    is taken in f64 and truncated, as ONNX's reference does."""
    total = reduce(ctx, tg.ReduceSumOp, _square(ctx, ctx.input(0)), _reduced_axes(ctx), _keepdims(ctx))
    et = ctx.type(0).element_type
    if dtypes.is_float(et):
        return [ctx.value(tg.SqrtOp, [total])]
    return [cast(ctx, ctx.value(tg.SqrtOp, [cast(ctx, total, f64)]), et)]


@converter("ReduceLogSum", static=(1,))
def convert_reduce_log_sum(ctx: NodeContext) -> list[SSAValue]:
    _require_float(ctx, "ReduceLogSum")
    total = reduce(ctx, tg.ReduceSumOp, ctx.input(0), _reduced_axes(ctx), _keepdims(ctx))
    return [ctx.value(tg.LogOp, [total])]


@converter("ReduceLogSumExp", static=(1,))
def convert_reduce_log_sum_exp(ctx: NodeContext) -> list[SSAValue]:
    """Shifted by the largest finite element (infinities do not shift, as in ONNX's
    reference), so that exp cannot overflow."""
    _require_float(ctx, "ReduceLogSumExp")
    x, t = ctx.input(0), ctx.type(0)
    axes, keepdims = _reduced_axes(ctx), _keepdims(ctx)
    minus_inf = ctx.scalar(-np.inf, t)
    finite = ctx.value(tg.WhereOp, [ctx.value(tg.IsInfOp, [x]), minus_inf, x])
    peak = reduce(ctx, tg.ReduceMaxOp, finite, axes, keepdims=True)
    shifted = ctx.value(tg.ExpOp, [ctx.value(tg.SubOp, [x, peak])])
    total = reduce(ctx, tg.ReduceSumOp, shifted, axes, keepdims=True)
    y = ctx.value(tg.AddOp, [ctx.value(tg.LogOp, [total]), peak])
    if keepdims or not axes:
        return [y]
    return [ctx.reshape(y, [n for d, n in enumerate(t.get_shape()) if d not in axes])]


# --------------------------------------------------------------------------- arg_max / arg_min


@converter("ArgMax", "ArgMin")
def convert_arg(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    props: dict[str, Attribute] = {
        "axis": int_attr(_axis(ctx, ctx.attr("axis", 0), rank)),
        "keepdims": bool_attr(_keepdims(ctx)),
    }
    if ctx.attr("select_last_index", 0):
        props["select_last_index"] = bool_attr(True)
    op_type = tg.ArgMaxOp if ctx.node.op_type == "ArgMax" else tg.ArgMinOp
    return [ctx.value(op_type, [ctx.input(0)], props)]


@converter("Hardmax")
def convert_hardmax(ctx: NodeContext) -> list[SSAValue]:
    """1 at the first largest element along the axis, 0 elsewhere."""
    t = ctx.type(0)
    shape = t.get_shape()
    axis = _axis(ctx, ctx.attr("axis", -1), len(shape))
    if shape[axis] == 0:
        return [ctx.input(0)]
    props: dict[str, Attribute] = {"axis": int_attr(axis), "keepdims": bool_attr(True)}
    winner = ctx.value(tg.ArgMaxOp, [ctx.input(0)], props)
    iota = np.arange(shape[axis], dtype=np.int64).reshape([-1 if d == axis else 1 for d in range(len(shape))])
    hit = ctx.value(tg.EqualOp, [winner, ctx.constant(iota, hint=f"{ctx.node.name or 'hardmax'}_positions")])
    return [cast(ctx, hit, t.element_type)]


# --------------------------------------------------------------------------- cumsum / cumprod


@converter("CumSum", "CumProd", static=(1,))
def convert_cumulative(ctx: NodeContext) -> list[SSAValue]:
    rank = len(ctx.shape(0))
    if rank == 0:
        ctx.fail("the input must have rank >= 1")
    axis = ctx.const_ints(1, "axis")
    if axis is None or len(axis) != 1:
        ctx.fail(f"axis must be one integer, got {axis}")
    props: dict[str, Attribute] = {"axis": int_attr(_axis(ctx, axis[0], rank))}
    for key in ("exclusive", "reverse"):
        if ctx.attr(key, 0):
            props[key] = bool_attr(True)
    op_type = tg.CumSumOp if ctx.node.op_type == "CumSum" else tg.CumProdOp
    return [ctx.value(op_type, [ctx.input(0)], props)]


# --------------------------------------------------------------------------- top_k


@converter("TopK", static=(1,))
def convert_top_k(ctx: NodeContext) -> list[SSAValue]:
    """`sorted = 0` leaves the order to the implementation; Tessel sorts either way."""
    rank = len(ctx.shape(0))
    k = ctx.const_ints(1, "K")
    if k is None or len(k) != 1:
        ctx.fail(f"K must be one integer, got {k}")
    props: dict[str, Attribute] = {"k": int_attr(k[0]), "axis": int_attr(_axis(ctx, ctx.attr("axis", -1), rank))}
    if not ctx.attr("largest", 1):
        props["largest"] = bool_attr(False)
    op = ctx.emit(tg.TopKOp, [ctx.input(0)], props)
    return list(op.results)
