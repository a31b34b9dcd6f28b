"""Row reductions split into vector partials, as TVM's rfactor does (used by
KernelBuilder.reduction in stages.py): when a reduction splits, how wide, and where the
partial's own padded load can read the combine's identity past the row's end."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from tessel.dialects import kernel
from tessel.ir import dtypes
from tessel.passes.kernel.loops.affine_analysis import axis_map


def reads_row(term: SSAValue, at: AffineExpr, extent: int) -> bool:
    """Is a guarded rfactor term the padded load of the row itself (its last index `at`, the
    row `extent` long: a softmax's max and sum)? Guarded, it pads with the combine's
    identity (KernelBuilder.reduction sets the builder's guard_pad), so the lanes past the
    row's end read the identity and need no compare and select of their own (six vector
    instructions a step)."""
    load = term.owner
    if not isinstance(load, kernel.LoadOp) or load.cond is not None:
        return False
    t = load.memref.type
    results = load.map.data.results
    if not isinstance(t, MemRefType) or t.get_shape()[-1] != extent or results[-1] != at:
        return False
    return not any(d in x.used_dims() for x in results[:-1] for d in at.used_dims())


RFACTOR_WIDTHS = (32, 16, 8, 4)  # partial results a row: up to 4 vectors, at least 4 steps each
# shorter rows: one scalar loop costs less than a second stage. (64 before: swin_t's
# softmax rows of 49 were scalar chains, its softmaxes 3.27 ms against onnxruntime's 2.2;
# in 8 lanes 2.42 ms, `bench.cpu_profile`, twice, the whole run 47.6 against 48.0-48.4 ms)
RFACTOR_MIN_EXTENT = 32


def rfactor_width(
    op: kernel.ComputeOp,
    spatial: Sequence[tuple[str, int]],
    reduce: Sequence[tuple[str, int]],
    combine: str,
    acc_type: Attribute,
) -> int:
    """The rfactor width for `op` (0: keep it whole): a float add/max/min reduction without a
    vector axis of at least 4 whose body reads along its innermost reduction axis only at unit
    stride, in the last index, through affine maps (no data-dependent index)."""
    if combine not in ("add", "max", "min") or not dtypes.is_float(acc_type) or not reduce:
        return 0
    if spatial and spatial[-1][1] >= 4:
        return 0
    extent = reduce[-1][1]
    if extent < RFACTOR_MIN_EXTENT:
        return 0
    # a width of whole vectors that divides the row; else (197 tokens; whisper's 1500 =
    # 4 x 375, where 4 lanes would use a quarter of the vector) the last step guarded: 32
    # lanes where that is 8 steps or more (each vector of partial results is a dependence
    # chain, a max waiting on the one before: whisper's 1500-long softmax rows took 7.1 ms
    # in 16 lanes and 3.9 in 32), else 16; narrower only for rows too short for that
    width = next((w for w in RFACTOR_WIDTHS[:2] if extent % w == 0 and extent // w >= 4), 0)
    width = width or (RFACTOR_WIDTHS[0] if extent // RFACTOR_WIDTHS[0] >= 8 else 0)
    width = width or next((w for w in RFACTOR_WIDTHS[1:] if extent // w >= 4), 0)
    if not width:
        return 0
    dim = len(spatial) + len(reduce) - 1
    axes = op.body.block.args
    for inner in op.body.block.walk():
        if isinstance(inner, memref.LoadOp | affine.ApplyOp):
            return 0  # an index computed as a value
        if isinstance(inner, affine.LoadOp | kernel.LoadOp):
            m = axis_map(inner, inner.map.data, axes)
            if m is None:
                return 0  # a map over computed indices, not over the stage's axes
            if not _unit_stride_last(m.results, dim, m.num_dims):
                return 0
    return width


def _unit_stride_last(results: Sequence[AffineExpr], dim: int, num_dims: int) -> bool:
    """Does `dim` appear only in the last index, as + dim (coefficient 1, no div or mod)?"""
    for i, e in enumerate(results):
        if dim not in e.used_dims():
            continue
        if i != len(results) - 1 or not e.is_pure_affine():
            return False
        point = [3] * num_dims
        m = AffineMap(num_dims, 0, (e,))
        base = m.eval(point, [])[0]
        point[dim] += 1
        if m.eval(point, [])[0] - base != 1:
            return False
    return True
