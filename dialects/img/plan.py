"""The row plan of an image pipeline, as plain data: what img-line-buffers computes
(passes/img/plan/rows.py builds it) and the CPU target's row-pipeline emitter consumes.

A pipeline function of row stages (`RowStage` ops: map, stencil, lut, downsample, crop,
extract, merge) is a DAG of *stages* (on a stream, the plan is that of one frame: every
frame runs it). A stage scheduled `inline` (`img.compute`, written by img-fuse) is not
stored anywhere: every consumer re-evaluates it at the positions it reads. Every other
stage is materialized row by row into a ring of `ring_rows` rows (Darkroom's line buffer),
unless it is a function result without consumers, which is written straight to memory.

The execution model both sides share: the rows of the *driver* (every result has the same
height) are split into strips; in a strip, for each driver row y, every materialized stage
first computes the rows its consumers need for y, producers first. Consumer row r of a
stage reading producer p through a footprint (scale, lo, hi) needs producer rows
r*scale+lo .. r*scale+hi, folded into the frame by the footprint's border.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from .attrs import Border

COMPUTE_ATTR = "img.compute"  # #img<compute inline | line_buffer>: the schedule of a producer
LINE_BUFFER_ATTR = "img.line_buffer"  # written by img-line-buffers: rows and bytes


class StageKind(StrEnum):
    INPUT = "input"
    EXPR = "expr"  # map, stencil, lut: arithmetic per pixel
    DOWNSAMPLE = "downsample"
    CROP = "crop"
    EXTRACT = "extract"
    MERGE = "merge"


@dataclass
class Footprint:
    """Consumer stage `consumer` reads rows r*scale+lo .. r*scale+hi and columns
    c*cscale+clo .. c*cscale+chi of the producer for its row r / column c; reads outside
    the producer's frame go through `border`."""

    consumer: int
    scale: int
    lo: int
    hi: int
    cscale: int = 1
    clo: int = 0
    chi: int = 0
    border: Border = Border.CLAMP


@dataclass
class Stage:
    index: int
    value: SSAValue
    op: Operation | None  # None: a function argument
    kind: StageKind
    shape: tuple[int, int, int]
    bits: int
    is_float: bool
    signed: bool
    results: list[int] = field(default_factory=list)  # function result indices it is
    reads: list[Footprint] = field(default_factory=list)  # filled on the producer: who reads it
    ring_rows: int = 0  # rows kept live (0: not buffered)

    @property
    def row_bytes(self) -> int:
        return self.shape[1] * self.shape[2] * self.bits // 8

    @property
    def buffered(self) -> bool:
        return self.kind != StageKind.INPUT and (not self.results or bool(self.reads))


@dataclass
class RowPlan:
    fn: func.FuncOp
    stages: list[Stage]  # topological order: inputs first
    by_value: dict[SSAValue, Stage]
    inline: set[Operation]
    height: int  # the driver's rows

    def materialized(self) -> list[Stage]:
        return [s for s in self.stages if s.kind != StageKind.INPUT]

    def computed(self) -> list[Stage]:
        """The stages that get a row function: materialized and not inline."""
        return [s for s in self.materialized() if s.op not in self.inline]


def fold(r: int, h: int, border: Border) -> int | None:
    """Where a border maps row r (None: a zero border reads no row)."""
    if 0 <= r < h:
        return r
    if border == Border.ZERO:
        return None
    if border == Border.MIRROR and h > 1:
        period = 2 * h - 2
        j = r % period
        return period - j if j >= h else j
    return min(max(r, 0), h - 1)
