"""Copies that transpose, as W x W transposes in registers.

A layout change (NCHW -> NCHW16c and back, a transpose) writes vectors along its output's
innermost axis v while its input is contiguous along another axis u. Lane by lane that is
W scalar loads and W inserts per vector: a 56x56x64 NCHW16c -> NCHW took 83 us against
onnxruntime's ReorderOutput's 16. With u tiled by W as well (an unrolled loop just outside
the vector loop), the tile is W vectors loaded along u (one per lane of v), transposed in
registers by W log2(W) two-input shuffles (Eklundh's block swaps), and stored as W vectors
along v: 2W memory operations instead of W*W + W.

`transposed_axis` finds u for a stage that is a plain copy (one load, yielded),
`transposed_tiles` the width (8 where u is shorter than the 16-lane vector), the default
schedule tiles it, and the loop builder emits the tile with `emit_transpose`
wherever a schedule (default or tuned) has that unroll-then-vector shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import affine, vector
from xdsl.dialects.builtin import DenseArrayBase, VectorType, i64
from xdsl.ir import SSAValue

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import aligned_lane_coefficient, dims_only, linear_coefficient
from tessel.passes.kernel.loops.emitter import Emitter

WIDTHS = (4, 8, 16)  # lanes of a transposed tile (32-bit elements: up to one zmm)


def copied_load(op: kernel.ComputeOp) -> affine.LoadOp | None:
    """The load a stage only copies to its output (its body: one affine.load, yielded, with
    the axes themselves as indices), or None."""
    if op.reduce_count or op.then.blocks:
        return None
    block = op.body.block
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[0], affine.LoadOp) or not isinstance(ops[1], kernel.YieldOp):
        return None
    load = ops[0]
    if ops[1].operands[0] is not load.result or any(i not in block.args for i in load.indices):
        return None
    if load.memref is op.out:
        return None
    return load


def transposable(load: affine.LoadOp, width: int) -> bool:
    """Tiles of this width and element transpose in registers (up to 16 x 32 bits: a zmm)."""
    return width in WIDTHS and getattr(load.result.type, "bitwidth", None) == 32


def coefficients(
    load: affine.LoadOp, axes: Sequence[SSAValue], axis: int, width: int, aligned: bool
) -> list[int | None]:
    """Per index of the load (whose indices are the stage's `axes`): its change per step of
    `axis` over W consecutive points (starting at a multiple of W when `aligned`, which sees
    through floordiv and mod by the block)."""
    positions = [p for p, v in enumerate(load.indices) if v is axes[axis]]
    exprs = dims_only(load.map.data)
    if not positions:
        return [0] * len(exprs)
    if len(positions) > 1:
        return [None] * len(exprs)
    (p,) = positions
    return [aligned_lane_coefficient(x, p, width) if aligned else linear_coefficient(x, p) for x in exprs]


def contiguous(steps: list[int | None]) -> bool:
    """Steps of one along the last index only: consecutive elements."""
    return bool(steps) and steps[-1] == 1 and all(c == 0 for c in steps[:-1])


def transposed_axis(op: kernel.ComputeOp, v: int, width: int) -> tuple[int, bool] | None:
    """(u, clamp) when the stage copies its input transposed: vectors along its innermost
    axis `v` are gathers, while along the spatial axis u (at least `width` long) the input
    is contiguous. `clamp`: u's last tile overlaps the one before (u is not a multiple of
    the width; only where the index is linear in u, so any start is contiguous)."""
    load = copied_load(op)
    if load is None or not transposable(load, width) or v != op.spatial_count - 1:
        return None
    extents = op.domain
    axes = list(op.body.block.args)
    if contiguous(coefficients(load, axes, v, width, extents[v] % width == 0)):
        return None  # already a contiguous copy
    for u in reversed(range(op.spatial_count - 1)):
        if extents[u] < width:
            continue
        if extents[u] % width == 0 and contiguous(coefficients(load, axes, u, width, True)):
            return u, False
        if contiguous(coefficients(load, axes, u, width, False)):
            return u, extents[u] % width != 0
    return None


def transposed_tiles(op: kernel.ComputeOp, v: int, width: int, overlap: bool) -> tuple[tuple[int, bool] | None, int]:
    """(transposed_axis's answer, the vector width) for a stage vectorized `width` wide
    along `v` (`overlap`: its last vector overlaps the one before). Where no axis is `width`
    long but one is 8 (an NCHW -> NCHW16c of a 14x14 map: rows of 14), 8x8 tiles, two per
    vector of 16, rather than a gather lane by lane (D8's conversion 12 -> 6 us)."""
    transposed = transposed_axis(op, v, width)
    if transposed is None and not overlap and width > 8 and op.domain[v] % 8 == 0:
        half = transposed_axis(op, v, 8)
        if half is not None:
            return half, 8
    return transposed, width


def transpose_masks(width: int) -> list[tuple[int, list[int], list[int]]]:
    """Eklundh's transpose of a width x width tile of row vectors: for each block size s
    (width/2, ..., 1), rows i and i+s (i without bit s) swap their off-diagonal s-blocks.
    Per stage (s, mask of the new row i, mask of the new row i+s), as shufflevector masks
    over the two rows concatenated."""
    stages = []
    s = width // 2
    while s:
        lo = [j if not j & s else width + j - s for j in range(width)]
        hi = [j + s if not j & s else width + j for j in range(width)]
        stages.append((s, lo, hi))
        s //= 2
    return stages


def emit_transpose(e: Emitter, rows: Sequence[SSAValue]) -> list[SSAValue]:
    """The columns of the tile whose rows are `rows` (vectors of len(rows) lanes)."""
    width = len(rows)
    vt = rows[0].type
    assert isinstance(vt, VectorType) and vt.get_shape() == (width,), "a square tile"
    out = list(rows)
    for s, lo, hi in transpose_masks(width):
        for i in range(width):
            if i & s:
                continue
            a, b = out[i], out[i + s]
            out[i] = e.emit(vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, lo), result_type=vt))
            out[i + s] = e.emit(vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, hi), result_type=vt))
    return out


def transpose_tile(
    e: Emitter,
    width: int,
    load_row: Callable[[Emitter, int], SSAValue],
    store_column: Callable[[Emitter, int, SSAValue], None],
) -> None:
    """Load the tile's rows (one per lane of the output vector), transpose, store the columns."""
    columns = emit_transpose(e, [load_row(e, lane) for lane in range(width)])
    for j, column in enumerate(columns):
        store_column(e, j, column)
