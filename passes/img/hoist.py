"""img-hoist-reductions: move data-reduction stages ahead of the work they make unnecessary.

The IISWC'17 study's main lesson as a rewrite: reduce early. Each pattern is exact (the
pipeline's values are unchanged, which the differential tests check on random images):

* crop of a point-wise map: crop the map's inputs instead (frames it combines with included);
* crop of a stencil: crop the input to the ROI grown by the stencil's halo (clipped to the
  frame, so borders are handled where they were), run the stencil on that, crop the rest
  (bounds inference: the region a consumer needs from its producer);
* nearest downsample of a point-wise map: downsample the inputs;
* gate of a per-frame op (map, stencil, crop, downsample, extract, merge): gate that op's
  stream inputs instead, when the predicate does not depend on the op.

Patterns apply only when the producer has no other use (hoisting would otherwise compute
both versions) and repeat, so a crop or gate climbs a whole chain.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import img
from tessel.dialects.img.types import StreamType, _ImageType, like


def _crop(v: SSAValue, y: int, x: int, h: int, w: int) -> img.CropOp:
    t = v.type
    assert isinstance(t, _ImageType)
    return img.CropOp.create(operands=[v], result_types=[like(t, h, w)],
                             properties={"roi": DenseArrayBase.from_list(i64, [y, x, h, w])})  # fmt: skip


def _clone_with(op: Operation, operands: list[SSAValue], result_type) -> Operation:  # noqa: ANN001
    """The same op (properties, attributes, body) on other operands and with another type."""
    new = type(op).create(operands=operands, result_types=[result_type], properties=dict(op.properties),
                          attributes=dict(op.attributes), regions=[r.clone() for r in op.regions])  # fmt: skip
    new.results[0].name_hint = op.results[0].name_hint
    return new


class CropThroughMap(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.CropOp) or not isinstance(op.input.owner, img.MapOp) or not op.input.has_one_use():
            return
        m = op.input.owner
        y, x, h, w = op.roi.get_values()
        crops = [_crop(v, y, x, h, w) for v in m.inputs]
        new = _clone_with(m, [c.results[0] for c in crops], op.result.type)
        rewriter.insert([*crops, new], InsertPoint.before(op))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(m)


class CropThroughStencil(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.CropOp) or not isinstance(op.input.owner, img.StencilOp) or not op.input.has_one_use():
            return
        s = op.input.owner
        src = s.input.type
        assert isinstance(src, _ImageType)
        kh, kw = s.size
        top, left = (kh - 1) // 2, (kw - 1) // 2
        y, x, h, w = op.roi.get_values()
        y0, x0 = max(0, y - top), max(0, x - left)
        y1, x1 = min(src.height.data, y + h + kh - 1 - top), min(src.width.data, x + w + kw - 1 - left)
        if (y1 - y0) * (x1 - x0) >= src.pixels:
            return  # the halo covers the frame: nothing to save
        grown = _crop(s.input, y0, x0, y1 - y0, x1 - x0)
        new = _clone_with(s, [grown.results[0]], like(src, y1 - y0, x1 - x0, element=s.result.type.element))  # type: ignore[union-attr]
        inner = _crop(new.results[0], y - y0, x - x0, h, w)
        rewriter.insert([grown, new, inner], InsertPoint.before(op))
        rewriter.replace(op, [], [inner.results[0]])
        rewriter.erase(s)


class DownsampleThroughMap(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.DownsampleOp) or op.mode.data != "nearest":
            return
        m = op.input.owner
        if not isinstance(m, img.MapOp) or not op.input.has_one_use():
            return
        fy, fx = op.factor.get_values()
        downs = []
        for v in m.inputs:
            t = v.type
            assert isinstance(t, _ImageType)
            downs.append(img.DownsampleOp.create(operands=[v], result_types=[like(t, t.height.data // fy, t.width.data // fx)],
                                                 properties=dict(op.properties)))  # fmt: skip
        new = _clone_with(m, [d.results[0] for d in downs], op.result.type)
        rewriter.insert([*downs, new], InsertPoint.before(op))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(m)


PER_FRAME = (img.MapOp, img.StencilOp, img.CropOp, img.DownsampleOp, img.ExtractOp, img.MergeOp)


def _depends_on(value: SSAValue, op: Operation) -> bool:
    work, seen = [value], set()
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if owner is op:
            return True
        if isinstance(owner, Operation):
            work.extend(owner.operands)
    return False


def _before(a: SSAValue, op: Operation) -> bool:
    """`a` is available where `op` stands (a block argument or defined earlier)."""
    owner = a.owner
    if not isinstance(owner, Operation):
        return True
    block = op.parent_block()
    return owner.parent_block() is block and block.get_operation_index(owner) < block.get_operation_index(op)  # type: ignore[union-attr]


class GateThroughPerFrame(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.GateOp) or not op.input.has_one_use():
            return
        p = op.input.owner
        if not isinstance(p, PER_FRAME) or _depends_on(op.predicate, p) or not _before(op.predicate, p):
            return
        gates: list[Operation] = []
        operands: list[SSAValue] = []
        for v in p.operands:
            if isinstance(v.type, StreamType):
                g = img.GateOp.create(operands=[v, op.predicate], result_types=[v.type], properties=dict(op.properties))
                gates.append(g)
                operands.append(g.results[0])
            else:
                operands.append(v)
        new = _clone_with(p, operands, op.result.type)
        rewriter.insert([*gates, new], InsertPoint.before(p))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(p)


@dataclass(frozen=True)
class ImgHoistReductions(ModulePass):
    name = "img-hoist-reductions"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([CropThroughMap(), CropThroughStencil(), DownsampleThroughMap(), GateThroughPerFrame()])
        PatternRewriteWalker(patterns).rewrite_module(op)
