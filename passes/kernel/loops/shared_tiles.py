"""The GPU's shared-memory tiles of a stage: for a schedule with `shared_at`, which body
loads are staged through shared memory and the box of each (per index: its constant, its
coefficient per axis, and the range the loops inside the staging point span), and the
bytes they take. The loop builder copies the boxes in; the verifier of a schedule checks
the bytes against the block's limit."""

from __future__ import annotations

import math

from xdsl.dialects import affine
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import affine_range, dims_only, linear_coefficient
from tessel.passes.kernel.loops.schedule import StageSchedule

Box = list[tuple[int, dict[int, int], int, int]]  # per index: constant, axis -> coefficient, lo, hi


def tile_boxes(op: kernel.ComputeOp, s: StageSchedule) -> list[tuple[affine.LoadOp, Box]]:
    """The loads of the body a schedule with `shared_at` stages, each with its tile: per
    index (constant, axis -> coefficient, lo, hi), lo/hi the range that the thread loops and
    the loops inside loops[shared_at] add to it. Loads of the output, and loads whose
    indices are not linear in the axes, are not staged."""
    if s.shared_at is None:
        return []
    varying = [l for l in s.loops if l.kind == "thread"] + s.loops[s.shared_at + 1 :]
    args: list[SSAValue] = list(op.body.block.args)
    axes = len(op.domain)
    out = []
    for load in op.body.block.ops:
        if not isinstance(load, affine.LoadOp) or load.memref is op.out:
            continue
        box: Box = []
        for expr in dims_only(load.map.data):
            coeffs: dict[int, int] = {}
            for i, v in enumerate(load.indices):
                c = linear_coefficient(expr, i)
                if c is None or (c and v not in args[:axes]):
                    break
                if c:
                    coeffs[args.index(v)] = coeffs.get(args.index(v), 0) + c
            else:
                at_zero = affine_range(expr, [(0, 0)] * len(load.indices))
                assert at_zero is not None, "a linear index has a value at zero"
                const = at_zero[0]
                lo = hi = 0
                for l in varying:
                    step = coeffs.get(l.axis, 0) * l.stride * (l.extent - 1)
                    lo, hi = lo + min(0, step), hi + max(0, step)
                box.append((const, coeffs, lo, hi))
                continue
            break
        else:
            out.append((load, box))
    return out


def shared_bytes(op: kernel.ComputeOp, s: StageSchedule) -> int:
    """Shared memory the schedule's tiles take (16-byte aligned each)."""
    total = 0
    for load, box in tile_boxes(op, s):
        t = load.memref.type
        assert isinstance(t, MemRefType)
        bitwidth: int | None = getattr(t.element_type, "bitwidth", None)
        width: object = getattr(t.element_type, "width", None)
        bits = bitwidth or int(getattr(width, "data", 32))
        total += -(-math.prod(hi - lo + 1 for _, _, lo, hi in box) * max(1, bits // 8) // 16) * 16
    return total
