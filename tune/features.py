"""Features of a scheduled stage, for the cost model: TVM's per-buffer loop features.

For every buffer the stage reads (each load of its body) and writes, at each level of
the loop nest the schedule builds: how many distinct elements the loops inside touch
(the footprint), how often each is reused (iterations / footprint), and the stride
between consecutive iterations of the innermost loop (1 is a vector load, 0 a broadcast,
anything else a gather). Added to them: loop extents and annotations, the accumulator
tile, the parallel extent, tails, and arithmetic intensity. Everything is a log2 so that
sizes spread evenly. The vector is fixed-length whatever the stage, so one model serves
every kernel.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import dims_only, linear_coefficient
from tessel.passes.kernel.loops.schedule import StageSchedule

LEVELS = 4  # nest levels described per buffer: whole nest, outside the tile, tile, innermost
BUFFERS = 3  # the buffers with the largest footprints (padded with zeros)
PER_BUFFER = 3 * LEVELS + 2
GLOBAL = 14
SIZE = BUFFERS * PER_BUFFER + GLOBAL


def _log(x: float) -> float:
    return math.log2(1 + max(0.0, x))


def _accesses(op: kernel.ComputeOp) -> list[list[int]]:
    """Per load of the body: its change per unit step of each axis (flattened row-major
    over the buffer), 1 where not linear (a conservative guess)."""
    out = []
    args: list[SSAValue] = list(op.body.block.args)
    for o in op.body.walk():
        if not isinstance(o, affine.LoadOp | kernel.LoadOp | memref.LoadOp):
            continue
        buffer_type = o.memref.type
        assert isinstance(buffer_type, MemRefType)
        shape = buffer_type.get_shape()
        strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
        exprs = dims_only(o.map.data) if hasattr(o, "map") else ()
        operands = list(o.indices) if hasattr(o, "indices") else []
        coeff = [0] * len(args)
        for e, s in zip(exprs, strides):
            for d, v in enumerate(operands):
                if v in args:
                    c = linear_coefficient(e, d)
                    coeff[args.index(v)] += s * (1 if c is None else c)
        out.append(coeff)
    # the output: row-major over the spatial axes
    out_shape = op.domain[: op.spatial_count]
    out.append([math.prod(out_shape[i + 1 :]) for i in range(len(out_shape))] + [0] * op.reduce_count)
    return out


def features(op: kernel.ComputeOp, schedule: StageSchedule) -> np.ndarray:
    loops = schedule.loops
    n = len(loops)
    acc = schedule.acc_at if schedule.acc_at is not None else n
    inner_start = next((i for i in range(acc, n) if loops[i].axis < op.spatial_count), n)
    levels = [0, min(acc, n), min(inner_start, n), max(n - 1, 0)]
    per_buffer = []
    for coeff in _accesses(op):
        row = []
        for start in levels:
            inside = loops[start:]
            footprint = math.prod(l.extent for l in inside if coeff[l.axis] != 0) or 1
            iterations = math.prod(l.extent for l in inside) or 1
            row += [_log(footprint), _log(iterations / footprint), _log(len([l for l in inside if coeff[l.axis] == 0]))]
        innermost = loops[-1] if loops else None
        stride = abs(coeff[innermost.axis] * innermost.stride) if innermost else 0
        row += [_log(stride), float(stride == 1)]
        per_buffer.append(row)
    per_buffer.sort(key=lambda r: -r[0])
    per_buffer = (per_buffer + [[0.0] * PER_BUFFER] * BUFFERS)[:BUFFERS]
    kinds = [l.kind for l in loops]
    tile = [l for l in loops[acc:] if l.axis < op.spatial_count]
    tile_points = math.prod(l.extent for l in tile) or 1
    vector = next((l.extent for l in loops if l.kind == "vector"), 1)
    bound = [l.extent for l in loops if l.kind in ("block", "thread")]  # a GPU stage: its grid is its parallelism
    parallel = loops[0].extent if loops and loops[0].kind == "parallel" else math.prod(bound) if bound else 1
    reduce_inside = math.prod(l.extent for l in loops[acc:] if l.axis >= op.spatial_count) or 1
    points = math.prod(op.domain)
    tails = sum(1 for l in loops if l.stride > 1 and op.domain[l.axis] % l.stride and not l.clamp)
    glob = [
        _log(points),
        _log(math.prod(op.domain[: op.spatial_count])),
        _log(vector),
        _log(tile_points / vector),
        _log(parallel),
        _log(points / max(parallel, 1)),
        float(kinds.count("unroll")),
        _log(reduce_inside),
        float(tails),
        float(any(l.clamp for l in loops)),
        float(schedule.acc_at is not None),
        float(n),
        _log(tile_points * reduce_inside / max(1, tile_points + reduce_inside * (vector + tile_points / vector))),
        float(op.reduce_count > 0),
    ]
    return np.array([x for row in per_buffer for x in row] + glob, dtype=np.float64)
