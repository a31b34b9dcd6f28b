"""Emitting index arithmetic and ops into a block, folding what is constant."""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr

from tessel.passes.kernel.loops.affine_analysis import Range, affine_range

INDEX = IndexType()
Index = int | SSAValue  # a value of index arithmetic: an int where it folds to a constant


@functools.cache
def vector_of(element: Attribute, n: int) -> VectorType:
    """vector<n x element>, made once: kernel-to-loops asks for the same few vector types
    thousands of times (ResNet-18: 1.9k), and each new one is built and verified anew."""
    return VectorType(element, [n])


@functools.cache
def index_attr(value: int) -> IntegerAttr:
    """`value : index`, made once (as vector_of: a constant is asked for in every block)."""
    return IntegerAttr(value, INDEX)


def cmpi(a: SSAValue, b: SSAValue, predicate: str) -> Operation:
    """arith.cmpi whose result is a vector of i1 for vector operands (xDSL's builder
    always makes it a scalar)."""
    op = arith.CmpiOp(a, b, predicate)
    if isinstance(a.type, VectorType):
        op = arith.CmpiOp.create(
            operands=[a, b], result_types=[VectorType(i1, a.type.get_shape())], properties=dict(op.properties)
        )
    return op


def zero_attr(t: Attribute) -> Attribute:
    """The zero of an integer, index or float type (a padded load's default pad)."""
    if isinstance(t, IntegerType | IndexType):
        return IntegerAttr(0, t)
    assert isinstance(t, AnyFloat)
    return FloatAttr(0.0, t)


def vector_element(v: SSAValue) -> Attribute:
    """The element type of a vector value."""
    assert isinstance(v.type, VectorType)
    return v.type.element_type


@dataclass
class Emitter:
    """Appends ops to the current block; folds index arithmetic on constants."""

    block: Block
    consts: dict[tuple, SSAValue] = field(default_factory=dict)
    # index arithmetic already emitted into this block, by (op, operands): a register tile's
    # points compute the same row and column indices (14 x 2 points, 2 distinct rows of
    # each); emitting each once keeps the loop IR (and the compile) from growing with them
    _arith: dict[tuple[str, SSAValue, SSAValue], SSAValue] = field(default_factory=dict)
    # pure ops already emitted into this block, by a key their maker chooses (`once`)
    _pure: dict[tuple, SSAValue] = field(default_factory=dict)

    def emit(self, op: Operation) -> SSAValue:
        """Append `op` and return its (first) result."""
        self.block.add_op(op)
        return op.results[0]

    def put(self, op: Operation) -> None:
        """Append `op`, whose results (if any) are not used: a store, a loop, a barrier."""
        self.block.add_op(op)

    def once(self, key: tuple, make: Callable[[], Operation]) -> SSAValue:
        """The result of `make()`, emitted the first time `key` is asked for in this block:
        a register tile's 28 points read 14 input elements and 2 weight vectors, and each
        broadcast or load was emitted once per point, for LLVM to merge again."""
        if key not in self._pure:
            self._pure[key] = self.emit(make())
        return self._pure[key]

    def index(self, value: int) -> SSAValue:
        # (_const_key's key, without building the attribute unless it is new)
        return self._constant((INDEX, value), lambda: index_attr(value))

    def const(self, attr: Attribute) -> SSAValue:
        assert isinstance(attr, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr | DenseResourceAttr)
        return self._constant(_const_key(attr), lambda: attr)

    def _constant(
        self, key: tuple, make: Callable[[], IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr | DenseResourceAttr]
    ) -> SSAValue:
        """The constant `key` names, emitted once per block."""
        full = (id(self.block), *key)
        found = self.consts.get(full)
        if found is None:
            found = self.consts[full] = self.emit(arith.ConstantOp(make()))
        return found

    def _index_op(self, cls: type[arith.SignlessIntegerBinaryOperation], a: SSAValue, b: SSAValue) -> SSAValue:
        """cls(a, b) on index values, emitted once per block."""
        key = (cls.name, a, b)
        if key not in self._arith:
            self._arith[key] = self.emit(cls(a, b))
        return self._arith[key]

    # index arithmetic on int | SSAValue, folding constants
    def add(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self._index_op(arith.AddiOp, self.ssa(a), self.ssa(b))

    def mul(self, a: Index, c: int) -> Index:
        if isinstance(a, int):
            return a * c
        if c == 1:
            return a
        if c == 0:
            return 0
        return self._index_op(arith.MuliOp, a, self.index(c))

    def floordiv(self, a: Index, c: int) -> Index:
        if isinstance(a, int):
            return a // c
        return a if c == 1 else self._index_op(arith.FloorDivSIOp, a, self.index(c))

    def ceildiv(self, a: Index, c: int) -> Index:
        if isinstance(a, int):
            return -((-a) // c)
        return a if c == 1 else self._index_op(arith.CeilDivSIOp, a, self.index(c))

    def mod(self, a: Index, c: int) -> Index:
        if isinstance(a, int):
            return a % c
        q = self.floordiv(a, c)
        return self._index_op(arith.SubiOp, a, self.ssa(self.mul(q, c)))

    def ssa(self, a: Index) -> SSAValue:
        return self.index(a) if isinstance(a, int) else a

    def affine(self, e: AffineExpr, dims: Sequence[Index], ranges: list[Range] | None = None) -> Index:
        """e as index arithmetic; with `ranges` (bounds of the dims), divisions of values
        known to be non-negative are unsigned (shifts and masks for powers of two).

        A composed index map is a tree whose subtrees are shared objects (a reshape's
        expression substituted for every use of a dim): each is emitted once, so the code
        grows with the DAG, not the tree (a rotary embedding's interleave -> concat ->
        reshape chain was 500 ops an index, 45 s of kernel-to-loops for 96 elements)."""
        return self._affine(e, dims, ranges, {})

    def _affine(
        self, e: AffineExpr, dims: Sequence[Index], ranges: list[Range] | None, seen: dict[int, Index]
    ) -> Index:
        if isinstance(e, AffineDimExpr):
            return dims[e.position]
        if isinstance(e, AffineConstantExpr):
            return e.value
        assert isinstance(e, AffineBinaryOpExpr)
        if id(e) not in seen:
            seen[id(e)] = self._binary(e, dims, ranges, seen)
        return seen[id(e)]

    def _binary(
        self, e: AffineBinaryOpExpr, dims: Sequence[Index], ranges: list[Range] | None, seen: dict[int, Index]
    ) -> Index:
        lhs = self._affine(e.lhs, dims, ranges, seen)
        if e.kind is AffineBinaryOpKind.Add:
            return self.add(lhs, self._affine(e.rhs, dims, ranges, seen))
        rhs = e.rhs
        if e.kind is AffineBinaryOpKind.Mul:
            if isinstance(rhs, AffineConstantExpr):
                return self.mul(lhs, rhs.value)
            other = self._affine(rhs, dims, ranges, seen)
            if isinstance(lhs, int):
                return self.mul(other, lhs)
            if isinstance(other, int):
                return self.mul(lhs, other)
            return self._index_op(arith.MuliOp, lhs, other)
        assert isinstance(rhs, AffineConstantExpr), "affine divisors are constants"
        bounds = affine_range(e.lhs, ranges) if ranges is not None else None
        if (
            bounds is not None
            and bounds[0] >= 0
            and not isinstance(lhs, int)
            and e.kind is not AffineBinaryOpKind.CeilDiv
        ):
            if rhs.value == 1:
                return lhs if e.kind is AffineBinaryOpKind.FloorDiv else 0
            cls = arith.DivUIOp if e.kind is AffineBinaryOpKind.FloorDiv else arith.RemUIOp
            return self._index_op(cls, lhs, self.index(rhs.value))
        return {
            AffineBinaryOpKind.FloorDiv: self.floordiv,
            AffineBinaryOpKind.CeilDiv: self.ceildiv,
            AffineBinaryOpKind.Mod: self.mod,
        }[e.kind](lhs, rhs.value)


def _const_key(attr: Attribute) -> tuple:
    """What tells two constants apart: type and value, a float by its bits (0.0 and -0.0
    differ, a NaN equals itself); other attributes by their text. (Printing every scalar
    constant for its key took a sixth of ResNet-18's kernel-to-loops.)"""
    if isinstance(attr, IntegerAttr):
        return (attr.type, attr.value.data)
    if isinstance(attr, FloatAttr):
        return (attr.type, struct.pack("<d", attr.value.data))
    return ("text", str(attr))
