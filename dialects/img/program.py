"""The frame program of a camera pipeline, as plain data: what the pipeline driver plans
(passes/img/plan/frames.py) and the CPU target runs (targets/cpu/img_program.py).

A camera pipeline runs, per frame of its sources, as a sequence of *steps* (Halide's view:
whole-frame ops are `compute_root` stages, everything between them is fused):

* `pipeline`: a connected group of row stages cut out as a function of its own, with its
  row plan (dialects/img/plan.py) once the driver has optimized and planned it;
* `kernel`: one whole-frame op (`WholeFrame`: reduce, scan, dense, remap, upsample);
* `gate`: reads its 1x1x1 predicate; when it is 0 every step that depends on the gated
  stream is skipped for this frame, as are its sinks.

Values of `ValueAlias` ops (gate, encode, transmit) are aliases of a stored value (`root`).
Steps whose values are frames (not streams) run once, before the first frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from .ops import SourceOp
from .plan import RowPlan


class StepKind(StrEnum):
    PIPELINE = "pipeline"
    KERNEL = "kernel"
    GATE = "gate"


@dataclass
class Step:
    kind: StepKind
    name: str
    inputs: list[SSAValue]  # values of the original function it reads
    outputs: list[SSAValue]  # values it writes (none for a gate)
    guard: frozenset[Operation]  # the gates that must pass for it to run
    per_frame: bool  # reads a stream (else it runs once)
    op: Operation | None = None  # kernel / gate
    module: ModuleOp | None = None  # pipeline: the cut-out function, alone in a module
    plan: RowPlan | None = None  # pipeline: its row plan, once optimized and planned
    order: int = 0  # the block position of its first op (ties in the topological order)


@dataclass
class FrameProgram:
    fn: func.FuncOp
    steps: list[Step]
    root: dict[SSAValue, SSAValue]  # every value -> the stored value it is (through aliases)
    guard: dict[SSAValue, frozenset[Operation]]
    sources: list[SourceOp]
    sinks: list[SSAValue]  # the value each img.sink receives, in order
    results: list[SSAValue]
    stored: list[SSAValue] = field(default_factory=list)  # values with a buffer, in creation order
