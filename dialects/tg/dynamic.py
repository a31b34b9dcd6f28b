"""Ops whose result shape depends on the data: nonzero, compress, unique.

Every other tg op has a static shape. These three count something in their input (the
nonzero elements, the kept slices, the distinct values), so the dims they count are
dynamic (`?`) in their result types:

    %i = tg.nonzero %x : tensor<3x4xi1> -> tensor<2x?xi64>
    %y = tg.compress %x, %c {axis = 0 : i64} : (tensor<5x2xf32>, tensor<5xi1>) -> tensor<?x2xf32>
    %u, %first, %inverse, %counts = tg.unique %x {sorted = true}
         : tensor<6xf32> -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)

The reference target runs them (its arrays carry their shapes); the other tg ops take
static operands only, so a dynamic value can only leave the graph. The compiled targets
plan every buffer statically: they refuse these ops at compile time, in one line naming
the node (`refuse_data_dependent`). When the input is known at import, the importer
computes the result instead, and it is a constant of static shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError, op_location

from .base import OPAQUE, Props, TgOp, check_static, flag, integer, require


class DataDependentOp(TgOp):
    """A tg op with dynamic dims in its results (and only there)."""

    def verify_(self) -> None:
        types = []
        for i, v in enumerate(self.operands):
            if not isinstance(v.type, TensorType):
                raise VerifyException(f"operand #{i} must be a tensor, got {v.type}")
            check_static(v.type, f"operand #{i}")
            types.append(v.type)
        results = []
        for i, r in enumerate(self.results):
            if not isinstance(r.type, TensorType):
                raise VerifyException(f"result #{i} must be a tensor, got {r.type}")
            if not dtypes.is_supported(r.type.element_type):
                raise VerifyException(f"result #{i} has unsupported element type {r.type.element_type}")
            results.append(r.type)
        self.check_result_types(types, results, self.properties)


def conforms(t: TensorType, value: np.ndarray) -> bool:
    """Does an array fit a type whose dynamic dims take any size?"""
    shape = t.get_shape()
    return len(shape) == value.ndim and all(d in (DYNAMIC_INDEX, n) for d, n in zip(shape, value.shape))


@irdl_op_definition
class NonZeroOp(DataDependentOp):
    """ONNX NonZero: the indices of the nonzero elements, one row per dim, in row-major order."""

    name = "tg.nonzero"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require(x.get_num_dims() >= 1, lambda: f"nonzero needs rank >= 1, got {x}")
        return [TensorType(i64, [x.get_num_dims(), DYNAMIC_INDEX])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [nonzero(args[0])]


def nonzero(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


@irdl_op_definition
class CompressOp(DataDependentOp):
    """ONNX Compress along `axis`: the slices whose condition is true (a condition shorter
    than the axis keeps none of the slices past its end)."""

    name = "tg.compress"
    input = operand_def(TensorType)
    condition = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, c = operand_types
        shape = x.get_shape()
        axis = integer(props, "axis")
        require(0 <= axis < len(shape), lambda: f"axis {axis} must be in [0, {len(shape)})")
        require(
            dtypes.is_bool(c.element_type) and c.get_num_dims() == 1 and c.get_shape()[0] <= shape[axis],
            lambda: f"condition must be a boolean vector of at most {shape[axis]} elements, got {c}",
        )
        return [TensorType(x.element_type, [DYNAMIC_INDEX if d == axis else n for d, n in enumerate(shape)])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, condition = args
        return [np.compress(condition, x, axis=integer(self.properties, "axis"))]


@irdl_op_definition
class UniqueOp(DataDependentOp):
    """ONNX Unique: the distinct values (or slices along `axis`), sorted or in order of
    first occurrence; where each first occurs, each input's position among them, and how
    often each occurs. Without `axis` the input is taken flat."""

    name = "tg.unique"
    input = operand_def(TensorType)
    values = result_def(TensorType)
    first = result_def(TensorType)
    inverse = result_def(TensorType)
    counts = result_def(TensorType)
    sorted = prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), OPAQUE)
    assembly_format = (
        "$input attr-dict `:` type($input) `->` `(` type($values) `,` type($first) `,` type($inverse) `,` "
        "type($counts) `)`"
    )

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        flag(props, "sorted")
        shape = x.get_shape()
        if "axis" in props:
            axis = integer(props, "axis")
            require(0 <= axis < len(shape), lambda: f"axis {axis} must be in [0, {len(shape)})")
            values = [DYNAMIC_INDEX if d == axis else n for d, n in enumerate(shape)]
            n = shape[axis]
        else:
            values, n = [DYNAMIC_INDEX], int(np.prod(shape))
        dynamic = TensorType(i64, [DYNAMIC_INDEX])
        return [TensorType(x.element_type, values), dynamic, TensorType(i64, [n]), dynamic]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        axis = integer(self.properties, "axis") if "axis" in self.properties else None
        return unique(args[0], axis, flag(self.properties, "sorted"))


def unique(x: np.ndarray, axis: int | None, sorted_: bool) -> tuple[np.ndarray, ...]:
    """numpy's unique, reordered by first occurrence unless sorted (ONNX's reference)."""
    data = x.reshape(-1) if axis is None else x
    values, first, inverse, counts = np.unique(data, True, True, True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        first, counts, inverse = first[order], counts[order], rank[inverse]
        values = np.take(data, first, axis=0 if axis is None else axis)
    return values, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)


class DataDependentShape(TesselError):
    """A compiled target was given an op whose result shape depends on the data."""


def refuse_data_dependent(module: ModuleOp) -> None:
    """The compiled targets' check: every shape is static (one line naming the node)."""
    for op in module.walk():
        if isinstance(op, DataDependentOp):
            raise DataDependentShape(_why(op), op_location(op))


def _why(op: Operation) -> str:
    kinds = ", ".join(str(r.type) for r in op.results)
    return (
        f"{op.name} has a result shape that depends on the data ({kinds}); the compiled targets need "
        "static shapes (run the model on the reference target, or bind the op's inputs to constants)"
    )
