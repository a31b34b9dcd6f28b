"""Detection `tg` ops: RoiAlign.

    %y = tg.roi_align %x, %rois, %batch {output_height = 5 : i64, output_width = 5 : i64,
           sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32, mode = "avg", half_pixel = true}
         : (tensor<1x3x10x10xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x5x5xf32>

Each region of interest (x1, y1, x2, y2, scaled by `spatial_scale`, shifted by half a
pixel when `half_pixel`) is cut into output_height x output_width bins; each bin averages
(or, mode "max", takes the largest of) sampling_ratio^2 bilinear samples of its image
`batch[r]`, as ONNX RoiAlign (and onnxruntime) do, including their quirks: samples more
than one pixel outside the image count as zero, and "max" takes the largest weighted
corner of each sample. sampling_ratio = 0 samples ceil(roi size / bins) points per bin,
a number that depends on the data: the reference runs it, compiled kernels need a fixed
ratio.

NonMaxSuppression has no op here: its result's shape depends on the values of its inputs,
so the importer computes it at compile time (frontends/onnx/ops_detection.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tessel.ir import dtypes

from .base import (
    COMPLEX_OUT_FUSABLE,
    Props,
    TgOp,
    flag,
    floating,
    integer,
    require,
    require_float,
    require_rank,
    string,
)

ROI_ALIGN_MODES = ("avg", "max")


@irdl_op_definition
class RoiAlignOp(TgOp):
    """ONNX RoiAlign on NCHW input; see the module docstring."""

    name = "tg.roi_align"
    input = operand_def(TensorType)
    rois = operand_def(TensorType)
    batch_indices = operand_def(TensorType)
    result = result_def(TensorType)
    output_height = prop_def(IntegerAttr)
    output_width = prop_def(IntegerAttr)
    sampling_ratio = prop_def(IntegerAttr)
    spatial_scale = prop_def(FloatAttr)
    mode = prop_def(StringAttr)
    half_pixel = prop_def(IntegerAttr)
    traits = traits_def(Pure(), COMPLEX_OUT_FUSABLE)
    assembly_format = "$input `,` $rois `,` $batch_indices attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        x, rois, batch = operand_types
        require_float(x, "the input")
        require_rank(x, 4, "the input")
        require(
            rois.element_type == x.element_type,
            lambda: f"rois must be {x.element_type} like the input, got {rois.element_type}",
        )
        require(
            rois.get_num_dims() == 2 and rois.get_shape()[1] == 4, lambda: f"rois must be (num_rois, 4), got {rois}"
        )
        require(
            batch.get_shape() == rois.get_shape()[:1] and dtypes.to_numpy(batch.element_type) == np.int64,
            lambda: f"batch_indices must be i64 of shape ({rois.get_shape()[0]},), got {batch}",
        )
        height, width = integer(props, "output_height"), integer(props, "output_width")
        require(height >= 1 and width >= 1, lambda: f"the output size {height}x{width} must be positive")
        require(integer(props, "sampling_ratio") >= 0, "sampling_ratio must be non-negative")
        floating(props, "spatial_scale")
        string(props, "mode", ROI_ALIGN_MODES)
        flag(props, "half_pixel")
        n, c, _, _ = x.get_shape()
        return [TensorType(x.element_type, [rois.get_shape()[0], c, height, width])]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x, rois, batch = args
        p = self.properties
        return [
            roi_align(
                x.astype(np.float64),
                rois.astype(np.float64),
                batch,
                integer(p, "output_height"),
                integer(p, "output_width"),
                integer(p, "sampling_ratio"),
                floating(p, "spatial_scale"),
                string(p, "mode", ROI_ALIGN_MODES),
                flag(p, "half_pixel"),
            )
        ]


def bilinear_taps(y: float, x: float, height: int, width: int) -> list[tuple[int, int, float]]:
    """The four (row, column, weight) taps of a sample at (y, x), ONNX RoiAlign's rule."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return [(0, 0, 0.0)] * 4
    y, x = max(y, 0.0), max(x, 0.0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    hy, hx = 1.0 - ly, 1.0 - lx
    return [(y_low, x_low, hy * hx), (y_low, x_high, hy * lx), (y_high, x_low, ly * hx), (y_high, x_high, ly * lx)]


def roi_align(
    x: np.ndarray,
    rois: np.ndarray,
    batch: np.ndarray,
    out_h: int,
    out_w: int,
    ratio: int,
    scale: float,
    mode: str,
    half_pixel: bool,
) -> np.ndarray:
    _, channels, height, width = x.shape
    y = np.zeros((rois.shape[0], channels, out_h, out_w))
    offset = 0.5 if half_pixel else 0.0
    for r, (x1, y1, x2, y2) in enumerate(rois):
        start_w, start_h = x1 * scale - offset, y1 * scale - offset
        roi_w, roi_h = x2 * scale - offset - start_w, y2 * scale - offset - start_h
        if not half_pixel:  # malformed regions become 1x1
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / out_h, roi_w / out_w
        grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / out_h))
        grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / out_w))
        count = max(grid_h * grid_w, 1)
        image = x[int(batch[r])]
        for ph in range(out_h):
            for pw in range(out_w):
                samples = []
                for iy in range(grid_h):
                    yy = start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        xx = start_w + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        taps = bilinear_taps(yy, xx, height, width)
                        values = [w * image[:, row, col] for row, col, w in taps]
                        samples.append(sum(values) if mode == "avg" else np.max(values, axis=0))
                if not samples:
                    continue
                y[r, :, ph, pw] = np.sum(samples, axis=0) / count if mode == "avg" else np.max(samples, axis=0)
    return y


OPS: list[type[TgOp]] = [RoiAlignOp]
