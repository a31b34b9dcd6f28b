"""The GPU's shared-memory tiles of a stage: for a schedule with `shared_at`, which body
loads are staged through shared memory and the box of each (per index: its constant, its
coefficient per axis, and the range the loops inside the staging point span), and the
bytes they take, and the copy of a box into its tile by the block's threads (copy_tile).
The loop builder stages the boxes; the verifier of a schedule checks the bytes against the
block's limit."""

from __future__ import annotations

import math

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Region, SSAValue

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import affine_range, dims_only, linear_coefficient
from tessel.passes.kernel.loops.emitter import INDEX, Emitter, Index, cmpi, zero_attr
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


def copy_tile(
    e: Emitter,
    buf: SSAValue,
    t: MemRefType,
    tile: SSAValue,
    bases: list[Index],
    sizes: list[int],
    tid: Index,
    count: int,
) -> None:
    """for f in [tid, size) step threads: tile[f] = buf[base + coords(f)] (0 outside buf)."""
    body = Block(arg_types=[INDEX])
    f = body.args[0]
    be = Emitter(body, {})
    coords: list[SSAValue] = []
    rest: SSAValue = f
    for d in reversed(range(len(sizes))):
        if d == 0:
            coords.append(rest)
        else:
            coords.append(be.emit(arith.RemUIOp(rest, be.index(sizes[d]))))
            rest = be.emit(arith.DivUIOp(rest, be.index(sizes[d])))
    coords.reverse()
    ok: SSAValue | None = None
    clamped = []
    for c, base, n in zip(coords, bases, t.get_shape()):
        g = be.ssa(be.add(base, c))
        inside = be.emit(arith.AndIOp(be.emit(cmpi(g, be.index(0), "sge")), be.emit(cmpi(g, be.index(n), "slt"))))
        ok = inside if ok is None else be.emit(arith.AndIOp(ok, inside))
        clamped.append(be.emit(arith.MinSIOp(be.emit(arith.MaxSIOp(g, be.index(0))), be.index(max(n - 1, 0)))))
    assert ok is not None, "a tile has at least one dimension"
    value = be.emit(memref.LoadOp.get(buf, clamped))
    value = be.emit(arith.SelectOp(ok, value, be.const(zero_attr(t.element_type))))
    be.put(memref.StoreOp.get(value, tile, coords))
    body.add_op(scf.YieldOp())
    e.put(scf.ForOp(e.ssa(tid), e.index(math.prod(sizes)), e.index(count), [], Region(body)))
