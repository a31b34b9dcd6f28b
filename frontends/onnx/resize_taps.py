"""The interpolation taps of ONNX Resize, one axis at a time, computed at import.

Resize is separable: along each resized axis, output position o is a weighted sum of a
few input positions, `y[o] = sum_t w[o, t] * x[i[o, t]]`, and the positions and weights
depend only on the sizes, the scale, the region of interest and the attributes, all known
at compile time. This module computes those tables in float64 exactly as ONNX's reference
(onnx/reference/ops/op_resize.py: `_interpolate_1d_along_axis` and the coefficient
functions) does; the converter turns each table into gathers with constant indices and
multiplies by constant weights, which tg-fuse puts back into one kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Coefficients = Callable[[float, float], np.ndarray]


@dataclass(frozen=True)
class AxisTaps:
    """One axis: indices (out, taps) into [0, n] (n, past the end, where the output is
    extrapolated: a tg.gather reads zero there), weights (out, taps), and the outputs that
    take the extrapolation value instead (tf_crop_and_resize), if any."""

    indices: np.ndarray
    weights: np.ndarray
    extrapolated: np.ndarray | None


@dataclass(frozen=True)
class Settings:
    """The attributes of one Resize node that shape its taps."""

    mode: str  # nearest, linear, cubic
    coordinate_mode: str
    nearest_mode: str = "round_prefer_floor"
    cubic_a: float = -0.75
    antialias: bool = False
    exclude_outside: bool = False


# --------------------------------------------------------------------------- coefficients


def _nearest(ratio: float, mode: str) -> np.ndarray:
    if float(ratio).is_integer():
        return np.array([0.0, 1.0])
    if mode == "round_prefer_floor":
        return np.array([ratio <= 0.5, ratio > 0.5], dtype=np.float64)
    if mode == "round_prefer_ceil":
        return np.array([ratio < 0.5, ratio >= 0.5], dtype=np.float64)
    if mode == "floor":
        return np.array([1.0, 0.0])
    return np.array([0.0, 1.0])  # ceil


def _cubic(ratio: float, a: float) -> np.ndarray:
    r = ratio
    return np.array(
        [
            ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
            ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a,
        ]
    )


def _cubic_antialias(ratio: float, scale: float, a: float) -> np.ndarray:
    scale = min(scale, 1.0)

    def weight(x: float) -> float:
        x = abs(x)
        if x <= 1:
            return (a + 2) * x**3 - (a + 3) * x**2 + 1
        if x < 2:
            return a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
        return 0.0

    start = int(np.floor(-2 / scale) + 1)
    coeffs = np.array([weight(scale * (i - ratio)) for i in range(start, 2 - start)])
    return coeffs / coeffs.sum()


def _linear_antialias(ratio: float, scale: float) -> np.ndarray:
    scale = min(scale, 1.0)
    start = int(np.floor(-1 / scale) + 1)
    args = (np.arange(start, start + 2 - 2 * start) - ratio) * scale
    coeffs = np.clip(1 - np.abs(args), 0, 1)
    return coeffs / coeffs.sum()


def coefficients(s: Settings) -> Coefficients:
    """(ratio in (0, 1], scale) -> the weights of the taps around the source position."""
    if s.mode == "nearest":
        return lambda r, scale: _nearest(r, s.nearest_mode)
    if s.mode == "linear":
        return _linear_antialias if s.antialias else (lambda r, scale: np.array([1 - r, r]))
    if s.antialias:
        return lambda r, scale: _cubic_antialias(r, scale, s.cubic_a)
    return lambda r, scale: _cubic(r, s.cubic_a)


# --------------------------------------------------------------------------- positions


def source_positions(
    mode: str, n_in: int, n_out: int, scale: float, roi: tuple[float, float] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """The input coordinate of each output position, and (tf_crop_and_resize) which fall
    outside the input."""
    y = np.arange(n_out, dtype=np.float64)
    width = scale * n_in
    if mode == "align_corners":
        return (np.zeros(n_out) if width == 1 else y * (n_in - 1) / (width - 1)), None
    if mode == "asymmetric":
        return y / scale, None
    if mode == "tf_crop_and_resize":
        lo, hi = roi if roi is not None else (0.0, 1.0)
        x = np.full(n_out, (hi - lo) * (n_in - 1) / 2) if width == 1 else y * (hi - lo) * (n_in - 1) / (width - 1)
        x = x + lo * (n_in - 1)
        return x, (x < 0) | (x > n_in - 1)
    if mode == "pytorch_half_pixel":
        # "length_resized > 1 ? ... : 0", the length being the output's (an integer), as
        # onnxruntime reads it: onnx's reference tests the unrounded scale * n_in == 1
        # instead, which differs where a fractional scale rounds down to one element
        # (3 rows at scale 0.5: onnxruntime reads row 0, the reference rows 0 and 1)
        return (np.zeros(n_out) if n_out == 1 else (y + 0.5) / scale - 0.5), None
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5, None
    # half_pixel_symmetric
    offset = n_in / 2 * (1 - n_out / width)
    return offset + (y + 0.5) / scale - 0.5, None


def axis_taps(s: Settings, n_in: int, n_out: int, scale: float, roi: tuple[float, float] | None) -> AxisTaps:
    """The taps of one axis, as ONNX's reference computes them (edge-padded neighbours:
    indices clamped into the input)."""
    x, outside = source_positions(s.coordinate_mode, n_in, n_out, scale, roi)
    floor = np.floor(x)
    ratios = np.where(x == floor, 1.0, x - floor)
    weigh = coefficients(s)
    coeffs = np.array([weigh(float(r), scale) for r in ratios], dtype=np.float64).reshape(n_out, -1)
    taps = coeffs.shape[1]
    pad = math.ceil(taps / 2)
    padded = x + pad
    base = np.floor(padded)
    frac = padded - base
    if taps % 2 == 0:
        offset = np.where(frac == 0, -(taps // 2), -(taps // 2) + 1)
    else:
        offset = np.where(frac <= 0.5, -((taps - 1) // 2), -((taps - 1) // 2) + 1)
    neighbours = (base + offset).astype(np.int64)[:, None] + np.arange(taps)[None, :] - pad
    if s.exclude_outside:
        coeffs = np.where((neighbours < 0) | (neighbours >= n_in), 0.0, coeffs)
        total = coeffs.sum(axis=1, keepdims=True)
        coeffs = coeffs / np.where(total == 0, 1.0, total)
    indices = np.clip(neighbours, 0, n_in - 1)
    if s.mode == "nearest":  # one tap: the neighbour whose coefficient is 1
        pick = np.argmax(coeffs, axis=1)
        indices = indices[np.arange(n_out), pick][:, None]
        coeffs = np.ones((n_out, 1))
    else:
        used = np.any(coeffs != 0, axis=0)  # drop taps no output weighs
        indices, coeffs = indices[:, used], coeffs[:, used]
    if outside is not None and outside.any():
        indices = np.where(outside[:, None], n_in, indices)
        return AxisTaps(indices, coeffs, outside)
    return AxisTaps(indices, coeffs, None)


# --------------------------------------------------------------------------- sizes


@dataclass(frozen=True)
class Plan:
    """What Resize does to each axis: output sizes, scales and regions of interest."""

    sizes: list[int]
    scales: list[float]
    rois: list[tuple[float, float] | None]
    axes: list[int]  # the resized axes, in the order the reference resizes them


def plan(
    shape: Sequence[int],
    axes: Sequence[int] | None,
    scales: Sequence[float] | None,
    sizes: Sequence[int] | None,
    roi: Sequence[float] | None,
    policy: str,
) -> Plan:
    """ONNX's `_interpolate_nd` before the interpolation: axes expanded to every dim,
    keep_aspect_ratio_policy applied, output sizes from scales truncated like numpy."""
    rank = len(shape)
    order = list(axes) if axes is not None else list(range(rank))
    full_scales = [1.0] * rank
    full_sizes = list(shape)
    full_roi: list[float] | None = None
    if roi is not None and len(roi):
        full_roi = [0.0] * rank + [1.0] * rank
        given = list(roi)
        for i, d in enumerate(order):
            full_roi[d], full_roi[rank + d] = given[i], given[len(order) + i]
    if sizes is not None:
        for i, d in enumerate(order):
            full_sizes[d] = int(sizes[i])
        full_scales = [full_sizes[d] / shape[d] if shape[d] else 1.0 for d in range(rank)]
        if policy != "stretch":
            pick = min if policy == "not_larger" else max
            scale = pick(full_scales[d] for d in order)
            full_scales = [scale if d in order else 1.0 for d in range(rank)]
            full_sizes = [int(scale * shape[d] + 0.5) if d in order else shape[d] for d in range(rank)]
    else:
        assert scales is not None
        for i, d in enumerate(order):
            full_scales[d] = float(scales[i])
        full_sizes = [int(s * n) for s, n in zip(full_scales, shape)]
    rois: list[tuple[float, float] | None] = [
        None if full_roi is None else (float(full_roi[d]), float(full_roi[rank + d])) for d in range(rank)
    ]
    return Plan(full_sizes, full_scales, rois, order)


def is_identity(p: Plan, shape: Sequence[int], axis: int) -> bool:
    """The reference skips an axis whose scale is 1, whose size stays and whose region of
    interest is the whole axis."""
    roi = p.rois[axis]
    whole = roi is None or (math.isclose(roi[0], 0.0) and math.isclose(roi[1], 1.0))
    return math.isclose(p.scales[axis], 1.0) and p.sizes[axis] == shape[axis] and whole
