"""Weights known at compile time, read and replaced by passes that re-pack them (the bf16
pairs of tg-bf16-dense / tg-bf16-conv, the transformed filters of tg-winograd)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tessel.dialects import tg
from tessel.ir import dtypes
from tessel.ir.weights import WeightStore


def known_value(store: WeightStore | None, weight: SSAValue) -> np.ndarray | None:
    """The value of `weight` where it is a tg.constant, or a tg.weight in `store`; None
    where it is computed at run time (or its data is not at hand)."""
    owner = weight.owner
    if isinstance(owner, tg.ConstantOp):
        return tg.constant_value(owner)
    if isinstance(owner, tg.WeightOp) and store is not None:
        return np.asarray(store[owner.weight_name])
    return None


def insert_array(rewriter: PatternRewriter, store: WeightStore | None, value: np.ndarray, hint: str) -> SSAValue:
    """`value` as a new tg.constant (small, or without a store) or a tg.weight named after
    `hint` in `store`, inserted before the matched op."""
    if value.size <= tg.INLINE_LIMIT or store is None:
        op: tg.TgOp = tg.constant_op(value)
    else:
        name = store.add(hint, value)
        op = tg.weight_op(name, TensorType(dtypes.from_numpy(value.dtype), list(value.shape)))
    rewriter.insert(op)
    return op.results[0]
