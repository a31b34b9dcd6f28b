"""Resampling at positions known only at run time: grid_sample (ONNX GridSample) and
col2im (ONNX Col2Im, the sum of overlapping sliding blocks).

Resize is not here: its sample positions are static, so the importer writes it as gathers
and weighted sums (frontends/onnx/resize_taps.py).

    %y = tg.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false}
         : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x3x4x4xf32>
    %i = tg.col2im %c {image_shape = array<i64: 5, 5>, block_shape = array<i64: 2, 2>,
           dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
         : (tensor<1x20x16xf32>) -> tensor<1x5x5x5xf32>
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import INJECTIVE, REDUCTION, Props, TgOp, flag, ints, require, require_float, same_element_type, string
from .reference import wide

GRID_MODES = ("nearest", "linear", "cubic")
GRID_PADDINGS = ("zeros", "border", "reflection")
CUBIC_A = -0.75  # Keys' cubic convolution, as PyTorch and ONNX's GridSample


# --------------------------------------------------------------------------- grid_sample


@irdl_op_definition
class GridSampleOp(TgOp):
    """ONNX GridSample: y[n, c, p...] samples x[n, c] at the normalized coordinates
    grid[n, p..., :] (last dim first: (x, y) for an image), -1 and 1 being the centres of
    the corner pixels (align_corners) or their outer edges. nearest rounds half to even,
    linear and cubic weigh 2 and 4 neighbours per dim; out-of-range positions read zero,
    the border, or the input reflected at its border (padding_mode)."""

    name = "tg.grid_sample"
    input = operand_def(TensorType)
    grid = operand_def(TensorType)
    result = result_def(TensorType)
    mode = prop_def(StringAttr)
    padding_mode = prop_def(StringAttr)
    align_corners = prop_def(IntegerAttr)
    traits = traits_def(Pure(), INJECTIVE)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, g = operand_types
        same_element_type([x, g], "input and grid")
        require_float(x, "input")
        mode = string(props, "mode", GRID_MODES)
        string(props, "padding_mode", GRID_PADDINGS)
        flag(props, "align_corners")
        xs, gs = x.get_shape(), g.get_shape()
        spatial = len(xs) - 2
        require(spatial >= 1, lambda: f"input must be (N, C, spatial...), got {x}")
        require(
            len(gs) == spatial + 2 and gs[0] == xs[0] and gs[-1] == spatial,
            lambda: f"grid must be (N, out..., {spatial}) for input {x}, got {g}",
        )
        require(mode != "cubic" or spatial == 2, lambda: f"cubic sampling is 2-D only, got {spatial} spatial dims")
        return [TensorType(x.element_type, [xs[0], xs[1], *gs[1:-1]])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, grid = args
        p = self.properties
        return [grid_sample(x, grid, self.mode.data, self.padding_mode.data, flag(p, "align_corners"))]


def compute_dtype(x: np.ndarray) -> np.dtype:
    """The type coordinates are computed in (f32 for f16/bf16/f32, as the kernels do)."""
    return np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)


def unnormalize(g: np.ndarray, size: int, align_corners: bool) -> np.ndarray:
    """The pixel coordinate of a normalized one, in ONNX's reference's order of operations."""
    one, two = g.dtype.type(1), g.dtype.type(2)
    if align_corners:
        return (g + one) / two * g.dtype.type(size - 1)
    return ((g + one) * g.dtype.type(size) - one) / two


def reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """Reflect coordinates at the borders [low, high] until they fall inside."""
    t = x.dtype.type
    span = t(high - low)
    if span <= 0:
        return np.full_like(x, t(low))
    below, above = x < t(low), x > t(high)
    distance = np.where(below, t(low) - x, np.where(above, x - t(high), t(0)))
    flips = np.trunc(distance / span)
    rest = distance - flips * span
    even = np.fmod(flips, 2) == 0
    from_low, from_high = t(low) + rest, t(high) - rest
    inside = np.where(below, np.where(even, from_low, from_high), np.where(even, from_high, from_low))
    return np.where(below | above, inside, x)


def borders(size: int, align_corners: bool) -> tuple[float, float]:
    return (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)


def cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Keys' weights of the taps at -1, 0, 1, 2 for a fraction t in [0, 1)."""
    a = t.dtype.type(CUBIC_A)
    one, two = t.dtype.type(1), t.dtype.type(2)

    def near(d: np.ndarray) -> np.ndarray:
        return ((a + two) * d - (a + t.dtype.type(3))) * d * d + one

    def far(d: np.ndarray) -> np.ndarray:
        return ((a * d - t.dtype.type(5) * a) * d + t.dtype.type(8) * a) * d - t.dtype.type(4) * a

    return [far(t + one), near(t), near(one - t), far(two - t)]


def grid_sample(x: np.ndarray, grid: np.ndarray, mode: str, padding: str, align_corners: bool) -> np.ndarray:
    """The numpy meaning of tg.grid_sample (coordinates in compute_dtype, values wide)."""
    dt = compute_dtype(x)
    spatial = x.shape[2:]
    r = len(spatial)
    n, c = x.shape[:2]
    out_shape = grid.shape[1:-1]
    g = grid.astype(dt)
    coords = []
    for d, size in enumerate(spatial):
        v = unnormalize(g[..., r - 1 - d], size, align_corners)
        if mode == "nearest":
            v = np.rint(v)
        low, high = borders(size, align_corners)
        if padding == "border":  # only positions outside the borders move (as ONNX's reference)
            v = np.where((v < dt.type(low)) | (v > dt.type(high)), np.clip(v, dt.type(0), dt.type(size - 1)), v)
        elif padding == "reflection":
            v = reflect(v, low, high)
        coords.append(v)  # (N, out...)
    data = wide(x)
    result = np.zeros((n, c, *out_shape), data.dtype)
    batch = np.arange(n).reshape((n,) + (1,) * len(out_shape))

    def tap_index(i: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(index to read, inside) of integer tap positions under the padding mode."""
        if padding == "border":
            i = np.clip(i, 0, size - 1)
        elif padding == "reflection":
            i = np.trunc(reflect(i.astype(dt), *borders(size, align_corners))).astype(np.int64)
        inside = (i >= 0) & (i < size)
        return np.clip(i, 0, size - 1), inside

    if mode == "nearest":
        taps = [[(v.astype(np.int64), np.ones_like(v))] for v in coords]
    else:
        taps = []
        for v in coords:
            base = np.floor(v)
            t = v - base
            i0 = base.astype(np.int64)
            if mode == "linear":
                taps.append([(i0, 1 - t), (i0 + 1, t)])
            else:
                taps.append([(i0 + k - 1, w) for k, w in enumerate(cubic_weights(t))])
    for combo in itertools.product(*taps):
        weight = np.ones((n, *out_shape), data.dtype)
        index, inside = [], np.ones((n, *out_shape), bool)
        for d, (i, w) in enumerate(combo):
            j, ok = tap_index(i, spatial[d])
            index.append(j)
            inside &= ok
            weight = weight * w.astype(data.dtype)
        key: tuple[Any, ...] = (batch, slice(None), *index)
        picked = data[key]  # (N, out..., C)
        picked = np.moveaxis(picked, -1, 1)
        result += np.where(inside[:, None], picked * weight[:, None], 0)
    return result


# --------------------------------------------------------------------------- col2im


@irdl_op_definition
class Col2ImOp(TgOp):
    """ONNX Col2Im: x (N, C * prod(block), L) holds L sliding blocks of C channels; y (N,
    C, image...) sums every block element into the pixel it came from (stride, dilation,
    pads as a convolution's)."""

    name = "tg.col2im"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    image_shape = prop_def(DenseArrayBase)
    block_shape = prop_def(DenseArrayBase)
    dilations = prop_def(DenseArrayBase)
    pads = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase)
    traits = traits_def(Pure(), REDUCTION)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        (x,) = operand_types
        require(not dtypes.is_bool(x.element_type), lambda: f"col2im does not take booleans, got {x.element_type}")
        image, block = ints(props, "image_shape"), ints(props, "block_shape")
        dilations, pads, strides = ints(props, "dilations"), ints(props, "pads"), ints(props, "strides")
        r = len(image)
        require(r >= 1, "image_shape needs at least one dim")
        require(
            len(block) == len(dilations) == len(strides) == r and len(pads) == 2 * r,
            lambda: f"block_shape, dilations, strides need {r} entries and pads {2 * r}",
        )
        require(all(v >= 1 for v in (*block, *dilations, *strides)), "block sizes, dilations and strides must be >= 1")
        require(x.get_num_dims() == 3, lambda: f"input must be (N, C * block, L), got {x}")
        n, ck, length = x.get_shape()
        k = math.prod(block)
        require(ck % k == 0, lambda: f"{ck} rows do not hold whole blocks of {k}")
        blocks = col2im_blocks(image, block, dilations, pads, strides)
        require(
            all(b >= 1 for b in blocks) and math.prod(blocks) == length,
            lambda: f"{length} columns, but the image holds {' x '.join(map(str, blocks))} blocks",
        )
        return [TensorType(x.element_type, [n, ck // k, *image])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        (x,) = args
        p = self.properties
        image, block = ints(p, "image_shape"), ints(p, "block_shape")
        dilations, pads, strides = ints(p, "dilations"), ints(p, "pads"), ints(p, "strides")
        blocks = col2im_blocks(image, block, dilations, pads, strides)
        n, ck, _ = x.shape
        c = ck // math.prod(block)
        cols = wide(x).reshape(n, c, *block, *blocks)
        out = np.zeros((n, c, *image), cols.dtype)
        for k in itertools.product(*(range(b) for b in block)):
            positions = [
                np.arange(nb) * s - pads[d] + k[d] * dil
                for d, (nb, s, dil) in enumerate(zip(blocks, strides, dilations, strict=True))
            ]
            keep = [(pos >= 0) & (pos < size) for pos, size in zip(positions, image, strict=True)]
            source: tuple[Any, ...] = (slice(None), slice(None), *k, *np.ix_(*keep))
            target: tuple[Any, ...] = (
                slice(None),
                slice(None),
                *np.ix_(*(pos[ok] for pos, ok in zip(positions, keep))),
            )
            out[target] += cols[source]
        return [out]


def col2im_blocks(
    image: Sequence[int], block: Sequence[int], dilations: Sequence[int], pads: Sequence[int], strides: Sequence[int]
) -> list[int]:
    """How many blocks fit along each dim (a convolution's output size)."""
    r = len(image)
    return [(image[d] + pads[d] + pads[r + d] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1 for d in range(r)]
