"""Row fusion: the stages of a kernel that work row by row run in one loop nest over the
rows, each stage's loops inside it (TVM's compute_at of every stage at the row loop).

A softmax is three passes over its input (the maximum, the sum of exponentials, the
normalized output) and a layer norm two or three; as separate stages each streams the
whole input from memory. Whisper's attention scores are 6 x 1500 rows of 1500 floats
(54 MB): its softmax read them three times from DRAM and took three times onnxruntime's,
which does every pass on one row while it is in L1. Fused, row r of every stage runs
before row r + 1 of any, so the later passes read the row from cache.

Stages fuse when they share their first r axes (same extents; the rows) and every buffer a
stage of the kernel writes is read by its stages only at the row being computed: at
those dims, each index is the reading stage's own row axis (or 0 where the row extent is
1). Each stage then needs only its own row; its schedule is the default one for a single
row (the row axes of extent 1), run with the row axes fixed at the outer loops' values.
Fused only where it pays: the inputs read by more than one stage exceed `MIN_REREAD_BYTES`
(below that, they stay in cache between separate stages anyway).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import dims_only
from tessel.passes.kernel.loops.cache_tiles import Caches
from tessel.passes.kernel.loops.schedule import StageSchedule, default_schedule

MIN_REREAD_BYTES = 1 << 20  # about an L2 share: smaller inputs stay cached between stages
MIN_ROWS = 8  # enough rows to share among threads


def fusable_rows(computes: Sequence[kernel.ComputeOp]) -> int | None:
    """r, the number of leading axes the stages share as rows, or None when they do not
    fuse (see the module's docstring)."""
    if len(computes) < 2:
        return None
    r = min(c.spatial_count for c in computes) - 1
    first = computes[0].domain
    while r > 0 and any(c.domain[:r] != first[:r] for c in computes):
        r -= 1
    if r <= 0 or math.prod(first[:r]) < MIN_ROWS:
        return None
    written = {c.out for c in computes}
    for c in computes:
        rows = list(c.body.block.args[:r])
        for op in c.walk():
            if isinstance(op, memref.LoadOp | memref.StoreOp) and op.memref in written:
                return None  # an access the check below cannot read
            if isinstance(op, affine.LoadOp | kernel.LoadOp) and op.memref in written:
                exprs = dims_only(op.map.data)
                for d in range(r):
                    x = exprs[d]
                    own = isinstance(x, AffineDimExpr) and op.indices[x.position] is rows[d]
                    if not own and not (first[d] == 1 and isinstance(x, AffineConstantExpr) and x.value == 0):
                        return None
    if _reread_bytes(computes) < MIN_REREAD_BYTES:
        return None
    return r


def _reread_bytes(computes: Sequence[kernel.ComputeOp]) -> int:
    """Bytes of the buffers, not written by these stages, that more than one of them reads."""
    written = {c.out for c in computes}
    readers: dict[SSAValue, int] = {}
    for c in computes:
        read = {op.memref for op in c.walk() if isinstance(op, affine.LoadOp | kernel.LoadOp)}
        for b in read - written:
            readers[b] = readers.get(b, 0) + 1
    total = 0
    for b, n in readers.items():
        t = b.type
        if n > 1 and isinstance(t, MemRefType):
            width = getattr(t.element_type, "bitwidth", 32)
            total += math.prod(t.get_shape()) * max(1, width // 8)
    return total


def row_schedule(op: kernel.ComputeOp, r: int, vector_bits: int, caches: Caches) -> StageSchedule | None:
    """The default schedule of one row of `op` (its first r axes of extent 1), serial (the
    fused loop nest's row loop is the parallel one); None if it vectorizes a row axis."""
    view = op.clone()
    view.properties["extents"] = DenseArrayBase.from_list(i64, [1] * r + list(op.domain[r:]))
    s = default_schedule(view, vector_bits, caches)
    s.validate(view)
    view.erase()
    if any(l.kind == "vector" and l.axis < r for l in s.loops):
        return None
    loops = [l.but(kind="serial") if l.kind == "parallel" else l for l in s.loops]
    return StageSchedule(loops, s.acc_at, s.notes)
