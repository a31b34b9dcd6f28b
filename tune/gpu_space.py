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

from tessel.dialects import kernel
from tessel.passes.schedule.gpu_schedule import default_gpu_schedule
from tessel.passes.schedule.schedule import MAX_GRID, MAX_THREADS, Loop, StageSchedule

Knobs = dict[str, object]
DEFAULT: Knobs = {"default": True}


def knob_space(op: kernel.ComputeOp) -> dict[str, list]:
    k = op.spatial_count
    space: dict[str, list] = {"tx": [32, 64, 128, 256], "cols": [1, 2, 4]}
    if k >= 2:
        space["ty_axis"] = list(range(k - 1))
        space["ty"] = [1, 2, 4, 8, 16]
        space["rows"] = [1, 2, 4, 8]
    if op.reduce_count:
        space["unroll_k"] = [1, 4, 8]
        space["reduce_order"] = list(itertools.islice(itertools.permutations(range(op.reduce_count)), 6))
    return space


def sample(op: kernel.ComputeOp, rng: random.Random) -> Knobs:
    return {name: rng.choice(values) for name, values in knob_space(op).items()}


def neighbours(op: kernel.ComputeOp, knobs: Knobs, rng: random.Random, count: int = 1) -> Iterator[Knobs]:
    space = knob_space(op)
    names = [n for n, v in space.items() if len(v) > 1]
    for _ in range(count):
        if not names:
            return
        name = rng.choice(names)
        yield {**knobs, name: rng.choice([v for v in space[name] if v != knobs.get(name)])}


def _split(axis: int, n: int, threads: int, per_thread: int, dim: int) -> tuple[list[Loop], list[Loop], list[Loop]]:
    """(block part, thread loop, tile loop) of one axis: n = blocks x threads x per_thread."""
    per_thread = max(1, min(per_thread, n))
    threads = max(1, min(threads, -(-n // per_thread)))
    blocks = -(-n // (threads * per_thread))
    outer = [Loop(axis, blocks, threads * per_thread)] if blocks > 1 else []
    thread = [Loop(axis, threads, per_thread, "thread", dim=dim)] if threads > 1 else []
    tile = [Loop(axis, per_thread, 1, "unroll")] if per_thread > 1 else []
    if not thread and not tile and not outer:
        outer = [Loop(axis, 1, 1)]
    return outer, thread, tile


def build(op: kernel.ComputeOp, knobs: Knobs) -> StageSchedule:
    if knobs.get("default") or not op.spatial_count:
        return default_gpu_schedule(op)
    extents = op.domain
    k = op.spatial_count
    x_axis = k - 1
    tx = int(knobs.get("tx", 64))  # type: ignore[call-overload]
    cols = int(knobs.get("cols", 1))  # type: ignore[call-overload]
    y_axis = knobs.get("ty_axis") if k >= 2 else None
    ty = int(knobs.get("ty", 1)) if y_axis is not None else 1  # type: ignore[call-overload]
    rows = int(knobs.get("rows", 1)) if y_axis is not None else 1  # type: ignore[call-overload]
    ty = max(1, min(ty, MAX_THREADS // max(1, min(tx, extents[x_axis]))))
    x_outer, x_thread, x_tile = _split(x_axis, extents[x_axis], tx, cols, 0)
    y_outer, y_thread, y_tile = ([], [], [])
    if y_axis is not None:
        y_outer, y_thread, y_tile = _split(int(y_axis), extents[int(y_axis)], ty, rows, 1 if x_thread else 0)  # type: ignore[call-overload]
    others = [Loop(d, extents[d], 1) for d in range(k) if d not in (x_axis, y_axis)]
    # block candidates: the outer parts of split axes first (their thread parts are bound),
    # then the longest other axes; x takes up to 2^31 - 1 blocks, y and z 65535
    candidates = x_outer + y_outer + sorted([l for l in others if l.extent > 1], key=lambda l: -l.extent)
    blocks: list[Loop] = []
    serial: list[Loop] = []
    for loop in candidates:
        dim = len(blocks)
        if dim < 3 and loop.extent <= MAX_GRID[dim] and loop.extent > 1:
            blocks.append(loop.but(kind="block", dim=dim))
        else:
            serial.append(loop)
    if any(l.stride > 1 for l in serial):  # a split axis's outer part could not be bound: fall back
        return default_gpu_schedule(op)
    serial += [l for l in others if l.extent == 1]
    outer = blocks + x_thread + y_thread + serial
    reduce = [Loop(d, extents[d], 1) for d in range(k, len(extents))]
    order = knobs.get("reduce_order") or tuple(range(op.reduce_count))
    reduce = [reduce[i] for i in order if i < len(reduce)]  # type: ignore[union-attr]
    unroll_k = int(knobs.get("unroll_k", 1))  # type: ignore[call-overload]
    if reduce and unroll_k > 1 and reduce[-1].extent > unroll_k and reduce[-1].extent % unroll_k == 0:  # unrolled loops have no tail guard
        last = reduce.pop()
        reduce += [Loop(last.axis, -(-last.extent // unroll_k), unroll_k), Loop(last.axis, unroll_k, 1, "unroll")]
    tile = y_tile + x_tile
    notes = [f"gpu sampled: tx={tx} cols={cols} ty={ty} rows={rows}"]
    if op.reduce_count and tile:
        return StageSchedule(outer + reduce + tile, len(outer), notes)
    if op.reduce_count:
        return StageSchedule(outer + reduce, None, notes)
    return StageSchedule(outer + tile, None, notes)
