"""The default schedule of a stage on the GPU: one thread per output element.

TVM's default GPU schedule for an injective or reduction stage without a tuned template:
the spatial axes are flattened onto the grid, innermost first, so that neighbouring
threads of a warp write neighbouring elements (coalesced stores) and read neighbouring
elements of every input indexed by that axis; each thread runs the reduction loops for its
element alone (a scalar accumulator in a register).

* threads: the innermost spatial axis, split by up to `THREADS` (a block of 256 threads,
  8 warps); if it is shorter than 64, the next axis inwards joins as threadIdx.y;
* blocks: what is left of those axes and the other spatial axes, the longest on
  blockIdx.x (2^31 - 1 blocks), two more on y and z (65535 each);
* spatial axes beyond that run as serial loops inside each thread, then the reductions.

A split that does not divide its axis leaves a tail: the loop builder guards the threads
past the end. Faster schedules (shared-memory tiles, register blocking) are written as
`sched.stage` with `sched.bind` or found by the tuner over the GPU search space.
"""

from __future__ import annotations

import math

from tessel.dialects import kernel
from tessel.passes.schedule.schedule import MAX_GRID, Loop, StageSchedule

THREADS = 256
MIN_X_THREADS = 64  # below this, a second axis joins the block


def default_gpu_schedule(op: kernel.ComputeOp) -> StageSchedule:
    extents = op.domain
    k = op.spatial_count
    threads: list[Loop] = []
    outer: list[Loop] = []  # block candidates, innermost axis first
    left = THREADS
    for axis in reversed(range(k)):
        n = extents[axis]
        if len(threads) < 2 and left > 1 and (not threads or threads[0].extent < MIN_X_THREADS) and n > 1:
            t = min(n, left)
            if n > t:
                outer.append(Loop(axis, -(-n // t), t))
            threads.append(Loop(axis, t, 1, "thread", dim=len(threads)))
            left //= t
        elif n > 1 or axis == 0:
            outer.append(Loop(axis, n, 1))
    # the outer halves of split axes first (their thread halves are bound, so they must be
    # too, to stay outside them), then the longest axes
    ranked = sorted(outer, key=lambda l: (l.stride == 1, -l.extent))
    blocks: list[Loop] = []
    serial: list[Loop] = []
    for loop in ranked:
        dim = len(blocks)
        if dim < 3 and loop.extent <= MAX_GRID[dim] and loop.extent > 1:
            blocks.append(loop.but(kind="block", dim=dim))
        else:
            serial.append(loop)
    covered = {l.axis for l in blocks + threads + serial}
    serial += [Loop(d, extents[d], 1) for d in range(k) if d not in covered]
    reduce = [Loop(d, extents[d], 1) for d in range(k, len(extents))]
    if not blocks and not threads:  # a single element: one thread
        return StageSchedule(serial + reduce, None, ["gpu: one thread"])
    # serial loops of an axis that also has a bound loop must nest inside it: the bound
    # loops come first, and serial loops keep the axis order
    serial.sort(key=lambda l: (l.axis, -l.stride))
    grid = math.prod(l.extent for l in blocks)
    block = math.prod(l.extent for l in threads)
    return StageSchedule(blocks + threads + serial + reduce, None, [f"gpu: {grid} blocks x {block} threads"])
