"""Converters for the losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Picking input[n, target[n, d...], d...] is a reduction over the classes of a one-hot
selection, so the whole loss is tg reductions over element-wise prologues (one kernel
for the picked values, one per scalar reduction):

    picked[n, d] = reduce_sum over c of where(target[n, d] == c, input[n, c, d] * weight[c], 0)
    loss[n, d]   = -picked[n, d], 0 where target[n, d] == ignore_index
    "mean"       = sum(loss) / sum(weight[target] where not ignored)  (a plain mean without
                   weight or ignore_index), "sum" = sum(loss), "none" = loss

SoftmaxCrossEntropyLoss is the same over log_softmax(scores) along the classes, which is
also its optional second output. A target outside [0, C) that is not ignore_index picks
nothing (ONNX leaves it undefined).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast
from tessel.ir import dtypes

REDUCTIONS = ("none", "sum", "mean")


def _sum(ctx: NodeContext, x: SSAValue, axes: list[int]) -> SSAValue:
    if not axes:
        return x
    return ctx.value(tg.ReduceSumOp, [x], {"axes": ints_attr(axes), "keepdims": bool_attr(False)})


def negative_log_likelihood(ctx: NodeContext, log_prob: SSAValue) -> SSAValue:
    """The loss of the node's target (input #1) and weight (input #2) over `log_prob`."""
    shape = tg.tensor_of(log_prob).get_shape()
    if len(shape) < 2:
        ctx.fail(f"the input must be (N, C, d1, ...), got rank {len(shape)}")
    n, classes = shape[:2]
    target = ctx.input(1)
    if ctx.shape(1) != (n, *shape[2:]):
        ctx.fail(f"target of shape {list(ctx.shape(1))} does not match the input's {list(shape)}")
    index_type = ctx.type(1).element_type
    if not dtypes.is_integer(index_type):
        ctx.fail(f"target must hold integers, got {index_type}")
    reduction = ctx.attr("reduction", "mean")
    if reduction not in REDUCTIONS:
        ctx.fail(f"reduction {reduction!r} is not one of {', '.join(REDUCTIONS)}")
    rank = len(shape)
    zero = ctx.scalar(0, tg.tensor_of(log_prob))
    column = [1, classes] + [1] * (rank - 2)
    positions = np.arange(classes, dtype=dtypes.to_numpy(index_type)).reshape(column)
    hint = f"{ctx.node.name or 'loss'}_classes"
    chosen = ctx.value(tg.EqualOp, [ctx.reshape(target, [n, 1, *shape[2:]]), ctx.constant(positions, hint=hint)])
    weight = ctx.optional_input(2)
    if weight is not None:
        if ctx.shape(2) != (classes,):
            ctx.fail(f"weight of shape {list(ctx.shape(2))} must have shape [{classes}]")
        weight = ctx.reshape(weight, column)
        log_prob = ctx.value(tg.MulOp, [log_prob, weight])
    loss = ctx.value(tg.NegOp, [_sum(ctx, ctx.value(tg.WhereOp, [chosen, log_prob, zero]), [1])])
    # the weight each element counts with in a mean: weight[target], 0 where ignored
    counted = None if weight is None else _sum(ctx, ctx.value(tg.WhereOp, [chosen, weight, zero]), [1])
    ignore_index = ctx.attr("ignore_index")
    if ignore_index is not None:
        ignored = ctx.value(tg.EqualOp, [target, ctx.scalar(ignore_index, ctx.type(1))])
        loss = ctx.value(tg.WhereOp, [ignored, zero, loss])
        if counted is None:
            counted = cast(ctx, ctx.value(tg.NotOp, [ignored]), tg.tensor_of(log_prob).get_element_type())
        else:
            counted = ctx.value(tg.WhereOp, [ignored, zero, counted])
    if reduction == "none":
        return loss
    every = list(range(rank - 1))
    total = _sum(ctx, loss, every)
    if reduction == "sum":
        return total
    if counted is None:
        return ctx.value(tg.DivOp, [total, ctx.scalar(float(np.prod(ctx.shape(1))), tg.tensor_of(total))])
    return ctx.value(tg.DivOp, [total, _sum(ctx, counted, every)])


@converter("NegativeLogLikelihoodLoss")
def convert_nll_loss(ctx: NodeContext) -> list[SSAValue]:
    if not dtypes.is_float(ctx.type(0).element_type):
        ctx.fail(f"input of element type {ctx.type(0).element_type} is not supported (a float type is)")
    return [negative_log_likelihood(ctx, ctx.input(0))]


@converter("SoftmaxCrossEntropyLoss")
def convert_softmax_cross_entropy(ctx: NodeContext) -> list[SSAValue]:
    scores = ctx.type(0)
    if not dtypes.is_float(scores.element_type):
        ctx.fail(f"scores of element type {scores.element_type} is not supported (a float type is)")
    if len(scores.get_shape()) < 2:
        ctx.fail(f"scores must be (N, C, d1, ...), got rank {len(scores.get_shape())}")
    log_prob = ctx.value(tg.LogSoftmaxOp, [ctx.input(0)], {"axis": int_attr(1)})
    return [negative_log_likelihood(ctx, log_prob), log_prob]
