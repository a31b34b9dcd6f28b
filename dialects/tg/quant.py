"""Quantization `tg` ops: the linear (affine) int8/int16 quantization of ONNX and the
integer contractions that an int8 model runs.

    %q = tg.quantize %x, %scale, %zp : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
    %x = tg.dequantize %q, %scale, %zp : (tensor<4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8xf32>
    %a = tg.matmul_integer %q, %w, %zp, %wzp
         : (tensor<4x8xi8>, tensor<8x3xi8>, tensor<i8>, tensor<i8>) -> tensor<4x3xi32>
    %y = tg.requantize %a, %sx, %sw, %sy, %zy {precision = f32}
         : (tensor<4x3xi32>, tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<i8>) -> tensor<4x3xi8>

Scales and zero points are operands (ONNX models pass them as tensors, often as graph
inputs), shaped to broadcast against the data: per tensor (rank 0), per axis (a vector
reshaped onto its axis) or blocked (repeated over the block by the importer); every
broadcast happens inside the element-wise kernel, so a scale is read, never copied.

The contractions keep the integer structure: `tg.matmul_integer` and `tg.conv2d_integer`
take 8-bit operands and their zero points and accumulate exact int32 products, so a CPU
kernel can use its integer dot-product instructions; `tg.requantize` is the float
epilogue that brings the int32 accumulator back to 8 bits (ONNX QLinearConv/QLinearMatMul,
onnxruntime's fused QDQ kernels), and fuses into the contraction's kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    TypeAttribute,
    f64,
    i32,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import (
    COMPLEX_OUT_FUSABLE,
    INJECTIVE,
    Elementwise,
    Props,
    TgOp,
    broadcast_shapes,
    broadcasts_to,
    integer,
    ints,
    num_elements,
    require,
    require_rank,
    tensor_of,
)
from .nn import conv_output_size, window_extent
from .reference import conv2d, wrap_int32

# Element types a quantized tensor may have, with their ranges (int4 and float8 are out of scope).
QUANTIZED = {(8, True): (-128, 127), (8, False): (0, 255), (16, True): (-32768, 32767), (16, False): (0, 65535)}
# Element types the integer contractions take (ONNX MatMulInteger/ConvInteger: int8, uint8).
EIGHT_BIT = {(8, True), (8, False)}


def int_kind(element: Attribute) -> tuple[int, bool] | None:
    """(width, signed) of an integer element type; None for floats and booleans."""
    if not dtypes.is_integer(element):
        return None
    assert isinstance(element, IntegerType)
    return element.width.data, element.signedness.data != Signedness.UNSIGNED


def quant_range(element: Attribute) -> tuple[int, int]:
    """The values a quantized element type holds, [lo, hi]."""
    kind = int_kind(element)
    require(kind in QUANTIZED, lambda: f"quantized values must be int8, uint8, int16 or uint16, got {element}")
    assert kind is not None
    return QUANTIZED[kind]


def _require_broadcast(t: TensorType, target: Sequence[int], what: str) -> None:
    require(
        broadcasts_to(t.get_shape(), target),
        lambda: f"{what} of shape {t.get_shape()} does not broadcast to {tuple(target)}",
    )


def saturate(values: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Clamp float64 values to [lo, hi]; NaN goes to lo (ONNX's reference casts NaN to the
    smallest int32 before clipping)."""
    return np.where(np.isnan(values), lo, np.clip(values, lo, hi))


# --------------------------------------------------------------------------- element-wise


@irdl_op_definition
class QuantizeOp(TgOp):
    """ONNX QuantizeLinear to an integer type: saturate(round_half_even(x / scale) + zp).

    `x` and `scale` have one float element type T and the quotient is rounded to T, as
    ONNX's reference divides (onnxruntime too for float32); the rounding is half to even
    and the result saturates to the zero point's type (+inf to its largest value, -inf
    and NaN to its smallest)."""

    name = "tg.quantize"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, scale, zp = operand_types
        require(dtypes.is_float(x.element_type), lambda: f"the input must be a float tensor, got {x.element_type}")
        require(
            scale.element_type == x.element_type,
            lambda: f"the scale must be {x.element_type} like the input, got {scale.element_type}",
        )
        quant_range(zp.element_type)
        _require_broadcast(scale, x.get_shape(), "the scale")
        _require_broadcast(zp, x.get_shape(), "the zero point")
        return [TensorType(zp.element_type, x.get_shape())]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, scale, zp = args
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            quotient = (x / scale).astype(x.dtype).astype(np.float64)
        lo, hi = quant_range(self.result.type.element_type)
        return [saturate(np.rint(quotient) + zp.astype(np.float64), lo, hi)]


def dequantize_precision(scale: Attribute) -> Attribute:
    """The float type (x - zp) * scale is computed in: f64 for f64 scales, else f32."""
    return f64 if isinstance(scale, Float64Type) else Float32Type()


@irdl_op_definition
class DequantizeOp(TgOp):
    """ONNX DequantizeLinear from an integer type: (x - zp) * scale, of the scale's type.

    The difference is exact (an integer), converted once to f32 (f64 for f64 scales) and
    multiplied there; the product is rounded to the scale's type."""

    name = "tg.dequantize"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, scale, zp = operand_types
        kind = int_kind(x.element_type)
        require(
            kind in QUANTIZED or kind == (32, True),
            lambda: f"the input must be a (u)int8, (u)int16 or int32 tensor, got {x.element_type}",
        )
        require(
            zp.element_type == x.element_type,
            lambda: f"the zero point must be {x.element_type} like the input, got {zp.element_type}",
        )
        require(
            dtypes.is_float(scale.element_type), lambda: f"the scale must be a float tensor, got {scale.element_type}"
        )
        _require_broadcast(scale, x.get_shape(), "the scale")
        _require_broadcast(zp, x.get_shape(), "the zero point")
        return [TensorType(scale.element_type, x.get_shape())]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, scale, zp = args
        precision = dtypes.to_numpy(dequantize_precision(tensor_of(self.scale).element_type))
        difference = x.astype(np.int64) - zp.astype(np.int64)
        return [difference.astype(precision) * scale.astype(precision)]


PRECISIONS = (Float32Type, Float64Type)


@irdl_op_definition
class RequantizeOp(TgOp):
    """An integer accumulator back to a quantized type: saturate(round_half_even(acc * M) + zp)
    with the multiplier M = (scale_a * scale_b) / scale_out, each step rounded to the
    scales' type (how ONNX's reference and onnxruntime compute it), and acc * M computed in
    `precision` (f64 for ONNX's reference QLinearConv/QLinearMatMul, f32 for onnxruntime's
    fused kernels). The scales broadcast against the accumulator (per output channel)."""

    name = "tg.requantize"
    input = operand_def(TensorType)
    scale_a = operand_def(TensorType)
    scale_b = operand_def(TensorType)
    scale_out = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    precision = prop_def(TypeAttribute)
    traits = traits_def(Pure(), INJECTIVE, Elementwise())
    assembly_format = "$input `,` $scale_a `,` $scale_b `,` $scale_out `,` $zero_point attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        acc, sa, sb, sy, zp = operand_types
        require(
            int_kind(acc.element_type) == (32, True), lambda: f"the accumulator must be i32, got {acc.element_type}"
        )
        require(
            dtypes.is_float(sa.element_type) and sa.element_type == sb.element_type == sy.element_type,
            lambda: (
                f"the scales must share one float type, got {sa.element_type}, {sb.element_type} and {sy.element_type}"
            ),
        )
        precision = props.get("precision")
        require(isinstance(precision, PRECISIONS), lambda: f"precision must be f32 or f64, got {precision}")
        quant_range(zp.element_type)
        for t, what in ((sa, "scale_a"), (sb, "scale_b"), (sy, "scale_out"), (zp, "the zero point")):
            _require_broadcast(t, acc.get_shape(), what)
        return [TensorType(zp.element_type, acc.get_shape())]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        acc, sa, sb, sy, zp = args
        st = sa.dtype
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            multiplier = ((sa * sb).astype(st) / sy).astype(st)
            p = dtypes.to_numpy(self.precision)
            product = (acc.astype(p) * multiplier.astype(p)).astype(p).astype(np.float64)
        lo, hi = quant_range(self.result.type.element_type)
        return [saturate(np.rint(product) + zp.astype(np.float64), lo, hi)]


# --------------------------------------------------------------------------- contractions


def _eight_bit(t: TensorType, what: str) -> None:
    require(int_kind(t.element_type) in EIGHT_BIT, lambda: f"{what} must be int8 or uint8, got {t.element_type}")


def _zero_point(zp: TensorType, of: TensorType, what: str) -> None:
    require(zp.element_type == of.element_type, lambda: f"{what} must be {of.element_type}, got {zp.element_type}")


def _window_output(props: Props, size: Sequence[int], kernel: Sequence[int]) -> list[int]:
    """The output height and width of the integer convolutions' 2-D window, after checking
    strides, pads and dilations."""
    strides, pads, dilations = ints(props, "strides"), ints(props, "pads"), ints(props, "dilations")
    require(
        len(strides) == 2 and len(dilations) == 2 and len(pads) == 4, "strides and dilations need 2 entries, pads 4"
    )
    require(min(strides) >= 1 and min(dilations) >= 1, "strides and dilations must be positive")
    require(min(pads) >= 0, lambda: f"pads must be non-negative, got {list(pads)}")
    out = [
        conv_output_size(n, k, s, pads[i], pads[i + 2], d)
        for i, (n, k, s, d) in enumerate(zip(size, kernel, strides, dilations))
    ]
    kh, kw = kernel
    require(
        min(out) >= 1, lambda: f"the {kh}x{kw} window (extent {window_extent(kh, dilations[0])}) does not fit the input"
    )
    return out


def centered(x: np.ndarray, zp: np.ndarray) -> np.ndarray:
    """x - zp as exact int64."""
    return x.astype(np.int64) - zp.astype(np.int64)


@irdl_op_definition
class MatmulIntegerOp(TgOp):
    """ONNX MatMulInteger: (a - a_zp) @ (b - b_zp) in exact int32, numpy.matmul's shapes.
    a_zp broadcasts to a (per tensor, or per row as (M, 1)), b_zp to b (per tensor, or per
    column as (N,))."""

    name = "tg.matmul_integer"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    lhs_zero_point = operand_def(TensorType)
    rhs_zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = (
        "$lhs `,` $rhs `,` $lhs_zero_point `,` $rhs_zero_point attr-dict `:` functional-type(operands, results)"
    )

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        a, b, az, bz = operand_types
        _eight_bit(a, "lhs")
        _eight_bit(b, "rhs")
        _zero_point(az, a, "the lhs zero point")
        _zero_point(bz, b, "the rhs zero point")
        _require_broadcast(az, a.get_shape(), "the lhs zero point")
        _require_broadcast(bz, b.get_shape(), "the rhs zero point")
        sa, sb = a.get_shape(), b.get_shape()
        require(len(sa) >= 1 and len(sb) >= 1, "operands must have rank >= 1")
        ma = (1, *sa) if len(sa) == 1 else sa
        mb = (*sb, 1) if len(sb) == 1 else sb
        require(ma[-1] == mb[-2], lambda: f"contraction sizes differ: lhs {sa} has {ma[-1]}, rhs {sb} has {mb[-2]}")
        out = [*broadcast_shapes(ma[:-2], mb[:-2])]
        if len(sa) > 1:
            out.append(ma[-2])
        if len(sb) > 1:
            out.append(mb[-1])
        return [TensorType(i32, out)]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        a, b, az, bz = args
        return [wrap_int32(np.matmul(centered(a, az), centered(b, bz)))]


@irdl_op_definition
class Conv2dIntegerOp(TgOp):
    """ONNX ConvInteger in 2-D: conv2d(x - x_zp, w - w_zp) in exact int32, NCHW/OIHW. The
    input is padded with its zero point (zero after centering); x_zp is one value, w_zp one
    value or one per output channel (shape (M,))."""

    name = "tg.conv2d_integer"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    weight_zero_point = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, w, xz, wz = operand_types
        require_rank(x, 4, "input")
        require_rank(w, 4, "weight")
        _eight_bit(x, "the input")
        _eight_bit(w, "the weight")
        _zero_point(xz, x, "the input zero point")
        _zero_point(wz, w, "the weight zero point")
        n, c, h, wd = x.get_shape()
        m, cg, kh, kw = w.get_shape()
        require(num_elements(xz.get_shape()) == 1, lambda: f"the input zero point must be one value, got {xz}")
        require(
            wz.get_shape() in ((), (1,), (m,)),
            lambda: f"the weight zero point must be one value or one per output channel, got {wz}",
        )
        groups = integer(props, "groups")
        require(
            groups >= 1 and c % groups == 0 and m % groups == 0,
            lambda: f"groups={groups} must divide {c} and {m} channels",
        )
        require(cg == c // groups, lambda: f"weight has {cg} input channels per group, expected {c // groups}")
        return [TensorType(i32, [n, m, *_window_output(props, (h, wd), (kh, kw))])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, w, xz, wz = args
        wz = wz.reshape(-1, 1, 1, 1) if wz.ndim == 1 else wz
        p = self.properties
        y = conv2d(
            centered(x, xz),
            centered(w, wz),
            None,
            ints(p, "strides"),
            ints(p, "pads"),
            ints(p, "dilations"),
            integer(p, "groups"),
        )
        return [wrap_int32(y)]


# --------------------------------------------------------------------------- packed int8 convolution

DOT_BYTES = 4  # input channels packed into one i32 (kernel.dot4, vpdpbusd)


def pack_conv_weights(w: np.ndarray, block: int) -> np.ndarray:
    """int8 OIHW weights [M, C, KH, KW] -> int32 [ceil(M/block), ceil(C/4), KH, KW, block]:
    byte j of [mo, c4, kh, kw, mi] is w[mo*block + mi, 4*c4 + j, kh, kw] (zero past M and C)."""
    m, c, kh, kw = w.shape
    mo, c4 = -(-m // block), -(-c // DOT_BYTES)
    full = np.zeros((mo * block, c4 * DOT_BYTES, kh, kw), np.int8)
    full[:m, :c] = w
    grouped = full.reshape(mo, block, c4, DOT_BYTES, kh, kw).transpose(0, 2, 4, 5, 1, 3)
    return np.ascontiguousarray(grouped).view("<i4").reshape(mo, c4, kh, kw, block).astype(np.int32)


def unpack_conv_weights(packed: np.ndarray, m: int, c: int) -> np.ndarray:
    """The inverse of pack_conv_weights: int8 [m, c, KH, KW]."""
    mo, c4, kh, kw, block = packed.shape
    raw = np.ascontiguousarray(packed, "<i4").view(np.int8).reshape(mo, c4, kh, kw, block, DOT_BYTES)
    return raw.transpose(0, 4, 1, 5, 2, 3).reshape(mo * block, c4 * DOT_BYTES, kh, kw)[:m, :c]


def as_unsigned_bytes(x: np.ndarray) -> np.ndarray:
    """8-bit values as the unsigned byte a dot-product instruction reads (int64): uint8 as
    they are, int8 shifted by 128 (the sign bit flipped)."""
    return x.astype(np.int64) + (128 if x.dtype == np.int8 else 0)


@irdl_op_definition
class Conv2dIntegerPackedOp(TgOp):
    """conv2d_integer with int8 weights packed for byte dot products (kernel.dot4): four
    input channels per i32, a block of output channels innermost (pack_conv_weights), so
    that one vector of i32 lanes accumulates `block` output channels with one instruction
    per four input channels. The input is read as unsigned bytes u(x) (int8 plus 128) and
    padded with its zero point; the rest of the centering, -u(x_zp) * (sum of the weights
    of each output channel), is the `offset` operand, computed when the weights are packed:

    y[n, m, oh, ow] = offset[m] + sum over (c, kh, kw) of
        u(x_padded[n, c, oh*s - pad + kh*d, ow*s - pad + kw*d]) * w(m, c, kh, kw)

    With offset = -u(x_zp) * sum w(m), this is conv2d_integer(x, w, x_zp, 0) (groups 1).

        %y = tg.conv2d_integer_packed %x, %w, %xz, %offset {...}
             : (tensor<1x64x56x56xi8>, tensor<4x16x3x3x16xi32>, tensor<i8>, tensor<64xi32>) -> tensor<1x64x56x56xi32>
    """

    name = "tg.conv2d_integer_packed"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    offset = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, w, xz, offset = operand_types
        require_rank(x, 4, "input")
        require_rank(w, 5, "packed weight")
        require_rank(offset, 1, "offset")
        _eight_bit(x, "the input")
        _zero_point(xz, x, "the input zero point")
        require(num_elements(xz.get_shape()) == 1, lambda: f"the input zero point must be one value, got {xz}")
        require(w.element_type == i32 and offset.element_type == i32, "the packed weight and the offset are i32")
        n, c, h, wd = x.get_shape()
        mo, c4, kh, kw, block = w.get_shape()
        (m,) = offset.get_shape()
        require(
            block >= 1 and (mo - 1) * block < m <= mo * block,
            lambda: f"{m} output channels do not fill {mo} blocks of {block}",
        )
        require(
            c4 == -(-c // DOT_BYTES), lambda: f"the packed weight has {c4} groups of 4 input channels, the input {c}"
        )
        return [TensorType(i32, [n, m, *_window_output(props, (h, wd), (kh, kw))])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, w, xz, offset = args
        weights = unpack_conv_weights(w, offset.shape[0], x.shape[1]).astype(np.int64)
        zero = as_unsigned_bytes(np.asarray(xz).reshape(()))
        p = self.properties
        # the padding holds the zero point: centered, it adds nothing to conv2d's sum
        y = conv2d(
            as_unsigned_bytes(x) - zero, weights, None, ints(p, "strides"), ints(p, "pads"), ints(p, "dilations"), 1
        )
        per_channel = zero * weights.sum(axis=(1, 2, 3)) + offset.astype(np.int64)
        return [wrap_int32(y + per_channel.reshape(-1, 1, 1))]


OPS: list[type[TgOp]] = [
    QuantizeOp,
    DequantizeOp,
    RequantizeOp,
    MatmulIntegerOp,
    Conv2dIntegerOp,
    Conv2dIntegerPackedOp,
]
