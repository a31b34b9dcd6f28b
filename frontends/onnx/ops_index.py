"""Converters for indexing: Gather, GatherElements, GatherND, ScatterElements (and the old
Scatter), ScatterND, Trilu, OneHot, ReverseSequence, and the ops whose result shape depends
on the data: NonZero, Compress, Unique (dialects/tg/dynamic.py).

Index tensors may be computed at run time; only what sets a shape (OneHot's depth) or a
constant of the op (Trilu's k) must be known at compile time.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr, i1, i64
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr
from tessel.dialects.tg.dynamic import nonzero, unique
from tessel.dialects.tg.indexing import SCATTER_REDUCTIONS
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.frontends.onnx.ops_shape import axis_of, expand


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


@converter("ReverseSequence")
def convert_reverse_sequence(ctx: NodeContext) -> list[SSAValue]:
    """A gather along time: y[t, b] = x[L_b - 1 - t, b] where t < L_b (the sequence's
    length), x[t, b] beyond it; the index tensor is computed from the lengths at run time."""
    shape = list(ctx.shape(0))
    rank = len(shape)
    if rank < 2:
        ctx.fail(f"input must have rank >= 2, got {shape}")
    batch = axis_of(ctx, ctx.attr("batch_axis", 1), rank)
    time = axis_of(ctx, ctx.attr("time_axis", 0), rank)
    if batch == time:
        ctx.fail(f"batch_axis and time_axis are both {batch}")
    if ctx.shape(1) != (shape[batch],):
        ctx.fail(f"sequence_lens must have shape [{shape[batch]}], got {list(ctx.shape(1))}")
    lens = ctx.input(1)
    if ctx.type(1).element_type != i64:
        lens = cast(ctx, lens, i64)
    along = [1] * rank
    along[batch] = shape[batch]
    lengths = ctx.reshape(lens, along)
    steps = [1] * rank
    steps[time] = shape[time]
    t = ctx.constant(np.arange(shape[time], dtype=np.int64).reshape(steps), hint=f"{ctx.node.name or 'reverse'}_t")
    one = ctx.constant(np.ones((1,) * rank, np.int64))
    reversed_t = ctx.value(tg.SubOp, [ctx.value(tg.SubOp, [lengths, one]), t])
    inside = ctx.value(tg.LessOp, [t, lengths])
    index = expand(ctx, ctx.value(tg.WhereOp, [inside, reversed_t, t]), shape)
    return [ctx.value(tg.GatherElementsOp, [ctx.input(0), index], {"axis": int_attr(time)})]


# --------------------------------------------------------------------------- data-dependent shapes


def _known(ctx: NodeContext, i: int) -> np.ndarray | None:
    """Input i's value when the importer knows it (a constant, or folded from constants)."""
    return ctx.state.known.get(ctx.input(i)) if ctx.has_input(i) else None


@converter("NonZero")
def convert_nonzero(ctx: NodeContext) -> list[SSAValue]:
    """A constant when the input is known; otherwise tg.nonzero, whose count is dynamic."""
    if (x := _known(ctx, 0)) is not None:
        return [ctx.constant(nonzero(x), hint=ctx.node.output[0])]
    return [ctx.value(tg.NonZeroOp, [ctx.input(0)])]


@converter("Compress")
def convert_compress(ctx: NodeContext) -> list[SSAValue]:
    """Without an axis the input is taken flat. A known condition makes it a gather of the
    kept positions (a static shape); a condition computed at run time, tg.compress."""
    x = ctx.input(0)
    shape = list(ctx.shape(0))
    if ctx.attr("axis") is None:
        x, shape = ctx.reshape(x, [int(np.prod(shape))]), [int(np.prod(shape))]
        axis = 0
    else:
        axis = axis_of(ctx, ctx.attr("axis"), len(shape))
    if ctx.shape(1) and ctx.shape(1)[0] > shape[axis] or len(ctx.shape(1)) != 1:
        ctx.fail(f"condition of shape {list(ctx.shape(1))} does not fit axis {axis} of {shape}")
    condition = _known(ctx, 1)
    if condition is not None:
        kept = ctx.constant(np.flatnonzero(condition).astype(np.int64), hint=f"{ctx.node.name or 'compress'}_kept")
        return [ctx.value(tg.GatherOp, [x, kept], {"axis": int_attr(axis)})]
    condition_value = ctx.input(1)
    if ctx.type(1).element_type != i1:
        condition_value = cast(ctx, condition_value, i1)
    return [ctx.value(tg.CompressOp, [x, condition_value], {"axis": int_attr(axis)})]


@converter("Unique")
def convert_unique(ctx: NodeContext) -> list[SSAValue | None]:
    """Constants when the input is known; otherwise tg.unique (the counted dims dynamic)."""
    rank = len(ctx.shape(0))
    axis = ctx.attr("axis")
    sorted_ = bool(ctx.attr("sorted", 1))
    if (x := _known(ctx, 0)) is not None:
        results = unique(x, None if axis is None else axis_of(ctx, axis, rank), sorted_)
        return [ctx.constant(r, hint=name) if name else None for r, name in zip(results, ctx.node.output)]
    props: dict[str, Attribute] = {"sorted": bool_attr(sorted_)}
    if axis is not None:
        props["axis"] = int_attr(axis_of(ctx, axis, rank))
    op = ctx.emit(tg.UniqueOp, [ctx.input(0)], props)
    outputs: list[SSAValue | None] = list(op.results)
    return outputs[: ctx.num_outputs]
