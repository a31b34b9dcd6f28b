"""Indexing: gathers read data at positions held in an index tensor, scatters write there,
and the index-defined masks (trilu, one_hot).

Index operands are integer tensors (i32 or i64, as ONNX allows); a negative index counts
from the end of its dim, as in ONNX. ONNX leaves an index outside [-n, n) undefined (an
error in its reference); tg defines it so that no compiled kernel can fault: a gather
reads zero there, and a scatter update there is dropped.

    %y = tg.gather %x, %i {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    %z = tg.scatter_nd %x, %i, %u {reduction = "add"}
         : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>

Gathers are injective (each output element reads one element of the data, at an index
read from the index tensor), so they fuse with their neighbours. A scatter is not
injective: an output element takes every update aimed at it. It is an anchor of the
reduction kind, written as a gather over the updates (each output element combines the
updates whose index names it), which needs no atomics and no ordering.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, i32, i64
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import INJECTIVE, REDUCTION, Props, TgOp, flag, integer, require, same_element_type, string
from .reference import wide

FUNCTIONAL = "operands attr-dict `:` functional-type(operands, results)"
SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


def require_indices(t: TensorType, what: str = "indices") -> None:
    """Index tensors hold i32 or i64 (ONNX's tensor(int32), tensor(int64))."""
    et = t.element_type
    require(et in (i32, i64), lambda: f"{what} must hold i32 or i64, got {et}")


def normalized(indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(index in [0, n) or 0, whether it was inside [-n, n)): ONNX's negative indices."""
    i = indices.astype(np.int64)
    i = np.where(i < 0, i + n, i)
    inside = (i >= 0) & (i < n)
    return np.where(inside, i, 0), inside


# --------------------------------------------------------------------------- gathers


@irdl_op_definition
class GatherOp(TgOp):
    """ONNX Gather: y[a..., i..., b...] = x[a..., indices[i...], b...] along `axis`; the
    result shape is x.shape[:axis] + indices.shape + x.shape[axis + 1:]."""

    name = "tg.gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, i = operand_types
        require_indices(i)
        shape = x.get_shape()
        axis = integer(props, "axis")
        require(0 <= axis < len(shape), lambda: f"axis {axis} must be in [0, {len(shape)})")
        return [TensorType(x.element_type, [*shape[:axis], *i.get_shape(), *shape[axis + 1 :]])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, indices = args
        axis = integer(self.properties, "axis")
        i, inside = normalized(indices, x.shape[axis])
        if x.shape[axis] == 0:
            shape = self.result.type.get_shape()
            return [np.zeros(shape, x.dtype)]
        taken = np.take(x, i, axis=axis)
        mask = inside.reshape((1,) * axis + inside.shape + (1,) * (x.ndim - axis - 1))
        return [np.where(mask, taken, np.zeros((), x.dtype))]


@irdl_op_definition
class GatherElementsOp(TgOp):
    """ONNX GatherElements: y[p] = x[p with p[axis] = indices[p]]; y has the indices'
    shape, whose other dims must fit in the data's."""

    name = "tg.gather_elements"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, i = operand_types
        require_indices(i)
        check_elements_indices(x, i, integer(props, "axis"))
        return [TensorType(x.element_type, i.get_shape())]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, indices = args
        axis = integer(self.properties, "axis")
        if x.shape[axis] == 0:
            return [np.zeros(indices.shape, x.dtype)]
        i, inside = normalized(indices, x.shape[axis])
        window = x[tuple(slice(0, n) if d != axis else slice(None) for d, n in enumerate(indices.shape))]
        return [np.where(inside, np.take_along_axis(window, i, axis=axis), np.zeros((), x.dtype))]


def check_elements_indices(x: TensorType, i: TensorType, axis: int) -> None:
    """GatherElements/ScatterElements: same rank, and the index tensor fits in the data
    outside `axis`."""
    xs, js = x.get_shape(), i.get_shape()
    require(len(xs) >= 1, "data must have rank >= 1")
    require(0 <= axis < len(xs), lambda: f"axis {axis} must be in [0, {len(xs)})")
    require(len(js) == len(xs), lambda: f"indices {i} must have the rank of data {x}")
    require(
        all(b <= a for d, (a, b) in enumerate(zip(xs, js)) if d != axis),
        lambda: f"indices {i} exceed data {x} outside axis {axis}",
    )


@irdl_op_definition
class GatherNdOp(TgOp):
    """ONNX GatherND: with k = indices.shape[-1] and b = batch_dims, y[B..., I..., R...] =
    x[B..., indices[B..., I..., :], R...]; the result shape is indices.shape[:-1] +
    x.shape[b + k:]."""

    name = "tg.gather_nd"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    batch_dims = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, i = operand_types
        require_indices(i)
        xs, js = x.get_shape(), i.get_shape()
        b = integer(props, "batch_dims")
        require(len(js) >= 1, "indices must have rank >= 1")
        k = js[-1]
        require(0 <= b < min(len(xs), len(js)), lambda: f"batch_dims {b} must be in [0, {min(len(xs), len(js))})")
        require(xs[:b] == js[:b], lambda: f"the batch dims of data {x} and indices {i} differ")
        require(1 <= k <= len(xs) - b, lambda: f"index tuples of length {k} do not fit data {x} after {b} batch dims")
        return [TensorType(x.element_type, [*js[:-1], *xs[b + k :]])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, indices = args
        b = integer(self.properties, "batch_dims")
        k = indices.shape[-1]
        batch = int(np.prod(x.shape[:b], dtype=np.int64))
        xb = x.reshape(batch, *x.shape[b:])
        ib = indices.reshape(batch, -1, k)
        out = np.zeros((batch, ib.shape[1], *x.shape[b + k :]), x.dtype)
        for n in range(batch):
            coords, ok = zip(*(normalized(ib[n, :, j], xb.shape[1 + j]) for j in range(k)), strict=True)
            inside = np.logical_and.reduce(ok)
            picked = xb[(n, *coords)] if xb[n].size else out[n]
            out[n] = np.where(inside.reshape(-1, *([1] * (out.ndim - 2))), picked, np.zeros((), x.dtype))
        return [out.reshape(self.result.type.get_shape())]


# --------------------------------------------------------------------------- scatters


def scatter_combine(reduction: str, current: np.ndarray, update: np.ndarray) -> np.ndarray:
    """One update applied to the current value, in wide precision."""
    if reduction == "add":
        return current + update
    if reduction == "mul":
        return current * update
    if reduction == "max":
        return np.maximum(current, update)
    if reduction == "min":
        return np.minimum(current, update)
    return update


class ScatterOp(TgOp):
    """What scatter_elements and scatter_nd share: (data, indices, updates) -> data's type,
    and a `reduction` applied to each update in the order of the updates (`none`: the
    last update of an element wins, as ONNX's reference)."""

    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)
    reduction = prop_def(StringAttr)
    traits = traits_def(Pure(), REDUCTION)
    assembly_format = FUNCTIONAL

    @classmethod
    def check_common(cls, operand_types: Sequence[TensorType], props: Props) -> None:
        x, i, u = operand_types
        require_indices(i)
        same_element_type([x, u], "data and updates")
        reduction = string(props, "reduction", SCATTER_REDUCTIONS)
        require(
            reduction in ("none", "max", "min") or not dtypes.is_bool(x.element_type),
            lambda: f'reduction "{reduction}" does not take booleans',
        )


@irdl_op_definition
class ScatterElementsOp(ScatterOp):
    """ONNX ScatterElements: each update[p] goes to data[p with p[axis] = indices[p]];
    indices and updates have one shape, which fits in the data's outside `axis`."""

    name = "tg.scatter_elements"
    axis = prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, i, u = operand_types
        cls.check_common(operand_types, props)
        check_elements_indices(x, i, integer(props, "axis"))
        require(i.get_shape() == u.get_shape(), lambda: f"updates {u} must have the shape of indices {i}")
        return [x]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, indices, updates = args
        axis = integer(self.properties, "axis")
        reduction = self.reduction.data
        out = wide(x).copy()
        i, inside = normalized(indices, x.shape[axis])
        upd = wide(updates)
        for p in np.ndindex(indices.shape):
            if inside[p]:
                q = (*p[:axis], int(i[p]), *p[axis + 1 :])
                out[q] = scatter_combine(reduction, out[q], upd[p])
        return [out]


@irdl_op_definition
class ScatterNdOp(ScatterOp):
    """ONNX ScatterND: with k = indices.shape[-1], update[u..., r...] goes to
    data[indices[u..., :], r...]; updates.shape = indices.shape[:-1] + data.shape[k:]."""

    name = "tg.scatter_nd"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, i, u = operand_types
        cls.check_common(operand_types, props)
        xs, js = x.get_shape(), i.get_shape()
        require(len(js) >= 1, "indices must have rank >= 1")
        k = js[-1]
        require(1 <= k <= len(xs), lambda: f"index tuples of length {k} do not fit data {x}")
        want = (*js[:-1], *xs[k:])
        require(u.get_shape() == want, lambda: f"updates must have shape {list(want)}, got {u}")
        return [x]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, indices, updates = args
        reduction = self.reduction.data
        k = indices.shape[-1]
        out = wide(x).copy()
        upd = wide(updates)
        coords, ok = zip(*(normalized(indices[..., j], x.shape[j]) for j in range(k)), strict=True)
        inside = np.logical_and.reduce(ok)
        for u in np.ndindex(indices.shape[:-1]):
            if inside[u]:
                q = tuple(int(c[u]) for c in coords)
                out[q] = scatter_combine(reduction, out[q], upd[u])
        return [out]


# --------------------------------------------------------------------------- masks


@irdl_op_definition
class TriluOp(TgOp):
    """ONNX Trilu: keep the upper (j - i >= k) or lower (j - i <= k) triangle of the last
    two dims, zero elsewhere."""

    name = "tg.trilu"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    upper = prop_def(IntegerAttr)
    k = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        flag(props, "upper")
        integer(props, "k")
        require(x.get_num_dims() >= 2, lambda: f"trilu needs rank >= 2, got {x}")
        return [x]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        (x,) = args
        k = integer(self.properties, "k")
        rows, cols = x.shape[-2:]
        diagonal = np.arange(cols)[None, :] - np.arange(rows)[:, None]
        keep = diagonal >= k if flag(self.properties, "upper") else diagonal <= k
        return [np.where(keep, x, np.zeros((), x.dtype))]


@irdl_op_definition
class OneHotOp(TgOp):
    """ONNX OneHot: a new dim of `depth` at `axis`; y is values[1] where that dim's
    position equals the (normalized) index, values[0] elsewhere (everywhere for an index
    outside [-depth, depth))."""

    name = "tg.one_hot"
    indices = operand_def(TensorType)
    values = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    depth = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = FUNCTIONAL

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        i, v = operand_types
        require(
            dtypes.is_integer(i.element_type) or dtypes.is_float(i.element_type),
            lambda: f"indices must be numeric, got {i.element_type}",
        )
        require(v.get_shape() == (2,), lambda: f"values must have shape [2] (off, on), got {v}")
        shape = i.get_shape()
        axis = integer(props, "axis")
        depth = integer(props, "depth")
        require(0 <= axis <= len(shape), lambda: f"axis {axis} must be in [0, {len(shape)}]")
        require(depth >= 0, lambda: f"depth must be non-negative, got {depth}")
        return [TensorType(v.element_type, [*shape[:axis], depth, *shape[axis:]])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        indices, values = args
        axis = integer(self.properties, "axis")
        depth = integer(self.properties, "depth")
        i = np.trunc(indices).astype(np.int64) if indices.dtype.kind == "f" else indices.astype(np.int64)
        i = np.where(i < 0, i + depth, i)
        position = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - axis))
        hit = np.expand_dims(i, axis) == position
        return [np.where(hit, values[1], values[0])]
