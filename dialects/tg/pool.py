"""Pooling: max, average and Lp pooling over sliding windows, and global average pooling.

These are TVM's complex-out-fusable ops (they absorb element-wise consumers). Padding is
explicit and per edge, `pads = [begin..., end...]` (ONNX order); auto_pad is resolved by
the frontend, and 1-D pools are lifted to 2-D with a unit height. Positions outside the
input never contribute a value; each op says how it counts them.

The 2-D pools (max without Indices, average, global average) also take an optional
`layout = "NCHW16c"`: the input and result are then N, C/16, H, W, 16, as the blocked
convolutions write them (tg-layout moves the conversions past a pool instead of converting
to NCHW and back around it; TVM's pools take the same `layout` attribute).

    %y = tg.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
           pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false}
         : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .base import (
    COMPLEX_OUT_FUSABLE,
    Props,
    TgOp,
    flag,
    integer,
    ints,
    require,
    require_float,
    require_rank,
    tensor_of,
)
from .blocked import activation_block
from .nn import _check_window_props, _numeric, window_extent
from .reference import avg_pool, lp_pool, max_pool, to_layout, wide


def layout_block(props: Props, spatial: int) -> int | None:
    """The channel block of an op's optional `layout` (None: NCHW); 2-D pools only."""
    layout = props.get("layout")
    if layout is None:
        return None
    if not isinstance(layout, StringAttr):
        raise VerifyException(f'layout must be a string such as "NCHW16c", got {layout}')
    try:
        block = activation_block(layout.data)
    except ValueError as err:
        raise VerifyException(str(err)) from None
    require(block is None or spatial == 2, "a blocked layout applies to 2-D pooling only")
    return block


def in_layout(op: TgOp, fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """fn over NCHW, for an op whose `layout` may be blocked: unblock, apply, block."""
    layout = op.properties.get("layout")
    if not isinstance(layout, StringAttr) or layout.data == "NCHW":
        return fn(x)
    return np.ascontiguousarray(to_layout(fn(to_layout(x, layout.data, "NCHW")), "NCHW", layout.data))


def pool_output_size(
    size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, dilation: int, ceil_mode: bool
) -> int:
    """ONNX pooling output size; in ceil mode the last window must start inside input or begin pad."""
    span = size + pad_begin + pad_end - window_extent(kernel, dilation)
    if not ceil_mode:
        return span // stride + 1
    out = math.ceil(span / stride) + 1
    if (out - 1) * stride >= size + pad_begin:
        out -= 1
    return out


class PoolOp(TgOp):
    """Sliding-window pooling over the trailing SPATIAL dims of an (N, C, ...) tensor.

    The window of output index o along a dim covers input positions o*stride - pad_begin +
    j*dilation, j < kernel. Positions outside the input never contribute a value; see the
    subclasses for how they count.
    """

    SPATIAL: ClassVar[int] = 2
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    ceil_mode = prop_def(IntegerAttr)
    layout = opt_prop_def(StringAttr)  # "NCHW" when absent, or "NCHW<k>c" (2-D only)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    @classmethod
    def output_shape(cls, x: TensorType, props: Props) -> list[int]:
        _numeric(x, "input")
        block = layout_block(props, cls.SPATIAL)
        require_rank(x, cls.SPATIAL + 2 + (block is not None), "input")
        if block is not None:
            require(x.get_shape()[-1] == block, lambda: f"the input's last dim must be the block {block}, got {x}")
        kernel = ints(props, "kernel")
        require(len(kernel) == cls.SPATIAL, lambda: f"kernel must have {cls.SPATIAL} entries, got {len(kernel)}")
        require(all(k >= 1 for k in kernel), lambda: f"kernel must be positive, got {list(kernel)}")
        strides, pads, dilations = _check_window_props(props, cls.SPATIAL, cls.name)
        for i, k in enumerate(kernel):
            require(
                max(pads[i], pads[i + cls.SPATIAL]) < window_extent(k, dilations[i]),
                lambda: f"pads {list(pads)} must be smaller than the window",
            )
        ceil_mode = flag(props, "ceil_mode")
        shape = x.get_shape()
        out = [
            pool_output_size(
                shape[2 + i], kernel[i], strides[i], pads[i], pads[i + cls.SPATIAL], dilations[i], ceil_mode
            )
            for i in range(cls.SPATIAL)
        ]
        require(all(o >= 1 for o in out), lambda: f"the pooling window does not fit the input {x}")
        return [*shape[:2], *out, *([block] if block is not None else [])]

    def window(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """kernel, strides, pads and dilations."""
        p = self.properties
        return ints(p, "kernel"), ints(p, "strides"), ints(p, "pads"), ints(p, "dilations")

    def out_spatial(self) -> tuple[int, ...]:
        return tensor_of(self.results[0]).get_shape()[2 : 2 + self.SPATIAL]


class MaxPoolOp(PoolOp):
    """Max over the in-bounds window positions; the optional second result holds, like ONNX
    MaxPool's Indices, the flat (row-major, or column-major over H/W when storage_order = 1)
    index into the input of the first maximal element."""

    result = result_def(TensorType)
    indices = opt_result_def(TensorType)
    storage_order = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        out = cls.output_shape(x, props)
        order = integer(props, "storage_order", default=0)
        require(order in (0, 1), lambda: f"storage_order must be 0 or 1, got {order}")
        return [TensorType(x.element_type, out)]

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        (values,) = cls.infer_result_types(operand_types, props)
        expected = [values, TensorType(i64, values.get_shape())]
        require(1 <= len(result_types) <= 2, lambda: f"expected 1 or 2 results, got {len(result_types)}")
        blocked = layout_block(props, cls.SPATIAL) is not None
        require(not blocked or len(result_types) == 1, "a blocked max pool has no Indices result")
        for i, (want, got) in enumerate(zip(expected, result_types)):
            require(want == got, lambda: f"result #{i} type should be {want}, got {got}")

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        order = integer(self.properties, "storage_order", default=0)
        if len(self.results) == 1:
            return [in_layout(self, lambda x: max_pool(x, self.out_spatial(), *self.window(), order)[0], args[0])]
        return list(max_pool(args[0], self.out_spatial(), *self.window(), order))


@irdl_op_definition
class MaxPool2dOp(MaxPoolOp):
    name = "tg.max_pool2d"


@irdl_op_definition
class MaxPool3dOp(MaxPoolOp):
    name = "tg.max_pool3d"
    SPATIAL: ClassVar[int] = 3


class AvgPoolOp(PoolOp):
    """Mean over the window. count_include_pad = false divides by the in-bounds positions;
    true divides by the positions inside the explicitly padded input (never by positions a
    ceil-mode window hangs past the end padding), exactly as ONNX AveragePool."""

    result = result_def(TensorType)
    count_include_pad = prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require_float(x, "input")
        flag(props, "count_include_pad")
        return [TensorType(x.element_type, cls.output_shape(x, props))]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        include_pad = flag(self.properties, "count_include_pad")
        return [in_layout(self, lambda x: avg_pool(x, self.out_spatial(), *self.window(), include_pad), args[0])]


@irdl_op_definition
class AvgPool2dOp(AvgPoolOp):
    name = "tg.avg_pool2d"


@irdl_op_definition
class AvgPool3dOp(AvgPoolOp):
    name = "tg.avg_pool3d"
    SPATIAL: ClassVar[int] = 3


class LpPoolOp(PoolOp):
    """(sum over the in-bounds window positions of |x|^p)^(1/p), p a positive integer:
    padding contributes zeros, as in ONNX's LpPool tests (and PyTorch's lp_pool)."""

    result = result_def(TensorType)
    p = prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require_float(x, "input")
        p = integer(props, "p")
        require(p >= 1, lambda: f"p must be positive, got {p}")
        return [TensorType(x.element_type, cls.output_shape(x, props))]

    @classmethod
    def output_shape(cls, x: TensorType, props: Props) -> list[int]:
        require("layout" not in props, lambda: f"{cls.name} has no layout property (NCHW only)")
        return super().output_shape(x, props)

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [lp_pool(args[0], self.out_spatial(), *self.window(), integer(self.properties, "p"))]


@irdl_op_definition
class LpPool2dOp(LpPoolOp):
    name = "tg.lp_pool2d"


@irdl_op_definition
class LpPool3dOp(LpPoolOp):
    name = "tg.lp_pool3d"
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class GlobalAvgPool2dOp(TgOp):
    """Mean over H and W: (N, C, H, W) -> (N, C, 1, 1); blocked, (N, C/k, H, W, k) ->
    (N, C/k, 1, 1, k)."""

    name = "tg.global_avg_pool2d"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    layout = opt_prop_def(StringAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require_float(x, "input")
        block = layout_block(props, 2)
        require_rank(x, 4 if block is None else 5, "input")
        if block is not None:
            require(x.get_shape()[-1] == block, lambda: f"the input's last dim must be the block {block}, got {x}")
        return [TensorType(x.element_type, [*x.get_shape()[:2], 1, 1, *x.get_shape()[4:]])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [wide(args[0]).mean(axis=(2, 3), keepdims=True)]  # (the same over NCHW<k>c)


OPS: list[type[TgOp]] = [
    MaxPool2dOp,
    MaxPool3dOp,
    AvgPool2dOp,
    AvgPool3dOp,
    LpPool2dOp,
    LpPool3dOp,
    GlobalAvgPool2dOp,
]
