"""The schedules a stage may take: a sketch per stage shape, knobs sampled from valid values.

Ansor-style rules instead of per-op templates: the sketch is derived from the stage's
iteration domain alone (which axes are spatial, which reduce, their extents), so every
kernel.compute gets a space, fused epilogues included.

- Element-wise stages: the innermost axis (or the stage's `lanes` axis, as everywhere below)
  split for a vector (width a knob), the outer
  loops in a chosen order, the first of them parallel (or none).
- Reductions: a register tile of `rows` along one spatial axis by `cols` vectors along the
  innermost one (or by `cols` points of a second axis, `cols_axis`), accumulated over the reduction loops in a chosen order (cache_write at
  the tile), the other spatial loops outside in a chosen order, one of them optionally
  blocked a second time for cache reuse (`block_axis`, `block`), the first one parallel;
  rows that do not divide their axis either leave a guarded tail or clamp the last tile.

A point of the space is a `Knobs` dict; `build` turns it into the candidate schedule as
sched IR (always one that validates: the IR is what is measured, recorded and applied),
`sample` draws one, `neighbours` changes one knob (for annealing and mutation), and
`knob_space` lists every knob's values (for features and search).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator

from tessel.dialects import kernel, sched
from tessel.passes.kernel.loops.apply_sched import stage_from_schedule
from tessel.passes.kernel.loops.loop import Kind, Loop
from tessel.passes.kernel.loops.schedule import (
    StageSchedule,
    knob_axis,
    knob_int,
    knob_order,
    second_axis,
    vector_width,
    with_parallel_loop,
)
from tessel.pipelines.tensor import cpu_default_schedule

Knobs = dict[str, object]

MAX_ROWS = 16
WORK_FOR_THREADS = 4096


def vector_axis(op: kernel.ComputeOp) -> int:
    """The axis the sketch vectorizes: the stage's `lanes` axis when it names one (the
    lowering laid an operand out for vectors along it), else the innermost spatial axis."""
    named = op.lanes_axis
    return named if named is not None else op.spatial_count - 1


def _widths(op: kernel.ComputeOp) -> list[int]:
    k = op.spatial_count
    if not k:
        return [1]
    widest = vector_width(op)
    n = op.domain[vector_axis(op)]
    return [w for w in (16, 8, 4) if w <= widest and w <= n] + [1]


def _orders(n: int, limit: int = 6) -> list[tuple[int, ...]]:
    """Up to `limit` permutations of range(n), the identity first."""
    return list(itertools.islice(itertools.permutations(range(n)), limit))


def knob_space(op: kernel.ComputeOp) -> dict[str, list]:
    """Every knob of the stage's sketch with its valid values."""
    extents = op.domain
    k = op.spatial_count
    space: dict[str, list] = {"vector": _widths(op), "parallel": [True, False]}
    if op.reduce_count and k:
        others = [d for d in range(k) if d != vector_axis(op)]
        space["rows_axis"] = others or [None]
        longest = max((extents[d] for d in others), default=1)
        space["rows"] = [r for r in range(1, min(MAX_ROWS, longest) + 1)]
        space["cols"] = [1, 2, 4, 8]
        # the columns: more vectors of the vector axis (None), or points of a second axis
        # the broadcast operand does not read (an NCHW16c convolution's output-channel
        # blocks, as the default schedule's tiles: schedule.second_axis)
        second = second_axis(op, vector_axis(op), None)
        space["cols_axis"] = [None] + ([second] if second is not None else [])
        space["clamp"] = [True, False]
        space["unroll"] = [True, False]
        space["reduce_order"] = _orders(op.reduce_count)
        space["outer_order"] = _orders(k)
        space["block_axis"] = list(range(k))
        space["block"] = [1, 2, 4, 8]
    else:
        space["outer_order"] = _orders(k)
    return space


def sample(op: kernel.ComputeOp, rng: random.Random) -> Knobs:
    return sample_from(knob_space(op), rng)


def neighbours(op: kernel.ComputeOp, knobs: Knobs, rng: random.Random, count: int = 1) -> Iterator[Knobs]:
    return neighbours_in(knob_space(op), knobs, rng, count)


def sample_from(space: dict[str, list], rng: random.Random) -> Knobs:
    """A point of a knob space: one value per knob."""
    return {name: rng.choice(values) for name, values in space.items()}


def neighbours_in(space: dict[str, list], knobs: Knobs, rng: random.Random, count: int = 1) -> Iterator[Knobs]:
    """Knob sets that differ from `knobs` in one knob each."""
    names = [n for n, v in space.items() if len(v) > 1]
    for _ in range(count):
        if not names:
            return
        name = rng.choice(names)
        options = [v for v in space[name] if v != knobs.get(name)]
        yield {**knobs, name: rng.choice(options)}


DEFAULT: Knobs = {"default": True}  # the point that stands for the default schedule


TARGET = "cpu"  # the target this space's schedules are for


def build(op: kernel.ComputeOp, knobs: Knobs, name: str = "stage") -> sched.StageOp:
    """The schedule of a knob set as sched IR for the stage function `name`."""
    return stage_from_schedule(op, name, loops(op, knobs))


def loops(op: kernel.ComputeOp, knobs: Knobs) -> StageSchedule:
    """The loop nest a knob set describes; knobs that do not fit the stage fall back to
    the nearest valid value (a width over the axis, a tile over the axis), so every point
    builds a valid schedule. `DEFAULT` builds the default schedule."""
    if knobs.get("default"):
        return cpu_default_schedule(op)  # what the pipeline's default builds
    extents = op.domain
    k = op.spatial_count
    width = knob_int(knobs, "vector", 1)
    if not k or width > extents[vector_axis(op)]:
        width = 1
    if not op.reduce_count:
        return _elementwise(op, knobs, width)
    return _reduction(op, knobs, width)


def _outer_order(knobs: Knobs, count: int) -> list[int]:
    order = knob_order(knobs, "outer_order") or tuple(range(count))
    kept = [i for i in order if i < count]
    return kept + [i for i in range(count) if i not in kept]


def _elementwise(op: kernel.ComputeOp, knobs: Knobs, width: int) -> StageSchedule:
    extents = op.domain
    k = op.spatial_count
    outer = [Loop(d, extents[d], 1) for d in range(k)]
    inner: list[Loop] = []
    if width > 1:
        last = outer.pop(vector_axis(op))
        outer.append(Loop(last.axis, -(-last.extent // width), width))
        inner = [Loop(last.axis, width, 1, "vector")]
    order = _outer_order(knobs, len(outer))
    # loops of one axis must nest outer before inner: only the vector loop splits an axis
    loops = [outer[i] for i in order] + inner
    return _parallel(StageSchedule(loops, None, ["sampled"]), knobs, math.prod(extents[:k]), k)


def _reduction(op: kernel.ComputeOp, knobs: Knobs, width: int) -> StageSchedule:
    extents = op.domain
    k = op.spatial_count
    v = vector_axis(op) if k else -1
    rows_axis = knob_axis(knobs, "rows_axis") if k >= 2 else None
    if rows_axis == v:  # (a record of the stage before it named its lanes)
        rows_axis = None
    rows = knob_int(knobs, "rows", 1) if rows_axis is not None else 1
    if rows_axis is not None:
        rows = max(1, min(rows, extents[rows_axis]))
    vectors = -(-extents[v] // width) if k else 1
    cols = knob_int(knobs, "cols", 1)
    cols_axis = knob_axis(knobs, "cols_axis")
    if cols_axis is None or cols_axis in (v, rows_axis) or cols_axis >= k:
        cols_axis = v
    span = vectors if cols_axis == v else extents[cols_axis]
    while cols > 1 and (cols > span or (cols_axis != v and span % cols)):
        cols //= 2
    clamp = bool(knobs.get("clamp")) and rows > 1 and rows_axis is not None and extents[rows_axis] % rows != 0
    kind: Kind = "unroll" if knobs.get("unroll", True) else "serial"
    outer: list[Loop] = []
    along_v = cols if cols_axis == v else 1
    for d in range(k):
        if d == v and (width > 1 or along_v > 1):
            outer.append(Loop(d, -(-extents[d] // (width * along_v)), width * along_v))
        elif d == cols_axis and cols > 1:
            outer.append(Loop(d, extents[d] // cols, cols))
        elif d == rows_axis and rows > 1:
            outer.append(Loop(d, -(-extents[d] // rows), rows, clamp=clamp))
        else:
            outer.append(Loop(d, extents[d], 1))
    order = _outer_order(knobs, len(outer))
    outer = _block([outer[i] for i in order], knobs)
    reduce_order = knob_order(knobs, "reduce_order") or tuple(range(op.reduce_count))
    reduce = [Loop(k + i, extents[k + i], 1) for i in reduce_order]
    tile: list[Loop] = []
    if rows > 1 and rows_axis is not None:
        tile.append(Loop(rows_axis, rows, 1, kind))
    if cols > 1:
        tile.append(Loop(cols_axis, cols, width if cols_axis == v else 1, kind))
    if width > 1:
        tile.append(Loop(v, width, 1, "vector"))
    if not tile:  # scalar accumulation, one output element at a time
        return _parallel(StageSchedule(outer + reduce, None, ["sampled"]), knobs, math.prod(extents), k)
    schedule = StageSchedule(outer + reduce + tile, len(outer), ["sampled"])
    return _parallel(schedule, knobs, math.prod(extents), k)


def _block(outer: list[Loop], knobs: Knobs) -> list[Loop]:
    """The second tiling level: the loop of `block_axis` outside the register tile split
    once more, its outer part moved outermost, so that `block` tiles of that axis reuse what
    the loops between them bring into cache (Ansor's multi-level tiling, one level up).
    Only where `block` divides the loop (no second tail) and the loop is not clamped."""
    b = knob_int(knobs, "block", 1)
    axis = knobs.get("block_axis")
    at = next((i for i, l in enumerate(outer) if l.axis == axis), None)
    if b <= 1 or at is None:
        return outer
    loop = outer[at]
    if loop.clamp or loop.extent <= b or loop.extent % b:
        return outer
    blocks = Loop(loop.axis, loop.extent // b, loop.stride * b)
    return [blocks, *outer[:at], loop.but(extent=b), *outer[at + 1 :]]


def _parallel(s: StageSchedule, knobs: Knobs, work: int, spatial: int) -> StageSchedule:
    """An outer loop of a spatial axis (`spatial`: their count) becomes parallel (moved
    first) when the knob says so and the stage has the work for it: the one the default
    schedule would choose (schedule.parallel_loop), so that the default is in the space."""
    if not knobs.get("parallel", True) or work < WORK_FOR_THREADS:
        return s
    return with_parallel_loop(s, spatial)
