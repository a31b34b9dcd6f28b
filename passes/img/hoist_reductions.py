"""img-hoist-reductions: move data-reduction stages ahead of the work they make unnecessary.

The IISWC'17 study's main lesson as a rewrite: reduce early. Each pattern is exact (the
pipeline's values are unchanged, which the differential tests check on random images):

* crop of a point-wise op (map, lut): crop its inputs instead (frames it combines with included);
* crop of a stencil: crop the input to the ROI grown by the stencil's halo (clipped to the
  frame, so borders are handled where they were), run the stencil on that, crop the rest
  (bounds inference: the region a consumer needs from its producer);
* nearest downsample of a point-wise op (map, lut): downsample the inputs (any rounding:
  the kept pixels are the same);
* gate of a per-frame op (map, stencil, lut, crop, downsample, extract, merge): gate that op's
  stream inputs instead, when the predicate does not depend on the op.

Patterns apply only when the producer has no other use (hoisting would otherwise compute
both versions) and repeat, so a crop or gate climbs a whole chain. With `report=true` the
pass prints one line per move to stderr (what `tessel-run --report` shows):

    hoisted img.downsample of %small above img.lut %gamma (runs on 1/4 of the pixels)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from tessel.dialects import img
from tessel.dialects.img.ops import downsampled
from tessel.dialects.img.types import ImageType, StreamType, like

POINTWISE = (img.MapOp, img.LutOp)


def _image(v: SSAValue) -> ImageType:
    t = v.type
    assert isinstance(t, ImageType)
    return t


def _label(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "a value"


class Moves:
    """The moves one run made, for the report."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, moved: Operation, above: Operation, why: str) -> None:
        self.lines.append(
            f"hoisted {moved.name} of {_label(moved.results[0])} above {above.name} {_label(above.results[0])} ({why})"
        )


def _crop(v: SSAValue, y: int, x: int, h: int, w: int) -> img.CropOp:
    return img.CropOp.create(operands=[v], result_types=[like(_image(v), h, w)],
                             properties={"roi": DenseArrayBase.from_list(i64, [y, x, h, w])})  # fmt: skip


def _clone_with(op: Operation, operands: list[SSAValue], result_type: Attribute) -> Operation:
    """The same op (properties, attributes, body) on other operands and with another type."""
    new = type(op).create(operands=operands, result_types=[result_type], properties=dict(op.properties),
                          attributes=dict(op.attributes), regions=[r.clone() for r in op.regions])  # fmt: skip
    new.results[0].name_hint = op.results[0].name_hint
    return new


class HoistPattern(RewritePattern):
    def __init__(self, moves: Moves) -> None:
        self.moves = moves


class CropThroughPointwise(HoistPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.CropOp) or not isinstance(op.input.owner, POINTWISE) or not op.input.has_one_use():
            return
        m = op.input.owner
        y, x, h, w = op.box
        crops = [_crop(v, y, x, h, w) for v in m.operands]
        new = _clone_with(m, [c.results[0] for c in crops], op.result.type)
        self.moves.add(
            op, m, f"runs on {h}x{w} of {_image(m.results[0]).height.data}x{_image(m.results[0]).width.data}"
        )
        rewriter.insert([*crops, new], InsertPoint.before(op))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(m)


class CropThroughStencil(HoistPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if (
            not isinstance(op, img.CropOp)
            or not isinstance(op.input.owner, img.StencilOp)
            or not op.input.has_one_use()
        ):
            return
        s = op.input.owner
        src = _image(s.input)
        kh, kw = s.size
        top, left = (kh - 1) // 2, (kw - 1) // 2
        y, x, h, w = op.box
        y0, x0 = max(0, y - top), max(0, x - left)
        y1, x1 = min(src.height.data, y + h + kh - 1 - top), min(src.width.data, x + w + kw - 1 - left)
        if (y1 - y0) * (x1 - x0) >= src.pixels:
            return  # the halo covers the frame: nothing to save
        grown = _crop(s.input, y0, x0, y1 - y0, x1 - x0)
        new = _clone_with(s, [grown.results[0]], like(src, y1 - y0, x1 - x0, element=_image(s.result).element))
        inner = _crop(new.results[0], y - y0, x - x0, h, w)
        self.moves.add(op, s, f"the stencil runs on {y1 - y0}x{x1 - x0} of {src.height.data}x{src.width.data}")
        rewriter.insert([grown, new, inner], InsertPoint.before(op))
        rewriter.replace(op, [], [inner.results[0]])
        rewriter.erase(s)


class DownsampleThroughPointwise(HoistPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, img.DownsampleOp) or op.average:
            return
        m = op.input.owner
        if not isinstance(m, POINTWISE) or not op.input.has_one_use():
            return
        fy, fx = op.factors
        downs = []
        for v in m.operands:
            t = _image(v)
            small = like(t, downsampled(t.height.data, fy, op.round_mode), downsampled(t.width.data, fx, op.round_mode))
            downs.append(img.DownsampleOp.create(operands=[v], result_types=[small], properties=dict(op.properties)))
        new = _clone_with(m, [d.results[0] for d in downs], op.result.type)
        self.moves.add(op, m, f"runs on 1/{fy * fx} of the pixels")
        rewriter.insert([*downs, new], InsertPoint.before(op))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(m)


PER_FRAME = (img.MapOp, img.StencilOp, img.LutOp, img.CropOp, img.DownsampleOp, img.ExtractOp, img.MergeOp)


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
    return (
        block is not None
        and owner.parent_block() is block
        and block.get_operation_index(owner) < block.get_operation_index(op)
    )


class GateThroughPerFrame(HoistPattern):
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
        self.moves.add(op, p, f"{op.pass_rate.value.data:g} of the frames reach it")
        rewriter.insert([*gates, new], InsertPoint.before(p))
        rewriter.replace(op, [], [new.results[0]])
        rewriter.erase(p)


@dataclass(frozen=True)
class ImgHoistReductions(ModulePass):
    name = "img-hoist-reductions"

    report: bool = False  # print what moved to stderr

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        moves = hoist(op)
        if self.report:
            for line in moves:
                print(line, file=sys.stderr)


def hoist(module: builtin.ModuleOp) -> list[str]:
    """Apply every hoisting pattern to a fixpoint; one line per move made."""
    moves = Moves()
    patterns: list[RewritePattern] = [CropThroughPointwise(moves), CropThroughStencil(moves),
                                      DownsampleThroughPointwise(moves), GateThroughPerFrame(moves)]  # fmt: skip
    # no dead-code elimination: bodies stay as written (the fusion budget counts their ops)
    PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False)).rewrite_module(module)
    return moves.lines
