"""img-line-buffers: size the line buffer of every producer its consumers read from a
buffer, write it on the op, and report on-chip bytes against the analytic minimum.

Two sizes per buffered producer (Darkroom's model; passes/img/plan/rows.py builds the plan):

* `rows`/`bytes`: what the CPU code allocates, a ring of whole rows. A row is computed
  completely before its consumer starts the row that needs it, so a kh-row window needs kh
  rows live (the oldest row read and the one just computed), plus the rows a rate change
  (downsample) holds. Found by simulating the strip loop exactly.
* `min_bytes`: the analytic minimum of a raster-order stream (one pixel a step, the
  consumer right behind the producer): (span of rows read - 1) x width + span of columns
  read, in pixels x channels x bytes, which is (kh-1) x W + kw for a kh x kw stencil.
  A hardware line buffer reaches it; the row-granular CPU ring is one row more.

The report also gives the DRAM traffic a frame-at-a-time schedule would spend on every
intermediate image (written once, read by each consumer) that this schedule keeps on chip
(line-buffered) or never stores (inline).

    %h = img.stencil %x window [1, 3] border clamp {img.compute = #img<compute line_buffer>} ...
    -> %h = img.stencil %x window [1, 3] border clamp {img.compute = #img<compute line_buffer>,
              img.line_buffer = {rows = 3 : i64, bytes = 11520 : i64, min_bytes = 7686 : i64}} ...
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from tessel.dialects.img.plan import LINE_BUFFER_ATTR, RowPlan, Stage, StageKind
from tessel.passes.img.plan.rows import build_plan


@dataclass
class BufferRow:
    name: str
    rows: int
    cpu_bytes: int
    min_bytes: int


@dataclass
class Report:
    buffers: list[BufferRow]
    dram_avoided: int  # bytes per frame
    frame_bytes: int  # bytes per frame read and written by the fused pipeline

    @property
    def cpu_bytes(self) -> int:
        return sum(b.cpu_bytes for b in self.buffers)

    @property
    def min_bytes(self) -> int:
        return sum(b.min_bytes for b in self.buffers)

    def format(self) -> str:
        lines = ["line buffers (rows, CPU ring bytes, analytic minimum bytes):"]
        for b in self.buffers:
            lines.append(f"  {b.name:<12} {b.rows:>3} rows {b.cpu_bytes:>10} B   minimum {b.min_bytes:>10} B")
        lines.append(f"  total on chip {self.cpu_bytes} B (CPU ring), analytic minimum {self.min_bytes} B")
        lines.append(f"DRAM traffic avoided vs frame-at-a-time: {self.dram_avoided} B per frame "
                     f"(the fused pipeline moves {self.frame_bytes} B)")  # fmt: skip
        return "\n".join(lines)


def _pixel_bytes(s: Stage) -> int:
    return s.shape[2] * s.bits // 8


def minimum_bytes(s: Stage) -> int:
    """The raster-order line buffer of s for the footprints of its consumers."""
    if not s.reads:
        return 0
    lo = min(f.lo for f in s.reads)
    hi = max(f.hi for f in s.reads)
    clo = min(f.clo for f in s.reads)
    chi = max(f.chi for f in s.reads)
    if hi == lo and chi == clo:
        return 0  # read once, where it is produced: a register, not a buffer
    return ((hi - lo) * s.shape[1] + (chi - clo + 1)) * _pixel_bytes(s)


def _name(s: Stage) -> str:
    return f"%{s.value.name_hint}" if s.value.name_hint else f"stage {s.index}"


def report(plan: RowPlan) -> Report:
    buffers = []
    avoided = 0
    moved = 0
    for s in plan.stages:
        frame = s.shape[0] * s.row_bytes
        if s.kind == StageKind.INPUT or s.results:
            moved += frame
        if s.kind == StageKind.INPUT:
            continue
        if not s.results:
            avoided += frame * (1 + len({u.operation for u in s.value.uses}))
        if s.op in plan.inline or not s.buffered:
            continue
        buffers.append(BufferRow(_name(s), s.ring_rows, s.ring_rows * s.row_bytes, minimum_bytes(s)))
    return Report(buffers, avoided, moved)


@dataclass(frozen=True)
class ImgLineBuffers(ModulePass):
    name = "img-line-buffers"

    report: bool = False  # print the report to stderr

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in list(op.walk()):
            if not isinstance(fn, func.FuncOp) or not any(o.name.startswith("img.") for o in fn.walk()):
                continue
            plan = build_plan(fn)
            for s in plan.stages:
                if s.op is None or s.op in plan.inline or not s.buffered:
                    continue
                s.op.attributes[LINE_BUFFER_ATTR] = DictionaryAttr({
                    "rows": IntegerAttr(s.ring_rows, i64),
                    "bytes": IntegerAttr(s.ring_rows * s.row_bytes, i64),
                    "min_bytes": IntegerAttr(minimum_bytes(s), i64),
                })  # fmt: skip
            if self.report:
                print(f"@{fn.sym_name.data}: " + report(plan).format(), file=sys.stderr)
