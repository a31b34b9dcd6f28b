"""Build the row plan of an image pipeline (the data: dialects/img/plan.py): which stages
are materialized, which rows of each a consumer reads, and how many rows of each must stay
live (the line buffers).

Each stage's newest needed row is a max over its consumers, clamped to its height;
`ring_rows` is the largest span between the oldest row a consumer still reads and the
newest row computed, found by simulating a strip exactly (at the top, in the middle and
near the bottom, where borders fold rows back).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue

from tessel.dialects import img
from tessel.dialects.img.attrs import Border, Compute, ComputeAttr
from tessel.dialects.img.plan import COMPUTE_ATTR, Footprint, RowPlan, Stage, StageKind, fold
from tessel.dialects.img.types import ImageType, element_bits
from tessel.ir.diagnostics import TesselError, op_location

KINDS: dict[type[Operation], StageKind] = {
    img.MapOp: StageKind.EXPR, img.StencilOp: StageKind.EXPR, img.LutOp: StageKind.EXPR,
    img.DownsampleOp: StageKind.DOWNSAMPLE, img.CropOp: StageKind.CROP, img.ExtractOp: StageKind.EXTRACT,
    img.MergeOp: StageKind.MERGE,
}  # fmt: skip
ROW_OPS = tuple(op.name for op in KINDS)
Reach = tuple[SSAValue, int, int, int, int, int, int, Border]  # operand, scale, lo, hi, cscale, clo, chi, border


def is_inline(op: Operation) -> bool:
    attr = op.attributes.get(COMPUTE_ATTR)
    return isinstance(attr, ComputeAttr) and attr.data == Compute.INLINE


def stencil_offsets(op: img.StencilOp) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) reach of the window around its anchor."""
    kh, kw = op.size
    top, left = (kh - 1) // 2, (kw - 1) // 2
    return top, kh - 1 - top, left, kw - 1 - left


def _check_inline(op: Operation, uses: list[Operation], results: set[SSAValue]) -> None:
    where = op_location(op)
    if not isinstance(op, img.MapOp | img.StencilOp | img.LutOp):
        raise TesselError(f"{op.name} cannot be computed inline (only img.map, img.stencil and img.lut can)", where)
    if op.results[0] in results:
        raise TesselError(f"{op.name} is a result of the function, so it cannot be computed inline", where)
    for use in uses:
        if isinstance(use, img.StencilOp) and use.border_mode == Border.ZERO:
            raise TesselError(f"{op.name} is read by a zero-border img.stencil, which reads 0 outside the frame, "
                              "not the producer at clamped positions; it cannot be computed inline", where)  # fmt: skip
        if not isinstance(use, img.MapOp | img.StencilOp | img.LutOp):
            raise TesselError(f"{op.name} is read by {use.name}, which cannot read an inline producer", where)


def direct_footprints(op: Operation) -> list[Reach]:
    """(operand, scale, lo, hi, cscale, clo, chi, border) for each image operand of op."""
    if isinstance(op, img.MapOp | img.MergeOp):
        return [(v, 1, 0, 0, 1, 0, 0, Border.CLAMP) for v in op.inputs]
    if isinstance(op, img.LutOp | img.ExtractOp):
        return [(op.input, 1, 0, 0, 1, 0, 0, Border.CLAMP)]
    if isinstance(op, img.StencilOp):
        top, bottom, left, right = stencil_offsets(op)
        return [(op.input, 1, -top, bottom, 1, -left, right, op.border_mode)]
    if isinstance(op, img.DownsampleOp):
        fy, fx = op.factors
        if not op.average:
            return [(op.input, fy, 0, 0, fx, 0, 0, Border.CLAMP)]
        return [(op.input, fy, 0, fy - 1, fx, 0, fx - 1, op.border_mode)]
    if isinstance(op, img.CropOp):
        y, x, _, _ = op.box
        return [(op.input, 1, y, y, 1, x, x, Border.CLAMP)]
    raise TesselError(f"{op.name} is not a row-streamed stage (those are: {', '.join(ROW_OPS)}); "
                      "the CPU target runs it as a whole-frame kernel between row pipelines", op_location(op))  # fmt: skip


def build_plan(fn: func.FuncOp) -> RowPlan:
    """The stages of `fn`, who reads what, and the ring size of every buffered stage (valid
    for a strip starting at any driver row)."""
    block = fn.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or not ret.operands:
        raise TesselError(f"@{fn.sym_name.data} must return at least one image", op_location(fn))
    stages: list[Stage] = []
    by_value: dict[SSAValue, Stage] = {}

    def add(value: SSAValue, op: Operation | None, kind: StageKind) -> None:
        t = value.type
        if not isinstance(t, ImageType):
            raise TesselError(
                f"the CPU image target takes and returns !img.frame values, got {t}", op_location(op or fn)
            )
        is_float = isinstance(t.element, Float32Type)
        s = Stage(len(stages), value, op, kind, t.shape, element_bits(t.element), is_float,
                  not is_float and not t.element_name.startswith("u"))  # fmt: skip
        stages.append(s)
        by_value[value] = s

    for arg in block.args:
        add(arg, None, StageKind.INPUT)
    results = set(ret.operands)
    uses: dict[SSAValue, list[Operation]] = {}
    for op in block.ops:
        if op is ret:
            break
        kind = KINDS.get(type(op))
        if kind is None:
            direct_footprints(op)  # raises the unsupported-op error
            raise AssertionError(op.name)
        add(op.results[0], op, kind)
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
        raise TesselError(
            f"the CPU image target needs every result to have one height, got {sorted(heights)}", op_location(ret)
        )
    plan = RowPlan(fn, stages, by_value, inline, heights.pop())

    # footprints of every computed consumer on the materialized stages it reads, through
    # chains of inline producers (offsets add; inline stages are same-size)
    for s in plan.computed():
        assert s.op is not None
        reach: dict[int, Footprint] = {}
        for r in direct_footprints(s.op):
            _collect(plan, s.index, r, reach)
        for p, fp in reach.items():
            stages[p].reads.append(fp)
    for s in plan.computed():
        if s.buffered:
            s.ring_rows = ring_rows(plan, s)
    return plan


def _collect(plan: RowPlan, consumer: int, r: Reach, reach: dict[int, Footprint]) -> None:
    v, scale, lo, hi, cscale, clo, chi, border = r
    p = plan.by_value[v]
    if p.op is not None and p.op in plan.inline:
        for w, _, lo2, hi2, _, clo2, chi2, b2 in direct_footprints(p.op):
            _collect(plan, consumer, (w, scale, lo + lo2, hi + hi2, cscale, clo + clo2, chi + chi2, b2), reach)
        return
    if p.index in reach:
        f = reach[p.index]
        f.lo, f.hi, f.clo, f.chi = min(f.lo, lo), max(f.hi, hi), min(f.clo, clo), max(f.chi, chi)
        if border == Border.MIRROR:
            f.border = border  # the widest fold decides the ring
    else:
        reach[p.index] = Footprint(consumer, scale, lo, hi, cscale, clo, chi, border)


def needed_rows(plan: RowPlan, y: int) -> dict[int, int]:
    """Newest row of every computed stage needed for driver row y."""
    hi: dict[int, int] = {}
    for s in reversed(plan.computed()):
        want = y if s.results else -1
        for f in s.reads:
            want = max(want, hi[f.consumer] * f.scale + f.hi)
        hi[s.index] = min(s.shape[0] - 1, want)
    return hi


def first_rows(plan: RowPlan, a: int) -> dict[int, int]:
    """Oldest row of every computed stage a strip starting at driver row a needs."""
    lo: dict[int, int] = {}
    for s in reversed(plan.computed()):
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
        lo = first_rows(plan, a)
        done = {k: v - 1 for k, v in lo.items()}
        for y in range(a, height):
            hi = needed_rows(plan, y)
            oldest = hi[s.index]
            for f in s.reads:
                new = range(done[f.consumer] + 1, hi[f.consumer] + 1)
                rows = [fold(r * f.scale + d, s.shape[0], f.border) for r in new for d in range(f.lo, f.hi + 1)]
                oldest = min([oldest, *(r for r in rows if r is not None)])
            worst = max(worst, hi[s.index] - oldest + 1)
            done = hi
    return worst
