"""Converters for ONNX's detection operators: RoiAlign and NonMaxSuppression.

RoiAlign has a static output shape and becomes `tg.roi_align`. NonMaxSuppression's output
(one row per kept box) has as many rows as the values of boxes and scores decide; Tessel
compiles static shapes, so all its inputs must be compile-time constants and the importer
computes the result, with ONNX's algorithm (greedy by descending score, ties to the lower
box index, boxes suppressed by an IoU strictly above the threshold). A model whose boxes
are computed at run time is refused in one line naming the node.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import FloatAttr, StringAttr, f32
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr
from tessel.frontends.onnx.context import NodeContext, converter

# --------------------------------------------------------------------------- RoiAlign


@converter("RoiAlign")
def convert_roi_align(ctx: NodeContext) -> list[SSAValue]:
    mode = ctx.attr("mode", "avg")
    if mode not in ("avg", "max"):
        ctx.fail(f"mode={mode!r} must be 'avg' or 'max'")
    # opset 10 has no coordinate_transformation_mode: it behaves as output_half_pixel
    transform = ctx.attr("coordinate_transformation_mode", "half_pixel" if ctx.opset >= 16 else "output_half_pixel")
    if transform not in ("half_pixel", "output_half_pixel"):
        ctx.fail(f"coordinate_transformation_mode={transform!r} must be 'half_pixel' or 'output_half_pixel'")
    props: dict[str, Attribute] = {
        "output_height": int_attr(ctx.attr("output_height", 1)),
        "output_width": int_attr(ctx.attr("output_width", 1)),
        "sampling_ratio": int_attr(ctx.attr("sampling_ratio", 0)),
        "spatial_scale": FloatAttr(float(ctx.attr("spatial_scale", 1.0)), f32),
        "mode": StringAttr(mode),
        "half_pixel": bool_attr(transform == "half_pixel"),
    }
    return [ctx.value(tg.RoiAlignOp, [ctx.input(0), ctx.input(1), ctx.input(2)], props)]


# --------------------------------------------------------------------------- NonMaxSuppression


def _suppresses(a: np.ndarray, b: np.ndarray, center: bool, threshold: np.floating) -> bool:
    """IoU(a, b) > threshold, in the boxes' own float type (ONNX's reference)."""
    if center:
        ax0, ax1 = a[0] - a[2] / 2, a[0] + a[2] / 2
        bx0, bx1 = b[0] - b[2] / 2, b[0] + b[2] / 2
        ay0, ay1 = a[1] - a[3] / 2, a[1] + a[3] / 2
        by0, by1 = b[1] - b[3] / 2, b[1] + b[3] / 2
    else:  # (y1, x1, y2, x2), corners in either order
        ax0, ax1 = min(a[1], a[3]), max(a[1], a[3])
        bx0, bx1 = min(b[1], b[3]), max(b[1], b[3])
        ay0, ay1 = min(a[0], a[2]), max(a[0], a[2])
        by0, by1 = min(b[0], b[2]), max(b[0], b[2])
    ix0, ix1, iy0, iy1 = max(ax0, bx0), min(ax1, bx1), max(ay0, by0), min(ay1, by1)
    if ix1 <= ix0 or iy1 <= iy0:
        return False
    intersection = (ix1 - ix0) * (iy1 - iy0)
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - intersection
    if intersection <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return bool(intersection / union > threshold)


def non_max_suppression(
    boxes: np.ndarray,
    scores: np.ndarray,
    max_per_class: int,
    iou: np.floating,
    score_threshold: np.floating | None,
    center: bool,
) -> np.ndarray:
    """(selected, 3) int64 rows (batch, class, box) in ONNX's order."""
    selected = []
    for batch in range(scores.shape[0]):
        for klass in range(scores.shape[1]):
            class_scores = scores[batch, klass]
            candidates = [
                i for i in range(scores.shape[2]) if score_threshold is None or class_scores[i] > score_threshold
            ]
            # descending score, the lower index first among equal scores
            candidates.sort(key=lambda i: (-class_scores[i], i))
            kept: list[int] = []
            for i in candidates:
                if len(kept) >= max_per_class:
                    break
                if not any(_suppresses(boxes[batch, i], boxes[batch, k], center, iou) for k in kept):
                    kept.append(i)
                    selected.append((batch, klass, i))
    return np.asarray(selected, np.int64).reshape(-1, 3)


@converter("NonMaxSuppression", static=(0, 1, 2, 3, 4))
def convert_non_max_suppression(ctx: NodeContext) -> list[SSAValue]:
    for i, what in ((0, "boxes"), (1, "scores")):
        if ctx.state.known.get(ctx.input(i)) is None:
            ctx.fail(
                f"the number of boxes kept, and so the output's shape, depends on the values of {what}, which are "
                "computed at run time; Tessel compiles static shapes: make them compile-time constants (--bind)"
            )
    boxes, scores = ctx.const(0, "boxes"), ctx.const(1, "scores")
    assert boxes is not None and scores is not None
    if boxes.ndim != 3 or boxes.shape[2] != 4 or scores.ndim != 3 or scores.shape[::2] != boxes.shape[:2]:
        ctx.fail(f"boxes {list(boxes.shape)} and scores {list(scores.shape)} must be [B, N, 4] and [B, C, N]")
    limit = ctx.const(2, "max_output_boxes_per_class")
    iou = ctx.const(3, "iou_threshold")
    threshold = ctx.const(4, "score_threshold")
    max_per_class = max(int(limit.reshape(-1)[0]), 0) if limit is not None and limit.size else 0
    iou_value = iou.reshape(-1)[0] if iou is not None and iou.size else np.float32(0)
    score_value = threshold.reshape(-1)[0] if threshold is not None and threshold.size else None
    center = ctx.attr("center_point_box", 0)
    if center not in (0, 1):
        ctx.fail(f"center_point_box={center} must be 0 or 1")
    result = non_max_suppression(boxes, scores, max_per_class, iou_value, score_value, bool(center))
    return [ctx.constant(result, hint=ctx.node.output[0])]
