"""Reductions along axes: reduce_{sum,mean,max,min,prod}, arg_max/arg_min, the running
reductions cumsum/cumprod, and top_k.

Each output element combines input elements along some axes, so all are fusion anchors
(TVM's REDUCTION category): injective producers fuse in front of them, element-wise
consumers behind. The richer ONNX reductions are compositions of these with element-wise
ops (ReduceL2 = sqrt(reduce_sum(x * x)), ReduceLogSumExp = log(reduce_sum(exp(x - m))) + m).

    %s = tg.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
    %i = tg.arg_max %x {axis = 1 : i64, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xi64>
    %c = tg.cumsum %x {axis = 0 : i64} : tensor<5xi32>
    %v, %j = tg.top_k %x {k = 2 : i64, axis = 1 : i64} : tensor<3x4xf32> -> tensor<3x2xf32>, tensor<3x2xi64>

Index results are i64, as ONNX says. Floats compute in float64 here (the result is rounded
to its type once); integers wrap like the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import OPAQUE, REDUCTION, Props, TgOp, flag, integer, ints, require
from .reference import lowest, wide

# --------------------------------------------------------------------------- helpers


def highest(dtype: np.dtype) -> float | int | bool:
    """The identity of min: +inf, the largest integer, or True."""
    if dtype == np.bool_:
        return True
    return np.inf if dtype.kind == "f" or dtype.name == "bfloat16" else np.iinfo(dtype).max


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> list[int]:
    """The shape after reducing `axes`: kept as 1, or dropped."""
    return [1 if d in axes else n for d, n in enumerate(shape) if keepdims or d not in axes]


def _numeric(t: TensorType, what: str) -> None:
    require(not dtypes.is_bool(t.element_type), lambda: f"{what} does not take booleans")


def _axis(props: Props, rank: int) -> int:
    axis = integer(props, "axis")
    require(0 <= axis < rank, lambda: f"axis {axis} must be in [0, {rank})")
    return axis


# --------------------------------------------------------------------------- reduce_*

REDUCERS: dict[str, Callable[..., np.ndarray]] = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
}


class ReduceOp(TgOp):
    """Reduce over `axes` (sorted, unique, non-negative; empty = identity), keeping the
    reduced dims as size 1 when `keepdims`. Over no elements the result is the identity
    of the combination (0, 1, the lowest or highest value; NaN for a mean)."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    keepdims = prop_def(IntegerAttr)
    traits = traits_def(Pure(), REDUCTION)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"
    ACCEPTS_BOOL: ClassVar[bool] = False
    KIND: ClassVar[str]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        axes = ints(props, "axes")
        keep = flag(props, "keepdims")
        shape = x.get_shape()
        require(list(axes) == sorted(set(axes)), lambda: f"axes {list(axes)} must be sorted and unique")
        require(all(0 <= a < len(shape) for a in axes), lambda: f"axes {list(axes)} out of range for rank {len(shape)}")
        require(cls.ACCEPTS_BOOL or not dtypes.is_bool(x.element_type), lambda: f"{cls.name} does not take booleans")
        return [TensorType(x.element_type, reduced_shape(shape, axes, keep))]

    @property
    def reduced_axes(self) -> list[int]:
        return list(ints(self.properties, "axes"))

    @property
    def keeps_dims(self) -> bool:
        return flag(self.properties, "keepdims")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = args[0]
        axes = tuple(self.reduced_axes)
        out = reduced_shape(x.shape, axes, self.keeps_dims)
        if self.KIND in ("max", "min") and any(x.shape[a] == 0 for a in axes):
            return [np.full(out, lowest(x.dtype) if self.KIND == "max" else highest(x.dtype))]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return [np.reshape(REDUCERS[self.KIND](wide(x), axis=axes), out)]


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "tg.reduce_sum"
    KIND: ClassVar[str] = "sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """The mean; on integers the float mean truncated toward zero (ONNX's reference)."""

    name = "tg.reduce_mean"
    KIND: ClassVar[str] = "mean"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    name = "tg.reduce_prod"
    KIND: ClassVar[str] = "prod"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """Max (NaN propagates); over no elements the lowest value of the type (ONNX)."""

    name = "tg.reduce_max"
    ACCEPTS_BOOL: ClassVar[bool] = True
    KIND: ClassVar[str] = "max"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    """Min (NaN propagates); over no elements the highest value of the type (ONNX)."""

    name = "tg.reduce_min"
    ACCEPTS_BOOL: ClassVar[bool] = True
    KIND: ClassVar[str] = "min"


# --------------------------------------------------------------------------- arg_max / arg_min


class ArgOp(TgOp):
    """The i64 position along `axis` of the first (or, with `select_last_index`, the last)
    extreme element; NaN counts as the extreme, like numpy."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    keepdims = prop_def(IntegerAttr)
    select_last_index = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), REDUCTION)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"
    LARGEST: ClassVar[bool]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        shape = x.get_shape()
        axis = _axis(props, len(shape))
        flag(props, "select_last_index")
        require(shape[axis] > 0, lambda: f"axis {axis} of {x} is empty: there is no extreme element")
        return [TensorType(i64, reduced_shape(shape, [axis], flag(props, "keepdims")))]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = args[0].astype(np.int8) if args[0].dtype == np.bool_ else wide(args[0])
        axis = integer(self.properties, "axis")
        last = flag(self.properties, "select_last_index")
        if last:
            x = np.flip(x, axis)
        found = np.argmax(x, axis=axis) if self.LARGEST else np.argmin(x, axis=axis)
        if last:
            found = x.shape[axis] - 1 - found
        if flag(self.properties, "keepdims"):
            found = np.expand_dims(found, axis)
        return [found.astype(np.int64)]


@irdl_op_definition
class ArgMaxOp(ArgOp):
    name = "tg.arg_max"
    LARGEST: ClassVar[bool] = True


@irdl_op_definition
class ArgMinOp(ArgOp):
    name = "tg.arg_min"
    LARGEST: ClassVar[bool] = False


# --------------------------------------------------------------------------- cumsum / cumprod


class CumulativeOp(TgOp):
    """Running combination along `axis`: element i combines elements 0..i (i+1..n-1 and
    beyond when `reverse`; without element i itself when `exclusive`)."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    axis = prop_def(IntegerAttr)
    exclusive = opt_prop_def(IntegerAttr)
    reverse = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), REDUCTION)
    assembly_format = "$input attr-dict `:` type($input)"
    KIND: ClassVar[str]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        _numeric(x, cls.name)
        require(x.get_num_dims() >= 1, lambda: f"{cls.name} needs a tensor of rank >= 1, got {x}")
        _axis(props, x.get_num_dims())
        flag(props, "exclusive")
        flag(props, "reverse")
        return [x]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = wide(args[0])
        axis = integer(self.properties, "axis")
        reverse, exclusive = flag(self.properties, "reverse"), flag(self.properties, "exclusive")
        running = np.cumsum if self.KIND == "sum" else np.cumprod
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(over="ignore", invalid="ignore"):
            y = running(x, axis=axis, dtype=x.dtype)
        if exclusive and y.shape[axis]:
            identity = np.full_like(np.take(y, [0], axis=axis), 0 if self.KIND == "sum" else 1)
            y = np.concatenate([identity, np.take(y, np.arange(y.shape[axis] - 1), axis=axis)], axis=axis)
        return [np.flip(y, axis) if reverse else y]


@irdl_op_definition
class CumSumOp(CumulativeOp):
    name = "tg.cumsum"
    KIND: ClassVar[str] = "sum"


@irdl_op_definition
class CumProdOp(CumulativeOp):
    name = "tg.cumprod"
    KIND: ClassVar[str] = "prod"


# --------------------------------------------------------------------------- top_k


@irdl_op_definition
class TopKOp(TgOp):
    """The k largest (or, `largest = false`, smallest) elements along `axis`, in order, and
    their i64 positions. Equal elements keep their order (the lower index first) and NaN
    ranks above every number, as ONNX's reference and numpy's sort."""

    name = "tg.top_k"
    input = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = prop_def(IntegerAttr)
    axis = prop_def(IntegerAttr)
    largest = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        _numeric(x, cls.name)
        shape = list(x.get_shape())
        require(len(shape) >= 1, lambda: f"{cls.name} needs a tensor of rank >= 1, got {x}")
        axis = _axis(props, len(shape))
        k = integer(props, "k")
        require(0 <= k <= shape[axis], lambda: f"k = {k} must be in [0, {shape[axis]}] (the size of axis {axis})")
        flag(props, "largest", default=True)
        shape[axis] = k
        return [TensorType(x.element_type, shape), TensorType(i64, shape)]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = args[0]
        axis, k = integer(self.properties, "axis"), integer(self.properties, "k")
        largest = flag(self.properties, "largest", default=True)
        position = np.indices(x.shape)[axis]
        # lexsort: the last key is the primary one; NaN sorts last (above every number)
        order = np.lexsort((-position if largest else position, wide(x)), axis=axis)
        if largest:
            order = np.flip(order, axis)
        order = np.take(order, np.arange(k), axis=axis)
        return [np.take_along_axis(x, order, axis=axis), order.astype(np.int64)]


OPS: list[type[TgOp]] = [
    ReduceSumOp,
    ReduceMeanOp,
    ReduceProdOp,
    ReduceMaxOp,
    ReduceMinOp,
    ArgMaxOp,
    ArgMinOp,
    CumSumOp,
    CumProdOp,
    TopKOp,
]
