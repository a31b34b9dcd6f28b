"""Index maps of element-wise lowering: broadcasting, flattening and unflattening indices,
affine functions of index elements (affine expressions, or affine.apply over SSA values)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

# One index element: an affine expression of the region's axes, or an SSA index value
# (where the index is data: a gather, a guarded read).
IndexElem = AffineExpr | SSAValue
Index = list[IndexElem]


def expr(e: IndexElem) -> AffineExpr:
    """An index element known to be affine (the axes of a stage)."""
    assert isinstance(e, AffineExpr), e
    return e


class ElementBuilder(Protocol):
    """What index arithmetic needs of the builder of a compute region (scalar.py)."""

    def emit(self, op: Operation) -> SSAValue: ...

    def ssa(self, e: IndexElem) -> SSAValue: ...


def broadcast_index(idx: Index, operand_shape: Sequence[int], result_shape: Sequence[int]) -> Index:
    """numpy broadcasting: leading dims dropped, size-1 dims read at 0."""
    offset = len(result_shape) - len(operand_shape)
    return [
        AffineExpr.constant(0) if n == 1 and result_shape[offset + i] != 1 else idx[offset + i]
        for i, n in enumerate(operand_shape)
    ]


def affine_op(b: ElementBuilder, e: IndexElem, fn: Callable[[AffineExpr], AffineExpr]) -> IndexElem:
    """Apply an affine function to an index element, through affine.apply if it is SSA."""
    if isinstance(e, SSAValue):
        m = AffineMap(1, 0, (fn(AffineExpr.dimension(0)),))
        return b.emit(affine.ApplyOp([e], AffineMapAttr(m)))
    return fn(e)


def linear(b: ElementBuilder, idx: Index, shape: Sequence[int]) -> IndexElem:
    if any(isinstance(e, SSAValue) for e in idx):
        operands = [b.ssa(e) for e in idx]
        dims = [AffineExpr.dimension(i) for i in range(len(operands))]
        flat = _linear_expr(dims, shape)
        return b.emit(affine.ApplyOp(operands, AffineMapAttr(AffineMap(len(operands), 0, (flat,)))))
    return _linear_expr([expr(e) for e in idx], shape)


def _linear_expr(idx: Sequence[AffineExpr], shape: Sequence[int]) -> AffineExpr:
    expr = AffineExpr.constant(0)
    stride = 1
    for i in reversed(range(len(shape))):
        expr = expr + idx[i] * stride
        stride *= shape[i]
    return expr


def delinear(b: ElementBuilder, flat: IndexElem, shape: Sequence[int]) -> Index:
    if 0 in shape:
        return [AffineExpr.constant(0)] * len(shape)  # no elements: never read
    out: Index = []
    stride = math.prod(shape)
    for n in shape:
        stride //= n
        out.append(affine_op(b, flat, _digit(stride, n)) if n > 1 else AffineExpr.constant(0))
    return out


def _digit(stride: int, n: int) -> Callable[[AffineExpr], AffineExpr]:
    """e -> (e // stride) % n: one digit of a mixed-radix index."""
    return lambda e: (e // stride) % n


def minus(a: int) -> Callable[[AffineExpr], AffineExpr]:
    """e -> e - a, bound to this a (for affine_op in a loop)."""
    return lambda e: e - a


def times_plus(k: int, a: int) -> Callable[[AffineExpr], AffineExpr]:
    """e -> e * k + a, bound to these k and a (for affine_op in a loop)."""
    return lambda e: e * k + a


def affine_n(b: ElementBuilder, elems: Sequence[IndexElem], fn: Callable[..., AffineExpr]) -> IndexElem:
    """fn of several index elements: an affine expression, or affine.apply over SSA ones."""
    if not any(isinstance(e, SSAValue) for e in elems):
        return fn(*elems)
    operands = [b.ssa(e) for e in elems]
    m = AffineMap(len(operands), 0, (fn(*[AffineExpr.dimension(i) for i in range(len(operands))]),))
    return b.emit(affine.ApplyOp(operands, AffineMapAttr(m)))
