"""Contractions and windows: matmul, gemm, conv2d/3d and conv_transpose2d/3d (pooling: pool.py).

These are TVM's complex-out-fusable ops: the expensive kernels that absorb element-wise
consumers. Layouts are ONNX's (NCHW activations, OIHW weights). Padding is explicit and
per edge, `pads = [top, left, bottom, right]` (ONNX begin..., end... order); auto_pad is
resolved by the frontend so the IR carries one meaning only. 1-D convolutions are 2-D ones
of height 1 (the frontend reshapes), which keeps them on conv2d's blocked layout path.

    %y = tg.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>,
           dilations = array<i64: 1, 1>, groups = 1 : i64}
         : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import (
    COMPLEX_OUT_FUSABLE,
    Props,
    TgOp,
    broadcast_shapes,
    broadcasts_to,
    flag,
    floating,
    integer,
    ints,
    require,
    require_rank,
    same_element_type,
)
from .reference import conv_nd, conv_transpose_nd

FUNCTIONAL = "operands attr-dict `:` functional-type(operands, results)"


def _numeric(t: TensorType, what: str) -> None:
    require(not dtypes.is_bool(t.element_type), lambda: f"{what} must be numeric, got {t.element_type}")


# --------------------------------------------------------------------------- matmul / gemm


@irdl_op_definition
class MatmulOp(TgOp):
    """numpy.matmul: batched, batch dims broadcast; a 1-D operand is promoted then squeezed."""

    name = "tg.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b = operand_types
        et = same_element_type([a, b])
        _numeric(a, "lhs")
        sa, sb = a.get_shape(), b.get_shape()
        require(len(sa) >= 1 and len(sb) >= 1, "matmul operands must have rank >= 1")
        ma = (1, *sa) if len(sa) == 1 else sa
        mb = (*sb, 1) if len(sb) == 1 else sb
        require(ma[-1] == mb[-2], lambda: f"contraction sizes differ: lhs {sa} has {ma[-1]}, rhs {sb} has {mb[-2]}")
        batch = broadcast_shapes(ma[:-2], mb[:-2])
        out = [*batch]
        if len(sa) > 1:
            out.append(ma[-2])
        if len(sb) > 1:
            out.append(mb[-1])
        return [TensorType(et, out)]


@irdl_op_definition
class GemmOp(TgOp):
    """alpha * op(A) @ op(B) + beta * C, op = transpose when trans_a/trans_b; C broadcasts to (M, N)."""

    name = "tg.gemm"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    c = opt_operand_def(TensorType)
    result = result_def(TensorType)
    alpha = prop_def(FloatAttr)
    beta = prop_def(FloatAttr)
    trans_a = prop_def(IntegerAttr)
    trans_b = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b = operand_types[:2]
        et = same_element_type(list(operand_types))
        _numeric(a, "a")
        require_rank(a, 2, "a")
        require_rank(b, 2, "b")
        floating(props, "alpha")
        floating(props, "beta")
        m, k = a.get_shape()[::-1] if flag(props, "trans_a") else a.get_shape()
        k2, n = b.get_shape()[::-1] if flag(props, "trans_b") else b.get_shape()
        require(k == k2, lambda: f"contraction sizes differ: {k} (a) and {k2} (b)")
        if len(operand_types) == 3:
            c = operand_types[2].get_shape()
            require(broadcasts_to(c, (m, n)), lambda: f"c of shape {c} does not broadcast to ({m}, {n})")
        return [TensorType(et, [m, n])]


# --------------------------------------------------------------------------- convolution


def window_extent(kernel: int, dilation: int) -> int:
    return dilation * (kernel - 1) + 1


def _check_window_props(props: Props, spatial: int, what: str) -> tuple[tuple[int, ...], ...]:
    strides = ints(props, "strides")
    pads = ints(props, "pads")
    dilations = ints(props, "dilations")
    require(len(strides) == spatial, lambda: f"strides must have {spatial} entries, got {len(strides)}")
    require(len(dilations) == spatial, lambda: f"dilations must have {spatial} entries, got {len(dilations)}")
    require(len(pads) == 2 * spatial, lambda: f"pads must have {2 * spatial} entries, got {len(pads)}")
    require(all(s >= 1 for s in strides), lambda: f"strides must be positive, got {list(strides)}")
    require(all(d >= 1 for d in dilations), lambda: f"dilations must be positive, got {list(dilations)}")
    require(all(p >= 0 for p in pads), lambda: f"{what} pads must be non-negative, got {list(pads)}")
    return strides, pads, dilations


def conv_output_size(size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, dilation: int) -> int:
    return (size + pad_begin + pad_end - window_extent(kernel, dilation)) // stride + 1


class ConvOp(TgOp):
    """What the convolutions share: (N, C, *spatial) input, a weight of the same rank with
    SPATIAL kernel dims, an optional bias (M,)."""

    SPATIAL: ClassVar[int] = 2
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = FUNCTIONAL

    @classmethod
    def check_ranks(cls, operand_types: Sequence[TensorType]) -> None:
        require_rank(operand_types[0], cls.SPATIAL + 2, "input")
        require_rank(operand_types[1], cls.SPATIAL + 2, "weight")

    @classmethod
    def check_common(cls, operand_types: Sequence[TensorType], props: Props, out_channels: int) -> None:
        x = operand_types[0]
        same_element_type(list(operand_types))
        _numeric(x, "input")
        c = x.get_shape()[1]
        groups = integer(props, "groups")
        require(groups >= 1 and c % groups == 0, lambda: f"groups={groups} must divide the {c} input channels")
        require(out_channels % groups == 0, lambda: f"groups={groups} must divide the {out_channels} output channels")
        if len(operand_types) == 3:
            bias = operand_types[2]
            require(bias.get_shape() == (out_channels,), lambda: f"bias must have shape ({out_channels},), got {bias}")


class ConvNdOp(ConvOp):
    """Convolution (cross-correlation) of (N, C, *spatial) input with (M, C/groups, *kernel)
    weights; pads are [begin..., end...] per spatial dim."""

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        cls.check_ranks(operand_types)
        x, w = operand_types[:2]
        n, c, *sizes = x.get_shape()
        m, cg, *kernel = w.get_shape()
        cls.check_common(operand_types, props, m)
        sp = cls.SPATIAL
        strides, pads, dilations = _check_window_props(props, sp, cls.name.removeprefix("tg."))
        groups = integer(props, "groups")
        require(cg == c // groups, lambda: f"weight has {cg} input channels per group, expected {c // groups}")
        out = [
            conv_output_size(size, k, s, pads[i], pads[i + sp], d)
            for i, (size, k, s, d) in enumerate(zip(sizes, kernel, strides, dilations))
        ]
        window, extent = "x".join(map(str, kernel)), "x".join(map(str, sizes))
        require(all(o >= 1 for o in out), lambda: f"the {window} window does not fit the padded {extent} input")
        return [TensorType(x.element_type, [n, m, *out])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        p = self.properties
        bias = args[2] if len(args) == 3 else None
        return [
            conv_nd(
                args[0], args[1], bias, ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), integer(p, "groups")
            )
        ]


@irdl_op_definition
class Conv2dOp(ConvNdOp):
    """2-D convolution of NCHW input with (M, C/groups, kH, kW) weights."""

    name = "tg.conv2d"


@irdl_op_definition
class Conv3dOp(ConvNdOp):
    """3-D convolution of NCDHW input with (M, C/groups, kD, kH, kW) weights."""

    name = "tg.conv3d"
    SPATIAL: ClassVar[int] = 3


class ConvTransposeNdOp(ConvOp):
    """The gradient of a convolution w.r.t. its input: weights are (C, M/groups, *kernel).

    Output size per spatial dim: stride*(in-1) + output_padding + dilation*(k-1) + 1 - pad_begin - pad_end.
    """

    output_padding = prop_def(DenseArrayBase)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        cls.check_ranks(operand_types)
        x, w = operand_types[:2]
        n, c, *sizes = x.get_shape()
        cw, mg, *kernel = w.get_shape()
        require(cw == c, lambda: f"weight has {cw} input channels, the input has {c}")
        m = mg * integer(props, "groups")
        cls.check_common(operand_types, props, m)
        sp = cls.SPATIAL
        strides, pads, dilations = _check_window_props(props, sp, cls.name.removeprefix("tg."))
        output_padding = ints(props, "output_padding")
        require(len(output_padding) == sp, lambda: f"output_padding must have {sp} entries, got {len(output_padding)}")
        for p, st, d in zip(output_padding, strides, dilations):
            require(
                0 <= p < max(st, d),
                lambda: f"output_padding {list(output_padding)} must be in [0, max(stride, dilation))",
            )
        out = [
            s * (size - 1) + op + window_extent(k, d) - pads[i] - pads[i + sp]
            for i, (size, k, s, d, op) in enumerate(zip(sizes, kernel, strides, dilations, output_padding))
        ]
        require(all(o >= 1 for o in out), lambda: f"output size {out} is empty")
        return [TensorType(x.element_type, [n, m, *out])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        p = self.properties
        bias = args[2] if len(args) == 3 else None
        window = (ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), ints(p, "output_padding"))
        return [conv_transpose_nd(args[0], args[1], bias, *window, integer(p, "groups"))]


@irdl_op_definition
class ConvTranspose2dOp(ConvTransposeNdOp):
    name = "tg.conv_transpose2d"


@irdl_op_definition
class ConvTranspose3dOp(ConvTransposeNdOp):
    name = "tg.conv_transpose3d"
    SPATIAL: ClassVar[int] = 3
