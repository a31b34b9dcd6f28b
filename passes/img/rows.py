"""The row plan of an image pipeline: which stages are materialized, which rows of each a
consumer reads, and how many rows of each must stay live (the line buffers).

A pipeline function of `img.map`/`img.stencil`/`img.downsample`/`img.crop`/`img.extract`/
`img.merge` ops is a DAG of *stages* (on a stream, the plan is that of one frame: every
frame runs it). Whole-frame ops (reduce, scan, dense, remap, upsample) and gates sit between
such pipelines (passes/img/frames.py). A stage marked `img.compute = "inline"` (by `img-fuse`) is not stored anywhere:
its body is re-evaluated by every consumer at the positions it reads (Halide's inline).
Every other stage is materialized row by row into a ring of `ring_rows` rows (Halide's
`compute_at` one output row with `store_at` the strip, i.e. Darkroom's line buffer),
unless it is a function result without consumers, which is written straight to memory.

The execution model (shared by the line-buffer report and the CPU code): the rows of the
*driver* (every result has the same height) are split into strips; in a strip, for each
driver row y, every materialized stage first computes the rows its consumers will need for
y (`hi` below) in producer-to-consumer order. Consumer row r of a stage reading producer p
through a footprint (scale, lo, hi) needs producer rows r*scale+lo .. r*scale+hi (before
the border maps them into the frame), so each stage's newest needed row is a max over its
consumers, clamped to its height. `ring_rows` is the largest span between the oldest row a
consumer still reads and the newest row computed, found by simulating a strip exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from tessel.dialects import img
from tessel.dialects.img.types import _ImageType, element_bits
from tessel.ir.diagnostics import TesselError, op_location

COMPUTE_ATTR = "img.compute"  # "inline" | "line_buffer": the schedule of a producer
LINE_BUFFER_ATTR = "img.line_buffer"  # written by img-line-buffers: rows and bytes


@dataclass
class Footprint:
    """Consumer stage `consumer` reads rows r*scale+lo .. r*scale+hi and columns
    c*cscale+clo .. c*cscale+chi of the producer for its row r / column c."""

    consumer: int
    scale: int
    lo: int
    hi: int
    cscale: int = 1
    clo: int = 0
    chi: int = 0


@dataclass
class Stage:
    index: int
    value: SSAValue
    op: Operation | None  # None: a function argument
    kind: str  # input | expr | downsample | crop | extract | merge
    shape: tuple[int, int, int]
    bits: int
    results: list[int] = field(default_factory=list)  # function result indices it is
    reads: list[Footprint] = field(default_factory=list)  # filled on the producer: who reads it
    ring_rows: int = 0  # rows kept live (0: not buffered)

    @property
    def row_bytes(self) -> int:
        return self.shape[1] * self.shape[2] * self.bits // 8

    @property
    def buffered(self) -> bool:
        return self.kind != "input" and (not self.results or bool(self.reads))


@dataclass
class RowPlan:
    fn: func.FuncOp
    stages: list[Stage]  # topological order: inputs first
    by_value: dict[SSAValue, Stage]
    inline: set[Operation]
    height: int  # the driver's rows

    def materialized(self) -> list[Stage]:
        return [s for s in self.stages if s.kind != "input"]


def is_inline(op: Operation) -> bool:
    attr = op.attributes.get(COMPUTE_ATTR)
    return isinstance(attr, StringAttr) and attr.data == "inline"


def stencil_offsets(op: img.StencilOp) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) reach of the window around its anchor."""
    kh, kw = op.size
    top, left = (kh - 1) // 2, (kw - 1) // 2
    return top, kh - 1 - top, left, kw - 1 - left


def _check_inline(op: Operation, uses: list[Operation], results: set[SSAValue]) -> None:
    where = op_location(op)
    if not isinstance(op, img.MapOp | img.StencilOp):
        raise TesselError(f"{op.name} cannot be computed inline (only img.map and img.stencil can)", where)
    if op.results[0] in results:
        raise TesselError(f"{op.name} is a result of the function, so it cannot be computed inline", where)
    for use in uses:
        if isinstance(use, img.StencilOp) and use.border.data == "zero":
            raise TesselError(f"{op.name} is read by a zero-border img.stencil, which reads 0 outside the frame, "
                              "not the producer at clamped positions; it cannot be computed inline", where)  # fmt: skip
        if not isinstance(use, img.MapOp | img.StencilOp):
            raise TesselError(f"{op.name} is read by {use.name}, which cannot read an inline producer", where)


def _direct_footprints(op: Operation) -> list[tuple[SSAValue, int, int, int, int, int, int]]:
    """(operand, scale, lo, hi, cscale, clo, chi) for each image operand of op."""
    if isinstance(op, img.MapOp):
        return [(v, 1, 0, 0, 1, 0, 0) for v in op.inputs]
    if isinstance(op, img.StencilOp):
        top, bottom, left, right = stencil_offsets(op)
        return [(op.input, 1, -top, bottom, 1, -left, right)]
    if isinstance(op, img.DownsampleOp):
        fy, fx = op.factor.get_values()
        if op.mode.data == "nearest":
            return [(op.input, fy, 0, 0, fx, 0, 0)]
        return [(op.input, fy, 0, fy - 1, fx, 0, fx - 1)]
    if isinstance(op, img.CropOp):
        y, x, _, _ = op.roi.get_values()
        return [(op.input, 1, y, y, 1, x, x)]
    if isinstance(op, img.ExtractOp):
        return [(op.input, 1, 0, 0, 1, 0, 0)]
    if isinstance(op, img.MergeOp):
        return [(v, 1, 0, 0, 1, 0, 0) for v in op.inputs]
    raise TesselError(f"{op.name} is not a row-streamed stage (those are: {', '.join(ROW_OPS)}); "
                      "the CPU target runs it as a whole-frame kernel between row pipelines", op_location(op))  # fmt: skip


KINDS = {img.MapOp: "expr", img.StencilOp: "expr", img.DownsampleOp: "downsample", img.CropOp: "crop",
         img.ExtractOp: "extract", img.MergeOp: "merge"}  # fmt: skip
ROW_OPS = tuple(op.name for op in KINDS)


def build_plan(fn: func.FuncOp) -> RowPlan:
    """The stages of `fn`, who reads what, and the ring size of every buffered stage (valid
    for a strip starting at any driver row)."""
    block = fn.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or not ret.operands:
        raise TesselError(f"@{fn.sym_name.data} must return at least one image", op_location(fn))
    stages: list[Stage] = []
    by_value: dict[SSAValue, Stage] = {}

    def add(value: SSAValue, op: Operation | None, kind: str) -> None:
        t = value.type
        if not isinstance(t, _ImageType):
            raise TesselError(f"the CPU image target takes and returns !img.frame values, got {t}", op_location(op or fn))
        s = Stage(len(stages), value, op, kind, t.shape, element_bits(t.element))
        stages.append(s)
        by_value[value] = s

    for arg in block.args:
        add(arg, None, "input")
    results = set(ret.operands)
    uses: dict[SSAValue, list[Operation]] = {}
    for op in block.ops:
        if op is ret:
            break
        kind = KINDS.get(type(op))
        if kind is None:
            _direct_footprints(op)  # raises the unsupported-op error
        add(op.results[0], op, kind)  # type: ignore[arg-type]
        for v in op.operands:
            uses.setdefault(v, []).append(op)
    for i, v in enumerate(ret.operands):
        by_value[v].results.append(i)
    inline = set()
    for s in stages:
        if s.op is not None and is_inline(s.op):
            _check_inline(s.op, uses.get(s.value, []), results)
            inline.add(s.op)
    heights = {by_value[v].shape[0] for v in ret.operands}
    if len(heights) != 1:
        raise TesselError(f"the CPU image target needs every result to have one height, got {sorted(heights)}", op_location(ret))
    plan = RowPlan(fn, stages, by_value, inline, heights.pop())

    # footprints of every materialized consumer on the materialized stages it reads,
    # through chains of inline producers (offsets add; inline stages are same-size)
    for s in plan.materialized():
        if s.op in inline:
            continue
        reach: dict[int, list[int]] = {}
        for v, scale, lo, hi, cscale, clo, chi in _direct_footprints(s.op):  # type: ignore[arg-type]
            _collect(plan, v, scale, lo, hi, cscale, clo, chi, reach)
        for p, (scale, lo, hi, cscale, clo, chi) in reach.items():
            stages[p].reads.append(Footprint(s.index, scale, lo, hi, cscale, clo, chi))
    for s in plan.materialized():
        if s.buffered and s.op not in inline:
            s.ring_rows = ring_rows(plan, s)
    return plan


def _collect(plan: RowPlan, v: SSAValue, scale: int, lo: int, hi: int, cscale: int, clo: int, chi: int,
             reach: dict[int, list[int]]) -> None:  # fmt: skip
    p = plan.by_value[v]
    if p.op is not None and p.op in plan.inline:
        for w, _, lo2, hi2, _, clo2, chi2 in _direct_footprints(p.op):
            _collect(plan, w, scale, lo + lo2, hi + hi2, cscale, clo + clo2, chi + chi2, reach)
        return
    if p.index in reach:
        r = reach[p.index]
        r[1], r[2], r[4], r[5] = min(r[1], lo), max(r[2], hi), min(r[4], clo), max(r[5], chi)
    else:
        reach[p.index] = [scale, lo, hi, cscale, clo, chi]


def needed_rows(plan: RowPlan, y: int) -> dict[int, int]:
    """Newest row of every materialized (non-inline) stage needed for driver row y."""
    hi: dict[int, int] = {}
    for s in reversed(plan.stages):
        if s.kind == "input" or s.op in plan.inline:
            continue
        want = y if s.results else -1
        for f in s.reads:
            want = max(want, hi[f.consumer] * f.scale + f.hi)
        hi[s.index] = min(s.shape[0] - 1, want)
    return hi


def first_rows(plan: RowPlan, a: int) -> dict[int, int]:
    """Oldest row of every materialized stage a strip starting at driver row a needs."""
    lo: dict[int, int] = {}
    for s in reversed(plan.stages):
        if s.kind == "input" or s.op in plan.inline:
            continue
        want = a if s.results else 1 << 62
        for f in s.reads:
            want = min(want, lo[f.consumer] * f.scale + f.lo)
        lo[s.index] = max(0, want)
    return lo


def ring_rows(plan: RowPlan, s: Stage) -> int:
    """Rows of s that must be live at once: simulate strips starting at the top, in the
    middle (a strip's first step computes a whole window of rows) and near the bottom
    (borders fold rows back), and take the widest span from the oldest row read to the
    newest computed."""
    height = plan.height
    worst = 1
    for a in sorted({0, height // 2, max(0, height - 2)}):
        b = height
        lo = first_rows(plan, a)
        done = {k: v - 1 for k, v in lo.items()}
        for y in range(a, b):
            hi = needed_rows(plan, y)
            oldest = hi[s.index]
            for f in s.reads:
                c = plan.stages[f.consumer]
                new = range(done[c.index] + 1, hi[c.index] + 1)
                if not len(new):
                    continue
                rows = [_fold(r * f.scale + f.lo, s.shape[0]) for r in new] + [_fold(r * f.scale + f.hi, s.shape[0]) for r in new]
                oldest = min(oldest, *rows)
            worst = max(worst, hi[s.index] - oldest + 1)
            done = hi
    return worst


def _fold(r: int, h: int) -> int:
    """Where a border maps row r (clamp and mirror both stay within the rows computed)."""
    return min(max(r, 0), h - 1)
