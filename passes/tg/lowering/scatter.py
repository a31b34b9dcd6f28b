"""Scatters as reductions over their updates: each output element gathers the updates
aimed at it, so the stage writes every element once, in parallel, with no atomics.

    out[p] = then(p, combine over u of (index(u) names p ? update(u) : identity))

The reduction runs over the updates that could name p: for scatter_elements only those
along `axis` (the other coordinates of an update are p's own), for scatter_nd every index
tuple. Its cost is one index comparison per (output element, candidate update); a scatter
of few updates into a large tensor (a KV-cache write) stays cheap, an all-to-all one is
quadratic in the updates along the axis.

`reduction = "none"` keeps the last update in ONNX's order: the stage finds the greatest
position of a matching update (combine "max" from -1) and its then region reads that
update, or the data where none matched. The other reductions combine the matching updates
from the combiner's identity and the then region applies the result to the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import integer
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import Index, IndexElem, delinear, linear
from tessel.passes.tg.lowering.indexing import INDEX, all_of, index_of, read_at
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    compute_type,
    element_of,
    int_type,
    is_unsigned,
    lowest,
    shape_of,
)
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, anchor

NONE_FOUND = -1

# (builder, output index s, candidate index r) -> (i1: the candidate names s, its update's index)
Match = Callable[[ElementBuilder, Index, Index], tuple[SSAValue, Index]]
# (builder, output index s, a found candidate's index) -> its update's index
UpdateAt = Callable[[ElementBuilder, Index, Index], Index]


def highest(element: Attribute) -> float | int:
    """The identity of min for a tg element type: +inf, the largest integer, or True."""
    if dtypes.is_float(element):
        return math.inf
    width = int_type(element).width.data
    if dtypes.is_bool(element):
        return 1
    return (1 << width) - 1 if is_unsigned(element) else (1 << (width - 1)) - 1


def _identity(reduction: str, element: Attribute) -> float | int:
    return {"add": 0, "mul": 1, "max": lowest(element), "min": highest(element)}[reduction]


def _combiner(reduction: str, element: Attribute) -> str:
    if reduction in ("max", "min") and (is_unsigned(element) or dtypes.is_bool(element)):
        return "u" + reduction
    return reduction


def _apply(b: ElementBuilder, reduction: str, element: Attribute, x: SSAValue, y: SSAValue) -> SSAValue:
    """x combined with y by `reduction`, in the compute type of `element`."""
    if dtypes.is_float(element):
        cls = {"add": arith.AddfOp, "mul": arith.MulfOp, "max": arith.MaximumfOp, "min": arith.MinimumfOp}
        return b.emit(cls[reduction](x, y))
    unsigned = is_unsigned(element) or dtypes.is_bool(element)
    ints = {
        "add": arith.AddiOp,
        "mul": arith.MuliOp,
        "max": arith.MaxUIOp if unsigned else arith.MaxSIOp,
        "min": arith.MinUIOp if unsigned else arith.MinSIOp,
    }
    return b.emit(ints[reduction](x, y))


def _scatter(
    kb: KernelBuilder,
    op: Operation,
    dests: list[SSAValue],
    then: Then,
    candidates: list[tuple[str, int]],
    match: Match,
    update_at: UpdateAt,
) -> None:
    """The stage of a scatter: reduce over `candidates` (the positions of the updates that
    may name an output element s); `match` says whether the candidate at r names s and
    where its update is, `update_at` where the update at a found position is."""
    data, _, updates = op.operands
    assert isinstance(op, tg.ScatterElementsOp | tg.ScatterNdOp)
    reduction = op.reduction.data
    et = element_of(data)
    spatial = [(f"o{d}", n) for d, n in enumerate(shape_of(data))]
    extents = [n for _, n in candidates]

    if reduction == "none":

        def last(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
            hit, _ = match(b, s, r)
            position = b.emit(arith.IndexCastOp(b.ssa(linear(b, r, extents)), i64))
            return b.emit(arith.SelectOp(hit, position, b.const(NONE_FOUND, i64)))

        def write(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
            found = b.emit(arith.CmpiOp(acc, b.const(0, i64), "sge"))
            position = delinear(b, b.emit(arith.IndexCastOp(acc, INDEX)), extents)
            update = read_at(b, updates, update_at(b, s, position), found)
            return then(b, s, b.emit(arith.SelectOp(found, update, b.value(data, s))))

        kb.reduction("scatter", dests[0], et, spatial, candidates, "max", NONE_FOUND, i64, last, write)
        return

    acc_t = compute_type(et)
    identity = _identity(reduction, et)

    def term(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        hit, at = match(b, s, r)
        update = read_at(b, updates, at, hit)
        return b.emit(arith.SelectOp(hit, update, b.const(identity, acc_t)))

    def apply(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, _apply(b, reduction, et, b.value(data, s), acc))

    combine = _combiner(reduction, et)
    kb.reduction(f"scatter_{reduction}", dests[0], et, spatial, candidates, combine, identity, acc_t, term, apply)


@anchor(tg.ScatterElementsOp)
def _scatter_elements(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Output p takes the updates u = p with u[axis] = j, for j along the indices' axis,
    whose index is p[axis] (and none where p lies outside the indices' extent)."""
    data, indices, _ = op.operands
    axis = integer(op.properties, "axis")
    shape, index_shape = shape_of(data), shape_of(indices)

    def position(s: Index, j: IndexElem) -> Index:
        return [j if d == axis else e for d, e in enumerate(s)]

    def match(b: ElementBuilder, s: Index, r: Index) -> tuple[SSAValue, Index]:
        at = position(s, r[0])
        narrower = [
            b.emit(arith.CmpiOp(b.ssa(s[d]), b.const(index_shape[d], INDEX), "slt"))
            for d in range(len(shape))
            if d != axis and index_shape[d] < shape[d]
        ]
        fits = all_of(b, narrower)
        i = index_of(b, read_at(b, indices, at, fits), shape[axis])
        hit = b.emit(arith.CmpiOp(i, b.ssa(s[axis]), "eq"))
        return (hit if fits is None else b.emit(arith.AndIOp(fits, hit))), at

    def update_at(b: ElementBuilder, s: Index, found: Index) -> Index:
        return position(s, found[0])

    _scatter(kb, op, dests, then, [("j", index_shape[axis])], match, update_at)


@anchor(tg.ScatterNdOp)
def _scatter_nd(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """Output p = (lead, rest) takes update u (over indices.shape[:-1]) where the index
    tuple indices[u, :] is lead."""
    data, indices, _ = op.operands
    shape, index_shape = shape_of(data), shape_of(indices)
    k = index_shape[-1]
    tuples = [(f"u{d}", n) for d, n in enumerate(index_shape[:-1])] or [("u", 1)]
    real = len(index_shape) > 1  # a rank-1 index tensor is one tuple: the axis u is a stand-in

    def match(b: ElementBuilder, s: Index, r: Index) -> tuple[SSAValue, Index]:
        u = r if real else []
        hits = []
        for j in range(k):
            c = index_of(b, b.value(indices, [*u, AffineExpr.constant(j)]), shape[j])
            hits.append(b.emit(arith.CmpiOp(c, b.ssa(s[j]), "eq")))
        hit = all_of(b, hits)
        assert hit is not None
        return hit, [*u, *s[k:]]

    def update_at(b: ElementBuilder, s: Index, found: Index) -> Index:
        return [*(found if real else []), *s[k:]]

    _scatter(kb, op, dests, then, tuples, match, update_at)
