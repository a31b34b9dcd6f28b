"""The kernel.compute stages of the reductions: reduce_*, arg_max/arg_min, cumsum/cumprod
and top_k.

Every one is a reduction stage (or a short sequence of them) over the reduced axis, so the
scheduler tiles, parallelizes and vectorizes it like any other reduction:

- reduce_*: one stage, `combine` add / mul / max / min from the identity of the
  combination; a mean divides in `then`.
- arg_max / arg_min: the extreme value along the axis (stage `arg_extreme`), then the
  smallest (largest, with select_last_index) position holding it (a min / max reduction of
  positions, a sentinel where it does not hold).
- cumsum / cumprod: element i reduces over the whole axis, taking element r where r <= i
  (r < i exclusive, r >= i reverse) and the identity elsewhere: no scan primitive needed,
  at n^2 / 2 extra terms per row.
- top_k: each element's rank along the axis (how many elements order before it, NaN
  first and ties by position: stage `top_k_rank`), the position whose rank is j for each
  output j (`top_k_indices`), and a gather of the values (`top_k_values`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, f64, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, integer
from tessel.dialects.tg.reduction import ReduceOp
from tessel.ir import dtypes
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    Index,
    compute_type,
    element_of,
    int_type,
    is_unsigned,
    lowest,
    shape_of,
)
from tessel.passes.tg.lowering.stages import (
    KernelBuilder,
    Then,
    _along_axis,
    _axes,
    _stat,
    anchor,
    max_combiner,
    reduce_index,
)

INDEX_NONE = (1 << 63) - 1  # "no position" for a min over positions


def highest(element: Attribute) -> float | int:
    """The identity of min for a tg element type: +inf, the largest integer, or True."""
    if dtypes.is_float(element):
        return math.inf
    if dtypes.is_bool(element):
        return 1
    width = int_type(element).width.data
    return (1 << width) - 1 if is_unsigned(element) else (1 << (width - 1)) - 1


def min_combiner(et: Attribute) -> str:
    """min of signed integers and floats; umin where the bits are read unsigned (or bool)."""
    return "umin" if is_unsigned(et) or dtypes.is_bool(et) else "min"


def as_i64(b: ElementBuilder, position: object) -> SSAValue:
    """An index element (an axis position) as an i64 value."""
    return b.emit(arith.IndexCastOp(b.ssa(position), i64))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- reduce_*

COMBINE = {"sum": ("add", 0), "mean": ("add", 0), "prod": ("mul", 1)}


@anchor(tg.ReduceSumOp, tg.ReduceMeanOp, tg.ReduceMaxOp, tg.ReduceMinOp, tg.ReduceProdOp)
def _reduce(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    assert isinstance(op, ReduceOp)
    x = op.operands[0]
    axes, keepdims = op.reduced_axes, op.keeps_dims
    in_shape = shape_of(x)
    et = element_of(x)
    kind = op.KIND
    acc_t = compute_type(et)
    count = math.prod(in_shape[a] for a in axes)
    if not axes:  # nothing to combine: each element is its own reduction
        kb.elementwise(f"reduce_{kind}", dests[0], et, lambda b, i: then(b, i, b.value(x, i)))
        return

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return b.value(x, reduce_index(s, r, axes, len(in_shape), keepdims))

    def finish(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if kind != "mean":
            return then(b, s, acc)
        if dtypes.is_float(et):
            return then(b, s, b.emit(arith.DivfOp(acc, b.const(float(count), acc_t))))
        assert isinstance(acc_t, IntegerType)
        wide = b.emit(arith.UIToFPOp(acc, f64) if is_unsigned(et) else arith.SIToFPOp(acc, f64))
        mean = b.emit(arith.DivfOp(wide, b.const(float(count), f64)))
        return then(b, s, b.emit(arith.FPToUIOp(mean, acc_t) if is_unsigned(et) else arith.FPToSIOp(mean, acc_t)))

    if kind == "max":
        combine, init = max_combiner(et), lowest(et)
    elif kind == "min":
        combine, init = min_combiner(et), highest(et)
    else:
        combine, init = COMBINE[kind]
    kb.reduction(
        f"reduce_{kind}",
        dests[0],
        et,
        _axes("o", shape_of(op.results[0])),
        [(f"r{d}", in_shape[a]) for d, a in enumerate(axes)],
        combine,
        init,
        acc_t,
        body,
        finish,
    )


# --------------------------------------------------------------------------- arg_max / arg_min


def _is_extreme(b: ElementBuilder, value: SSAValue, extreme: SSAValue, et: Attribute) -> SSAValue:
    """value == extreme; for floats NaN is the extreme (max and min propagate it)."""
    if not dtypes.is_float(et):
        return b.emit(arith.CmpiOp(value, extreme, "eq"))
    equal = b.emit(arith.CmpfOp(value, extreme, "oeq"))
    return b.emit(arith.OrIOp(equal, b.emit(arith.CmpfOp(value, value, "uno"))))


@anchor(tg.ArgMaxOp, tg.ArgMinOp)
def _arg(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    assert isinstance(op, tg.ArgMaxOp | tg.ArgMinOp)
    x = op.operands[0]
    p = op.properties
    axis = integer(p, "axis")
    keepdims = flag(p, "keepdims")
    last = flag(p, "select_last_index")
    et = element_of(x)
    rank = len(shape_of(x))
    largest = isinstance(op, tg.ArgMaxOp)
    combine, init = (max_combiner(et), lowest(et)) if largest else (min_combiner(et), highest(et))
    extreme = _along_axis(kb, x, [axis], "arg_extreme", combine, init, lambda b, i: b.value(x, i))
    none = -1 if last else INDEX_NONE

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        idx = reduce_index(s, r, [axis], rank, keepdims)
        hit = _is_extreme(b, b.value(x, idx), _stat(b, extreme, idx, [axis]), et)
        return b.emit(arith.SelectOp(hit, as_i64(b, r[0]), b.const(none, i64)))

    kb.reduction(
        "arg_max" if largest else "arg_min",
        dests[0],
        i64,
        _axes("o", shape_of(op.results[0])),
        [("r", shape_of(x)[axis])],
        "max" if last else "min",
        none,
        i64,
        body,
        then,
    )


# --------------------------------------------------------------------------- cumsum / cumprod

# which positions r element i takes: (exclusive, reverse) -> predicate of (r, i)
_TAKEN = {(False, False): "sle", (True, False): "slt", (False, True): "sge", (True, True): "sgt"}


@anchor(tg.CumSumOp, tg.CumProdOp)
def _cumulative(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    p = op.properties
    axis = integer(p, "axis")
    predicate = _TAKEN[(flag(p, "exclusive"), flag(p, "reverse"))]
    shape = shape_of(x)
    et = element_of(x)
    acc_t = compute_type(et)
    combine, identity = ("add", 0) if isinstance(op, tg.CumSumOp) else ("mul", 1)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        idx = list(s)
        idx[axis] = r[0]
        taken = b.emit(arith.CmpiOp(b.ssa(r[0]), b.ssa(s[axis]), predicate))
        return b.emit(arith.SelectOp(taken, b.value(x, idx), b.const(identity, acc_t)))

    name = "cumsum" if combine == "add" else "cumprod"
    kb.reduction(name, dests[0], et, _axes("o", shape), [("r", shape[axis])], combine, identity, acc_t, body, then)


# --------------------------------------------------------------------------- top_k


def _orders_before(
    b: ElementBuilder, a: SSAValue, c: SSAValue, a_first: SSAValue, et: Attribute, largest: bool
) -> SSAValue:
    """Does element a come before element c in top_k's order? Larger (smaller) first, NaN
    above every number, equal ones by position (`a_first`: a's position is lower)."""
    if dtypes.is_float(et):
        a_nan = b.emit(arith.CmpfOp(a, a, "uno"))
        c_nan = b.emit(arith.CmpfOp(c, c, "uno"))
        a_num = b.emit(arith.CmpfOp(a, a, "ord"))
        c_num = b.emit(arith.CmpfOp(c, c, "ord"))
        if largest:
            strictly = b.emit(arith.OrIOp(b.emit(arith.CmpfOp(a, c, "ogt")), b.emit(arith.AndIOp(a_nan, c_num))))
        else:
            strictly = b.emit(arith.OrIOp(b.emit(arith.CmpfOp(a, c, "olt")), b.emit(arith.AndIOp(c_nan, a_num))))
        equal = b.emit(arith.OrIOp(b.emit(arith.CmpfOp(a, c, "oeq")), b.emit(arith.AndIOp(a_nan, c_nan))))
    else:
        sign = "u" if is_unsigned(et) else "s"
        strictly = b.emit(arith.CmpiOp(a, c, f"{sign}gt" if largest else f"{sign}lt"))
        equal = b.emit(arith.CmpiOp(a, c, "eq"))
    return b.emit(arith.OrIOp(strictly, b.emit(arith.AndIOp(equal, a_first))))


@anchor(tg.TopKOp)
def _top_k(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    p = op.properties
    axis, k = integer(p, "axis"), integer(p, "k")
    largest = flag(p, "largest", default=True)
    shape = shape_of(x)
    et = element_of(x)
    ranks_t = TensorType(i64, shape)
    ranks = kb.placeholder(ranks_t, kb.temp(ranks_t, "rank"))
    one, zero = 1, 0

    def rank_body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        other = list(s)
        other[axis] = r[0]
        first = b.emit(arith.CmpiOp(b.ssa(r[0]), b.ssa(s[axis]), "slt"))
        before = _orders_before(b, b.value(x, other), b.value(x, s), first, et, largest)
        return b.emit(arith.SelectOp(before, b.const(one, i64), b.const(zero, i64)))

    n = shape[axis]
    kb.reduction("top_k_rank", kb.buffers[ranks], i64, _axes("o", shape), [("r", n)], "add", 0, i64, rank_body)
    out_shape = list(shape)
    out_shape[axis] = k

    def index_body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        src = list(s)
        src[axis] = r[0]
        hit = b.emit(arith.CmpiOp(b.value(ranks, src), as_i64(b, s[axis]), "eq"))
        return b.emit(arith.SelectOp(hit, as_i64(b, r[0]), b.const(zero, i64)))

    kb.reduction("top_k_indices", dests[1], i64, _axes("o", out_shape), [("r", n)], "add", 0, i64, index_body)

    def value(b: ElementBuilder, s: Index) -> SSAValue:
        position = b.emit(arith.IndexCastOp(b.load(dests[1], s, i64), IndexType()))
        src: Index = list(s)
        src[axis] = position
        return b.value(x, src)

    kb.elementwise("top_k_values", dests[0], et, value)
