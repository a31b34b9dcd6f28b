"""img-infer-bounds: the region of each value that the pipeline's outputs actually need.

Halide-style bounds inference, backwards from the function's results (and sinks), which need
their whole frames: a map needs the same region of its inputs, a lookup table the same region, a stencil that
region grown by its halo (clipped to the frame), a crop the region shifted to the ROI, a downsample the region
scaled up, an upsample scaled down, a remap the region grown by its declared maximum
displacement (|lut[y, x] - (y, x)| <= d on each axis), a scan everything above and left of it,
and whole-frame reductions (reduce, dense) everything. A value used twice needs the bounding
box of both needs.

The pass writes `img.needed = array<i64: y, x, h, w>` on every op whose result is needed only
in part, which is what a code generator may restrict its loops to (and what
img-hoist-reductions uses to move crops up).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import img
from tessel.dialects.img.types import ImageType

NEEDED_ATTR = "img.needed"
Box = tuple[int, int, int, int]  # y, x, h, w


def full(v: SSAValue) -> Box:
    t = v.type
    return (0, 0, t.height.data, t.width.data) if isinstance(t, ImageType) else (0, 0, 0, 0)


def union(a: Box | None, b: Box) -> Box:
    if a is None:
        return b
    y0, x0 = min(a[0], b[0]), min(a[1], b[1])
    y1, x1 = max(a[0] + a[2], b[0] + b[2]), max(a[1] + a[3], b[1] + b[3])
    return (y0, x0, y1 - y0, x1 - x0)


def clip(box: Box, v: SSAValue) -> Box:
    _, _, h, w = full(v)
    y0, x0 = max(0, box[0]), max(0, box[1])
    y1, x1 = min(h, box[0] + box[2]), min(w, box[1] + box[3])
    return (y0, x0, max(0, y1 - y0), max(0, x1 - x0))


def grow(box: Box, top: int, left: int, bottom: int, right: int) -> Box:
    return (box[0] - top, box[1] - left, box[2] + top + bottom, box[3] + left + right)


def demands(op: Operation, out: Box) -> list[tuple[SSAValue, Box]]:
    """What each operand must supply for `out` of the op's result."""
    y, x, h, w = out
    if isinstance(op, img.StencilOp):
        kh, kw = op.size
        top, left = (kh - 1) // 2, (kw - 1) // 2
        return [(op.input, clip(grow(out, top, left, kh - 1 - top, kw - 1 - left), op.input))]
    if isinstance(op, img.CropOp):
        cy, cx, _, _ = op.box
        return [(op.input, (y + cy, x + cx, h, w))]
    if isinstance(op, img.DownsampleOp):
        fy, fx = op.factors
        return [(op.input, clip((y * fy, x * fx, h * fy, w * fx), op.input))]
    if isinstance(op, img.UpsampleOp):
        fy, fx = op.factors
        y0, x0 = y // fy, x // fx
        return [(op.input, (y0, x0, -(-(y + h) // fy) - y0, -(-(x + w) // fx) - x0))]
    if isinstance(op, img.RemapOp):
        d = op.max_displacement.value.data
        return [(op.input, clip(grow(out, d, d, d, d), op.input)), (op.lut, out)]
    if isinstance(op, img.ScanOp):
        return [(op.input, (0, 0, y + h, x + w))]
    if isinstance(op, img.GateOp):
        return [(op.input, out), (op.predicate, full(op.predicate))]
    if isinstance(op, img.MapOp | img.LutOp | img.MergeOp | img.ExtractOp | img.TransmitOp | img.EncodeOp):
        return [(v, out) for v in op.operands]
    return [(v, full(v)) for v in op.operands]  # reductions, dense, sinks: everything


def infer(fn: func.FuncOp) -> dict[SSAValue, Box]:
    needed: dict[SSAValue, Box] = {}
    for op in reversed(list(fn.body.block.ops)):
        if isinstance(op, func.ReturnOp):
            for v in op.operands:
                needed[v] = union(needed.get(v), full(v))
            continue
        out = needed.get(op.results[0]) if op.results else None
        if op.results and out is None:
            continue  # dead: nothing needs it
        for v, box in demands(op, out or (0, 0, 0, 0)):
            if isinstance(v.type, ImageType):
                needed[v] = union(needed.get(v), clip(box, v))
    return needed


@dataclass(frozen=True)
class ImgInferBounds(ModulePass):
    name = "img-infer-bounds"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            needed = infer(fn)
            for o in fn.body.block.ops:
                if o.results and o.results[0] in needed and needed[o.results[0]] != full(o.results[0]):
                    o.attributes[NEEDED_ATTR] = DenseArrayBase.from_list(i64, list(needed[o.results[0]]))
