"""One loop of a schedule (schedule.py): the part of one axis it covers and its kind."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Kind = Literal["serial", "parallel", "vector", "unroll", "block", "thread"]
GPU_KINDS = ("block", "thread")  # bound to blockIdx / threadIdx (dim 0-2: x, y, z)


@dataclass(frozen=True)
class Loop:
    axis: int
    extent: int
    stride: int
    kind: Kind = "serial"
    # The last step of this (outer) loop moves back to end at the axis's end instead of
    # leaving a tail: its tile overlaps the one before and recomputes a few elements, and
    # the unrolled tile inside needs no guards (MKL-style overlapping edge tiles).
    clamp: bool = False
    dim: int = 0  # block / thread loops: the index dimension (x, y, z)

    def but(self, **changes) -> Loop:
        return replace(self, **changes)
