"""The GPU schedules a stage may take: thread blocks, register tiles, reduction unrolling.

The same interface as tune/space.py (knob_space, sample, neighbours, build, DEFAULT), over
a sketch for the GPU: the innermost spatial axis is split across `tx` threads (coalesced)
and, when `cols` > 1, each thread computes `cols` neighbouring elements of it; a second
spatial axis (`ty_axis`) is split across `ty` threads with `rows` elements per thread; what
is left of those axes and the other spatial axes go to blockIdx.x/y/z (the longest on x)
or, past three, run serially in every thread. For reductions, a thread's rows x cols
outputs are an accumulator tile in registers over the reduction loops (the loop builder's
cache_write), the innermost reduction optionally split by `unroll_k` and unrolled: each
value loaded from memory is then used rows (or cols) times. Every point builds a schedule
that validates: knobs larger than their axis shrink to it, threads per block stay <= 1024.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from tessel.dialects import kernel, sched
from tessel.passes.kernel.loops.apply_sched import stage_from_schedule
from tessel.passes.kernel.loops.gpu_schedule import default_gpu_schedule, tiled_gpu_schedule
from tessel.passes.kernel.loops.schedule import StageSchedule
from tessel.tune.space import neighbours_in, sample_from

Knobs = dict[str, object]
DEFAULT: Knobs = {"default": True}


def knob_space(op: kernel.ComputeOp) -> dict[str, list]:
    k = op.spatial_count
    space: dict[str, list] = {"tx": [16, 32, 64, 128, 256], "cols": [1, 2, 4, 8]}
    if k >= 2:
        space["ty_axis"] = list(range(k - 1))
        space["ty"] = [1, 2, 4, 8, 16]
        space["rows"] = [1, 2, 4, 8]
    space["cyclic"] = [True, False]
    if op.reduce_count:
        space["unroll_k"] = [1, 4, 8]
        space["reduce_order"] = list(itertools.islice(itertools.permutations(range(op.reduce_count)), 6))
        space["stage"] = [True, False]
        space["bk"] = [4, 8, 16, 32]
    return space


def sample(op: kernel.ComputeOp, rng: random.Random) -> Knobs:
    return sample_from(knob_space(op), rng)


def neighbours(op: kernel.ComputeOp, knobs: Knobs, rng: random.Random, count: int = 1) -> Iterator[Knobs]:
    return neighbours_in(knob_space(op), knobs, rng, count)


TARGET = "gpu"  # the target this space's schedules are for


def build(op: kernel.ComputeOp, knobs: Knobs, name: str = "stage") -> sched.StageOp:
    """The schedule of a knob set as sched IR for the stage function `name`."""
    return stage_from_schedule(op, name, loops(op, knobs))


def loops(op: kernel.ComputeOp, knobs: Knobs) -> StageSchedule:
    """The loop nest a knob set describes (the default GPU schedule where the tiled sketch
    does not apply)."""
    tiled = None if knobs.get("default") else tiled_gpu_schedule(op, knobs)
    return tiled or default_gpu_schedule(op)
