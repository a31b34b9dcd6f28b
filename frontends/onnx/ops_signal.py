"""Converters for ONNX signal processing: DFT, STFT, the window functions (Hann, Hamming,
Blackman) and MelWeightMatrix.

A transform of static length is a linear map with constant coefficients, so it is built
from the ops Tessel already compiles well instead of a new kernel: DFT is one matmul of
the (axis-last) input against the twiddle matrix (real and imaginary parts interleaved on
both sides, the 1/n of the inverse and the Hermitian weights of irfft folded in); STFT is
a strided 1-D convolution whose filters are that matrix's rows times the window (a runtime
window multiplies the constant filters). This is O(n^2) per transform rather than an FFT's
O(n log n), and is how DFT-based front ends are usually run on accelerators.

The window functions and MelWeightMatrix take only sizes and constants: their size fixes
the shape of the result, so those inputs are compile-time constants and the result is a
constant, computed as ONNX's reference computes it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import onnx_element_type
from tessel.ir import dtypes

# --------------------------------------------------------------------------- helpers


def static_scalar(ctx: NodeContext, i: int, what: str) -> int | float:
    value = ctx.const(i, what)
    if value is None:
        ctx.fail(f"input #{i} ({what}) is required")
    if value.size != 1:
        ctx.fail(f"{what} must be a scalar, got shape {list(value.shape)}")
    return value.reshape(-1)[0].item()


def transpose(ctx: NodeContext, x: SSAValue, perm: Sequence[int]) -> SSAValue:
    if list(perm) == list(range(len(perm))):
        return x
    return ctx.value(tg.TransposeOp, [x], {"perm": ints_attr(perm)})


def _float_type(ctx: NodeContext, code: int, what: str) -> np.dtype:
    element = onnx_element_type(ctx, code, what)
    if not dtypes.is_float(element) and not dtypes.is_integer(element):
        ctx.fail(f"{what} must be a numeric type, got {element}")
    return dtypes.to_numpy(element)


def twiddles(n: int, used: int, bins: int, inverse: bool, real_input: bool) -> np.ndarray:
    """The DFT of length n as a matrix over interleaved (real, imaginary) parts: rows are
    (input index m < used, part), columns (output bin k < bins, part); float64. The input
    is real when `real_input` (one part). The inverse includes its 1/n."""
    m = np.arange(used)[:, None]
    k = np.arange(bins)[None, :]
    angle = 2.0 * np.pi * ((m * k) % n) / n  # reduced first: exact zeros where they belong
    cos, sin = np.cos(angle), np.sin(angle)
    sign = 1.0 if inverse else -1.0
    # (xr + i xi)(cos + i sign sin) = (xr cos - sign xi sin) + i (sign xr sin + xi cos)
    w = np.zeros((used, 2, bins, 2))
    w[:, 0, :, 0], w[:, 0, :, 1] = cos, sign * sin
    w[:, 1, :, 0], w[:, 1, :, 1] = -sign * sin, cos
    if inverse:
        w /= n
    if real_input:
        w = w[:, :1]
    return w.reshape(used * w.shape[1], bins * 2)


def inverse_real_twiddles(n: int, used: int) -> np.ndarray:
    """irfft of length n from `used` one-sided bins, as numpy computes it: bins 0 and n/2
    (n even) once and only their real part, the others twice (their mirror image)."""
    m = np.arange(used)[:, None]
    k = np.arange(n)[None, :]
    angle = 2.0 * np.pi * ((m * k) % n) / n
    weight = np.where((m == 0) | ((n % 2 == 0) & (2 * m == n)), 1.0, 2.0)
    w = np.zeros((used, 2, n, 1))
    w[:, 0, :, 0] = weight * np.cos(angle) / n
    w[:, 1, :, 0] = np.where(weight == 1.0, 0.0, -weight * np.sin(angle) / n)
    return w.reshape(used * 2, n)


# --------------------------------------------------------------------------- DFT


@converter("DFT", static=(1, 2))
def convert_dft(ctx: NodeContext) -> list[SSAValue]:
    x = ctx.input(0)
    t = ctx.type(0)
    if not dtypes.is_float(t.element_type):
        ctx.fail(f"the input must be a float tensor, got {t.element_type}")
    shape = list(t.get_shape())
    rank = len(shape)
    parts = shape[-1]
    if rank < 2 or parts not in (1, 2):
        ctx.fail(f"the input's last dim must be 1 (real) or 2 (complex), got shape {shape}")
    if ctx.opset >= 20:
        axis = int(static_scalar(ctx, 2, "axis")) if ctx.has_input(2) else -2
    else:
        axis = ctx.attr("axis", 1)
    if not -rank <= axis < rank or axis % rank == rank - 1:
        ctx.fail(f"axis {axis} is out of range for an input of rank {rank} (the last dim holds the parts)")
    axis %= rank
    inverse, onesided = bool(ctx.attr("inverse", 0)), bool(ctx.attr("onesided", 0))
    length = shape[axis]
    if ctx.has_input(1):
        n = int(static_scalar(ctx, 1, "dft_length"))
    else:
        n = 2 * (length - 1) if inverse and onesided else length
    if n < 1:
        ctx.fail(f"the DFT length must be positive, got {n}")
    if inverse and onesided:
        used = min(length, n // 2 + 1)
        matrix = inverse_real_twiddles(n, used)
        if parts == 1:
            matrix = matrix[0::2]
        out_parts = 1
    else:
        used = min(length, n)
        bins = n // 2 + 1 if onesided else n
        matrix = twiddles(n, used, bins, inverse, parts == 1)
        out_parts = 2
    # the transformed axis next to the parts, the rest flattened into rows
    others = [d for d in range(rank - 1) if d != axis]
    perm = [*others, axis, rank - 1]
    moved = transpose(ctx, x, perm)
    if used < length:
        sizes = [shape[d] for d in others] + [used, parts]
        props: dict[str, Attribute] = {"starts": ints_attr([0] * rank), "steps": ints_attr([1] * rank)}
        moved = ctx.value(tg.SliceOp, [moved], props, result_types=[TensorType(t.element_type, sizes)])
    rows = math.prod(shape[d] for d in others)
    flat = ctx.reshape(moved, (rows, used * parts))
    w = ctx.constant(matrix.astype(dtypes.to_numpy(t.element_type)), hint=f"{ctx.node.name or 'dft'}.twiddles")
    product = ctx.value(tg.MatmulOp, [flat, w])
    out_len = matrix.shape[1] // out_parts
    y = ctx.reshape(product, [*(shape[d] for d in others), out_len, out_parts])
    inverse_perm = [perm.index(d) for d in range(rank)]
    return [transpose(ctx, y, inverse_perm)]


# --------------------------------------------------------------------------- STFT


@converter("STFT", static=(1, 3))
def convert_stft(ctx: NodeContext) -> list[SSAValue]:
    """Frames of the signal times the window, each transformed: one strided convolution
    of the (batch, parts, 1, length) signal with the (bins * 2, parts, 1, frame) filters."""
    signal = ctx.input(0)
    t = ctx.type(0)
    if not dtypes.is_float(t.element_type):
        ctx.fail(f"the signal must be a float tensor, got {t.element_type}")
    shape = t.get_shape()
    if len(shape) != 3 or shape[2] not in (1, 2):
        ctx.fail(f"the signal must be [batch, length, 1 or 2], got {list(shape)}")
    batch, length, parts = shape
    step = int(static_scalar(ctx, 1, "frame_step"))
    window = ctx.optional_input(2)
    if ctx.has_input(3):
        frame = int(static_scalar(ctx, 3, "frame_length"))
    elif window is not None:
        frame = ctx.shape(2)[0]
    else:
        frame = length
    if window is not None and ctx.shape(2) != (frame,):
        ctx.fail(f"the window must have shape ({frame},), got {list(ctx.shape(2))}")
    if step < 1 or not 1 <= frame <= length:
        ctx.fail(f"frame_step {step} and frame_length {frame} do not fit a signal of length {length}")
    onesided = bool(ctx.attr("onesided", 1))
    bins = frame // 2 + 1 if onesided else frame
    matrix = twiddles(frame, frame, bins, False, parts == 1)  # (frame * parts, bins * 2)
    filters = matrix.reshape(frame, parts, bins * 2).transpose(2, 1, 0)[:, :, None, :]
    np_type = dtypes.to_numpy(t.element_type)
    weight = ctx.constant(filters.astype(np_type), hint=f"{ctx.node.name or 'stft'}.filters")
    if window is not None:
        if ctx.type(2).element_type != t.element_type:
            ctx.fail(f"the window must be {t.element_type} like the signal, got {ctx.type(2).element_type}")
        weight = ctx.value(tg.MulOp, [weight, ctx.reshape(window, (1, 1, 1, frame))])
    x = ctx.reshape(transpose(ctx, signal, [0, 2, 1]), (batch, parts, 1, length))
    props: dict[str, Attribute] = {
        "strides": ints_attr([1, step]),
        "pads": ints_attr([0, 0, 0, 0]),
        "dilations": ints_attr([1, 1]),
        "groups": int_attr(1),
    }
    y = ctx.value(tg.Conv2dOp, [x, weight], props)
    frames = tg.tensor_of(y).get_shape()[3]
    return [transpose(ctx, ctx.reshape(y, (batch, bins, 2, frames)), [0, 3, 1, 2])]


# --------------------------------------------------------------------------- windows


def _window(ctx: NodeContext, cosines: Sequence[float]) -> list[SSAValue]:
    """sum_j cosines[j] * cos(2 pi j n / N), N the size (periodic) or size - 1."""
    size = int(static_scalar(ctx, 0, "size"))
    if size < 0:
        ctx.fail(f"size must be non-negative, got {size}")
    periodic = bool(ctx.attr("periodic", 1))
    denominator = size if periodic else size - 1
    n = np.arange(size, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = sum(c * np.cos(2.0 * np.pi * j * n / denominator) for j, c in enumerate(cosines))
    dtype = _float_type(ctx, ctx.attr("output_datatype", onnx.TensorProto.FLOAT), "output_datatype")
    return [ctx.constant(np.asarray(values, np.float64).astype(dtype), hint=ctx.node.output[0])]


@converter("HannWindow", static=(0,))
def convert_hann_window(ctx: NodeContext) -> list[SSAValue]:
    return _window(ctx, (0.5, -0.5))


@converter("HammingWindow", static=(0,))
def convert_hamming_window(ctx: NodeContext) -> list[SSAValue]:
    alpha = 25.0 / 46.0
    return _window(ctx, (alpha, -(1.0 - alpha)))


@converter("BlackmanWindow", static=(0,))
def convert_blackman_window(ctx: NodeContext) -> list[SSAValue]:
    return _window(ctx, (0.42, -0.5, 0.08))


@converter("MelWeightMatrix", static=(0, 1, 2, 3, 4))
def convert_mel_weight_matrix(ctx: NodeContext) -> list[SSAValue]:
    """Triangular filters on the mel scale, (dft_length // 2 + 1, num_mel_bins), with the
    bin edges computed in the inputs' own types as ONNX's reference does (the edges are
    integers, so their rounding decides which bins a filter covers)."""
    values = [
        ctx.const(i, what)
        for i, what in enumerate(("num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"))
    ]
    if any(v is None or v.size != 1 for v in values):
        ctx.fail("every input must be one value")
    mel_bins, dft_length, rate, low, high = (v.reshape(()) for v in values)  # type: ignore[union-attr]
    with np.errstate(all="ignore"):
        spectrogram_bins = int(dft_length) // 2 + 1
        edges = np.arange(0, int(mel_bins) + 2)
        low_mel = 2595 * np.log1p(low / 700) / np.log(10)
        high_mel = 2595 * np.log1p(high / 700) / np.log(10)
        step = (high_mel - low_mel) / edges.shape[0]
        hertz = 700 * np.expm1((edges * step + low_mel) / 2595 * np.log(10))
        bins = (((dft_length + 1) * hertz) // rate).astype(int)
    if int(mel_bins) < 0 or spectrogram_bins < 1 or bins.min() < 0 or bins.max() >= spectrogram_bins:
        ctx.fail(f"the mel bin edges {bins.tolist()} fall outside the {spectrogram_bins} spectrogram bins")
    out = np.zeros((spectrogram_bins, int(mel_bins)))
    for i in range(int(mel_bins)):
        lo, center, hi = bins[i], bins[i + 1], bins[i + 2]
        if center == lo:
            out[center, i] = 1
        else:
            out[lo : center + 1, i] = (np.arange(lo, center + 1) - lo) / (center - lo)
        if hi > center:
            out[center:hi, i] = (hi - np.arange(center, hi)) / (hi - center)
    dtype = _float_type(ctx, ctx.attr("output_datatype", onnx.TensorProto.FLOAT), "output_datatype")
    return [ctx.constant(out.astype(dtype), hint=ctx.node.output[0])]
