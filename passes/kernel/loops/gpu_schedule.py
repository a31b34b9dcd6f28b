"""GPU schedules: the defaults kernel-to-loops{target=gpu} gives every stage, and the tiled
sketch both the defaults for reductions and the tuner's GPU space (tune/gpu_space.py) are
points of.

Element-wise stages and small reductions: one thread per output element (TVM's default
injective schedule). The innermost spatial axis goes on threadIdx.x (neighbouring threads
write neighbouring elements: coalesced), split by up to 256 threads; if it is shorter than
64 the next axis inwards joins as threadIdx.y; the rest go on blockIdx.x/y/z (the longest
on x, 2^31 - 1 blocks; 65535 on y and z), beyond that serially in each thread.

Reductions of 16 or more steps (matmuls, convolutions, pooling, softmax's sums): the
tiled sketch (`tiled_gpu_schedule`). Threads on the innermost spatial axis and a second one,
each thread a register tile of rows x cols outputs (cyclic: its elements `threads` apart),
accumulated over the reduction loops; the outermost reduction split by `bk`, and each of its
iterations loading the inputs' tiles into shared memory (loop_builder's staging). The
defaults size the tile by the output (`default_knobs`) and pick the second axis whose tiles
fit a block's 48 KiB.

A split that does not divide its axis leaves a tail: the loop builder guards (or, with
barriers, clamps) the threads past the end.
"""

from __future__ import annotations

import math

from tessel.dialects import kernel
from tessel.passes.kernel.loops.loop import Loop
from tessel.passes.kernel.loops.loop_builder import SHARED_LIMIT, shared_bytes
from tessel.passes.kernel.loops.schedule import (
    MAX_GRID,
    MAX_THREADS,
    Knobs,
    StageSchedule,
    knob_axis,
    knob_int,
    knob_order,
)

THREADS = 256
MIN_X_THREADS = 64  # below this, a second axis joins the block
SMS = 132  # streaming multiprocessors to fill (an H100/H200; smaller GPUs fill sooner)


def default_knobs(op: kernel.ComputeOp) -> dict[str, object]:
    """The sketch's point for a reduction, by size: 256 threads on the innermost spatial axis
    and the longest other one, each thread a cyclic rows x cols register tile as large as
    the grid can afford while it still has a few blocks per SM (8x8 from ~2M outputs, down
    to one), and shared-memory tiles loaded every `bk` steps of the outermost reduction."""
    k = op.spatial_count
    extents = op.domain
    points = math.prod(extents[:k])
    per = next((p for p, need in ((8, 64), (4, 16), (2, 4)) if points >= SMS * THREADS * need), 1)
    x_axis = max((d for d in range(k) if extents[d] > 1), default=k - 1)
    nx = extents[x_axis]
    cols = per if nx >= 16 * per else 1
    others = [d for d in range(k) if extents[d] > 1 and d != x_axis]
    tx = max(1, min(16 if others else THREADS, nx // cols))  # alone, the axis takes the whole block
    knobs: dict[str, object] = {
        "tx": tx,
        "cols": cols,
        "cyclic": True,
        "stage": True,
        "bk": 8,
        "unroll_k": 1,
        "x_axis": x_axis,
    }
    if others:
        knobs |= {"ty_axis": max(others, key=lambda d: extents[d]), "ty": min(16, THREADS // tx), "rows": per}
    return knobs


def default_gpu_schedule(op: kernel.ComputeOp) -> StageSchedule:
    extents = op.domain
    k = op.spatial_count
    if k and op.reduce_count and math.prod(extents[k:]) >= 16:  # enough reduction to reuse tiles
        # the second thread axis: the longest whose tiles fit shared memory (a conv's output
        # channels would make every block load all the weights; its pixels share them)
        knobs = default_knobs(op)
        fallback = None
        others = sorted((d for d in range(k) if extents[d] > 1 and d != knobs.get("x_axis")), key=lambda d: -extents[d])
        axes: list[int | None] = [*others] or [None]
        for y in axes:
            tiled = tiled_gpu_schedule(op, knobs | ({"ty_axis": y} if y is not None else {}))
            try:
                if tiled is None:
                    continue
                tiled.validate(op)
            except ValueError:
                continue
            if tiled.shared_at is not None:
                return tiled
            fallback = fallback or tiled
        if fallback is not None:
            return fallback
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
    blocks, serial = _assign_blocks(sorted(outer, key=lambda l: (l.stride == 1, -l.extent)))
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


def _assign_blocks(candidates: list[Loop]) -> tuple[list[Loop], list[Loop]]:
    """(block loops, serial loops): the candidates in order on blockIdx.x, y, z while they
    fit (x up to 2^31 - 1 blocks, y and z 65535), the rest serial in each thread."""
    blocks: list[Loop] = []
    serial: list[Loop] = []
    for loop in candidates:
        dim = len(blocks)
        if dim < 3 and loop.extent <= MAX_GRID[dim] and loop.extent > 1:
            blocks.append(loop.but(kind="block", dim=dim))
        else:
            serial.append(loop)
    return blocks, serial


def _split(
    axis: int, n: int, threads: int, per_thread: int, dim: int, cyclic: bool = False
) -> tuple[list[Loop], list[Loop], list[Loop]]:
    """(block part, thread loop, tile loop) of one axis: n = blocks x threads x per_thread.
    `cyclic` (where they divide n): a thread's elements are `threads` apart, so neighbouring
    threads always touch neighbouring elements (coalesced, no shared-memory bank conflicts)."""
    per_thread = max(1, min(per_thread, n))
    threads = max(1, min(threads, -(-n // per_thread)))
    blocks = -(-n // (threads * per_thread))
    outer = [Loop(axis, blocks, threads * per_thread)] if blocks > 1 else []
    if cyclic and n % (threads * per_thread) == 0 and threads > 1 and per_thread > 1:
        return outer, [Loop(axis, threads, 1, "thread", dim=dim)], [Loop(axis, per_thread, threads, "unroll")]
    thread = [Loop(axis, threads, per_thread, "thread", dim=dim)] if threads > 1 else []
    tile = [Loop(axis, per_thread, 1, "unroll")] if per_thread > 1 else []
    if not thread and not tile and not outer:
        outer = [Loop(axis, 1, 1)]
    return outer, thread, tile


def tiled_gpu_schedule(op: kernel.ComputeOp, knobs: Knobs) -> StageSchedule | None:
    """The GPU sketch at one point (tune/gpu_space.py lists the knobs): `tx` threads (and
    `cols` elements per thread) on the innermost spatial axis, `ty` threads (`rows` each) on
    `ty_axis`, per-thread elements `cyclic` or contiguous, the rest on blockIdx.x/y/z or
    serial; for reductions, the thread's elements an accumulator tile, and with `stage` the
    outermost reduction loop split by `bk` (halved until the tiles fit) loading
    shared-memory tiles. None where the sketch does not apply (a split axis's outer part
    that cannot be bound)."""
    if not op.spatial_count:
        return None
    extents = op.domain
    k = op.spatial_count
    x_axis = max((d for d in range(k) if extents[d] > 1), default=k - 1)  # the innermost axis with work
    tx = knob_int(knobs, "tx", 64)
    cols = knob_int(knobs, "cols", 1)
    y_axis = knob_axis(knobs, "ty_axis") if k >= 2 and knobs.get("ty_axis") != x_axis else None
    ty = knob_int(knobs, "ty", 1) if y_axis is not None else 1
    rows = knob_int(knobs, "rows", 1) if y_axis is not None else 1
    ty = max(1, min(ty, MAX_THREADS // max(1, min(tx, extents[x_axis]))))
    cyclic = bool(knobs.get("cyclic", False))
    x_outer, x_thread, x_tile = _split(x_axis, extents[x_axis], tx, cols, 0, cyclic)
    y_outer: list[Loop] = []
    y_thread: list[Loop] = []
    y_tile: list[Loop] = []
    if y_axis is not None:
        y_outer, y_thread, y_tile = _split(y_axis, extents[y_axis], ty, rows, 1 if x_thread else 0, cyclic)
    others = [Loop(d, extents[d], 1) for d in range(k) if d not in (x_axis, y_axis)]
    # block candidates: the outer parts of split axes first (their thread parts are bound),
    # then the longest other axes; x takes up to 2^31 - 1 blocks, y and z 65535
    blocks, serial = _assign_blocks(
        x_outer + y_outer + sorted([l for l in others if l.extent > 1], key=lambda l: -l.extent)
    )
    if any(l.stride > 1 for l in serial):  # a split axis's outer part could not be bound
        return None
    serial += [l for l in others if l.extent == 1]
    outer = blocks + x_thread + y_thread + serial
    reduce = [Loop(d, extents[d], 1) for d in range(k, len(extents))]
    order = knob_order(knobs, "reduce_order") or tuple(range(op.reduce_count))
    reduce = [reduce[i] for i in order if i < len(reduce)]
    stage = bool(knobs.get("stage", False)) and bool(reduce) and bool(x_thread or y_thread)
    unroll_k = knob_int(knobs, "unroll_k", 1)
    tile = y_tile + x_tile
    notes = [f"gpu: tx={tx} cols={cols} ty={ty} rows={rows}{' cyclic' if cyclic else ''}"]
    if not op.reduce_count:
        return StageSchedule(outer + tile, None, notes)
    acc_at = len(outer) if tile else None
    if stage:  # the outermost reduction loop, split by bk: its outer part loads the tiles
        bk = knob_int(knobs, "bk", 8)
        first = reduce[0]
        while bk >= 1:
            split = (
                [Loop(first.axis, -(-first.extent // bk), bk), Loop(first.axis, bk, 1)]
                if first.extent > bk
                else [first]
            )
            s = StageSchedule(outer + split + reduce[1:] + tile, acc_at, notes + [f"shared bk={bk}"], len(outer))
            if shared_bytes(op, s) <= SHARED_LIMIT:
                return s
            bk //= 2
    if (
        unroll_k > 1 and reduce[-1].extent > unroll_k and reduce[-1].extent % unroll_k == 0
    ):  # unrolled loops have no tail guard
        last = reduce.pop()
        reduce += [Loop(last.axis, -(-last.extent // unroll_k), unroll_k), Loop(last.axis, unroll_k, 1, "unroll")]
    return StageSchedule(outer + reduce + tile, acc_at, notes)
