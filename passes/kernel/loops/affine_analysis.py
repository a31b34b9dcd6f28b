"""Affine index expressions as the loop builder sees them: bounds over the stage's
domain (to drop bounds checks and use unsigned division), and how an index moves across
the lanes of a vector (uniform, contiguous, or gathered)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import AffineMapAttr, MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from tessel.dialects import kernel


def axis_map(load: Operation, m: AffineMap, axes: Sequence[SSAValue]) -> AffineMap | None:
    """The index map `m` of `load` (an op whose memref comes first, then the map's dims and
    symbols), rewritten over the stage's axes: dimension i is `axes[i]`. Built in memory, a
    load's map has every axis as a dim in order; parsed from text, `%w[%n floordiv 16, %k,
    %n mod 16]` is a map of symbols in order of use, (s0 floordiv 16, s1, s0 mod 16): read by
    axis number, the two disagree (dense_packed once looked linear in n). None where an
    operand is not an axis."""
    axes = list(axes)
    operands = load.operands[1 : 1 + m.num_dims + m.num_symbols]
    if len(operands) != m.num_dims + m.num_symbols or any(v not in axes for v in operands):
        return None
    at = [AffineExpr.dimension(axes.index(v)) for v in operands]
    return AffineMap(
        len(axes), 0, tuple(r.replace_dims_and_symbols(at[: m.num_dims], at[m.num_dims :]) for r in m.results)
    )


def dims_only(m: AffineMap) -> tuple[AffineExpr, ...]:
    """The map's results with symbol k renamed to dimension num_dims + k, so that every
    operand (dims, then symbols) is addressed as a dimension."""
    if not m.num_symbols:
        return m.results
    return tuple(
        r.replace_dims_and_symbols(
            [AffineExpr.dimension(i) for i in range(m.num_dims)],
            [AffineExpr.dimension(m.num_dims + i) for i in range(m.num_symbols)],
        )
        for r in m.results
    )


Range = tuple[int, int] | None


def affine_range(e: AffineExpr, ranges: list[Range]) -> Range:
    """Inclusive bounds of e when each dim d lies in ranges[d] (None: unknown)."""
    if isinstance(e, AffineDimExpr):
        return ranges[e.position] if e.position < len(ranges) else None
    if isinstance(e, AffineConstantExpr):
        return (e.value, e.value)
    if not isinstance(e, AffineBinaryOpExpr):  # a symbol
        return None
    a = affine_range(e.lhs, ranges)
    if e.kind is AffineBinaryOpKind.Add:
        b = affine_range(e.rhs, ranges)
        return None if a is None or b is None else (a[0] + b[0], a[1] + b[1])
    if not isinstance(e.rhs, AffineConstantExpr) or a is None:
        return None
    c = e.rhs.value
    match e.kind:
        case AffineBinaryOpKind.Mul:
            return (min(a[0] * c, a[1] * c), max(a[0] * c, a[1] * c))
        case AffineBinaryOpKind.FloorDiv:
            return (a[0] // c, a[1] // c)
        case AffineBinaryOpKind.CeilDiv:
            return (-((-a[0]) // c), -((-a[1]) // c))
        case AffineBinaryOpKind.Mod:
            return (a[0], a[1]) if 0 <= a[0] and a[1] < c else (0, c - 1)
    return None


def linear_coefficient(e: AffineExpr, dim: int) -> int | None:
    """d e / d dim when e is linear in dim (no floordiv/mod of it), else None."""
    if isinstance(e, AffineDimExpr):
        return 1 if e.position == dim else 0
    if isinstance(e, AffineConstantExpr):
        return 0
    assert isinstance(e, AffineBinaryOpExpr)
    lhs, rhs = linear_coefficient(e.lhs, dim), linear_coefficient(e.rhs, dim)
    if lhs is None or rhs is None:
        return None
    match e.kind:
        case AffineBinaryOpKind.Add:
            return lhs + rhs
        case AffineBinaryOpKind.Mul:
            if isinstance(e.rhs, AffineConstantExpr):
                return lhs * e.rhs.value
            if isinstance(e.lhs, AffineConstantExpr):
                return rhs * e.lhs.value
            return None
        case _:
            return 0 if lhs == 0 and rhs == 0 else None


def aligned_lane_coefficient(e: AffineExpr, dim: int, width: int) -> int | None:
    """d e / d lane for the lanes `dim = base + lane`, 0 <= lane < width, where base is a
    multiple of `width` (the vector loop starts aligned), or None when not linear.

    Unlike linear_coefficient this sees through floordiv and mod by multiples of the
    width: the lanes of `(dim + R) floordiv c` are equal and those of `(dim + R) mod c`
    consecutive when R is a multiple of the width, which is what blocked layouts index
    with (x[n floordiv 16, k, n mod 16] is a contiguous vector)."""

    def walk(x: AffineExpr) -> tuple[int, bool] | None:
        # (coefficient of the lane, whether the rest is a known multiple of width)
        if isinstance(x, AffineDimExpr):
            return (1, True) if x.position == dim else (0, False)
        if isinstance(x, AffineConstantExpr):
            return 0, x.value % width == 0
        assert isinstance(x, AffineBinaryOpExpr)
        a = walk(x.lhs)
        if a is None:
            return None
        if x.kind is AffineBinaryOpKind.Add:
            b = walk(x.rhs)
            return None if b is None else (a[0] + b[0], a[1] and b[1])
        if not isinstance(x.rhs, AffineConstantExpr):
            return None
        c = x.rhs.value
        if x.kind is AffineBinaryOpKind.Mul:
            return a[0] * c, a[1] or c % width == 0
        if c == 1 and x.kind in (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.Mod):
            return a if x.kind is AffineBinaryOpKind.FloorDiv else (0, True)
        if a[0] == 0:
            return 0, False
        if a[0] != 1 or not a[1] or c <= 0 or c % width:
            return None
        if x.kind is AffineBinaryOpKind.FloorDiv:
            return 0, False
        if x.kind is AffineBinaryOpKind.Mod:
            return 1, True
        return None

    result = walk(e)
    return None if result is None else result[0]


def element_bytes(t: MemRefType) -> int:
    """Bytes of one element of `t` (a byte at least; 4 where its type has no bit width)."""
    return max(1, int(getattr(t.element_type, "bitwidth", None) or 32) // 8)


def affine_reads(op: kernel.ComputeOp) -> tuple[list[tuple[set[int], int, int]], bool]:
    """The body's affine loads, each as (the axes its indices use, its buffer's bytes, its
    element's bytes), and whether every index of every load is an axis itself (not a value
    computed in the body)."""
    block = op.body.block
    if block is None:
        return [], False
    axes: list[SSAValue] = list(block.args)
    reads: list[tuple[set[int], int, int]] = []
    exact = True
    for inner in block.walk():
        m = inner.properties.get("map") or inner.attributes.get("map")
        if not isinstance(m, AffineMapAttr) or not isinstance(inner.operands[0].type, MemRefType):
            exact = exact and inner.name not in ("memref.load", "affine.apply")
            continue
        t = inner.operands[0].type
        dims = inner.operands[1 : 1 + m.data.num_dims + m.data.num_symbols]
        exact = exact and all(d in axes for d in dims)
        used = {i for e in dims_only(m.data) for i in e.used_dims()}
        element = element_bytes(t)
        reads.append(
            (
                {axes.index(d) for i, d in enumerate(dims) if i in used and d in axes},
                math.prod(t.get_shape()) * element,
                element,
            )
        )
    return reads, exact
